// Reference kernels of "Reductions and scans" (spec/ops.md): reduce_sum reduce_mean
// reduce_max reduce_min reduce_prod argmax argmin cumsum topk, for dtypes F and I.
//
// Floats accumulate in double and round once on store; integers accumulate in int64_t
// with wrap-around (the sum of an integer mean in 128 bits, so that it is exact).
//
// Semantics decisions beyond ONNX's text:
// - reduce_*: `axes` absent or empty reduces every axis. Reducing an empty set gives
//   0 (sum), 1 (prod), NaN (mean of floats), 0 (mean of integers), and for max / min
//   the lowest / highest value of the dtype (-inf / +inf for floats), as ONNX 18+.
//   reduce_max / reduce_min propagate NaN. Integer mean truncates toward zero.
// - argmax / argmin: NaN counts as the largest value for argmax and the smallest for
//   argmin (NumPy: the first NaN wins). Ties, NaNs among them, go to the first index,
//   or the last with select_last_index = 1.
// - topk: ties go to the lower index; NaN is larger than every number (first with
//   largest = 1, last with largest = 0), NaNs tie among themselves. Output is always
//   sorted, also for sorted = 0, which ONNX allows. Values are copied bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

__extension__ typedef __int128 Int128;

int64_t Product(std::span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

int64_t Axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// A tensor seen as [outer, n, inner] around one axis.
struct AxisView {
  int64_t outer, n, inner;
};

AxisView SplitAt(std::span<const int64_t> shape, int64_t axis) {
  const auto a = static_cast<size_t>(axis);
  return {Product(shape, 0, a), shape[a], Product(shape, a + 1, shape.size())};
}

// ---- reduce_* ----

enum class Reduce { kSum, kMean, kMax, kMin, kProd };

// The lowest / highest value of an integer dtype.
int64_t IntLowest(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return INT8_MIN;
    case DType::kI16:
      return INT16_MIN;
    case DType::kI32:
      return INT32_MIN;
    case DType::kI64:
      return INT64_MIN;
    default:
      return 0;  // u8 u16 u32
  }
}
int64_t IntHighest(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return INT8_MAX;
    case DType::kU8:
      return UINT8_MAX;
    case DType::kI16:
      return INT16_MAX;
    case DType::kU16:
      return UINT16_MAX;
    case DType::kI32:
      return INT32_MAX;
    case DType::kU32:
      return UINT32_MAX;
    default:
      return INT64_MAX;
  }
}

// For each element of x (row-major), the offset of the output element it reduces into.
std::vector<int64_t> OutputOffsets(const ConstTensorView& x, const Attrs& attrs) {
  const size_t rank = x.shape().size();
  std::vector<bool> reduced(rank, false);
  const std::vector<int64_t> axes = attrs.GetInts("axes");
  if (axes.empty()) reduced.assign(rank, true);
  for (int64_t axis : axes) reduced[static_cast<size_t>(Axis(axis, x.rank()))] = true;
  // Output strides of the kept dims (keepdims only inserts size-1 dims, which does not
  // change the offsets); reduced dims contribute nothing.
  Shape kept;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) kept.push_back(x.shape()[d]);
  }
  const std::vector<int64_t> kept_strides = Strides(kept);
  std::vector<int64_t> strides(rank, 0);
  for (size_t d = 0, k = 0; d < rank; ++d) {
    if (!reduced[d]) strides[d] = kept_strides[k++];
  }
  std::vector<int64_t> offsets(static_cast<size_t>(x.count()));
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t& o : offsets) {
    o = offset;
    for (size_t d = rank; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < x.shape()[d]) break;
      offset -= strides[d] * x.shape()[d];
      index[d] = 0;
    }
  }
  return offsets;
}

