// qlinear_conv (ONNX QLinearConv) on the `cpu` device: two prepared paths, both computing
// the op's arithmetic (docs/ops.md; plugins/common/qlinear_requantize.h) from the
// constants read once at prepare (weights, scales, zero points, bias).
//
// Integer path, where the CPU has VNNI (vpdpbusd: four byte products a lane summed into
// 32 bits exactly): oneDNN's u8/s8 x s8 convolution to exact s32 sums, its weights
// reordered at prepare, with x's zero point as oneDNN's source zero point (its
// compensation treats the padding as holding that zero point, so padding adds nothing, as
// the op says). RequantizePixels turns the sums into channels-last codes, the bias added
// exactly, and a oneDNN reorder writes them row-major: the op's arithmetic exactly. oneDNN's own
// output scales, bias and destination zero point were tried and left: it scales the bias separately
// (f32(acc) m + f32(bias) m, not f32(acc + bias) m) and adds the zero point before rounding, so
// about 2 codes in 100000 of ResNet-18 differed by one from the op's; and its 2.6 reorder from s32
// to u8 with a destination zero point wrote wrong codes for [1, 512, 7, 7] outputs. Requantizing
// ourselves costs one pass over the s32 sums. Without VNNI oneDNN's u8 x s8 kernels add pairs of
// products in 16 bits with saturation (vpmaddubsw), as ONNX Runtime's do, so those CPUs take the
// f32 path.
//
// Widened path (no VNNI, w's zero point not 0 (not 128 for u8 weights), or what oneDNN
// has no JIT kernel for): x - x_zero_point widened and convolved by the table's conv (f32
// on oneDNN where no sum can reach 2^24, so that every partial sum is exact; else f64),
// then requantized (WidenedQLinearConv).
//
// Tensors are row-major (NCHW); oneDNN's int8 kernels read and write channels-last, so x
// and y go through reorders into buffers the kernel owns, except where the executable
// stores them channels-last (a value between two qlinear_convs: UseLayouts).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "fast/vec_math.h"
#include "qlinear_requantize.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

using dnnl::memory;

// What qlinear_conv reads of its small inputs, once, at prepare.
struct QConvParams {
  int64_t out_channels = 0;
  int32_t x_zero = 0, y_zero = 0, lo = 0, hi = 255;
  std::vector<float> multipliers;  // per output channel
  std::vector<int32_t> w_zero;     // per output channel
};

// The constants' values, or nullopt when one of the small inputs is not a constant of the
// model or a scale is unusable (the reference kernel then runs, and reports it).
std::optional<QConvParams> ReadParams(const PrepareContext& ctx) {
  for (size_t i : {1, 2, 4, 5, 6, 7}) {
    if (ctx.constant_inputs[i] == nullptr) return std::nullopt;
  }
  if (ctx.inputs.size() > 8 && ctx.constant_inputs[8] == nullptr) return std::nullopt;
  QConvParams p;
  p.out_channels = ctx.inputs[3].shape[0];
  const auto f32_at = [&ctx](size_t i, int64_t m) {
    const int64_t index = ElementCount(ctx.inputs[i].shape) > 1 ? m : 0;
    return static_cast<float>(LoadFloat(DType::kF32, ctx.constant_inputs[i], index));
  };
  const auto int_at = [&ctx](size_t i, int64_t m) {
    const int64_t index = ElementCount(ctx.inputs[i].shape) > 1 ? m : 0;
    return static_cast<int32_t>(LoadInt(ctx.inputs[i].dtype, ctx.constant_inputs[i], index));
  };
  p.x_zero = int_at(2, 0);
  p.y_zero = int_at(7, 0);
  const bool y_signed = ctx.inputs[7].dtype == DType::kI8;
  p.lo = y_signed ? -128 : 0;
  p.hi = y_signed ? 127 : 255;
  const float xs = f32_at(1, 0), ys = f32_at(6, 0);
  for (int64_t m = 0; m < p.out_channels; ++m) {
    const float ws = f32_at(4, m);
    if (!plugin::QLinearScaleProblem(xs, ws, ys).empty()) return std::nullopt;
    p.multipliers.push_back(plugin::QLinearMultiplier(xs, ws, ys));
    p.w_zero.push_back(int_at(5, m));
  }
  return p;
}

