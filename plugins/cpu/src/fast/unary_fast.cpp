// Fast unary elementwise kernels: f32 in vectorisable loops, f16 and bf16 computing in
// f32 on blocks converted to and from storage, each split over the context's threads.
// Other dtypes (f64, the integers of neg and abs) go to the reference kernel.
//
// Semantics are the reference kernels' (ref/elementwise_ref.cpp): the same special
// cases (silu and gelu give x and -0 at +-inf, NaN propagates, relu keeps -0); only the
// rounding differs, since the reference computes in double and rounds once.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "half_as_f32.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

Status Reference(const KernelContext& ctx) { return RefKernels().Find(ctx.op)(ctx); }

// y[i] = f(x[i]) over [begin, end): the f32 loop, cloned per instruction set.
template <typename F>
SY_CPU_ISA_CLONES void ApplyF32(const float* x, float* y, int64_t begin, int64_t end, F f) {
  for (int64_t i = begin; i < end; ++i) y[i] = f(x[i]);
}

// Applies `f` elementwise. `grain` is the ParallelFor chunk (fast::kCheapGrain or
// fast::kCostlyGrain by the cost of f).
template <typename F>
Status Unary(const KernelContext& ctx, F f, int64_t grain) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const int64_t n = y.count();
  if (y.dtype() != dt) return Reference(ctx);
  if (dt == DType::kF32 && fast::IsF32Aligned(x.data) && fast::IsF32Aligned(y.data)) {
    const float* in = reinterpret_cast<const float*>(x.data);
    float* out = reinterpret_cast<float*>(y.data);
    ParallelFor(ctx.pool, n, grain,
                [in, out, f](int64_t begin, int64_t end) { ApplyF32(in, out, begin, end, f); });
    return Status::Ok();
  }
  if (dt == DType::kF16 || dt == DType::kBF16) {
    const std::byte* in = x.data;
    std::byte* out = y.data;
    ParallelFor(ctx.pool, n, grain, [in, out, dt, f](int64_t begin, int64_t end) {
      constexpr int64_t kBlock = 256;
      float buf[kBlock];
      for (int64_t i = begin; i < end; i += kBlock) {
        const int64_t m = std::min(kBlock, end - i);
        fast::LoadF32(dt, in, i, m, buf);
        for (int64_t j = 0; j < m; ++j) buf[j] = f(buf[j]);
        fast::StoreF32(dt, buf, i, m, out);
      }
    });
    return Status::Ok();
  }
  return Reference(ctx);
}

// ---- the functions (f32 in, f32 out) -------------------------------------------------

float ClearSign(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu); }
bool IsInf(float x) { return ClearSign(x) == std::numeric_limits<float>::infinity(); }

struct Neg {
  float operator()(float x) const { return -x; }
};
struct Abs {
  float operator()(float x) const { return ClearSign(x); }
};
struct Sqrt {
  float operator()(float x) const { return std::sqrt(x); }
};
struct Rsqrt {
  float operator()(float x) const { return 1.0f / std::sqrt(x); }
};
// Half to even, as the reference's RoundHalfEven (the default rounding mode; -0 and
// NaN kept).
struct Round {
  float operator()(float x) const { return std::nearbyint(x); }
};
struct Reciprocal {
  float operator()(float x) const { return 1.0f / x; }
};
struct Relu {
  float operator()(float x) const { return x < 0.0f ? 0.0f : x; }  // keeps NaN and -0
};
struct Exp {
  float operator()(float x) const { return fast::Exp(x); }
};
struct Log {
  float operator()(float x) const { return std::log(x); }
};
struct Tanh {
  float operator()(float x) const { return fast::Tanh(x); }
};
struct Sigmoid {
  float operator()(float x) const { return fast::Sigmoid(x); }
};
struct Erf {
  float operator()(float x) const { return fast::Erf(x); }
};
// The inverse trigonometric and hyperbolic maps: libm's f32 functions, NaN outside their
// domains like the reference.
struct Asin {
  float operator()(float x) const { return std::asin(x); }
};
struct Acos {
  float operator()(float x) const { return std::acos(x); }
};
struct Atan {
  float operator()(float x) const { return std::atan(x); }
};
struct Asinh {
  float operator()(float x) const { return std::asinh(x); }
};
struct Acosh {
  float operator()(float x) const { return std::acosh(x); }
};
struct Atanh {
  float operator()(float x) const { return std::atanh(x); }
};
// x sigmoid(x); x at +inf and -0 at -inf, where the product would be NaN.
struct Silu {
  float operator()(float x) const {
    const float y = x * fast::Sigmoid(x);
    return IsInf(x) ? (x > 0.0f ? x : -0.0f) : y;
  }
};
// x Phi(x) = 0.5 x erfc(-x / sqrt 2) (fast::GeluErf: the negative tail as
// e^(-x^2/2) times a smooth factor, x^2 carried exactly, so it keeps its relative accuracy
// where erfc's argument rounded to f32 would lose 2 t^2 ulp). +inf gives +inf, -inf -0.
struct GeluErf {
  float operator()(float x) const { return fast::GeluErf(x); }
};
// x sigmoid(2z), z = sqrt(2/pi) (x + 0.044715 x^3): 0.5 (1 + tanh z) without cancelling.
// 2z in double and its f32 rounding error passed on (fast::SigmoidOf): e^2z is then as
// accurate as exp, rather than |2z| / 2 ulp off.
struct GeluTanh {
  float operator()(float x) const {
    constexpr double k = 2.0 * std::numbers::sqrt2 * std::numbers::inv_sqrtpi;  // 2 sqrt(2/pi)
    const double xd = x;
    const float y = x * fast::SigmoidOf(k * (xd + 0.044715 * xd * xd * xd));
    return IsInf(x) ? (x > 0.0f ? x : -0.0f) : y;
  }
};