template <Reduce kOp>
Status ReduceKernel(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const std::vector<int64_t> offsets = OutputOffsets(x, ctx.attrs);
  const auto out_count = static_cast<size_t>(y.count());
  // Elements reduced into each output element (the same for all; 0 for an empty set).
  const int64_t group = out_count == 0 ? 0 : x.count() / y.count();
  if (IsFloat(dt)) {
    double init = 0.0;
    if constexpr (kOp == Reduce::kProd) init = 1.0;
    if constexpr (kOp == Reduce::kMax) init = -std::numeric_limits<double>::infinity();
    if constexpr (kOp == Reduce::kMin) init = std::numeric_limits<double>::infinity();
    std::vector<double> acc(out_count, init);
    for (size_t i = 0; i < offsets.size(); ++i) {
      double& a = acc[static_cast<size_t>(offsets[i])];
      const double v = LoadFloat(dt, x.data, static_cast<int64_t>(i));
      if constexpr (kOp == Reduce::kSum || kOp == Reduce::kMean) {
        a += v;
      } else if constexpr (kOp == Reduce::kProd) {
        a *= v;
      } else if (std::isnan(a) || std::isnan(v)) {
        a = std::numeric_limits<double>::quiet_NaN();
      } else {
        a = kOp == Reduce::kMax ? std::max(a, v) : std::min(a, v);
      }
    }
    for (size_t o = 0; o < out_count; ++o) {
      double v = acc[o];
      if constexpr (kOp == Reduce::kMean) {
        v = group == 0 ? std::numeric_limits<double>::quiet_NaN() : v / static_cast<double>(group);
      }
      StoreFloat(dt, y.data, static_cast<int64_t>(o), v);
    }
    return Status::Ok();
  }
  if constexpr (kOp == Reduce::kMean) {
    std::vector<Int128> sum(out_count, 0);
    for (size_t i = 0; i < offsets.size(); ++i) {
      sum[static_cast<size_t>(offsets[i])] += LoadInt(dt, x.data, static_cast<int64_t>(i));
    }
    for (size_t o = 0; o < out_count; ++o) {
      // C++ division truncates toward zero; the mean lies within int64_t.
      const int64_t mean = group == 0 ? 0 : static_cast<int64_t>(sum[o] / group);
      StoreInt(dt, y.data, static_cast<int64_t>(o), mean);
    }
    return Status::Ok();
  }
  int64_t init = 0;
  if constexpr (kOp == Reduce::kProd) init = 1;
  if constexpr (kOp == Reduce::kMax) init = IntLowest(dt);
  if constexpr (kOp == Reduce::kMin) init = IntHighest(dt);
  std::vector<int64_t> acc(out_count, init);
  for (size_t i = 0; i < offsets.size(); ++i) {
    int64_t& a = acc[static_cast<size_t>(offsets[i])];
    const int64_t v = LoadInt(dt, x.data, static_cast<int64_t>(i));
    if constexpr (kOp == Reduce::kSum) {
      a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v));
    } else if constexpr (kOp == Reduce::kProd) {
      a = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(v));
    } else {
      a = kOp == Reduce::kMax ? std::max(a, v) : std::min(a, v);
    }
  }
  for (size_t o = 0; o < out_count; ++o) StoreInt(dt, y.data, static_cast<int64_t>(o), acc[o]);
  return Status::Ok();
}

// ---- argmax, argmin ----

// Whether a is strictly more extreme than b (kMax: larger; NaN beats every number), and
// whether they tie (equal, or both NaN).
template <bool kMax>
bool MoreExtreme(double a, double b) {
  if (std::isnan(b)) return false;
  if (std::isnan(a)) return true;
  return kMax ? a > b : a < b;
}
bool Ties(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

template <bool kMax>
Status ArgKernel(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const bool last = ctx.attrs.GetInt("select_last_index") == 1;
  const AxisView v = SplitAt(x.shape(), Axis(ctx.attrs.GetInt("axis"), x.rank()));
  if (v.n == 0) return Status::Ok();  // the shape rule allows this only for empty outputs
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t in = 0; in < v.inner; ++in) {
      const int64_t base = o * v.n * v.inner + in;
      int64_t best = 0;
      if (IsFloat(dt)) {
        double best_v = LoadFloat(dt, x.data, base);
        for (int64_t j = 1; j < v.n; ++j) {
          const double c = LoadFloat(dt, x.data, base + j * v.inner);
          if (MoreExtreme<kMax>(c, best_v) || (last && Ties(c, best_v))) {
            best = j;
            best_v = c;
          }
        }
      } else {
        int64_t best_v = LoadInt(dt, x.data, base);
        for (int64_t j = 1; j < v.n; ++j) {
          const int64_t c = LoadInt(dt, x.data, base + j * v.inner);
          if ((kMax ? c > best_v : c < best_v) || (last && c == best_v)) {
            best = j;
            best_v = c;
          }
        }
      }
      StoreInt(DType::kI64, y.data, o * v.inner + in, best);
    }
  }
  return Status::Ok();
}

