// Sampling ops of the catalogue (docs/ops.md, "Sampling"): `sample`, a Switchyard
// extension with no ONNX counterpart, which picks one token per row of logits for
// autoregressive decoding; and `random_uniform` / `random_normal` (ONNX's
// RandomUniformLike / RandomNormalLike), tensors of counter-based random numbers: element
// i is a function of `seed` and i alone (the i-th numbers of a splitmix64 stream, the
// decoder's generator), so the ops are pure, every backend gives the same numbers, and a
// run repeats the last one's values unless the seed changes. The randomness is an input (`uniform`,
// one number in [0, 1) per row, drawn by the caller), so the op is deterministic and every backend
// picks the same token from the same numbers.
//
// The shape rule checks every attribute against the method it belongs to: an attribute
// that only another method reads must keep its default, so that a graph never carries a
// setting that silently does nothing (and so that combining methods can be given a meaning
// later without changing what any valid graph does).
#include <cmath>
#include <string>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

std::string Num(double v) { return AttrValueToString(v); }

// The attribute ranges of docs/ops.md, each checked whatever the method, then whether the
// method reads the attribute at all.
Status CheckSampleAttrs(const Attrs& attrs, bool has_uniform) {
  const std::string method = attrs.GetString("method");
  const double temperature = attrs.GetFloat("temperature");
  const int64_t top_k = attrs.GetInt("top_k");
  const double top_p = attrs.GetFloat("top_p");
  const double min_p = attrs.GetFloat("min_p");
  if (top_k < 0) {
    return AttrError("top_k", "is " + std::to_string(top_k) +
                                  " but must be at least 1 with method top_k (0, the default, "
                                  "with the other methods)");
  }
  if (!(top_p > 0.0 && top_p <= 1.0)) {
    return AttrError("top_p", "is " + Num(top_p) + " but must be in (0, 1]");
  }
  if (!(min_p >= 0.0 && min_p <= 1.0)) {
    return AttrError("min_p", "is " + Num(min_p) + " but must be in [0, 1]");
  }
  // Greedy ignores the temperature: the largest logit is the largest at every temperature,
  // and decoding configurations often carry one.
  if (method != "greedy" && !(temperature > 0.0 && std::isfinite(temperature))) {
    return AttrError("temperature", "is " + Num(temperature) + " but must be finite and > 0 " +
                                        "with method " + method + " (greedy ignores it)");
  }
  if (method == "top_k" && top_k < 1) {
    return AttrError("top_k", "is " + std::to_string(top_k) +
                                  " but method top_k needs at least 1 (a k above the "
                                  "vocabulary keeps every token)");
  }
  // An attribute of another method must keep its default (the top of this file says why).
  const struct {
    const char* name;
    bool set;
    std::string value;
  } others[] = {{"top_k", top_k != 0, std::to_string(top_k)},
                {"top_p", top_p != 1.0, Num(top_p)},
                {"min_p", min_p != 0.0, Num(min_p)}};
  for (const auto& other : others) {
    if (other.set && method != other.name) {
      return AttrError(other.name, "is " + other.value + " but method " + method +
                                       " does not read it (only method " + other.name +
                                       " does; leave it out)");
    }
  }
  if (method != "greedy" && !has_uniform) {
    return InvalidModel("input uniform is missing: method " + method +
                        " needs one number in [0, 1) per row of logits (only greedy runs "
                        "without it)");
  }
  return Status::Ok();
}

// logits [N, V] (V >= 1), uniform [N] when given; token i64 [N].
Expected<std::vector<TensorType>> InferSample(const InferContext& ctx) {
  const TensorType& logits = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireRank(logits, "logits", 2));
  if (logits.shape[1] < 1) {
    return DimError("logits", logits, 1, "be at least 1 (the vocabulary, V)");
  }
  const bool has_uniform = ctx.num_inputs() > 1;
  if (has_uniform) {
    const TensorType& uniform = ctx.input(1);
    SY_RETURN_IF_ERROR(RequireRank(uniform, "uniform", 1));
    if (uniform.shape[0] != logits.shape[0]) {
      return DimError("uniform", uniform, 0,
                      "equal input logits' dimension 0 (" + std::to_string(logits.shape[0]) +
                          ", one number per row)");
    }
  }
  SY_RETURN_IF_ERROR(CheckSampleAttrs(ctx.attrs, has_uniform));
  return std::vector<TensorType>{{DType::kI64, {logits.shape[0]}}};
}

// random_uniform / random_normal: x's shape, the dtype attribute's dtype.
Expected<std::vector<TensorType>> InferRandom(const InferContext& ctx) {
  const std::string name = ctx.attrs.GetString("dtype");
  const std::optional<DType> dtype = ParseDTypeName(name);
  if (!dtype || !IsFloat(*dtype)) {
    return AttrError("dtype", "is \"" + name + "\" but must be one of f32, f16, bf16, f64");
  }
  for (const char* a : {"low", "high", "mean", "scale"}) {
    const AttrValue* v = ctx.attrs.Find(a);
    if (v != nullptr && !std::isfinite(ctx.attrs.GetFloat(a))) {
      return AttrError(a, "is " + Num(ctx.attrs.GetFloat(a)) + " but must be finite");
    }
  }
  if (ctx.attrs.Find("scale") != nullptr && ctx.attrs.GetFloat("scale") < 0) {
    return AttrError("scale", "is " + Num(ctx.attrs.GetFloat("scale")) + " but must be >= 0");
  }
  if (ctx.attrs.Find("low") != nullptr && ctx.attrs.GetFloat("low") > ctx.attrs.GetFloat("high")) {
    return AttrError("low", "is " + Num(ctx.attrs.GetFloat("low")) + ", above high (" +
                                Num(ctx.attrs.GetFloat("high")) + ")");
  }
  return std::vector<TensorType>{{*dtype, ctx.input(0).shape}};
}

OpSchema RandomSchema(std::string_view name, std::string_view onnx, std::vector<AttrSpec> params) {
  std::vector<AttrSpec> attrs = {
      {"dtype", AttrKind::kString, std::string("f32"), false, {"f32", "f16", "bf16", "f64"}},
      {"seed", AttrKind::kInt, int64_t{0}}};
  for (AttrSpec& a : params) attrs.push_back(std::move(a));
  return MakeSchema(name, onnx, DTypeSet::All(), {{"x", 0}}, std::move(attrs), InferRandom);
}

}  // namespace

void AddSamplingSchemas(std::vector<OpSchema>& out) {
  out.push_back(RandomSchema("random_uniform", "RandomUniformLike",
                             {{"low", AttrKind::kFloat, 0.0}, {"high", AttrKind::kFloat, 1.0}}));
  out.push_back(RandomSchema("random_normal", "RandomNormalLike",
                             {{"mean", AttrKind::kFloat, 0.0}, {"scale", AttrKind::kFloat, 1.0}}));
  OpSchema s = MakeSchema("sample", "", DTypeSet::Float(),
                          {{"logits", 0}, {"uniform", 1, /*optional=*/true}},
                          {{"method",
                            AttrKind::kString,
                            std::string("greedy"),
                            false,
                            {"greedy", "temperature", "top_k", "top_p", "min_p"}},
                           {"temperature", AttrKind::kFloat, 1.0},
                           {"top_k", AttrKind::kInt, int64_t{0}},
                           {"top_p", AttrKind::kFloat, 1.0},
                           {"min_p", AttrKind::kFloat, 0.0}},
                          InferSample);
  s.type_vars.push_back({"U", {DType::kF32, DType::kF64}});
  out.push_back(std::move(s));
}

}  // namespace sy::ops