memory::data_type ByteType(DType d) {
  return d == DType::kU8 ? memory::data_type::u8 : memory::data_type::s8;
}

// One row of the widened path's output (one output channel of one image): codes[i] =
// saturate(round_half_even(f32(sums[i]) * multiplier) + zero), the steps of
// plugin::RequantizeToCode on the widened conv's exact sums (bias included). Vectorised: vroundps
// rounds half to even, as nearbyint does in the default rounding mode.
template <typename Sum, typename Code>
SY_CPU_ISA_CLONES void RequantizeRow(const Sum* sums, int64_t count, float multiplier, float zero,
                                     float lo, float hi, Code* codes) {
  for (int64_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(sums[i]) * multiplier;  // f32(acc) * multiplier
    const float code = std::min(std::max(std::nearbyint(v) + zero, lo), hi);
    codes[i] = static_cast<Code>(static_cast<int32_t>(code));
  }
}

// Requantizes the widened path's row-major sums [N, M, pixels] into the output of `ctx`.
template <typename Sum>
void RequantizeRows(const KernelContext& ctx, const QConvParams& p, const Sum* sums) {
  const Shape& sy = ctx.outputs[0].shape();
  const int64_t channels = sy[1];
  const int64_t rows = sy[0] * channels;
  const int64_t pixels = ctx.outputs[0].count() / std::max<int64_t>(rows, 1);
  const bool is_signed = ctx.outputs[0].dtype() == DType::kI8;
  std::byte* out = ctx.outputs[0].data;
  const auto zero = static_cast<float>(p.y_zero);
  const auto lo = static_cast<float>(p.lo), hi = static_cast<float>(p.hi);
  ParallelFor(ctx.pool, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(pixels, 1)),
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  const float m = p.multipliers[static_cast<size_t>(r % channels)];
                  if (is_signed) {
                    RequantizeRow(sums + r * pixels, pixels, m, zero, lo, hi,
                                  reinterpret_cast<int8_t*>(out) + r * pixels);
                  } else {
                    RequantizeRow(sums + r * pixels, pixels, m, zero, lo, hi,
                                  reinterpret_cast<uint8_t*>(out) + r * pixels);
                  }
                }
              });
}

// Codes of `pixels` pixels over all `channels` output channels (channels-last): the steps
// of RequantizeRow with a bias and a multiplier per channel. The bias is added exactly: in
// i32 (Sum = int32_t) where the prepare proved no sum plus bias can overflow it, else in
// double (any i32 sum and bias), before the one conversion to f32. One call per chunk of
// pixels: a call per pixel cost more than the arithmetic at MobileNet's 16 to 32 channels.
template <typename Bias, typename Code>
SY_CPU_ISA_CLONES void RequantizePixels(const int32_t* sums, int64_t pixels, int64_t channels,
                                        const Bias* bias, const float* multipliers, float zero,
                                        float lo, float hi, Code* codes) {
  for (int64_t q = 0; q < pixels; ++q) {
    const int32_t* in = sums + q * channels;
    Code* out = codes + q * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const auto v = static_cast<float>(in[c] + bias[c]);
      const float code = std::min(std::max(std::nearbyint(v * multipliers[c]) + zero, lo), hi);
      out[c] = static_cast<Code>(static_cast<int32_t>(code));
    }
  }
}