// ---- cumsum, cumprod ----

// Running sums or products along the axis; exclusive starts from the identity (0 or 1).
// Floats accumulate in double, integers wrap as the dtype does.
Status Cumulate(const KernelContext& ctx, bool product) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const bool exclusive = ctx.attrs.GetInt("exclusive") == 1;
  const bool reverse = ctx.attrs.GetInt("reverse") == 1;
  const AxisView v = SplitAt(x.shape(), Axis(ctx.attrs.GetInt("axis"), x.rank()));
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t in = 0; in < v.inner; ++in) {
      double facc = product ? 1.0 : 0.0;
      uint64_t iacc = product ? 1 : 0;
      for (int64_t step = 0; step < v.n; ++step) {
        const int64_t j = reverse ? v.n - 1 - step : step;
        const int64_t i = (o * v.n + j) * v.inner + in;
        if (IsFloat(dt)) {
          const double value = LoadFloat(dt, x.data, i);
          const double next = product ? facc * value : facc + value;
          StoreFloat(dt, y.data, i, exclusive ? facc : next);
          facc = next;
        } else {
          const auto value = static_cast<uint64_t>(LoadInt(dt, x.data, i));
          const uint64_t next = product ? iacc * value : iacc + value;
          StoreInt(dt, y.data, i, static_cast<int64_t>(exclusive ? iacc : next));
          iacc = next;
        }
      }
    }
  }
  return Status::Ok();
}

Status Cumsum(const KernelContext& ctx) { return Cumulate(ctx, false); }
Status Cumprod(const KernelContext& ctx) { return Cumulate(ctx, true); }

// ---- topk ----

struct Entry {
  double f;   // floats
  int64_t i;  // integers
  int64_t index;
};

Status Topk(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& values = ctx.outputs[0];
  const TensorView& indices = ctx.outputs[1];
  const DType dt = x.dtype();
  const bool is_float = IsFloat(dt);
  const bool largest = ctx.attrs.GetInt("largest") == 1;
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), x.rank());
  const AxisView v = SplitAt(x.shape(), axis);
  const int64_t k = values.shape()[static_cast<size_t>(axis)];
  const size_t es = DTypeSize(dt);
  // A strict total order: the output order (value, NaN largest, then lower index first).
  auto before = [&](const Entry& a, const Entry& b) {
    if (is_float) {
      const bool an = std::isnan(a.f);
      const bool bn = std::isnan(b.f);
      if (an != bn) return largest ? an : bn;
      if (!an && a.f != b.f) return largest ? a.f > b.f : a.f < b.f;
    } else if (a.i != b.i) {
      return largest ? a.i > b.i : a.i < b.i;
    }
    return a.index < b.index;
  };
  std::vector<Entry> line(static_cast<size_t>(v.n));
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t in = 0; in < v.inner; ++in) {
      for (int64_t j = 0; j < v.n; ++j) {
        const int64_t src = (o * v.n + j) * v.inner + in;
        line[static_cast<size_t>(j)] = {is_float ? LoadFloat(dt, x.data, src) : 0.0,
                                        is_float ? 0 : LoadInt(dt, x.data, src), j};
      }
      std::partial_sort(line.begin(), line.begin() + k, line.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const Entry& e = line[static_cast<size_t>(j)];
        const int64_t dst = (o * k + j) * v.inner + in;
        const int64_t src = (o * v.n + e.index) * v.inner + in;
        std::memcpy(values.data + static_cast<size_t>(dst) * es,
                    x.data + static_cast<size_t>(src) * es, es);
        StoreInt(DType::kI64, indices.data, dst, e.index);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddReductionRefKernels(KernelTable& table) {
  table.Add("reduce_sum", ReduceKernel<Reduce::kSum>);
  table.Add("reduce_mean", ReduceKernel<Reduce::kMean>);
  table.Add("reduce_max", ReduceKernel<Reduce::kMax>);
  table.Add("reduce_min", ReduceKernel<Reduce::kMin>);
  table.Add("reduce_prod", ReduceKernel<Reduce::kProd>);
  table.Add("argmax", ArgKernel<true>);
  table.Add("argmin", ArgKernel<false>);
  table.Add("cumsum", Cumsum);
  table.Add("cumprod", Cumprod);
  table.Add("topk", Topk);
}

}  // namespace sy::cpu
