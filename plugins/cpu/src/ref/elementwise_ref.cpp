// Reference kernels for the elementwise family (spec/ops.md, "Elementwise"): the unary
// maps, clip, not and cast live here; the broadcasting binary and ternary ops are in
// elementwise_binary_ref.cpp.
//
// Floats compute in double and are rounded to the output dtype once, on store; integers
// compute in int64_t and wrap on store like NumPy. Decisions where ONNX leaves room:
//  - silu, gelu, mish, hard_swish return their limits at +-inf (x and -0) rather than the
//    NaN that a literal x * g(x) gives at -inf; softsign returns +-1 at +-inf.
//  - round is half to even; the sign of a zero result follows the input (like NumPy).
//  - clip on integers clamps in integer arithmetic to [ceil(min), floor(max)], each bound
//    first saturated to the dtype's range, so the result is always representable.
//  - cast float -> integer truncates toward zero, saturates to the target range, and maps
//    NaN to 0 (ONNX leaves out-of-range unspecified; this never traps). Anything -> bool
//    is value != 0 (NaN -> true); bool -> anything is 0/1. Integer -> integer wraps.
//    Every cast to a float dtype is rounded once (to nearest even), even f64 -> f16/bf16
//    and i64 -> f16/bf16, which go through a round-to-odd float so that the second
//    rounding cannot differ from a direct one.
#include "ref/elementwise_ref.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

// ---- element loops -------------------------------------------------------------------

template <typename F>
Status MapFloat(const KernelContext& ctx, F f) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  for (int64_t i = 0; i < y.count(); ++i) {
    StoreFloat(y.dtype(), y.data, i, f(LoadFloat(x.dtype(), x.data, i)));
  }
  return Status::Ok();
}

template <typename F>
Status MapInt(const KernelContext& ctx, F f) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  for (int64_t i = 0; i < y.count(); ++i) {
    StoreInt(y.dtype(), y.data, i, f(LoadInt(x.dtype(), x.data, i)));
  }
  return Status::Ok();
}

// A float-only unary op from a double -> double function.
template <double (*F)(double)>
Status FloatUnary(const KernelContext& ctx) {
  return MapFloat(ctx, F);
}

// A float-or-integer unary op: F for floats, I for integers.
template <double (*F)(double), int64_t (*I)(int64_t)>
Status NumericUnary(const KernelContext& ctx) {
  if (IsFloat(ctx.inputs[0].dtype())) return MapFloat(ctx, F);
  return MapInt(ctx, I);
}

// ---- the functions -------------------------------------------------------------------

constexpr double kInf = std::numeric_limits<double>::infinity();

