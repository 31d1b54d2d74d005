// Op cases of the unary elementwise ops: the float maps (exp ... round, asin ... atanh,
// gelu ... selu), neg abs sign and clip (floats and integers), not (bool) and cast (every
// pair of dtypes).
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// The value domain of each float map's normal cases. log, sqrt and rsqrt take positive
// arguments, asin, acos and atanh arguments in (-1, 1) and acosh arguments >= 1 (their
// special-values case, drawn from kAny, still covers the rest: both sides give NaN, and
// atanh(+-1) is +-inf); exp takes kSmall so that f16 stays far from overflow.
Domain NormalDomain(std::string_view op) {
  if (op == "log" || op == "sqrt" || op == "rsqrt") return Domain::kPositive;
  if (op == "asin" || op == "acos" || op == "atanh") return Domain::kUnit;
  if (op == "acosh") return Domain::kAtLeastOne;
  if (op == "exp") return Domain::kSmall;
  return Domain::kAny;
}

// An attribute variant of an op: a label tag and the attributes.
struct Variant {
  std::string tag;
  Attrs attrs;
};

// Non-default attributes of the float maps that have them.
std::vector<Variant> FloatVariants(std::string_view op) {
  if (op == "gelu") return {{"tanh", A({{"approximate", Str("tanh")}})}};
  if (op == "leaky_relu") {
    return {{"alpha=0.2", A({{"alpha", F(0.2)}})}, {"alpha=-0.5", A({{"alpha", F(-0.5)}})}};
  }
  if (op == "elu") return {{"alpha=0.5", A({{"alpha", F(0.5)}})}};
  if (op == "hard_sigmoid") {
    return {{"alpha=0.3 beta=0.6", A({{"alpha", F(0.3)}, {"beta", F(0.6)}})}};
  }
  if (op == "selu") return {{"alpha=2 gamma=1.5", A({{"alpha", F(2.0)}, {"gamma", F(1.5)}})}};
  if (op == "clip") {
    return {{"min=-1 max=1", A({{"min", F(-1.0)}, {"max", F(1.0)}})},
            {"min=0.5", A({{"min", F(0.5)}})},
            {"max=-0.5", A({{"max", F(-0.5)}})},
            {"min=max=0.25", A({{"min", F(0.25)}, {"max", F(0.25)}})}};
  }
  return {};
}

// clip on integers: integral bounds only (the catalogue's bounds are float attributes;
// fractional ones on integers are a cpu-ref decision, not ONNX), inside every integer
// dtype's range; negative bounds only for the signed dtypes.
std::vector<Variant> IntegerClipVariants(DType dtype) {
  std::vector<Variant> v = {{"min=3 max=17", A({{"min", F(3)}, {"max", F(17)}})},
                            {"min=3", A({{"min", F(3)}})},
                            {"max=17", A({{"max", F(17)}})}};
  if (IsSigned(dtype)) v.push_back({"min=-5 max=7", A({{"min", F(-5)}, {"max", F(7)}})});
  return v;
}

// The cases every unary map gets per dtype: odd 2-D, 4-D and 1-D sizes, a scalar, an
// empty tensor and (floats) special values.
void BasicShapes(CaseBuilder& b, DType d, Domain domain, const Attrs& attrs = {}) {
  b.Add(d, "[3,5]", {In(d, {3, 5}, domain)}, attrs);
  b.Add(d, "[1,1,7,13]", {In(d, {1, 1, 7, 13}, domain)}, attrs);
  b.Add(d, "[1031]", {In(d, {1031}, domain)}, attrs);
  b.Add(d, "scalar []", {In(d, {}, domain)}, attrs);
  b.Add(d, "empty [0,4]", {In(d, {0, 4}, domain)}, attrs);
  b.Add(d, "empty [3,0,2]", {In(d, {3, 0, 2}, domain)}, attrs);
  if (IsFloat(d)) b.Special(d, "special [9,13]", {In(d, {9, 13})}, attrs);
}

