// concat and slice of 3- to 5-D tensors in either layout (prepared kernels). GhostNet's
// ghost modules concatenate two convs' outputs along the channels and slice the result,
// DenseNet concatenates every layer's features, SqueezeNet's fire modules and Inception's
// branches concatenate along the channels: through the plain kernels every such value was
// row-major, so each conv around them reordered its input or output. These kernels take
// every tensor in whatever layout the executable chose (CpuExecutable::ChooseLayouts) and
// copy through each tensor's physical strides: channels-last (NHWC) stores channel c of
// pixel p at p * C + c. A copy moves bytes only, so the results are the same in any layout.
//
// All tensors row-major (the usual case outside conv chains): the table's plain kernel.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include "fast/fast_kernels.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_node.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

// The strides (in elements) of each logical dim of `shape` [N, C, spatial...] stored in
// `layout`: row-major, or channels-last (N, spatial..., C).
std::vector<int64_t> PhysicalStrides(const Shape& shape, Layout layout) {
  const size_t rank = shape.size();
  std::vector<int64_t> strides(rank, 1);
  if (layout == Layout::kRowMajor || rank < 3) {
    for (size_t d = rank - 1; d-- > 0;) strides[d] = strides[d + 1] * shape[d + 1];
    return strides;
  }
  strides[1] = 1;  // channels innermost
  int64_t stride = shape[1];
  for (size_t d = rank; d-- > 2;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  strides[0] = stride;
  return strides;
}

// One element of `bytes` bytes (1, 2, 4, 8 or other).
inline void CopyElement(std::byte* to, const std::byte* from, size_t bytes) {
  switch (bytes) {
    case 4:
      std::memcpy(to, from, 4);
      return;
    case 1:
      *to = *from;
      return;
    case 2:
      std::memcpy(to, from, 2);
      return;
    case 8:
      std::memcpy(to, from, 8);
      return;
    default:
      std::memcpy(to, from, bytes);
  }
}

// Copies the elements of logical shape `dims` from src (element strides `from`) to dst
// (strides `to`), `bytes` per element. The loops follow dst's physical order. Where the
// innermost dim of both is the same contiguous one, a row is one memcpy; where they differ
// (a transposition between the layouts: src's channels innermost, dst's pixels, or the
// reverse), the two innermost dims are copied in 32 x 32 tiles so that both sides are read
// and written a cache line at a time. Rows (the other dims) split over the pool.
// A contiguous run of `n` bytes: short ones (a few channels of one pixel, which concat
// copies per pixel) by a loop the compiler inlines, longer ones by memcpy.
inline void CopyRun(std::byte* to, const std::byte* from, int64_t n) {
  if (n > 64) {
    std::memcpy(to, from, static_cast<size_t>(n));
    return;
  }
  for (int64_t k = 0; k < n; ++k) to[k] = from[k];
}

// The copy's dims with size-1 dims dropped and, in dst's order, each dim merged into the
// next inner one where both sides step over the two as one run (an identity slice, or a
// concat's rows in the same layout, then copy in a few long runs).
struct MergedDims {
  Shape dims;
  std::vector<int64_t> from, to;
};
MergedDims Merge(const Shape& dims, const std::vector<int64_t>& from,
                 const std::vector<int64_t>& to) {
  std::vector<size_t> order(dims.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return to[a] > to[b]; });
  MergedDims m;
  for (size_t d : order) {
    if (dims[d] == 1) continue;
    if (!m.dims.empty() && m.to.back() == to[d] * dims[d] && m.from.back() == from[d] * dims[d]) {
      m.dims.back() *= dims[d];
      m.to.back() = to[d];
      m.from.back() = from[d];
      continue;
    }
    m.dims.push_back(dims[d]);
    m.from.push_back(from[d]);
    m.to.push_back(to[d]);
  }
  if (m.dims.empty()) m = {Shape{1}, {1}, {1}};  // one element
  return m;
}

void CopyStrided(const std::byte* src, std::byte* dst, const Shape& shape,
                 const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides,
                 size_t bytes, ThreadPool* pool) {
  if (ElementCount(shape) == 0) return;
  const MergedDims merged = Merge(shape, src_strides, dst_strides);
  const Shape& dims = merged.dims;
  const std::vector<int64_t>& from = merged.from;
  const std::vector<int64_t>& to = merged.to;
  const size_t rank = dims.size();
  std::vector<size_t> order(rank);  // outermost first, by dst's strides
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return to[a] > to[b]; });
  const size_t inner = order.back();
  // src's innermost dim among the others (the one it is contiguous along), for tiling.
  size_t src_inner = inner;
  for (size_t d = 0; d < rank; ++d) {
    if (d != inner && from[d] == 1 && dims[d] > 1 && from[inner] != 1) src_inner = d;
  }
  const bool tiled = src_inner != inner;
  std::vector<size_t> outer;  // the dims looped as rows, dst's order
  for (size_t d : order) {
    if (d != inner && d != src_inner) outer.push_back(d);
  }
  int64_t rows = 1;
  for (size_t d : outer) rows *= dims[d];
  const auto b = static_cast<int64_t>(bytes);
  const int64_t run = dims[inner];
  const int64_t block = tiled ? run * dims[src_inner] : run;
  ParallelFor(pool, rows, std::max<int64_t>(1, 16384 / block), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rest = r, s = 0, t = 0;
      for (size_t k = outer.size(); k-- > 0;) {
        const size_t d = outer[k];
        const int64_t i = rest % dims[d];
        rest /= dims[d];
        s += i * from[d];
        t += i * to[d];
      }
      if (!tiled) {
        if (from[inner] == 1 && to[inner] == 1) {
          CopyRun(dst + t * b, src + s * b, run * b);
        } else {
          for (int64_t i = 0; i < run; ++i) {
            CopyElement(dst + (t + i * to[inner]) * b, src + (s + i * from[inner]) * b, bytes);
          }
        }
        continue;
      }
      constexpr int64_t kTile = 32;
      const int64_t other = dims[src_inner];
      for (int64_t j0 = 0; j0 < other; j0 += kTile) {
        const int64_t j1 = std::min(other, j0 + kTile);
        for (int64_t i0 = 0; i0 < run; i0 += kTile) {
          const int64_t i1 = std::min(run, i0 + kTile);
          for (int64_t j = j0; j < j1; ++j) {
            const std::byte* from_row = src + (s + j * from[src_inner]) * b;
            std::byte* to_row = dst + (t + j * to[src_inner]) * b;
            for (int64_t i = i0; i < i1; ++i) {
              CopyElement(to_row + i * to[inner] * b, from_row + i * from[inner] * b, bytes);
            }
          }
        }
      }
    }
  });
}

