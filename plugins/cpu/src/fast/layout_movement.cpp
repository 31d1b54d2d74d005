// concat and slice of 3- to 5-D tensors in either layout (prepared kernels). GhostNet's
// ghost modules concatenate two convs' outputs along the channels and slice the result,
// DenseNet concatenates every layer's features, SqueezeNet's fire modules and Inception's
// branches concatenate along the channels: through the plain kernels every such value was
// row-major, so each conv around them reordered its input or output. These kernels take
// their tensors channels-last, all alike (JoinedLayoutKernel; CpuExecutable::ChooseLayouts),
// and copy through the channels-last strides (NHWC stores channel c of pixel p at
// p * C + c). A copy moves bytes only, so the results are the same in either layout.
//
// All tensors row-major (the usual case outside conv chains): the table's plain kernel.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <string_view>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/joined_layout.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_node.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

// The strides (in elements) of each logical dim of `shape` [N, C, spatial...] stored
// channels-last (N, spatial..., C).
std::vector<int64_t> ChannelsLastStrides(const Shape& shape) {
  const size_t rank = shape.size();
  std::vector<int64_t> strides(rank, 1);
  int64_t stride = shape[1];  // channels innermost
  for (size_t d = rank; d-- > 2;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  strides[0] = stride;
  return strides;
}

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
  const MergedDims m = Merge(shape, src_strides, dst_strides);  // in dst's order
  const size_t inner = m.dims.size() - 1;
  const int64_t run = m.dims[inner];
  const int64_t rows = ElementCount(m.dims) / run;
  const bool contiguous = m.from[inner] == 1 && m.to[inner] == 1;
  const auto b = static_cast<int64_t>(bytes);
  ParallelFor(pool, rows, std::max<int64_t>(1, 16384 / run), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rest = r, s = 0, t = 0;
      for (size_t d = inner; d-- > 0;) {  // the row's index, innermost of the outer dims first
        const int64_t i = rest % m.dims[d];
        rest /= m.dims[d];
        s += i * m.from[d];
        t += i * m.to[d];
      }
      if (contiguous) {
        CopyRun(dst + t * b, src + s * b, run * b);
        continue;
      }
      for (int64_t i = 0; i < run; ++i) {  // a strided slice's innermost dim
        std::memcpy(dst + (t + i * m.to[inner]) * b, src + (s + i * m.from[inner]) * b, bytes);
      }
    }
  });
}

bool SpatialRank(const Shape& s) { return s.size() >= 3 && s.size() <= 5; }

// The plain kernel of `op` in the table, for the row-major case; found once, at prepare.
KernelFn PlainKernel(std::string_view op) { return FastKernels().Find(op); }

class Concat final : public JoinedLayoutKernel {
 public:
  explicit Concat(size_t inputs) : inputs_(inputs), plain_(PlainKernel("concat")) {}
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (!SpatialRank(ctx.outputs[0].shape)) return nullptr;
    for (const TensorType& t : ctx.inputs) {
      if (t.shape.size() != ctx.outputs[0].shape.size()) return nullptr;
    }
    return std::make_unique<Concat>(ctx.inputs.size());
  }
  bool AcceptsChannelsLastInput(size_t index) const override { return index < inputs_; }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayout(Prepare(ctx));
  }
  Status Run(const KernelContext& ctx) override {
    if (!channels_last_) return plain_(ctx);
    const TensorView& y = ctx.outputs[0];
    const int64_t rank = y.rank();
    int64_t axis = ctx.attrs.GetInt("axis");
    if (axis < 0) axis += rank;
    const std::vector<int64_t> to = ChannelsLastStrides(y.shape());
    const size_t bytes = DTypeSize(y.dtype());
    int64_t offset = 0;  // along the axis
    for (size_t i = 0; i < ctx.inputs.size(); ++i) {
      const ConstTensorView& x = ctx.inputs[i];
      CopyStrided(x.data,
                  y.data + offset * to[static_cast<size_t>(axis)] * static_cast<int64_t>(bytes),
                  x.shape(), ChannelsLastStrides(x.shape()), to, bytes, ctx.pool);
      offset += x.shape()[static_cast<size_t>(axis)];
    }
    return Status::Ok();
  }

 private:
  size_t inputs_;
  KernelFn plain_;
};

class Slice final : public JoinedLayoutKernel {
 public:
  Slice() : plain_(PlainKernel("slice")) {}
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (!SpatialRank(ctx.outputs[0].shape) ||
        ctx.inputs[0].shape.size() != ctx.outputs[0].shape.size()) {
      return nullptr;
    }
    return std::make_unique<Slice>();
  }
  bool AcceptsChannelsLastInput(size_t index) const override { return index == 0; }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayout(Prepare(ctx));
  }
  Status Run(const KernelContext& ctx) override {
    if (!channels_last_) return plain_(ctx);
    const ConstTensorView& x = ctx.inputs[0];
    const TensorView& y = ctx.outputs[0];
    if (y.count() == 0) return Status::Ok();
    // Canonical attributes (docs/plugin-abi.md): each axis's first index and step.
    const plugin::SliceWindow window = plugin::CanonicalSlice(ctx.attrs, x.shape(), y.shape());
    const std::vector<int64_t> in = ChannelsLastStrides(x.shape());
    std::vector<int64_t> from(in.size());
    int64_t base = 0;
    for (size_t a = 0; a < in.size(); ++a) {
      base += window.starts[a] * in[a];
      from[a] = window.steps[a] * in[a];
    }
    const size_t bytes = DTypeSize(x.dtype());
    CopyStrided(x.data + base * static_cast<int64_t>(bytes), y.data, y.shape(), from,
                ChannelsLastStrides(y.shape()), bytes, ctx.pool);
    return Status::Ok();
  }

 private:
  KernelFn plain_;
};

}  // namespace

void AttachLayoutMovementKernels(KernelTable& table) {
  table.SetPrepare("concat", Concat::Prepare);
  table.SetPrepare("slice", Slice::Prepare);
}

}  // namespace sy::cpu
