// The schema-driven checks every node passes before its shape rule: registry lookups,
// arity, dtype classes, type variables, attribute kinds, defaults and allowed values.
#include "switchyard/op_schema.h"

#include <set>

#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

// Every op of spec/ops.md v1, by name, and the extensions of docs/ops.md ("Extensions to
// spec v1", "Fused ops", "Selection", "Sampling"). The registry must hold exactly these.
const std::set<std::string> kCatalogue = {"fused_matmul",
                                          "fused_conv",
                                          "add_layer_norm",
                                          "neg",
                                          "abs",
                                          "sign",
                                          "exp",
                                          "log",
                                          "sqrt",
                                          "reciprocal",
                                          "sin",
                                          "cos",
                                          "tan",
                                          "asin",
                                          "acos",
                                          "atan",
                                          "erf",
                                          "rsqrt",
                                          "tanh",
                                          "asinh",
                                          "acosh",
                                          "atanh",
                                          "sigmoid",
                                          "relu",
                                          "softplus",
                                          "silu",
                                          "gelu",
                                          "leaky_relu",
                                          "elu",
                                          "hard_sigmoid",
                                          "hard_swish",
                                          "softsign",
                                          "mish",
                                          "selu",
                                          "prelu",
                                          "floor",
                                          "ceil",
                                          "round",
                                          "clip",
                                          "not",
                                          "add",
                                          "sub",
                                          "mul",
                                          "div",
                                          "pow",
                                          "max",
                                          "min",
                                          "mod",
                                          "equal",
                                          "less",
                                          "less_equal",
                                          "greater",
                                          "greater_equal",
                                          "and",
                                          "or",
                                          "xor",
                                          "bitwise_and",
                                          "bitwise_or",
                                          "bitwise_xor",
                                          "bitwise_not",
                                          "bit_shift",
                                          "where",
                                          "cast",
                                          "matmul",
                                          "gemm",
                                          "reshape",
                                          "transpose",
                                          "expand",
                                          "concat",
                                          "split",
                                          "slice",
                                          "gather",
                                          "gather_elements",
                                          "scatter_elements",
                                          "gather_nd",
                                          "scatter_nd",
                                          "cache_write",
                                          "pad",
                                          "tile",
                                          "range",
                                          "trilu",
                                          "bitcast",
                                          "reduce_sum",
                                          "reduce_mean",
                                          "reduce_max",
                                          "reduce_min",
                                          "reduce_prod",
                                          "argmax",
                                          "argmin",
                                          "cumsum",
                                          "cumprod",
                                          "topk",
                                          "softmax",
                                          "log_softmax",
                                          "layer_norm",
                                          "rms_norm",
                                          "batch_norm",
                                          "group_norm",
                                          "instance_norm",
                                          "conv",
                                          "conv_transpose",
                                          "max_pool",
                                          "avg_pool",
                                          "global_avg_pool",
                                          "resize",
                                          "depth_to_space",
                                          "space_to_depth",
                                          "attention",
                                          "linear_attention",
                                          "rotary_embedding",
                                          "grid_sample",
                                          "non_zero",
                                          "compress",
                                          "unique",
                                          "non_max_suppression",
                                          "sample",
                                          "random_uniform",
                                          "random_normal",
                                          "det",
                                          "quant_matmul",
                                          "matmul_integer",
                                          "qlinear_conv",
                                          "roi_align",
                                          "deform_conv",
                                          "tfidf_vectorizer",
                                          "tree_ensemble"};

TEST(OpRegistry, HoldsExactlyTheCatalogue) {
  std::set<std::string> registered;
  for (const OpSchema& s : OpRegistry::Global().schemas()) {
    EXPECT_TRUE(registered.insert(std::string(s.name)).second) << "duplicate " << s.name;
    EXPECT_NE(s.infer, nullptr) << s.name;
    EXPECT_FALSE(s.type_vars.empty()) << s.name;
    for (const InputSpec& in : s.inputs) {
      EXPECT_LT(in.type_var, static_cast<int>(s.type_vars.size())) << s.name;
    }
  }
  for (const std::string& op : kCatalogue) EXPECT_TRUE(registered.count(op)) << "missing " << op;
  for (const std::string& op : registered) EXPECT_TRUE(kCatalogue.count(op)) << "extra " << op;
}

// The scheduler's cost classes (docs/scheduling.md, island pass): exactly the products,
// convolutions and attention (linear_attention too), fused forms included, do work that
// grows faster than bytes.
TEST(OpRegistry, ComputeBoundOpsAreDeclaredByTheirSchemas) {
  const std::set<std::string> compute = {"matmul",           "gemm",           "conv",
                                         "conv_transpose",   "deform_conv",    "attention",
                                         "linear_attention", "fused_matmul",   "fused_conv",
                                         "quant_matmul",     "matmul_integer", "qlinear_conv"};
  for (const OpSchema& s : OpRegistry::Global().schemas()) {
    EXPECT_EQ(s.cost == OpCost::kCompute, compute.count(std::string(s.name)) == 1) << s.name;
  }
}

