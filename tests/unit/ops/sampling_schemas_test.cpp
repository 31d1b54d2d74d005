// Shape rule and attribute checks of `sample` (core/src/ops/sampling_schemas.cpp; docs/ops.md,
// "Sampling"): logits [N, V] and uniform [N] give one i64 token per row; every attribute
// out of its range, or set for a method that does not read it, is an error naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "switchyard/op_schema.h"
#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

AttrValue I(int64_t v) { return v; }
AttrValue D(double v) { return v; }
AttrValue S(const char* v) { return std::string(v); }

TensorType Tokens(int64_t n) { return T(DType::kI64, {n}); }

Attrs Method(const char* method) { return MakeAttrs({{"method", S(method)}}); }

TEST(SamplingSchemas, RegisteredAsAnExtensionInTheSamplingFamily) {
  const OpSchema* s = OpRegistry::Global().Find("sample");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->onnx_name, "");  // a Switchyard extension, no ONNX operator
  EXPECT_EQ(s->family, "sampling");
  EXPECT_EQ(s->min_inputs(), 1);
  EXPECT_EQ(s->max_inputs(), 2);
  EXPECT_EQ(s->min_outputs, 1);
  EXPECT_EQ(s->max_outputs, 1);
  ASSERT_EQ(s->type_vars.size(), 2u);
  EXPECT_EQ(s->type_vars[0].allowed, DTypeSet::Float());
  EXPECT_EQ(s->type_vars[1].allowed, (DTypeSet{DType::kF32, DType::kF64}));
}

TEST(SamplingSchemas, OneTokenPerRow) {
  EXPECT_OUTPUT(Infer("sample", {F32({3, 50})}), Tokens(3));
  EXPECT_OUTPUT(Infer("sample", {T(DType::kBF16, {2, 7}), F32({2})}, Method("top_p")), Tokens(2));
  EXPECT_OUTPUT(Infer("sample", {T(DType::kF16, {1, 1}), T(DType::kF64, {1})}, Method("min_p")),
                Tokens(1));
  EXPECT_OUTPUT(Infer("sample", {T(DType::kF64, {4, 3}), F32({4})}, Method("temperature")),
                Tokens(4));
  // No rows: no tokens. Greedy may be given uniform numbers (it does not read them).
  EXPECT_OUTPUT(Infer("sample", {F32({0, 5}), F32({0})}, Method("temperature")), Tokens(0));
  EXPECT_OUTPUT(Infer("sample", {F32({2, 5}), F32({2})}), Tokens(2));
}

TEST(SamplingSchemas, DefaultsAreFilledIn) {
  Attrs attrs;
  const std::vector<TensorType> inputs = {F32({2, 4})};
  SY_ASSERT_OK(InferOutputTypes(*OpRegistry::Global().Find("sample"), inputs, attrs, 1));
  EXPECT_EQ(attrs.GetString("method"), "greedy");
  EXPECT_EQ(attrs.GetFloat("temperature"), 1.0);
  EXPECT_EQ(attrs.GetInt("top_k"), 0);
  EXPECT_EQ(attrs.GetFloat("top_p"), 1.0);
  EXPECT_EQ(attrs.GetFloat("min_p"), 0.0);
}

TEST(SamplingSchemas, ShapeAndDTypeErrors) {
  SY_EXPECT_ERROR(Infer("sample", {F32({5})}), "input logits has shape [5] but must have rank 2");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 3, 4})}), "must have rank 2");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 0})}),
                  "input logits has shape [2, 0] but its dimension 1 (0) must be at least 1");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 4}), F32({3})}, Method("top_k")),
                  "input uniform has shape [3] but its dimension 0 (3) must equal input logits' "
                  "dimension 0 (2");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 4}), F32({2, 1})}, Method("temperature")),
                  "input uniform has shape [2, 1] but must have rank 1");
  SY_EXPECT_ERROR(Infer("sample", {T(DType::kI32, {2, 4})}), "(logits) has dtype i32");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 4}), T(DType::kF16, {2})}, Method("temperature")),
                  "(uniform) has dtype f16 but sample accepts f32 f64");
  SY_EXPECT_ERROR(Infer("sample", {F32({2, 4})}, {}, 2), "the node lists 2");
}