class OneDnnQLinearConv final : public PreparedKernel {
 public:
  // ok() false when oneDNN has no JIT kernel for the case or w's zero point is not one it
  // takes: the caller then uses the f32 path.
  OneDnnQLinearConv(const PrepareContext& ctx, const QConvParams& p)
      : p_(p),
        num_threads_(onednn::ThreadsFor(onednn::ConvWork(ctx.inputs[3].shape, ctx.outputs[0].shape),
                                        ctx.num_threads)) {
    const DType w_type = ctx.inputs[3].dtype;
    const int32_t w_offset = w_type == DType::kU8 ? 128 : 0;  // u8 weights less 128 are s8
    for (int32_t z : p.w_zero) {
      if (z != w_offset) return;
    }
    // s32 sums hold any product of up to 65536 taps (|x - zx| <= 255, |w| <= 128).
    if (ElementCount(ctx.inputs[3].shape) / std::max<int64_t>(p.out_channels, 1) > 65536) return;
    const onednn::ScopedThreads threads(num_threads_);
    const dnnl::engine& eng = onednn::Engine();
    const onednn::ConvGeometry g = onednn::ConvGeometryOf(ctx.inputs[0].shape, ctx.inputs[3].shape,
                                                          ctx.outputs[0].shape, ctx.attrs);
    const size_t rank = g.x.size();
    const memory::desc x_md(g.x, ByteType(ctx.inputs[0].dtype), onednn::ChannelsLast(rank));
    const memory::desc y_md(g.y, memory::data_type::s32, onednn::ChannelsLast(rank));
    const memory::desc w_any(g.w, memory::data_type::s8, memory::format_tag::any);
    dnnl::primitive_attr attr;
    if (p.x_zero != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {p.x_zero});
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                               dnnl::algorithm::convolution_direct, x_md, w_any,
                                               y_md, g.strides, g.dilations, g.pad_l, g.pad_r);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    if (!onednn::IsJit(pd) || pd.src_desc() != x_md || pd.dst_desc() != y_md) return;
    impl_ = pd.impl_info_str();
    stream_ = dnnl::stream(eng);
    // Weights: s8 (u8 less 128), reordered once into the kernel's layout.
    const int64_t w_count = ElementCount(ctx.inputs[3].shape);
    std::vector<int8_t> w8(static_cast<size_t>(w_count));
    for (int64_t i = 0; i < w_count; ++i) {
      w8[static_cast<size_t>(i)] =
          static_cast<int8_t>(LoadInt(w_type, ctx.constant_inputs[3], i) - w_offset);
    }
    memory w_plain(onednn::Plain(g.w, memory::data_type::s8), eng, w8.data());
    weights_ = memory(pd.weights_desc(), eng);
    dnnl::reorder(w_plain, weights_).execute(stream_, w_plain, weights_);
    stream_.wait();
    bias_.assign(static_cast<size_t>(p.out_channels), 0.0);
    bias32_.assign(static_cast<size_t>(p.out_channels), 0);
    double largest_bias = 0;
    if (ctx.inputs.size() > 8) {
      for (int64_t m = 0; m < p.out_channels; ++m) {
        const int64_t b = LoadInt(DType::kI32, ctx.constant_inputs[8], m);
        bias_[static_cast<size_t>(m)] = static_cast<double>(b);
        bias32_[static_cast<size_t>(m)] = static_cast<int32_t>(b);
        largest_bias = std::max(largest_bias, std::fabs(static_cast<double>(b)));
      }
    }
    // A sum is at most taps * 255 * 128 in magnitude (|x - x_zero_point| <= 255, |w| <= 128).
    const double taps =
        static_cast<double>(w_count) / static_cast<double>(std::max<int64_t>(p.out_channels, 1));
    bias_fits_i32_ = taps * 255 * 128 + largest_bias < 2147483647.0;
    x_ = memory(x_md, eng);
    y_ = memory(y_md, eng);
    x_user_ = memory(onednn::Plain(g.x, x_md.data_type()), eng, DNNL_MEMORY_NONE);
    to_channels_last_ = dnnl::reorder(x_user_, x_);
    const memory::data_type code_type = ByteType(ctx.outputs[0].dtype);
    codes_ = memory(memory::desc(g.y, code_type, onednn::ChannelsLast(rank)), eng);
    y_user_ = memory(onednn::Plain(g.y, code_type), eng, DNNL_MEMORY_NONE);
    to_row_major_ = dnnl::reorder(codes_, y_user_);
    x_buffer_ = x_.get_data_handle();
    codes_buffer_ = static_cast<std::byte*>(codes_.get_data_handle());
    primitive_ = dnnl::convolution_forward(pd);
    args_ = {{DNNL_ARG_SRC, x_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, y_}};
    ok_ = true;
  }

  bool ok() const { return ok_; }
  std::string Implementation() const override { return impl_; }

  // x and y may be stored channels-last (between two qlinear_convs, CpuExecutable::
  // ChooseLayouts): the primitive then reads x in place and the codes are written into y
  // directly, and the reorders go.
  bool AcceptsChannelsLastInput(size_t index) const override { return index == 0; }
  bool AcceptsChannelsLastOutput(size_t index) const override { return index == 0; }
  void UseLayouts(std::span<const Layout> inputs, std::span<const Layout> outputs) override {
    x_channels_last_ = inputs[0] == Layout::kChannelsLast;
    y_channels_last_ = outputs[0] == Layout::kChannelsLast;
  }

  Status Run(const KernelContext& ctx) override {
    try {
      const onednn::ScopedThreads threads(num_threads_);
      if (x_channels_last_) {
        x_.set_data_handle(const_cast<std::byte*>(ctx.inputs[0].data));
      } else {
        x_.set_data_handle(x_buffer_);
        x_user_.set_data_handle(const_cast<std::byte*>(ctx.inputs[0].data));
        to_channels_last_.execute(stream_, x_user_, x_);
      }
      primitive_.execute(stream_, args_);
      stream_.wait();
      RequantizeChannelsLast(ctx, y_channels_last_ ? ctx.outputs[0].data : codes_buffer_);
      if (!y_channels_last_) {
        y_user_.set_data_handle(ctx.outputs[0].data);
        to_row_major_.execute(stream_, codes_, y_user_);
      }
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Internal(std::string(ctx.op) + ": oneDNN convolution failed: " + e.what());
    }
    return Status::Ok();
  }

 private:
  // The channels-last s32 sums in y_ to channels-last codes, a pixel (all channels) at a
  // time.
  void RequantizeChannelsLast(const KernelContext& ctx, std::byte* codes) const {
    const auto* sums = static_cast<const int32_t*>(y_.get_data_handle());
    const int64_t channels = p_.out_channels;
    const int64_t pixels = ctx.outputs[0].count() / std::max<int64_t>(channels, 1);
    const bool is_signed = ctx.outputs[0].dtype() == DType::kI8;
    const auto zero = static_cast<float>(p_.y_zero);
    const auto lo = static_cast<float>(p_.lo), hi = static_cast<float>(p_.hi);
    ParallelFor(ctx.pool, pixels, std::max<int64_t>(1, 16384 / std::max<int64_t>(channels, 1)),
                [&](int64_t q0, int64_t q1) {
                  const int32_t* in = sums + q0 * channels;
                  std::byte* out = codes + q0 * channels;
                  const float* m = p_.multipliers.data();
                  if (bias_fits_i32_ && is_signed) {
                    RequantizePixels(in, q1 - q0, channels, bias32_.data(), m, zero, lo, hi,
                                     reinterpret_cast<int8_t*>(out));
                  } else if (bias_fits_i32_) {
                    RequantizePixels(in, q1 - q0, channels, bias32_.data(), m, zero, lo, hi,
                                     reinterpret_cast<uint8_t*>(out));
                  } else if (is_signed) {
                    RequantizePixels(in, q1 - q0, channels, bias_.data(), m, zero, lo, hi,
                                     reinterpret_cast<int8_t*>(out));
                  } else {
                    RequantizePixels(in, q1 - q0, channels, bias_.data(), m, zero, lo, hi,
                                     reinterpret_cast<uint8_t*>(out));
                  }
                });
  }

  QConvParams p_;
  int num_threads_;
  bool ok_ = false;
  bool x_channels_last_ = false, y_channels_last_ = false;  // UseLayouts
  void* x_buffer_ = nullptr;                                // x_'s own, for row-major x
  std::byte* codes_buffer_ = nullptr;                       // codes_'s, for row-major y
  std::string impl_;
  std::vector<double> bias_;     // per output channel (0 without one)
  std::vector<int32_t> bias32_;  // the same, for sums that cannot overflow i32 with it
  bool bias_fits_i32_ = false;
  dnnl::stream stream_;
  memory x_, y_, x_user_, codes_, y_user_, weights_;
  dnnl::reorder to_channels_last_, to_row_major_;
  dnnl::convolution_forward primitive_;
  std::unordered_map<int, memory> args_;
};

