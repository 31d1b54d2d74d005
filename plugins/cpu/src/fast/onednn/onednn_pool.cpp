// f32 max_pool, avg_pool and global_avg_pool (1, 2 or 3 spatial dims) through oneDNN's
// pooling primitive, built once when the partition is prepared.
//
// Why: the reference pool walks every tap of every window through the dtype switch in
// double (ResNet-18's one 3x3 max_pool took 29% of the model's time); oneDNN's kernels are
// JIT-compiled for the CPU and read channels-last, so the pool also keeps a chain of
// oneDNN convs channels-last through it (conv -> max_pool -> conv in every ResNet stem;
// the last conv -> global_avg_pool). A pool whose x and y are both row-major runs the
// NCHW primitive directly where oneDNN JIT-compiles one; one that the executable stores
// channels-last on either side (or whose NCHW primitive is oneDNN's scalar loop) runs the
// channels-last primitive, with a oneDNN reorder on each row-major side.
//
// Matching the reference (ref/conv_pool_ref.cpp), case by case:
// - ceil_mode: the output shape is the catalogue's; the end padding handed to oneDNN is
//   widened so that its floor formula gives that shape. Padding never takes part in a max
//   or in an exclude-padding average, so that changes nothing there. avg_pool with
//   count_include_pad 1 counts the taps inside the explicit padding only: such a pool
//   whose last window runs past it is declined.
// - A window with no tap inside x (dilations, or padding as wide as the window) gives
//   -inf (max) or NaN (exclude-padding average) in the reference and something else in
//   oneDNN: shapes with such a window are declined at prepare.
// - max_pool on NaN and infinities: oneDNN's max does not keep NaN and starts from the
//   lowest finite float, so an x holding a non-finite value goes to the reference
//   (one extra read of x, far below the pool's own cost). Averages are plain sums and
//   need no guard.
// - global_avg_pool is an exclude-padding average whose window is the whole spatial
//   extent; it sums in float where the reference sums in double (within the op's
//   tolerance).
// Declined (the reference runs them): other dtypes, empty tensors, and whatever oneDNN
// has no JIT implementation for.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

using dnnl::memory;

// One pooling window geometry, in the catalogue's terms (dilations counted from 1).
struct PoolWindow {
  std::vector<int64_t> kernel, strides, pads_begin, pads_end, dilations;
};

// Whether every output position of every spatial dim has at least one tap inside x.
bool EveryWindowTouchesX(const PoolWindow& w, std::span<const int64_t> in,
                         std::span<const int64_t> out) {
  for (size_t d = 0; d < in.size(); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) {
      bool touches = false;
      for (int64_t t = 0; t < w.kernel[d] && !touches; ++t) {
        const int64_t p = o * w.strides[d] - w.pads_begin[d] + t * w.dilations[d];
        touches = p >= 0 && p < in[d];
      }
      if (!touches) return false;
    }
  }
  return true;
}