template <typename F, int64_t kGrain>
Status Kernel(const KernelContext& ctx) {
  return Unary(ctx, F(), kGrain);
}

Status Gelu(const KernelContext& ctx) {
  if (ctx.attrs.GetString("approximate", "none") == "tanh") {
    return Unary(ctx, GeluTanh(), fast::kCostlyGrain);
  }
  return Unary(ctx, GeluErf(), fast::kCostlyGrain);
}

// hard_sigmoid and hard_swish in double, as the reference computes them (alpha x + beta
// clamped to [0, 1]; x times that at alpha 1/6 and beta 1/2, -0 at -inf), so f32 gives
// the reference's results exactly and f16/bf16 round them once more from f32.
struct HardSigmoidF {
  double alpha, beta;
  float operator()(float x) const {
    double y = alpha * x + beta;
    y = y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);  // NaN compares false and stays
    return static_cast<float>(y);
  }
};
struct HardSwishF {
  float operator()(float x) const {
    const double d = x;
    double y = d * (1.0 / 6.0) + 0.5;
    y = y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
    return x == -std::numeric_limits<float>::infinity() ? -0.0f : static_cast<float>(d * y);
  }
};

Status HardSigmoid(const KernelContext& ctx) {
  return Unary(ctx, HardSigmoidF{ctx.attrs.GetFloat("alpha", 0.2), ctx.attrs.GetFloat("beta", 0.5)},
               fast::kCheapGrain);
}

// clip on f32 (every other dtype goes to the reference): compared and clamped in double
// against the attribute bounds as the reference does, so a clamped element is the bound
// rounded once to f32 (f16 and bf16 would round it twice here, hence the reference for
// them); NaN compares false and passes through; an absent or NaN bound does not clamp.
Status Clip(const KernelContext& ctx) {
  if (ctx.inputs[0].dtype() != DType::kF32) return Reference(ctx);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double min_attr = ctx.attrs.Has("min") ? ctx.attrs.GetFloat("min") : -kInf;
  const double max_attr = ctx.attrs.Has("max") ? ctx.attrs.GetFloat("max") : kInf;
  const double lo = std::isnan(min_attr) ? -kInf : min_attr;
  const double hi = std::isnan(max_attr) ? kInf : max_attr;
  return Unary(
      ctx,
      [lo, hi](float x) {
        double v = x;
        if (v < lo) v = lo;
        if (v > hi) v = hi;
        return static_cast<float>(v);
      },
      fast::kCheapGrain);
}

}  // namespace

// cast, for the pairs quantized and f16 models run on every activation: f32 <-> f16 (the
// vector conversions of half_as_f32.h, rounding to nearest even as the reference's one
// rounding from the exact f32 does), f32 -> u8/i8 (truncated, saturated, NaN to 0, as
// the reference), u8/i8/i32 -> f32 (one rounding, as the reference's), u8/i8 -> i32.
// Every other pair, and buffers not aligned for their dtype: the reference.
template <typename I>
SY_CPU_ISA_CLONES void FloatToSmallInt(const float* x, I* y, int64_t begin, int64_t end) {
  constexpr float lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
  for (int64_t i = begin; i < end; ++i) {
    const float v = x[i] == x[i] ? std::trunc(x[i]) : 0.0f;  // NaN -> 0
    y[i] = static_cast<I>(v < lo ? lo : (v > hi ? hi : v));
  }
}