// Attribute variants: a 2-D and a 1-D odd size, and special values for floats.
void VariantShapes(CaseBuilder& b, DType d, Domain domain, const Variant& v) {
  b.Add(d, v.tag + " [3,5]", {In(d, {3, 5}, domain)}, v.attrs);
  b.Add(d, v.tag + " [1031]", {In(d, {1031}, domain)}, v.attrs);
  if (IsFloat(d)) b.Special(d, v.tag + " special [9,13]", {In(d, {9, 13})}, v.attrs);
}

std::vector<OpCase> UnaryMapCases(std::string_view op) {
  CaseBuilder b(op);
  const Domain domain = NormalDomain(op);
  for (DType d : SchemaDTypes(op)) {
    BasicShapes(b, d, domain);
    const std::vector<Variant> variants =
        IsFloat(d) || op != "clip" ? FloatVariants(op) : IntegerClipVariants(d);
    for (const Variant& v : variants) VariantShapes(b, d, domain, v);
  }
  const DType large = op == "not" ? DType::kBool : op == "bitwise_not" ? DType::kI32 : DType::kF32;
  b.Large(large, "1M [1024,1025]", {In(large, {1024, 1025}, domain)});
  return b.Take();
}

// cast: every source dtype to every target dtype. Float sources cast to u8 use positive
// values (a negative float to u8 is out of range, which the catalogue leaves
// unspecified); floats to a signed integer stay in range ([-2, 2) truncates to -1..1).
// Special values only where the result is specified: float to float and float to bool.
std::vector<OpCase> CastCases() {
  CaseBuilder b("cast");
  for (DType from : SchemaDTypes("cast")) {
    for (DType to : SchemaDTypes("cast")) {
      const std::string arrow = "->" + std::string(DTypeName(to));
      const Domain domain =
          IsFloat(from) && IsInteger(to) && !IsSigned(to) ? Domain::kPositive : Domain::kAny;
      const Attrs attrs = A({{"to", Str(std::string(DTypeName(to)))}});
      // Both the source and the target decide whether a case is mandatory.
      const bool mandatory = MandatoryDType(from) && MandatoryDType(to);
      b.Add(from, arrow + " [3,5]", {In(from, {3, 5}, domain)}, attrs).mandatory = mandatory;
      b.Add(from, arrow + " [1031]", {In(from, {1031}, domain)}, attrs).mandatory = mandatory;
      b.Add(from, arrow + " scalar []", {In(from, {}, domain)}, attrs).mandatory = mandatory;
      b.Add(from, arrow + " empty [0,3]", {In(from, {0, 3}, domain)}, attrs).mandatory = mandatory;
      if (IsFloat(from) && (IsFloat(to) || to == DType::kBool)) {
        b.Special(from, arrow + " special [9,13]", {In(from, {9, 13})}, attrs).mandatory =
            mandatory;
      }
    }
  }
  b.Large(DType::kF32, "->f16 1M [1024,1025]", {In(DType::kF32, {1024, 1025})},
          A({{"to", Str("f16")}}));
  return b.Take();
}

}  // namespace

std::vector<OpCase> UnaryCases(std::string_view op) {
  if (op == "cast") return CastCases();
  const OpSchema* schema = OpRegistry::Global().Find(op);
  // The one-input ops of the elementwise family (the shape rule keeps x's type; cast,
  // handled above, is the only one that changes it).
  static constexpr std::string_view kOps[] = {
      "neg",      "abs",        "sign",       "exp",      "log",          "sqrt",    "reciprocal",
      "sin",      "cos",        "tan",        "asin",     "acos",         "atan",    "erf",
      "rsqrt",    "tanh",       "asinh",      "acosh",    "atanh",        "sigmoid", "relu",
      "softplus", "silu",       "hard_swish", "softsign", "mish",         "floor",   "ceil",
      "round",    "gelu",       "leaky_relu", "elu",      "hard_sigmoid", "selu",    "clip",
      "not",      "bitwise_not"};
  for (std::string_view name : kOps) {
    if (name == op && schema != nullptr) return UnaryMapCases(op);
  }
  return {};
}

}  // namespace sy::conformance::detail