class OneDnnPool final : public PreparedKernel {
 public:
  // Throws dnnl::error when oneDNN has no implementation for the case.
  OneDnnPool(const PrepareContext& ctx, dnnl::algorithm algorithm, const PoolWindow& w,
             const std::vector<int64_t>& pads_end, bool guard_non_finite)
      // Every input element is visited at least once: the work a split would share.
      : num_threads_(onednn::ThreadsFor(ElementCount(ctx.inputs[0].shape), ctx.num_threads)),
        guard_non_finite_(guard_non_finite),
        fallback_(FastKernels().Find(ctx.op)) {
    const onednn::ScopedThreads threads(num_threads_);
    const dnnl::engine& eng = onednn::Engine();
    const Shape& sx = ctx.inputs[0].shape;
    const Shape& sy = ctx.outputs[0].shape;
    memory::dims gaps(w.dilations.begin(), w.dilations.end());
    for (int64_t& g : gaps) g -= 1;  // oneDNN counts the gaps between taps
    const memory::dims kernel(w.kernel.begin(), w.kernel.end());
    const memory::dims strides(w.strides.begin(), w.strides.end());
    const memory::dims pad_l(w.pads_begin.begin(), w.pads_begin.end());
    const memory::dims pad_r(pads_end.begin(), pads_end.end());
    std::string implementation;  // of the last primitive made
    auto make = [&](const memory::desc& x_md, const memory::desc& y_md) {
      const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, x_md,
                                                y_md, strides, kernel, gaps, pad_l, pad_r);
      const dnnl::pooling_v2_forward::primitive_desc pd(desc, eng);
      jit_ = jit_ && onednn::IsJit(pd);
      implementation = pd.impl_info_str();
      return dnnl::pooling_v2_forward(pd);
    };
    const memory::desc x_plain = onednn::PlainF32(onednn::Dims(sx));
    const memory::desc y_plain = onednn::PlainF32(onednn::Dims(sy));
    const memory::desc x_cl(onednn::Dims(sx), memory::data_type::f32,
                            onednn::ChannelsLast(sx.size()));
    const memory::desc y_cl(onednn::Dims(sy), memory::data_type::f32,
                            onednn::ChannelsLast(sy.size()));
    plain_ = make(x_plain, y_plain);
    // oneDNN 2.6 pools NCHW with "simple_nchw", a scalar loop: on ResNet's stem (64 x
    // 112 x 112, 3x3 stride 2) 21 ms against about 1 ms for the channels-last JIT kernel
    // with a reorder on each side. A row-major pool then takes that route too.
    plain_is_jit_ = implementation.rfind("jit", 0) == 0;
    channels_last_ = make(x_cl, y_cl);
    stream_ = dnnl::stream(eng);
    x_user_ = memory(x_plain, eng, DNNL_MEMORY_NONE);
    y_user_ = memory(y_plain, eng, DNNL_MEMORY_NONE);
    x_cl_ = memory(x_cl, eng, DNNL_MEMORY_NONE);
    y_cl_ = memory(y_cl, eng, DNNL_MEMORY_NONE);
    to_channels_last_ = dnnl::reorder(x_user_, x_cl_);
    from_channels_last_ = dnnl::reorder(y_cl_, y_user_);
    if (!plain_is_jit_) AllocateScratch();
  }

  // False when oneDNN chose its scalar reference implementation for either layout.
  bool jit() const { return jit_; }

  bool AcceptsChannelsLastInput(size_t index) const override { return index == 0; }
  bool AcceptsChannelsLastOutput(size_t index) const override { return index == 0; }

  void UseLayouts(std::span<const Layout> inputs, std::span<const Layout> outputs) override {
    x_channels_last_ = inputs[0] == Layout::kChannelsLast;
    y_channels_last_ = outputs[0] == Layout::kChannelsLast;
    AllocateScratch();
  }

  // The channels-last primitive reads and writes a buffer of its own on the side that is
  // row-major; allocated once (at prepare, or when the layouts are set). If that fails the
  // row-major copies are made per run by the fallback instead (RunOnRowMajorCopies), which
  // gives the same result.
  void AllocateScratch() {
    scratch_missing_ = false;
    try {
      const std::size_t x_bytes = x_cl_.get_desc().get_size();
      const std::size_t y_bytes = y_cl_.get_desc().get_size();
      x_scratch_.resize(x_channels_last_ ? 0 : x_bytes / 4);
      y_scratch_.resize(y_channels_last_ ? 0 : y_bytes / 4);
    } catch (const std::bad_alloc&) {
      scratch_missing_ = true;
    }
  }

  Status Run(const KernelContext& ctx) override {
    const std::byte* x = ctx.inputs[0].data;
    std::byte* y = ctx.outputs[0].data;
    if (scratch_missing_ || !fast::IsF32Aligned(x) || !fast::IsF32Aligned(y)) {
      return RunFallback(ctx);
    }
    // An x the run already bounds is finite; otherwise max_pool scans it.
    double x_bound = InputBound(ctx, 0);
    if (guard_non_finite_ && !std::isfinite(x_bound)) {
      x_bound = onednn::MaxAbs(ctx.pool, x, ctx.inputs[0].count());
      if (!std::isfinite(x_bound)) return RunFallback(ctx);
    }
    try {
      const onednn::ScopedThreads threads(num_threads_);
      if (!x_channels_last_ && !y_channels_last_ && plain_is_jit_) {
        x_user_.set_data_handle(const_cast<std::byte*>(x));
        y_user_.set_data_handle(y);
        plain_.execute(stream_, {{DNNL_ARG_SRC, x_user_}, {DNNL_ARG_DST, y_user_}});
        stream_.wait();
        if (std::isfinite(x_bound)) SetOutputBound(ctx, 0, x_bound * 1.01);
        return Status::Ok();
      }
      if (x_channels_last_) {
        x_cl_.set_data_handle(const_cast<std::byte*>(x));
      } else {
        x_user_.set_data_handle(const_cast<std::byte*>(x));
        x_cl_.set_data_handle(x_scratch_.data());
        to_channels_last_.execute(stream_, x_user_, x_cl_);
      }
      y_cl_.set_data_handle(y_channels_last_ ? static_cast<void*>(y) : y_scratch_.data());
      channels_last_.execute(stream_, {{DNNL_ARG_SRC, x_cl_}, {DNNL_ARG_DST, y_cl_}});
      if (!y_channels_last_) {
        y_user_.set_data_handle(y);
        from_channels_last_.execute(stream_, y_cl_, y_user_);
      }
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Internal(std::string(ctx.op) + ": oneDNN pooling failed: " + e.what());
    }
    // A maximum or an average of values within a bound stays within it (1% for rounding).
    if (std::isfinite(x_bound)) SetOutputBound(ctx, 0, x_bound * 1.01);
    return Status::Ok();
  }

 private:
  Status RunFallback(const KernelContext& ctx) {
    const bool x_channels_last[1] = {x_channels_last_};
    return onednn::RunOnRowMajorCopies(fallback_, ctx, x_channels_last, y_channels_last_);
  }

  int num_threads_;
  bool guard_non_finite_;
  bool jit_ = true;
  bool plain_is_jit_ = false;  // else row-major x and y go through the channels-last one
  // Which tensors the executable stores channels-last (UseLayouts); row-major by default.
  bool x_channels_last_ = false, y_channels_last_ = false, scratch_missing_ = false;
  KernelFn fallback_;  // the table's plain kernel for this op
  dnnl::pooling_v2_forward plain_, channels_last_;
  dnnl::reorder to_channels_last_, from_channels_last_;
  dnnl::stream stream_;
  memory x_user_, y_user_, x_cl_, y_cl_;
  std::vector<float> x_scratch_, y_scratch_;  // channels-last copies of a row-major side
};