template <typename From, typename To>
SY_CPU_ISA_CLONES void Convert(const From* x, To* y, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) y[i] = static_cast<To>(x[i]);
}

template <typename From, typename To, typename F>
Status CastLoop(const KernelContext& ctx, F loop) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (reinterpret_cast<uintptr_t>(x.data) % alignof(From) != 0 ||
      reinterpret_cast<uintptr_t>(y.data) % alignof(To) != 0) {
    return Reference(ctx);
  }
  const auto* in = reinterpret_cast<const From*>(x.data);
  auto* out = reinterpret_cast<To*>(y.data);
  ParallelFor(ctx.pool, y.count(), fast::kCheapGrain,
              [in, out, loop](int64_t begin, int64_t end) { loop(in, out, begin, end); });
  return Status::Ok();
}

Status Cast(const KernelContext& ctx) {
  const DType from = ctx.inputs[0].dtype(), to = ctx.outputs[0].dtype();
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (from == DType::kF32 && to == DType::kF16) {
    F32ToHalf(reinterpret_cast<const float*>(x.data), reinterpret_cast<uint16_t*>(y.data),
              y.count());
    return Status::Ok();
  }
  if (from == DType::kF16 && to == DType::kF32) {
    HalfToF32(reinterpret_cast<const uint16_t*>(x.data), reinterpret_cast<float*>(y.data),
              y.count());
    return Status::Ok();
  }
  if (from == DType::kF32 && to == DType::kU8) {
    return CastLoop<float, uint8_t>(ctx, FloatToSmallInt<uint8_t>);
  }
  if (from == DType::kF32 && to == DType::kI8) {
    return CastLoop<float, int8_t>(ctx, FloatToSmallInt<int8_t>);
  }
  if (from == DType::kU8 && to == DType::kF32) {
    return CastLoop<uint8_t, float>(ctx, Convert<uint8_t, float>);
  }
  if (from == DType::kI8 && to == DType::kF32) {
    return CastLoop<int8_t, float>(ctx, Convert<int8_t, float>);
  }
  if (from == DType::kI32 && to == DType::kF32) {
    return CastLoop<int32_t, float>(ctx, Convert<int32_t, float>);
  }
  if (from == DType::kU8 && to == DType::kI32) {
    return CastLoop<uint8_t, int32_t>(ctx, Convert<uint8_t, int32_t>);
  }
  if (from == DType::kI8 && to == DType::kI32) {
    return CastLoop<int8_t, int32_t>(ctx, Convert<int8_t, int32_t>);
  }
  return Reference(ctx);
}

void AddUnaryFastKernels(KernelTable& table) {
  using fast::kCheapGrain;
  using fast::kCostlyGrain;
  table.Add("neg", Kernel<Neg, kCheapGrain>);
  table.Add("abs", Kernel<Abs, kCheapGrain>);
  table.Add("relu", Kernel<Relu, kCheapGrain>);
  table.Add("sqrt", Kernel<Sqrt, kCheapGrain>);
  table.Add("rsqrt", Kernel<Rsqrt, kCheapGrain>);
  table.Add("reciprocal", Kernel<Reciprocal, kCheapGrain>);
  table.Add("exp", Kernel<Exp, kCostlyGrain>);
  table.Add("log", Kernel<Log, kCostlyGrain>);
  table.Add("tanh", Kernel<Tanh, kCostlyGrain>);
  table.Add("sigmoid", Kernel<Sigmoid, kCostlyGrain>);
  table.Add("silu", Kernel<Silu, kCostlyGrain>);
  table.Add("erf", Kernel<Erf, kCostlyGrain>);
  table.Add("asin", Kernel<Asin, kCostlyGrain>);
  table.Add("acos", Kernel<Acos, kCostlyGrain>);
  table.Add("atan", Kernel<Atan, kCostlyGrain>);
  table.Add("asinh", Kernel<Asinh, kCostlyGrain>);
  table.Add("acosh", Kernel<Acosh, kCostlyGrain>);
  table.Add("atanh", Kernel<Atanh, kCostlyGrain>);
  table.Add("gelu", Gelu);
  table.Add("hard_sigmoid", HardSigmoid);
  table.Add("hard_swish", Kernel<HardSwishF, kCheapGrain>);
  table.Add("round", Kernel<Round, kCheapGrain>);
  table.Add("clip", Clip);
  table.Add("cast", Cast);
}

}  // namespace sy::cpu