// The widened path: x - x_zero_point widened to T and convolved by the table's conv of T
// (f32: oneDNN, weights w - w_zero_point widened and reordered at prepare; f64: im2col +
// dgemm), then requantized. T is f32 where no sum can reach 2^24 in magnitude (|x -
// x_zero_point| at most its type's reach times each channel's sum of |w - w_zero_point|,
// plus |bias|), so that every partial sum is exact and the result is f32(acc) as the op
// says; else f64, exact for any sum of this op.
bool SumsFitF32(const PrepareContext& ctx, const QConvParams& p) {
  const int64_t w_count = ElementCount(ctx.inputs[3].shape);
  const int64_t per_channel = w_count / std::max<int64_t>(p.out_channels, 1);
  const DType x_type = ctx.inputs[0].dtype;
  const double x_reach = x_type == DType::kU8 ? std::max(p.x_zero, 255 - p.x_zero)
                                              : std::max(p.x_zero + 128, 127 - p.x_zero);
  for (int64_t m = 0; m < p.out_channels; ++m) {
    double sum = 0;
    for (int64_t k = 0; k < per_channel; ++k) {
      sum += std::fabs(static_cast<double>(
          LoadInt(ctx.inputs[3].dtype, ctx.constant_inputs[3], m * per_channel + k) -
          p.w_zero[static_cast<size_t>(m)]));
    }
    const double bias =
        ctx.inputs.size() > 8
            ? std::fabs(static_cast<double>(LoadInt(DType::kI32, ctx.constant_inputs[8], m)))
            : 0.0;
    if (sum * x_reach + bias >= 16777216.0) return false;
  }
  return true;
}