TEST(SamplingSchemas, UniformIsRequiredExceptForGreedy) {
  for (const char* method : {"temperature", "top_k", "top_p", "min_p"}) {
    Attrs attrs = Method(method);
    if (std::string(method) == "top_k") attrs.Set("top_k", I(3));
    SY_EXPECT_ERROR(Infer("sample", {F32({2, 4})}, attrs),
                    "input uniform is missing: method " + std::string(method) +
                        " needs one number in [0, 1) per row");
  }
}

TEST(SamplingSchemas, AttributeRanges) {
  const std::vector<TensorType> in = {F32({2, 4}), F32({2})};
  auto with = [](const char* method, const char* name, AttrValue v) {
    Attrs a = Method(method);
    a.Set(name, std::move(v));
    return a;
  };
  SY_EXPECT_ERROR(Infer("sample", in, Method("nucleus")),
                  "is \"nucleus\" but must be one of: greedy, temperature, top_k, top_p, min_p");
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double t : {0.0, -1.0, inf, nan}) {
    SY_EXPECT_ERROR(Infer("sample", in, with("temperature", "temperature", D(t))),
                    "but must be finite and > 0 with method temperature");
  }
  SY_EXPECT_ERROR(Infer("sample", in, with("top_p", "temperature", D(0.0))),
                  "attribute temperature is 0 but must be finite and > 0 with method top_p");
  EXPECT_OUTPUT(Infer("sample", in, with("temperature", "temperature", D(1e-30))), Tokens(2));
  // Greedy ignores the temperature, whatever it is.
  EXPECT_OUTPUT(Infer("sample", {F32({2, 4})}, with("greedy", "temperature", D(0.0))), Tokens(2));

  SY_EXPECT_ERROR(Infer("sample", in, Method("top_k")),
                  "attribute top_k is 0 but method top_k needs at least 1");
  SY_EXPECT_ERROR(Infer("sample", in, with("top_k", "top_k", I(-2))),
                  "attribute top_k is -2 but must be at least 1 with method top_k");
  EXPECT_OUTPUT(Infer("sample", in, with("top_k", "top_k", I(1))), Tokens(2));
  EXPECT_OUTPUT(Infer("sample", in, with("top_k", "top_k", I(1000))), Tokens(2));  // k > V

  for (double p : {0.0, -0.5, 1.5, nan}) {
    SY_EXPECT_ERROR(Infer("sample", in, with("top_p", "top_p", D(p))), "but must be in (0, 1]");
  }
  EXPECT_OUTPUT(Infer("sample", in, with("top_p", "top_p", D(1e-9))), Tokens(2));
  for (double m : {-0.1, 1.01, nan}) {
    SY_EXPECT_ERROR(Infer("sample", in, with("min_p", "min_p", D(m))), "but must be in [0, 1]");
  }
  EXPECT_OUTPUT(Infer("sample", in, with("min_p", "min_p", D(1.0))), Tokens(2));
  EXPECT_OUTPUT(Infer("sample", in, with("min_p", "min_p", D(0.0))), Tokens(2));
}

TEST(SamplingSchemas, AnAttributeOfAnotherMethodIsAnError) {
  const std::vector<TensorType> in = {F32({2, 4}), F32({2})};
  Attrs a = Method("top_p");
  a.Set("top_k", I(5));
  SY_EXPECT_ERROR(Infer("sample", in, a),
                  "attribute top_k is 5 but method top_p does not read it (only method top_k");
  a = Method("greedy");
  a.Set("min_p", D(0.1));
  SY_EXPECT_ERROR(Infer("sample", in, a), "attribute min_p is 0.1 but method greedy does not");
  a = Method("temperature");
  a.Set("top_p", D(0.9));
  SY_EXPECT_ERROR(Infer("sample", in, a), "attribute top_p is 0.9 but method temperature");
  // Their defaults, given explicitly, are fine; so is a temperature with any method.
  a = MakeAttrs({{"method", S("min_p")},
                 {"min_p", D(0.05)},
                 {"top_k", I(0)},
                 {"top_p", D(1.0)},
                 {"temperature", D(0.7)}});
  EXPECT_OUTPUT(Infer("sample", in, a), Tokens(2));
}

}  // namespace
}  // namespace sy