TEST(OpRegistry, FindIsExact) {
  ASSERT_NE(OpRegistry::Global().Find("add"), nullptr);
  EXPECT_EQ(OpRegistry::Global().Find("add")->onnx_name, "Add");
  EXPECT_EQ(OpRegistry::Global().Find("Add"), nullptr);
  EXPECT_EQ(OpRegistry::Global().Find(""), nullptr);
  EXPECT_EQ(OpRegistry::Global().Find("addd"), nullptr);
}

TEST(OpSchemaChecks, Arity) {
  SY_EXPECT_ERROR(Infer("add", {F32({2})}), "takes 2 inputs but has 1");
  SY_EXPECT_ERROR(Infer("relu", {F32({2}), F32({2})}), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("relu", {F32({2})}, {}, 2), "produces 1 output but the node lists 2");
  SY_EXPECT_ERROR(Infer("relu", {F32({2})}, {}, 0), "produces 1 output but the node lists 0");
}

TEST(OpSchemaChecks, DTypeClassesAndTypeVariables) {
  SY_EXPECT_ERROR(Infer("exp", {T(DType::kI32, {2})}),
                  "input 0 (x) has dtype i32 but exp accepts f32 f16 bf16 f64");
  SY_EXPECT_ERROR(Infer("add", {F32({2}), T(DType::kF16, {2})}),
                  "input 1 (b) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("add", {T(DType::kBool, {2}), T(DType::kBool, {2})}), "accepts");
  SY_EXPECT_ERROR(Infer("where", {F32({2}), F32({2}), F32({2})}),
                  "input 0 (cond) has dtype f32 but where accepts bool");
}

TEST(OpSchemaChecks, UnknownAndMistypedAttributes) {
  SY_EXPECT_ERROR(Infer("relu", {F32({2})}, MakeAttrs({{"alpha", 1.0}})),
                  "unknown attribute alpha (relu takes no attributes)");
  SY_EXPECT_ERROR(Infer("leaky_relu", {F32({2})}, MakeAttrs({{"slope", 1.0}})),
                  "unknown attribute slope (leaky_relu takes alpha)");
  SY_EXPECT_ERROR(Infer("leaky_relu", {F32({2})}, MakeAttrs({{"alpha", std::string("x")}})),
                  "attribute alpha is \"x\" (string) but must be float");
  SY_EXPECT_ERROR(Infer("mod", {F32({2}), F32({2})}, MakeAttrs({{"fmod", 0.5}})),
                  "attribute fmod is 0.5 (float) but must be int");
  SY_EXPECT_ERROR(Infer("gelu", {F32({2})}, MakeAttrs({{"approximate", std::string("fast")}})),
                  "attribute approximate is \"fast\" but must be one of: none, tanh");
  SY_EXPECT_ERROR(Infer("cast", {F32({2})}), "missing required attribute to (string)");
}

TEST(OpSchemaChecks, AttributesAreNormalisedWithDefaults) {
  const OpSchema* schema = OpRegistry::Global().Find("hard_sigmoid");
  ASSERT_NE(schema, nullptr);
  std::vector<TensorType> inputs = {F32({3})};
  Attrs attrs = MakeAttrs({{"alpha", int64_t{1}}});  // int given where float is expected
  SY_ASSERT_OK(InferOutputTypes(*schema, inputs, attrs, 1));
  ASSERT_TRUE(attrs.Has("alpha"));
  EXPECT_EQ(KindOf(*attrs.Find("alpha")), AttrKind::kFloat);
  EXPECT_EQ(attrs.GetFloat("alpha"), 1.0);
  EXPECT_EQ(attrs.GetFloat("beta"), 0.5);  // default filled in

  const OpSchema* mod = OpRegistry::Global().Find("mod");
  std::vector<TensorType> pair = {F32({3}), F32({3})};
  Attrs integral_float = MakeAttrs({{"fmod", 1.0}});  // 1.0 is an acceptable int
  SY_ASSERT_OK(InferOutputTypes(*mod, pair, integral_float, 1));
  EXPECT_EQ(integral_float.GetInt("fmod"), 1);
}

TEST(OpSchemaChecks, OutputElementCountOverflowIsAnError) {
  // Each input is fine, the broadcast result has 2^80 elements.
  SY_EXPECT_ERROR(Infer("add", {F32({int64_t{1} << 40, 1}), F32({1, int64_t{1} << 40})}),
                  "overflows");
}

}  // namespace
}  // namespace sy