template <typename T>
class WidenedQLinearConv final : public PreparedKernel {
 public:
  WidenedQLinearConv(const PrepareContext& ctx, const QConvParams& p) : p_(p) {
    const DType t = std::is_same_v<T, float> ? DType::kF32 : DType::kF64;
    const Shape& sx = ctx.inputs[0].shape;
    const Shape& sw = ctx.inputs[3].shape;
    const Shape& sy = ctx.outputs[0].shape;
    const int64_t w_count = ElementCount(sw);
    const int64_t per_channel = w_count / std::max<int64_t>(p.out_channels, 1);
    weights_.resize(static_cast<size_t>(w_count));
    for (int64_t i = 0; i < w_count; ++i) {
      weights_[static_cast<size_t>(i)] =
          static_cast<T>(LoadInt(ctx.inputs[3].dtype, ctx.constant_inputs[3], i) -
                         p.w_zero[static_cast<size_t>(i / per_channel)]);
    }
    has_bias_ = ctx.inputs.size() > 8;
    if (has_bias_) {
      for (int64_t m = 0; m < p.out_channels; ++m) {
        bias_.push_back(static_cast<T>(LoadInt(DType::kI32, ctx.constant_inputs[8], m)));
      }
    }
    x_.resize(static_cast<size_t>(ElementCount(sx)));
    y_.resize(static_cast<size_t>(ElementCount(sy)));
    types_ = {TensorType{t, sx}, TensorType{t, sw}, TensorType{t, Shape{p.out_channels}}};
    out_type_ = TensorType{t, sy};
    const KernelTable::Entry* conv = FastKernels().FindEntry("conv");
    conv_fn_ = conv->fn;
    if (conv->prepare != nullptr) {
      const std::byte* constants[3] = {nullptr, reinterpret_cast<const std::byte*>(weights_.data()),
                                       reinterpret_cast<const std::byte*>(bias_.data())};
      const PrepareContext widened{
          "conv",    std::span(types_.data(), has_bias_ ? 3 : 2), std::span(&out_type_, 1),
          ctx.attrs, std::span(constants, has_bias_ ? 3 : 2),     ctx.num_threads};
      conv_ = conv->prepare(widened);
    }
  }

