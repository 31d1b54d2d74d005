// Reference kernels of the selection family (docs/ops.md, "Selection"): non_zero,
// compress, unique and non_max_suppression. Each writes a fixed-capacity output and, as
// its last output, an i64 scalar count of the entries that are real; everything past the
// count is written as zero, so that a result never depends on what the buffers held.
//
// Semantics decisions beyond ONNX's text:
// - non_zero: a float is non-zero when it compares unequal to 0, so NaN is non-zero and
//   -0 is zero (NumPy's and onnxruntime's `value != 0`).
// - compress: condition entries past the axis's length are ignored (onnxruntime).
// - unique: elements compare in one total order: integers and bool by value, floats by
//   value with -0 equal to +0 and every NaN equal to every other NaN and above +inf
//   (NumPy's np.unique, which sorts NaN last and, since 1.21, returns it once). Slices
//   compare lexicographically in row-major order. y holds the bytes of each value's (or
//   slice's) first occurrence, which is the one `indices` names.
// - non_max_suppression: as onnxruntime's CPU kernel (boxes by descending score, equal
//   scores by ascending box index; a candidate is dropped when its IoU with a box already
//   selected for its class is above iou_threshold; score_threshold keeps scores strictly
//   above it), computed in double. A NaN score ranks above every number (as in topk); a
//   box with a NaN coordinate overlaps nothing.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "ref/movement_helpers.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

using namespace movement;  // NOLINT(build/namespaces): Product, CopyBytes, ElemSize

// Zeroes every output, so that whatever a kernel leaves past the count is defined.
void ZeroOutputs(const KernelContext& ctx) {
  for (const TensorView& out : ctx.outputs) {
    if (out.count() > 0) {
      std::memset(out.data, 0, static_cast<size_t>(out.count()) * ElemSize(out.dtype()));
    }
  }
}

void StoreI64(const TensorView& out, int64_t i, int64_t value) {
  std::memcpy(out.data + i * 8, &value, 8);
}

// The count, the last output of every selection op.
void WriteCount(const KernelContext& ctx, int64_t count) { StoreI64(ctx.outputs.back(), 0, count); }

// Whether element i of x is non-zero (NaN is; -0 is not).
bool IsNonZero(const ConstTensorView& x, int64_t i) {
  if (IsFloat(x.dtype())) return LoadFloat(x.dtype(), x.data, i) != 0.0;
  return LoadInt(x.dtype(), x.data, i) != 0;
}

// ---- non_zero ----

// indices [rank, numel]: column j < count holds the coordinates of the j-th non-zero
// element in row-major order.
Status NonZero(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& indices = ctx.outputs[0];
  ZeroOutputs(ctx);
  const int64_t numel = x.count();
  const auto rank = static_cast<size_t>(x.rank());
  Odometer it(x.shape());
  int64_t count = 0;
  for (int64_t i = 0; i < numel; ++i, it.Next()) {
    if (!IsNonZero(x, i)) continue;
    for (size_t d = 0; d < rank; ++d) {
      StoreI64(indices, static_cast<int64_t>(d) * numel + count, it.index()[d]);
    }
    ++count;
  }
  WriteCount(ctx, count);
  return Status::Ok();
}

// ---- compress, unique ----

// x as [outer, n, inner] around the `axis` attribute; [1, numel, 1] without one (the
// ONNX ops then work on x flattened).
struct AxisSplit {
  int64_t outer = 1, n = 0, inner = 1;
};
AxisSplit AroundAxis(const KernelContext& ctx, const ConstTensorView& x) {
  if (!ctx.attrs.Has("axis")) return {1, x.count(), 1};
  const auto axis = static_cast<size_t>(Axis(ctx.attrs.GetInt("axis"), x.rank()));
  return {Product(x.shape(), 0, axis), x.shape()[axis],
          Product(x.shape(), axis + 1, x.shape().size())};
}

// x viewed as [outer, n, inner] around the axis (flattened: [1, numel, 1]); y as [outer,
// capacity, inner], whose first `count` slices along the middle dim are the selected ones.
Status Compress(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& condition = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  ZeroOutputs(ctx);
  const auto [outer, n, inner] = AroundAxis(ctx, x);
  const int64_t capacity = std::min(n, condition.count());  // longer conditions: ignored
  std::vector<int64_t> selected;
  for (int64_t j = 0; j < capacity; ++j) {
    if (LoadInt(DType::kBool, condition.data, j) != 0) selected.push_back(j);
  }
  const size_t chunk = static_cast<size_t>(inner) * ElemSize(x.dtype());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < selected.size(); ++k) {
      CopyBytes(y.data + (static_cast<size_t>(o * capacity) + k) * chunk,
                x.data + static_cast<size_t>(o * n + selected[k]) * chunk, chunk);
    }
  }
  WriteCount(ctx, static_cast<int64_t>(selected.size()));
  return Status::Ok();
}

// ---- unique ----

// -1, 0 or 1 in unique's total order (-0 == +0; NaN == NaN, above everything else).
int CompareFloat(double a, double b) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