bool SpatialRank(const Shape& s) { return s.size() >= 3 && s.size() <= 5; }

// Shared by both: the layouts the executable chose, and the row-major path.
class LayoutCopy : public PreparedKernel {
 public:
  explicit LayoutCopy(size_t inputs) : in_layouts_(inputs, Layout::kRowMajor) {}
  bool AcceptsChannelsLastInput(size_t index) const override { return index < in_layouts_.size(); }
  bool AcceptsChannelsLastOutput(size_t index) const override { return index == 0; }
  bool JoinsLayouts() const override { return true; }
  void UseLayouts(std::span<const Layout> inputs, std::span<const Layout> outputs) override {
    for (size_t i = 0; i < in_layouts_.size(); ++i) in_layouts_[i] = inputs[i];
    out_layout_ = outputs[0];
  }

 protected:
  bool AllRowMajor() const {
    return out_layout_ == Layout::kRowMajor &&
           std::all_of(in_layouts_.begin(), in_layouts_.end(),
                       [](Layout l) { return l == Layout::kRowMajor; });
  }
  template <typename K>
  std::unique_ptr<PreparedKernel> KeepLayouts(std::unique_ptr<PreparedKernel> resized) const {
    if (auto* k = static_cast<K*>(resized.get()); k != nullptr) {
      k->in_layouts_ = in_layouts_;
      k->out_layout_ = out_layout_;
    }
    return resized;
  }
  std::vector<Layout> in_layouts_;
  Layout out_layout_ = Layout::kRowMajor;
};

class Concat final : public LayoutCopy {
 public:
  using LayoutCopy::LayoutCopy;
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (!SpatialRank(ctx.outputs[0].shape)) return nullptr;
    for (const TensorType& t : ctx.inputs) {
      if (t.shape.size() != ctx.outputs[0].shape.size()) return nullptr;
    }
    return std::make_unique<Concat>(ctx.inputs.size());
  }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayouts<Concat>(Prepare(ctx));
  }
  Status Run(const KernelContext& ctx) override {
    if (AllRowMajor()) return FastKernels().Find("concat")(ctx);
    const TensorView& y = ctx.outputs[0];
    const int64_t rank = y.rank();
    int64_t axis = ctx.attrs.GetInt("axis");
    if (axis < 0) axis += rank;
    const std::vector<int64_t> to = PhysicalStrides(y.shape(), out_layout_);
    const size_t bytes = DTypeSize(y.dtype());
    int64_t offset = 0;  // along the axis
    for (size_t i = 0; i < ctx.inputs.size(); ++i) {
      const ConstTensorView& x = ctx.inputs[i];
      CopyStrided(x.data,
                  y.data + offset * to[static_cast<size_t>(axis)] * static_cast<int64_t>(bytes),
                  x.shape(), PhysicalStrides(x.shape(), in_layouts_[i]), to, bytes, ctx.pool);
      offset += x.shape()[static_cast<size_t>(axis)];
    }
    return Status::Ok();
  }
};

class Slice final : public LayoutCopy {
 public:
  Slice() : LayoutCopy(1) {}
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (!SpatialRank(ctx.outputs[0].shape) ||
        ctx.inputs[0].shape.size() != ctx.outputs[0].shape.size()) {
      return nullptr;
    }
    return std::make_unique<Slice>();
  }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayouts<Slice>(Prepare(ctx));
  }
  Status Run(const KernelContext& ctx) override {
    if (AllRowMajor()) return FastKernels().Find("slice")(ctx);
    const ConstTensorView& x = ctx.inputs[0];
    const TensorView& y = ctx.outputs[0];
    if (y.count() == 0) return Status::Ok();
    // Canonical attributes (docs/plugin-abi.md): each axis's first index and step.
    const plugin::SliceWindow window = plugin::CanonicalSlice(ctx.attrs, x.shape(), y.shape());
    const std::vector<int64_t> in = PhysicalStrides(x.shape(), in_layouts_[0]);
    std::vector<int64_t> from(in.size());
    int64_t base = 0;
    for (size_t a = 0; a < in.size(); ++a) {
      base += window.starts[a] * in[a];
      from[a] = window.steps[a] * in[a];
    }
    const size_t bytes = DTypeSize(x.dtype());
    CopyStrided(x.data + base * static_cast<int64_t>(bytes), y.data, y.shape(), from,
                PhysicalStrides(y.shape(), out_layout_), bytes, ctx.pool);
    return Status::Ok();
  }
};

}  // namespace

void AttachLayoutMovementKernels(KernelTable& table) {
  table.SetPrepare("concat", Concat::Prepare);
  table.SetPrepare("slice", Slice::Prepare);
}

}  // namespace sy::cpu