// f32, 1 to 3 spatial dims, nothing empty.
bool Takes(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() != 1 || ctx.outputs.size() != 1) return false;
  const Shape& sx = ctx.inputs[0].shape;
  const Shape& sy = ctx.outputs[0].shape;
  return ctx.inputs[0].dtype == DType::kF32 && ctx.outputs[0].dtype == DType::kF32 &&
         sx.size() >= 3 && sx.size() <= 5 && sy.size() == sx.size() && ElementCount(sx) != 0 &&
         ElementCount(sy) != 0;
}

std::unique_ptr<PreparedKernel> Build(const PrepareContext& ctx, dnnl::algorithm algorithm,
                                      const PoolWindow& w, bool guard_non_finite) {
  const Shape& sx = ctx.inputs[0].shape;
  const Shape& sy = ctx.outputs[0].shape;
  const size_t spatial = sx.size() - 2;
  const std::span<const int64_t> in(sx.data() + 2, spatial), out(sy.data() + 2, spatial);
  if (!EveryWindowTouchesX(w, in, out)) return nullptr;
  // The end padding for which oneDNN's floor((in + begin + end - range) / stride) + 1 is
  // the catalogue's output size: the explicit one, or (ceil_mode) one wide enough for the
  // last window.
  std::vector<int64_t> pads_end = w.pads_end;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t range = (w.kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t floor_out = (in[d] + w.pads_begin[d] + w.pads_end[d] - range) / w.strides[d] + 1;
    if (floor_out == out[d]) continue;
    pads_end[d] = (out[d] - 1) * w.strides[d] + range - in[d] - w.pads_begin[d];
    if (pads_end[d] < w.pads_end[d]) return nullptr;  // not a shape this kernel understands
    if (algorithm == dnnl::algorithm::pooling_avg_include_padding) return nullptr;
  }
  try {
    auto kernel = std::make_unique<OneDnnPool>(ctx, algorithm, w, pads_end, guard_non_finite);
    if (!kernel->jit()) return nullptr;
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

PoolWindow ReadWindow(const PrepareContext& ctx) {
  const size_t spatial = ctx.inputs[0].shape.size() - 2;
  PoolWindow w;
  w.kernel = IntsOr(ctx.attrs, "kernel_shape", spatial, 1);
  w.strides = IntsOr(ctx.attrs, "strides", spatial, 1);
  const std::vector<int64_t> pads = IntsOr(ctx.attrs, "pads", 2 * spatial, 0);
  w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(spatial));
  w.pads_end.assign(pads.begin() + static_cast<int64_t>(spatial), pads.end());
  w.dilations = IntsOr(ctx.attrs, "dilations", spatial, 1);
  return w;
}

std::unique_ptr<PreparedKernel> PrepareMaxPool(const PrepareContext& ctx) {
  if (!Takes(ctx)) return nullptr;
  return Build(ctx, dnnl::algorithm::pooling_max, ReadWindow(ctx), /*guard_non_finite=*/true);
}

std::unique_ptr<PreparedKernel> PrepareAvgPool(const PrepareContext& ctx) {
  if (!Takes(ctx)) return nullptr;
  const dnnl::algorithm algorithm = ctx.attrs.GetInt("count_include_pad", 0) != 0
                                        ? dnnl::algorithm::pooling_avg_include_padding
                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  return Build(ctx, algorithm, ReadWindow(ctx), /*guard_non_finite=*/false);
}

std::unique_ptr<PreparedKernel> PrepareGlobalAvgPool(const PrepareContext& ctx) {
  if (!Takes(ctx)) return nullptr;
  const Shape& sx = ctx.inputs[0].shape;
  const size_t spatial = sx.size() - 2;
  PoolWindow w;
  w.kernel.assign(sx.begin() + 2, sx.end());
  w.strides.assign(spatial, 1);
  w.pads_begin.assign(spatial, 0);
  w.pads_end.assign(spatial, 0);
  w.dilations.assign(spatial, 1);
  return Build(ctx, dnnl::algorithm::pooling_avg_exclude_padding, w, /*guard_non_finite=*/false);
}

}  // namespace

void AttachOneDnnPoolKernels(KernelTable& table) {
  // The pools have no tuned plain kernel: the entries run the reference one for whatever
  // the prepares decline.
  table.Add("max_pool", RefKernels().Find("max_pool"), PrepareMaxPool);
  table.Add("avg_pool", RefKernels().Find("avg_pool"), PrepareAvgPool);
  table.Add("global_avg_pool", RefKernels().Find("global_avg_pool"), PrepareGlobalAvgPool);
}

}  // namespace sy::cpu