// The slices of x along the axis (elements when flattened), as the values unique
// compares: x viewed as [outer, n, inner]; slice i is every (o, i, r), row-major.
template <typename T>
class Slices {
 public:
  Slices(std::vector<T> values, int64_t outer, int64_t n, int64_t inner)
      : values_(std::move(values)), outer_(outer), n_(n), inner_(inner) {}

  // Lexicographic comparison of slices a and b.
  int Compare(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < outer_; ++o) {
      const size_t base = static_cast<size_t>(o * n_);
      for (int64_t r = 0; r < inner_; ++r) {
        const T va = values_[(base + static_cast<size_t>(a)) * static_cast<size_t>(inner_) +
                             static_cast<size_t>(r)];
        const T vb = values_[(base + static_cast<size_t>(b)) * static_cast<size_t>(inner_) +
                             static_cast<size_t>(r)];
        const int c = CompareValues(va, vb);
        if (c != 0) return c;
      }
    }
    return 0;
  }

 private:
  static int CompareValues(double a, double b) { return CompareFloat(a, b); }
  static int CompareValues(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

  std::vector<T> values_;
  int64_t outer_, n_, inner_;
};

// The groups of equal slices: first[k] (the slice that opens group k), counts[k], and
// for every slice its group, groups numbered in unique's output order (sorted ascending,
// or by first occurrence).
struct UniqueGroups {
  std::vector<int64_t> first, counts, inverse;
};

template <typename T>
UniqueGroups GroupSlices(const Slices<T>& slices, int64_t n, bool sorted) {
  // A stable sort keeps equal slices in index order, so each group opens with its first
  // occurrence.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return slices.Compare(a, b) < 0; });
  UniqueGroups g;
  g.inverse.assign(static_cast<size_t>(n), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || slices.Compare(order[i - 1], order[i]) != 0) {
      g.first.push_back(order[i]);
      g.counts.push_back(0);
    }
    g.inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(g.first.size()) - 1;
    ++g.counts.back();
  }
  if (sorted) return g;
  // Renumber the groups by first occurrence.
  std::vector<int64_t> by_first(g.first.size());
  std::iota(by_first.begin(), by_first.end(), int64_t{0});
  std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
    return g.first[static_cast<size_t>(a)] < g.first[static_cast<size_t>(b)];
  });
  std::vector<int64_t> rank(by_first.size());
  UniqueGroups r;
  for (size_t k = 0; k < by_first.size(); ++k) {
    rank[static_cast<size_t>(by_first[k])] = static_cast<int64_t>(k);
    r.first.push_back(g.first[static_cast<size_t>(by_first[k])]);
    r.counts.push_back(g.counts[static_cast<size_t>(by_first[k])]);
  }
  r.inverse.resize(g.inverse.size());
  for (size_t i = 0; i < g.inverse.size(); ++i) {
    r.inverse[i] = rank[static_cast<size_t>(g.inverse[i])];
  }
  return r;
}

// Outputs: y (x's shape with the axis as capacity, or [numel]), indices, inverse_indices
// and counts ([n] each), count.
Status Unique(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  ZeroOutputs(ctx);
  const auto [outer, n, inner] = AroundAxis(ctx, x);
  const bool sorted = ctx.attrs.GetInt("sorted") != 0;
  UniqueGroups g;
  if (IsFloat(x.dtype())) {
    std::vector<double> values(static_cast<size_t>(x.count()));
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = LoadFloat(x.dtype(), x.data, static_cast<int64_t>(i));
    }
    g = GroupSlices(Slices<double>(std::move(values), outer, n, inner), n, sorted);
  } else {
    std::vector<int64_t> values(static_cast<size_t>(x.count()));
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = LoadInt(x.dtype(), x.data, static_cast<int64_t>(i));
    }
    g = GroupSlices(Slices<int64_t>(std::move(values), outer, n, inner), n, sorted);
  }
  // y[o, k, :] = x[o, first[k], :]: the first occurrence's bytes.
  const TensorView& y = ctx.outputs[0];
  const size_t chunk = static_cast<size_t>(inner) * ElemSize(x.dtype());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < g.first.size(); ++k) {
      CopyBytes(y.data + (static_cast<size_t>(o * n) + k) * chunk,
                x.data + static_cast<size_t>(o * n + g.first[k]) * chunk, chunk);
    }
  }
  for (size_t k = 0; k < g.first.size(); ++k) {
    StoreI64(ctx.outputs[1], static_cast<int64_t>(k), g.first[k]);
    StoreI64(ctx.outputs[3], static_cast<int64_t>(k), g.counts[k]);
  }
  for (size_t i = 0; i < g.inverse.size(); ++i) {
    StoreI64(ctx.outputs[2], static_cast<int64_t>(i), g.inverse[i]);
  }
  WriteCount(ctx, static_cast<int64_t>(g.first.size()));
  return Status::Ok();
}

// ---- non_max_suppression ----

// One box as corners and area, from [y1, x1, y2, x2] (any two opposite corners) or, with
// center_point_box, [x_center, y_center, width, height].
struct Box {
  double y_min, x_min, y_max, x_max, area;
  bool has_nan;
};