double Neg(double x) { return -x; }
int64_t NegInt(int64_t x) { return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x)); }
double Abs(double x) { return std::fabs(x); }
int64_t AbsInt(int64_t x) { return x < 0 ? NegInt(x) : x; }  // INT64_MIN wraps to itself
double Sign(double x) {
  if (x > 0) return 1.0;
  if (x < 0) return -1.0;
  return x;  // +-0 and NaN
}
int64_t SignInt(int64_t x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

double Exp(double x) { return std::exp(x); }
double Log(double x) { return std::log(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Reciprocal(double x) { return 1.0 / x; }
double Rsqrt(double x) { return 1.0 / std::sqrt(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
// The inverse maps give NaN outside their domains (|x| > 1 for asin, acos and atanh,
// x < 1 for acosh), like C and NumPy; atanh(+-1) is +-inf.
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Atan(double x) { return std::atan(x); }
double Asinh(double x) { return std::asinh(x); }
double Acosh(double x) { return std::acosh(x); }
double Atanh(double x) { return std::atanh(x); }
double Erf(double x) { return std::erf(x); }
double Tanh(double x) { return std::tanh(x); }
double Floor(double x) { return std::floor(x); }
double Ceil(double x) { return std::ceil(x); }

double Sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);  // no overflow for x < 0; NaN lands here and stays NaN
  return e / (1.0 + e);
}

double Relu(double x) { return x < 0 ? 0.0 : x; }

// log(1 + e^x) without overflow.
double Softplus(double x) {
  if (x > 0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

double Silu(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return x * Sigmoid(x);
}

double Mish(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return x * std::tanh(Softplus(x));
}

// 0.5 x (1 + erf(x / sqrt 2)), written with erfc so that large negative x keeps precision.
double GeluErf(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return 0.5 * x * std::erfc(-x / std::numbers::sqrt2);
}

// 0.5 x (1 + tanh(z)) with z = sqrt(2/pi) (x + 0.044715 x^3); 0.5 (1 + tanh(z)) is
// sigmoid(2z), which does not cancel for large negative x.
double GeluTanh(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;  // sqrt(2 / pi)
  const double z = k * (x + 0.044715 * x * x * x);
  return x * Sigmoid(2.0 * z);
}

// max(0, min(1, alpha x + beta)), NaN propagating.
double HardSigmoid(double x, double alpha, double beta) {
  const double y = alpha * x + beta;
  if (std::isnan(y)) return y;
  return y < 0 ? 0.0 : (y > 1 ? 1.0 : y);
}

double HardSwish(double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return x * HardSigmoid(x, 1.0 / 6.0, 0.5);
}

double Softsign(double x) {
  if (std::isinf(x)) return std::copysign(1.0, x);
  return x / (1.0 + std::fabs(x));
}

double RoundHalfEven(double x) {
  if (!std::isfinite(x)) return x;
  double r = std::floor(x);
  const double diff = x - r;  // exact, in [0, 1)
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r == 0.0 ? std::copysign(0.0, x) : r;
}

// ---- kernels with attributes ---------------------------------------------------------

Status Gelu(const KernelContext& ctx) {
  if (ctx.attrs.GetString("approximate", "none") == "tanh") return MapFloat(ctx, GeluTanh);
  return MapFloat(ctx, GeluErf);
}

Status LeakyRelu(const KernelContext& ctx) {
  const double alpha = ctx.attrs.GetFloat("alpha", 0.01);
  return MapFloat(ctx, [alpha](double x) { return x < 0 ? alpha * x : x; });
}

Status Elu(const KernelContext& ctx) {
  const double alpha = ctx.attrs.GetFloat("alpha", 1.0);
  return MapFloat(ctx, [alpha](double x) { return x < 0 ? alpha * std::expm1(x) : x; });
}

Status HardSigmoidKernel(const KernelContext& ctx) {
  const double alpha = ctx.attrs.GetFloat("alpha", 0.2);
  const double beta = ctx.attrs.GetFloat("beta", 0.5);
  return MapFloat(ctx, [alpha, beta](double x) { return HardSigmoid(x, alpha, beta); });
}

Status Selu(const KernelContext& ctx) {
  const double alpha = ctx.attrs.GetFloat("alpha", 1.67326319217681884765625);
  const double gamma = ctx.attrs.GetFloat("gamma", 1.05070102214813232421875);
  return MapFloat(
      ctx, [alpha, gamma](double x) { return x > 0 ? gamma * x : gamma * alpha * std::expm1(x); });
}

// The range of an integer dtype (bool: 0..1).
std::pair<int64_t, int64_t> IntRange(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return {-128, 127};
    case DType::kU8:
      return {0, 255};
    case DType::kI32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::kI16:
      return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case DType::kU16:
      return {0, std::numeric_limits<uint16_t>::max()};
    case DType::kU32:
      return {0, std::numeric_limits<uint32_t>::max()};
    case DType::kBool:
      return {0, 1};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

// `v` (already an integer value or +-inf, never NaN) saturated to [lo, hi].
int64_t SaturateToInt(double v, int64_t lo, int64_t hi) {
  if (v <= static_cast<double>(lo)) return lo;
  if (v >= static_cast<double>(hi)) return hi;  // for i64, hi converts to 2^63
  return static_cast<int64_t>(v);
}

Status Clip(const KernelContext& ctx) {
  const AttrValue* min_attr = ctx.attrs.Find("min");
  const AttrValue* max_attr = ctx.attrs.Find("max");
  const bool has_min = min_attr != nullptr && !std::isnan(ctx.attrs.GetFloat("min"));
  const bool has_max = max_attr != nullptr && !std::isnan(ctx.attrs.GetFloat("max"));
  const double min = has_min ? ctx.attrs.GetFloat("min") : -kInf;
  const double max = has_max ? ctx.attrs.GetFloat("max") : kInf;
  const DType dtype = ctx.inputs[0].dtype();
  if (IsFloat(dtype)) {
    return MapFloat(ctx, [min, max](double x) {
      if (x < min) x = min;  // NaN compares false and passes through
      if (x > max) x = max;
      return x;
    });
  }
  const auto [dtype_min, dtype_max] = IntRange(dtype);
  const int64_t lo = SaturateToInt(std::ceil(min), dtype_min, dtype_max);
  const int64_t hi = SaturateToInt(std::floor(max), dtype_min, dtype_max);
  return MapInt(ctx, [lo, hi](int64_t x) { return std::min(std::max(x, lo), hi); });
}

Status Not(const KernelContext& ctx) {
  return MapInt(ctx, [](int64_t x) -> int64_t { return x == 0 ? 1 : 0; });
}

// Every bit flipped (stored in the dtype's width: two's complement).
Status BitwiseNot(const KernelContext& ctx) {
  return MapInt(ctx, [](int64_t x) -> int64_t { return ~x; });
}

// ---- cast ----------------------------------------------------------------------------

// Round-to-odd narrowing: the float next to `d` toward zero, with its lowest mantissa bit
// set when `d` is not exactly a float. Rounding that float to nearest even at f16 or bf16
// precision (at least 2 bits shorter) equals rounding `d` directly.
float DoubleToFloatOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return BitsToFloat(FloatBits(f) | 1u);
}

// The same for an int64_t, which a double does not always hold exactly.
float Int64ToFloatOdd(int64_t v) {
  const bool negative = v < 0;
  uint64_t m = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int shift = 0;
  bool sticky = false;
  while (m >= (uint64_t{1} << 24)) {
    sticky = sticky || (m & 1u) != 0;
    m >>= 1;
    ++shift;
  }
  if (sticky) m |= 1u;
  const float f = std::ldexp(static_cast<float>(m), shift);  // exact
  return negative ? -f : f;
}

// Stores `v` (an exact double) into a float dtype with one rounding.
void StoreFloatRounded(DType dtype, std::byte* data, int64_t i, double v) {
  if (dtype == DType::kF16 || dtype == DType::kBF16) {
    StoreFloat(dtype, data, i, static_cast<double>(DoubleToFloatOdd(v)));
  } else {
    StoreFloat(dtype, data, i, v);
  }
}

void StoreIntAsFloat(DType dtype, std::byte* data, int64_t i, int64_t v) {
  switch (dtype) {
    case DType::kF64:
      StoreFloat(dtype, data, i, static_cast<double>(v));
      return;
    case DType::kF32:
      StoreFloat(dtype, data, i, static_cast<double>(static_cast<float>(v)));
      return;
    default:
      StoreFloat(dtype, data, i, static_cast<double>(Int64ToFloatOdd(v)));
      return;
  }
}

// Float -> integer: truncate toward zero, saturate to the dtype's range, NaN -> 0.
int64_t FloatToIntSaturating(double v, DType to) {
  if (std::isnan(v)) return 0;
  const auto [lo, hi] = IntRange(to);
  return SaturateToInt(std::trunc(v), lo, hi);
}

Status Cast(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const DType from = x.dtype();
  const DType to = y.dtype();
  for (int64_t i = 0; i < y.count(); ++i) {
    if (IsFloat(from)) {
      const double v = LoadFloat(from, x.data, i);
      if (IsFloat(to)) {
        StoreFloatRounded(to, y.data, i, v);
      } else if (to == DType::kBool) {
        StoreInt(to, y.data, i, v != 0.0 ? 1 : 0);  // NaN != 0
      } else {
        StoreInt(to, y.data, i, FloatToIntSaturating(v, to));
      }
    } else {
      int64_t v = LoadInt(from, x.data, i);
      if (from == DType::kBool) v = v != 0 ? 1 : 0;
      if (IsFloat(to)) {
        StoreIntAsFloat(to, y.data, i, v);
      } else {
        StoreInt(to, y.data, i, v);  // wraps; bool stores v != 0
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddElementwiseRefKernels(KernelTable& table) {
  table.Add("neg", NumericUnary<Neg, NegInt>);
  table.Add("abs", NumericUnary<Abs, AbsInt>);
  table.Add("sign", NumericUnary<Sign, SignInt>);
  table.Add("exp", FloatUnary<Exp>);
  table.Add("log", FloatUnary<Log>);
  table.Add("sqrt", FloatUnary<Sqrt>);
  table.Add("reciprocal", FloatUnary<Reciprocal>);
  table.Add("sin", FloatUnary<Sin>);
  table.Add("cos", FloatUnary<Cos>);
  table.Add("tan", FloatUnary<Tan>);
  table.Add("asin", FloatUnary<Asin>);
  table.Add("acos", FloatUnary<Acos>);
  table.Add("atan", FloatUnary<Atan>);
  table.Add("asinh", FloatUnary<Asinh>);
  table.Add("acosh", FloatUnary<Acosh>);
  table.Add("atanh", FloatUnary<Atanh>);
  table.Add("erf", FloatUnary<Erf>);
  table.Add("rsqrt", FloatUnary<Rsqrt>);
  table.Add("tanh", FloatUnary<Tanh>);
  table.Add("sigmoid", FloatUnary<Sigmoid>);
  table.Add("relu", FloatUnary<Relu>);
  table.Add("softplus", FloatUnary<Softplus>);
  table.Add("silu", FloatUnary<Silu>);
  table.Add("gelu", Gelu);
  table.Add("leaky_relu", LeakyRelu);
  table.Add("elu", Elu);
  table.Add("hard_sigmoid", HardSigmoidKernel);
  table.Add("hard_swish", FloatUnary<HardSwish>);
  table.Add("softsign", FloatUnary<Softsign>);
  table.Add("mish", FloatUnary<Mish>);
  table.Add("selu", Selu);
  table.Add("floor", FloatUnary<Floor>);
  table.Add("ceil", FloatUnary<Ceil>);
  table.Add("round", FloatUnary<RoundHalfEven>);
  table.Add("clip", Clip);
  table.Add("not", Not);
  table.Add("bitwise_not", BitwiseNot);
  table.Add("cast", Cast);
  AddElementwiseBinaryRefKernels(table);
}

}  // namespace sy::cpu
