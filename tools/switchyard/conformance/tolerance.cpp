// ToleranceFor: how closely a plugin's result must match cpu-ref's, per op and output
// dtype. docs/conformance.md lists these; the reasoning is here.
//
// What cpu-ref does: floats are computed in double and rounded to the output dtype once;
// integers in int64_t, wrapping like NumPy. What a plugin may do: compute f32 in f32, in
// any order, with FMA; compute f16 and bf16 in f32 (ops.md: "Floating f16/bf16 arithmetic
// may accumulate in f32") and round once. The tolerances allow exactly that and no more:
//
//  - Integer and bool results are exact, always (also argmax/argmin's and topk's i64
//    indices, and the bool results of comparisons and logic): integer arithmetic has one
//    right answer, wrap-around included, whatever the order of a sum. sample's i64 tokens
//    too: docs/ops.md fixes the order of its sums, and random uniform numbers never lie
//    within rounding of a boundary between two tokens.
//  - Bit-exact: ops that only move or select whole elements (data movement, where, cast,
//    the selection ops). Cast rounds to nearest even once, which has one right answer;
//    unique's y holds the bytes of each value's first occurrence (so a -0 that comes first
//    is -0, and zeros past the count are +0). NaN matches any NaN (payloads are not
//    compared; the comparison does that for every exact tolerance).
//  - Value-exact (max_ulp 0, so -0 equals +0 and NaN equals NaN, but nothing else
//    differs): ops whose result is one of the inputs' values or an exactly rounded
//    integer (neg abs sign relu floor ceil round clip max min, reduce_max reduce_min,
//    max_pool, topk's values). The sign of a zero is left free: relu(-0) as max(x, 0) and
//    x < 0 ? 0 : x differ in it, and max(-0, +0) is either.
//  - Elementwise arithmetic, in ULPs of the output dtype. One IEEE operation (add sub mul
//    prelu sqrt) is correctly rounded in f32 and in cpu-ref's double-then-round alike
//    (double has more than 2p + 2 bits for every p here, so its double rounding is
//    innocuous): 1 ulp leaves room for nothing but a last-bit tie. div, reciprocal and
//    rsqrt: 2 ulp (GPU division and reciprocal square roots are 1-2 ulp). Attributes that
//    are doubles (leaky_relu's alpha) lose a bit when a plugin multiplies in f32: 2 ulp.
//    Transcendental maps (exp log sin cos tan asin acos atan asinh acosh atanh erf tanh
//    sigmoid softplus elu selu hard_sigmoid hard_swish softsign): 4 ulp, what good f32
//    libraries guarantee.
//    Compositions of several (silu mish pow): 8 ulp; gelu 16 ulp (its tanh form carries
//    the f32 rounding of its argument z into e^2z, a relative error of about |2z| ulp).
//    An absolute floor of 1/16 of the dtype's epsilon covers results near a zero crossing
//    (cos near pi/2, elu or gelu near 0), where an error that is a fraction of an ulp of
//    the arguments is many ulp of the tiny result.
//  - Sums (reductions, cumsum, matmul, gemm, conv, conv_transpose, average pools,
//    attention, scatter_elements' and scatter_nd's add and mul): summation order is the
//    plugin's, so the bound is absolute plus relative per element, and on the relative L2
//    norm of the error. f32: 1e-4 absolute and relative per element (a sum of 1000 f32
//    terms of magnitude 2 is off by about 1e-5 in the typical case, and by far less than
//    1e-4 * its magnitude even for naive accumulation), 1e-5 on the norm. f16 and bf16, computed
//    in f32, land within 1-2 ulp of cpu-ref; the per-element bound is 2 ulp or about 5
//    (f16) and 2.5 (bf16) ulp relative, and the norm 5e-3 and 1e-2. f64: 1e-10 per element,
//    1e-12 on the norm.
//  - Normalizations (softmax, log_softmax and the norms): a mean, a variance and a
//    division; errors are relative to O(1) outputs. f32: 8 ulp, or 1e-5 absolute plus
//    3e-5 relative (batch_norm's output is a difference of terms up to ~25 in magnitude,
//    each rounded), norm 1e-5. softmax's outputs are small (1/n): its absolute floor is
//    1e-7.
//  - Interpolation (resize, rotary_embedding, grid_sample): a few products summed (up to
//    16 for cubic resize and bicubic grid_sample), with weights or coordinates that a
//    plugin computes in f32: 4 ulp, or 1e-5 absolute and relative. grid_sample's cases
//    keep H and W small, as an f32 coordinate near W is off by about W * 2^-24.
//
// Cases are chosen so that these tolerances are meaningful: special values only where no
// intermediate result over- or underflows differently in f32 than in double (see the
// case files), reduced extents of at most ~1000, and integer divisors that are never 0.
#include <cmath>
#include <string_view>

#include "conformance/op_cases.h"