  std::string Implementation() const override {
    return std::is_same_v<T, float> ? "widened_f32_conv" : "widened_f64_conv";
  }

  Status Run(const KernelContext& ctx) override {
    const ConstTensorView& x = ctx.inputs[0];
    const int64_t count = x.count();
    const bool x_signed = x.dtype() == DType::kI8;
    const auto* xb = reinterpret_cast<const uint8_t*>(x.data);
    const auto zero = static_cast<T>(p_.x_zero);
    ParallelFor(ctx.pool, count, 4096, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const T v = x_signed ? static_cast<T>(static_cast<int8_t>(xb[i])) : static_cast<T>(xb[i]);
        x_[static_cast<size_t>(i)] = v - zero;
      }
    });
    const ConstTensorView inputs[3] = {
        {types_[0], reinterpret_cast<const std::byte*>(x_.data())},
        {types_[1], reinterpret_cast<const std::byte*>(weights_.data())},
        {types_[2], reinterpret_cast<const std::byte*>(bias_.data())}};
    const TensorView outputs[1] = {{out_type_, reinterpret_cast<std::byte*>(y_.data())}};
    const KernelContext widened{"conv", std::span(inputs, has_bias_ ? 3 : 2), std::span(outputs, 1),
                                ctx.attrs, ctx.pool};
    SY_RETURN_IF_ERROR(conv_ != nullptr ? conv_->Run(widened) : conv_fn_(widened));
    RequantizeRows(ctx, p_, y_.data());
    return Status::Ok();
  }

 private:
  QConvParams p_;
  bool has_bias_ = false;
  std::vector<T> weights_, bias_;  // w - w_zero_point and the bias, widened
  std::vector<T> x_, y_;           // this kernel's widened operands, reused every run
  std::vector<TensorType> types_;
  TensorType out_type_;
  KernelFn conv_fn_ = nullptr;
  std::unique_ptr<PreparedKernel> conv_;
};

std::unique_ptr<PreparedKernel> PrepareQLinearConv(const PrepareContext& ctx) {
  if (ElementCount(ctx.outputs[0].shape) == 0) return nullptr;
  const std::optional<QConvParams> p = ReadParams(ctx);
  if (!p) return nullptr;
  if (onednn::Selected() && onednn::HasVnni()) {
    try {
      auto kernel = std::make_unique<OneDnnQLinearConv>(ctx, *p);
      if (kernel->ok()) return kernel;
    } catch (const dnnl::error&) {
    }
  }
  try {
    if (SumsFitF32(ctx, *p)) return std::make_unique<WidenedQLinearConv<float>>(ctx, *p);
    return std::make_unique<WidenedQLinearConv<double>>(ctx, *p);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

void AttachOneDnnQLinearConvKernels(KernelTable& table) {
  // The entry itself: the reference kernel runs what the prepare declines.
  table.Add("qlinear_conv", RefKernels().Find("qlinear_conv"), PrepareQLinearConv);
}

}  // namespace sy::cpu