Box LoadBox(DType dtype, const std::byte* boxes, int64_t index, bool center_point_box) {
  double v[4];
  for (int64_t c = 0; c < 4; ++c) v[c] = LoadFloat(dtype, boxes, index * 4 + c);
  Box b{};
  b.has_nan = std::isnan(v[0]) || std::isnan(v[1]) || std::isnan(v[2]) || std::isnan(v[3]);
  if (center_point_box) {
    b.x_min = v[0] - v[2] / 2;
    b.x_max = v[0] + v[2] / 2;
    b.y_min = v[1] - v[3] / 2;
    b.y_max = v[1] + v[3] / 2;
    b.area = v[2] * v[3];
  } else {
    b.y_min = std::min(v[0], v[2]);
    b.y_max = std::max(v[0], v[2]);
    b.x_min = std::min(v[1], v[3]);
    b.x_max = std::max(v[1], v[3]);
    b.area = (b.y_max - b.y_min) * (b.x_max - b.x_min);
  }
  return b;
}

// Whether `a` and `b` overlap by more than `threshold` (intersection over union). Boxes
// that do not intersect with a positive area never do (onnxruntime's early returns).
bool Suppresses(const Box& a, const Box& b, double threshold) {
  if (a.has_nan || b.has_nan) return false;
  const double x_min = std::max(a.x_min, b.x_min), x_max = std::min(a.x_max, b.x_max);
  if (x_max <= x_min) return false;
  const double y_min = std::max(a.y_min, b.y_min), y_max = std::min(a.y_max, b.y_max);
  if (y_max <= y_min) return false;
  const double intersection = (x_max - x_min) * (y_max - y_min);
  if (!(intersection > 0)) return false;
  const double iou = intersection / (a.area + b.area - intersection);
  return iou > threshold;  // false for NaN (inf / inf)
}

// Whether candidate a (score sa) comes before b (score sb): descending score, NaN first,
// ties by ascending index.
bool RanksBefore(double sa, int64_t a, double sb, int64_t b) {
  const bool a_nan = std::isnan(sa), b_nan = std::isnan(sb);
  if (a_nan != b_nan) return a_nan;
  if (!a_nan && sa != sb) return sa > sb;
  return a < b;
}

// selected_indices [capacity, 3]: rows (batch, class, box) per batch, per class, in the
// order of selection.
Status NonMaxSuppression(const KernelContext& ctx) {
  const ConstTensorView& boxes = ctx.inputs[0];
  const ConstTensorView& scores = ctx.inputs[1];
  const TensorView& out = ctx.outputs[0];
  ZeroOutputs(ctx);
  const int64_t batches = scores.shape()[0], classes = scores.shape()[1], n = scores.shape()[2];
  const int64_t per_class =
      std::clamp<int64_t>(ctx.attrs.GetInt("max_output_boxes_per_class"), 0, n);
  const double iou_threshold = ctx.attrs.GetFloat("iou_threshold");
  const bool has_score_threshold = ctx.attrs.Has("score_threshold");
  const double score_threshold = has_score_threshold ? ctx.attrs.GetFloat("score_threshold") : 0;
  const bool center = ctx.attrs.GetInt("center_point_box") != 0;
  const DType dt = boxes.dtype();
  int64_t count = 0;
  std::vector<Box> batch_boxes(static_cast<size_t>(n));
  std::vector<double> score(static_cast<size_t>(n));
  std::vector<int64_t> candidates;
  std::vector<int64_t> selected;
  for (int64_t b = 0; b < batches && per_class > 0; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      batch_boxes[static_cast<size_t>(i)] = LoadBox(dt, boxes.data, b * n + i, center);
    }
    for (int64_t c = 0; c < classes; ++c) {
      candidates.clear();
      for (int64_t i = 0; i < n; ++i) {
        const double s = LoadFloat(dt, scores.data, (b * classes + c) * n + i);
        score[static_cast<size_t>(i)] = s;
        if (!has_score_threshold || s > score_threshold) candidates.push_back(i);
      }
      std::sort(candidates.begin(), candidates.end(), [&](int64_t x, int64_t y) {
        return RanksBefore(score[static_cast<size_t>(x)], x, score[static_cast<size_t>(y)], y);
      });
      selected.clear();
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(selected.size()) >= per_class) break;
        const Box& box = batch_boxes[static_cast<size_t>(i)];
        const bool suppressed = std::any_of(selected.begin(), selected.end(), [&](int64_t s) {
          return Suppresses(batch_boxes[static_cast<size_t>(s)], box, iou_threshold);
        });
        if (suppressed) continue;
        selected.push_back(i);
        StoreI64(out, count * 3, b);
        StoreI64(out, count * 3 + 1, c);
        StoreI64(out, count * 3 + 2, i);
        ++count;
      }
    }
  }
  WriteCount(ctx, count);
  return Status::Ok();
}

}  // namespace

void AddSelectionRefKernels(KernelTable& table) {
  table.Add("non_zero", NonZero);
  table.Add("compress", Compress);
  table.Add("unique", Unique);
  table.Add("non_max_suppression", NonMaxSuppression);
}

}  // namespace sy::cpu