namespace sy::conformance {
namespace {

enum class Tier {
  kBitExact,
  kValueExact,
  kUlp1,
  kUlp2,
  kUlp4,
  kUlp8,
  kUlp16,
  kSum,
  kNormalize,
  kSoftmax,
  kInterpolate,
};

struct OpTier {
  std::string_view op;
  Tier tier;
};

constexpr OpTier kTiers[] = {
    // Data movement and selection of whole elements.
    {"reshape", Tier::kBitExact},
    {"bitcast", Tier::kBitExact},
    {"transpose", Tier::kBitExact},
    {"expand", Tier::kBitExact},
    {"concat", Tier::kBitExact},
    {"split", Tier::kBitExact},
    {"slice", Tier::kBitExact},
    {"gather", Tier::kBitExact},
    {"gather_elements", Tier::kBitExact},
    {"gather_nd", Tier::kBitExact},
    {"cache_write", Tier::kBitExact},
    {"pad", Tier::kBitExact},
    {"tile", Tier::kBitExact},
    {"trilu", Tier::kBitExact},
    {"depth_to_space", Tier::kBitExact},
    {"space_to_depth", Tier::kBitExact},
    {"where", Tier::kBitExact},
    {"cast", Tier::kBitExact},
    // Selection: whole elements (or i64 indices) chosen by the data, zeros past the count.
    {"non_zero", Tier::kBitExact},
    {"compress", Tier::kBitExact},
    {"unique", Tier::kBitExact},
    {"non_max_suppression", Tier::kBitExact},
    // Exactly determined values (the sign of zero aside).
    {"neg", Tier::kValueExact},
    {"bitwise_and", Tier::kValueExact},  // integers only: exact by dtype anyway
    {"bitwise_or", Tier::kValueExact},
    {"bitwise_xor", Tier::kValueExact},
    {"bitwise_not", Tier::kValueExact},
    {"bit_shift", Tier::kValueExact},
    {"abs", Tier::kValueExact},
    {"sign", Tier::kValueExact},
    {"relu", Tier::kValueExact},
    {"floor", Tier::kValueExact},
    {"ceil", Tier::kValueExact},
    {"round", Tier::kValueExact},
    {"clip", Tier::kValueExact},
    {"max", Tier::kValueExact},
    {"min", Tier::kValueExact},
    {"reduce_max", Tier::kValueExact},
    {"reduce_min", Tier::kValueExact},
    {"max_pool", Tier::kValueExact},
    {"topk", Tier::kValueExact},
    {"argmax", Tier::kValueExact},  // i64 results: exact by dtype anyway
    {"argmin", Tier::kValueExact},
    // One correctly rounded operation (range: start + i * delta, one rounding in double).
    {"add", Tier::kUlp1},
    {"sub", Tier::kUlp1},
    {"mul", Tier::kUlp1},
    {"prelu", Tier::kUlp1},
    {"sqrt", Tier::kUlp1},
    {"range", Tier::kUlp1},
    // Division-like, remainder (fmod is exact; Python's mod adds the divisor once),
    // attributes that are doubles.
    {"div", Tier::kUlp2},
    {"reciprocal", Tier::kUlp2},
    {"rsqrt", Tier::kUlp2},
    {"mod", Tier::kUlp2},
    {"leaky_relu", Tier::kUlp2},
    // Transcendental maps.
    {"exp", Tier::kUlp4},
    {"log", Tier::kUlp4},
    {"sin", Tier::kUlp4},
    {"cos", Tier::kUlp4},
    {"tan", Tier::kUlp4},
    {"asin", Tier::kUlp4},
    {"acos", Tier::kUlp4},
    {"atan", Tier::kUlp4},
    {"asinh", Tier::kUlp4},
    {"acosh", Tier::kUlp4},
    {"atanh", Tier::kUlp4},
    {"erf", Tier::kUlp4},
    {"tanh", Tier::kUlp4},
    {"sigmoid", Tier::kUlp4},
    {"softplus", Tier::kUlp4},
    {"softsign", Tier::kUlp4},
    {"elu", Tier::kUlp4},
    {"selu", Tier::kUlp4},
    {"hard_sigmoid", Tier::kUlp4},
    {"hard_swish", Tier::kUlp4},
    // Compositions.
    {"silu", Tier::kUlp8},
    {"mish", Tier::kUlp8},
    {"pow", Tier::kUlp8},
    {"gelu", Tier::kUlp16},
    // Sums in an order of the plugin's choosing.
    {"reduce_sum", Tier::kSum},
    {"reduce_mean", Tier::kSum},
    {"reduce_prod", Tier::kSum},
    {"cumsum", Tier::kSum},
    {"cumprod", Tier::kSum},  // a running product: relative error grows like a sum's
    {"matmul", Tier::kSum},
    {"gemm", Tier::kSum},
    {"det", Tier::kSum},
    {"quant_matmul", Tier::kSum},
    {"tree_ensemble", Tier::kSum},  // leaf weights summed (then transformed) in any order
    {"conv", Tier::kSum},
    {"conv_transpose", Tier::kSum},
    {"deform_conv", Tier::kSum},
    {"avg_pool", Tier::kSum},
    {"roi_align", Tier::kSum},
    {"global_avg_pool", Tier::kSum},
    {"attention", Tier::kSum},
    {"linear_attention", Tier::kSum},
    {"scatter_elements", Tier::kSum},  // "none" copies; add and mul accumulate duplicates
    {"scatter_nd", Tier::kSum},        // likewise
    // Normalizations.
    {"softmax", Tier::kSoftmax},
    {"log_softmax", Tier::kNormalize},
    {"layer_norm", Tier::kNormalize},
    {"rms_norm", Tier::kNormalize},
    {"batch_norm", Tier::kNormalize},
    {"group_norm", Tier::kNormalize},
    {"instance_norm", Tier::kNormalize},
    // Fused ops: a sum of products then an activation (whose slope is at most about 1.13,
    // gelu's, so it carries the sum's error through without growing it); add_layer_norm
    // a normalization. Its second output, a + b, is held to the same bound (one table
    // entry per op), though a plugin's sum is correctly rounded like cpu-ref's.
    {"fused_matmul", Tier::kSum},
    {"fused_conv", Tier::kSum},
    {"add_layer_norm", Tier::kNormalize},
    // Interpolation.
    {"resize", Tier::kInterpolate},
    {"rotary_embedding", Tier::kInterpolate},
    {"grid_sample", Tier::kInterpolate},
};

// The spacing of the dtype's values at 1.0.
double Epsilon(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return std::ldexp(1.0, -10);
    case DType::kBF16:
      return std::ldexp(1.0, -7);
    case DType::kF64:
      return std::ldexp(1.0, -52);
    default:
      return std::ldexp(1.0, -23);
  }
}

Tolerance Ulps(double ulps, DType dtype) {
  Tolerance t;
  t.max_ulp = ulps;
  t.abs = Epsilon(dtype) / 16;
  return t;
}

// {max_ulp, abs, rel, rel_l2} per float dtype, in the order f32, f16, bf16, f64.
struct PerDType {
  Tolerance f32, f16, bf16, f64;
  Tolerance For(DType dtype) const {
    switch (dtype) {
      case DType::kF16:
        return f16;
      case DType::kBF16:
        return bf16;
      case DType::kF64:
        return f64;
      default:
        return f32;
    }
  }
};

Tolerance Make(double max_ulp, double abs, double rel, double rel_l2) {
  Tolerance t;
  t.max_ulp = max_ulp;
  t.abs = abs;
  t.rel = rel;
  t.rel_l2 = rel_l2;
  return t;
}

const PerDType kSum = {Make(4, 1e-4, 1e-4, 1e-5), Make(2, 1e-3, 5e-3, 5e-3),
                       Make(2, 8e-3, 2e-2, 1e-2), Make(4, 1e-10, 1e-10, 1e-12)};
const PerDType kNormalize = {Make(8, 1e-5, 3e-5, 1e-5), Make(2, 1e-3, 5e-3, 5e-3),
                             Make(2, 8e-3, 2e-2, 1e-2), Make(16, 1e-12, 1e-12, 1e-12)};
const PerDType kSoftmax = {Make(8, 1e-7, 3e-5, 1e-5), Make(2, 1e-4, 5e-3, 5e-3),
                           Make(2, 1e-3, 2e-2, 1e-2), Make(16, 1e-15, 1e-12, 1e-12)};
const PerDType kInterpolate = {Make(4, 1e-5, 1e-5, 1e-5), Make(2, 1e-3, 2e-3, 2e-3),
                               Make(2, 8e-3, 1e-2, 1e-2), Make(4, 1e-13, 1e-13, 1e-13)};

}  // namespace

Tolerance ToleranceFor(std::string_view op, DType dtype) {
  Tolerance exact;
  exact.exact = true;
  if (!IsFloat(dtype)) return exact;
  Tier tier = Tier::kSum;  // an op this table does not know: the loosest bound there is
  for (const OpTier& entry : kTiers) {
    if (entry.op == op) tier = entry.tier;
  }
  switch (tier) {
    case Tier::kBitExact:
      return exact;
    case Tier::kValueExact:
      return Tolerance{};  // max_ulp 0: -0 == +0, NaN == NaN, nothing else differs
    case Tier::kUlp1:
      return Ulps(1, dtype);
    case Tier::kUlp2:
      return Ulps(2, dtype);
    case Tier::kUlp4:
      return Ulps(4, dtype);
    case Tier::kUlp8:
      return Ulps(8, dtype);
    case Tier::kUlp16:
      return Ulps(16, dtype);
    case Tier::kSum:
      return kSum.For(dtype);
    case Tier::kNormalize:
      return kNormalize.For(dtype);
    case Tier::kSoftmax:
      return kSoftmax.For(dtype);
    case Tier::kInterpolate:
      return kInterpolate.For(dtype);
  }
  return kSum.For(dtype);
}

}  // namespace sy::conformance
