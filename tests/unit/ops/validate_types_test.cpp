// Pass 2 of loading (ValidateGraphTypes): every node is checked against its op's schema
// and the inferred output types must equal the recorded ones. Errors name the node
// (index, op, name) and, for type disagreements, the value (id, name).
#include <gtest/gtest.h>

#include <string>

#include "format/graph_doc.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"
#include "test_util.h"

namespace sy {
namespace {

using test::NodesDoc;

// Parses `values` and `nodes` (JSON; graph inputs `inputs`, no constants) with pass 1,
// which must succeed, then runs pass 2.
Status Validate(const std::string& values, const std::string& nodes,
                const std::string& inputs = "[0]") {
  Expected<Graph> graph = NodesDoc(values, nodes, "[]", inputs).Parse();
  if (!graph.ok()) {
    ADD_FAILURE() << "pass 1 failed: " << graph.status().message();
    return graph.status();
  }
  return ValidateGraphTypes(*graph);
}

// Like Validate, returning the graph after pass 2 (for checking normalised attributes).
Expected<Graph> ValidateGraph(const std::string& values, const std::string& nodes,
                              const std::string& inputs = "[0]") {
  Expected<Graph> graph = NodesDoc(values, nodes, "[]", inputs).Parse();
  if (!graph.ok()) {
    ADD_FAILURE() << "pass 1 failed: " << graph.status().message();
    return graph.status();
  }
  SY_RETURN_IF_ERROR(ValidateGraphTypes(*graph));
  return graph;
}

// x f32 [2, 3] -> y f32 [2, 3], for single-input elementwise nodes.
constexpr const char* kUnaryValues = R"([
  {"name": "x", "dtype": "f32", "shape": [2, 3]},
  {"name": "y", "dtype": "f32", "shape": [2, 3]}])";

// a f32 [2, 3], b f32 [3] -> c f32 [2, 3], for binary nodes.
constexpr const char* kBinaryValues = R"([
  {"name": "a", "dtype": "f32", "shape": [2, 3]},
  {"name": "b", "dtype": "f32", "shape": [3]},
  {"name": "c", "dtype": "f32", "shape": [2, 3]}])";

TEST(ValidateTypes, ValidGraphPasses) {
  // relu -> matmul -> add -> where -> cast -> clip -> mul
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 12]},
    {"name": "x2", "dtype": "f32", "shape": [2, 12]},
    {"name": "w", "dtype": "f32", "shape": [12, 16]},
    {"name": "h", "dtype": "f32", "shape": [2, 16]},
    {"name": "bias", "dtype": "f32", "shape": [16]},
    {"name": "hb", "dtype": "f32", "shape": [2, 16]},
    {"name": "mask", "dtype": "bool", "shape": [2, 1]},
    {"name": "sel", "dtype": "f32", "shape": [2, 16]},
    {"name": "half", "dtype": "f16", "shape": [2, 16]},
    {"name": "clipped", "dtype": "f16", "shape": [2, 16]},
    {"name": "sq", "dtype": "f16", "shape": [2, 16]}])";
  const std::string nodes = R"([
    {"op": "relu", "inputs": [0], "outputs": [1]},
    {"op": "matmul", "inputs": [1, 2], "outputs": [3], "name": "fc0"},
    {"op": "add", "inputs": [3, 4], "outputs": [5]},
    {"op": "where", "inputs": [6, 5, 3], "outputs": [7]},
    {"op": "cast", "inputs": [7], "outputs": [8], "attrs": {"to": "f16"}},
    {"op": "clip", "inputs": [8], "outputs": [9], "attrs": {"min": 0, "max": 6.5}},
    {"op": "mul", "inputs": [9, 9], "outputs": [10]}])";
  SY_EXPECT_OK(Validate(values, nodes, "[0, 2, 4, 6]"));
}

TEST(ValidateTypes, EmptyGraphPasses) {
  Graph graph;
  SY_EXPECT_OK(ValidateGraphTypes(graph));
}

// --- Unknown ops ------------------------------------------------------------------------

TEST(ValidateTypes, UnknownOpSuggestsTheClosestOp) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 12]},
    {"name": "w", "dtype": "f32", "shape": [12, 16]},
    {"name": "h", "dtype": "f32", "shape": [2, 16]}])";
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "matmull", "inputs": [0, 1], "outputs": [2], "name": "fc0"}])",
               "[0, 1]"),
      "node 0 (matmull) \"fc0\": unknown op \"matmull\" (did you mean \"matmul\"?); see "
      "docs/ops.md for the catalogue");
  SY_EXPECT_ERROR(Validate(kUnaryValues, R"([{"op": "Relu", "inputs": [0], "outputs": [1]}])"),
                  "node 0 (Relu): unknown op \"Relu\" (did you mean \"relu\"?)");
  // ONNX spellings suggest the catalogue op with those semantics.
  const std::string mm = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 12]},
    {"name": "w", "dtype": "f32", "shape": [12, 16]},
    {"name": "h", "dtype": "f32", "shape": [2, 16]}])";
  SY_EXPECT_ERROR(Validate(mm, R"([{"op": "MatMul", "inputs": [0, 1], "outputs": [2]}])", "[0, 1]"),
                  "unknown op \"MatMul\" (did you mean \"matmul\"?)");
  SY_EXPECT_ERROR(Validate(kUnaryValues, R"([{"op": "LeakyRelu", "inputs": [0], "outputs": [1]}])"),
                  "unknown op \"LeakyRelu\" (did you mean \"leaky_relu\"?)");
}

TEST(ValidateTypes, UnknownOpWithoutANearMiss) {
  const Status s =
      Validate(kUnaryValues, R"([{"op": "frobnicate_all", "inputs": [0], "outputs": [1]}])");
  SY_EXPECT_ERROR(s, "node 0 (frobnicate_all): unknown op \"frobnicate_all\"; see docs/ops.md");
  EXPECT_EQ(s.message().find("did you mean"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
}

TEST(ValidateTypes, VeryLongUnknownOpName) {
  const std::string op(100000, 'r');
  SY_EXPECT_ERROR(
      Validate(kUnaryValues, R"([{"op": ")" + op + R"(", "inputs": [0], "outputs": [1]}])"),
      "unknown op \"rrrr");
}

// --- Arity ------------------------------------------------------------------------------

TEST(ValidateTypes, WrongNumberOfInputs) {
  SY_EXPECT_ERROR(
      Validate(kBinaryValues, R"([{"op": "add", "inputs": [0], "outputs": [2], "name": "sum"}])",
               "[0, 1]"),
      "node 0 (add) \"sum\": takes 2 inputs but has 1");
  SY_EXPECT_ERROR(Validate(kUnaryValues, R"([{"op": "relu", "inputs": [0, 0], "outputs": [1]}])"),
                  "node 0 (relu): takes 1 input but has 2");
  SY_EXPECT_ERROR(Validate(kUnaryValues, R"([{"op": "relu", "inputs": [], "outputs": [1]}])"),
                  "node 0 (relu): takes 1 input but has 0");
}

TEST(ValidateTypes, WrongNumberOfOutputs) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "y", "dtype": "f32", "shape": [2, 3]},
    {"name": "z", "dtype": "f32", "shape": [2, 3]}])";
  SY_EXPECT_ERROR(Validate(values, R"([{"op": "relu", "inputs": [0], "outputs": [1, 2]}])"),
                  "node 0 (relu): produces 1 output but the node lists 2");
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "relu", "inputs": [0], "outputs": []}])", "[0, 1, 2]"),
      "node 0 (relu): produces 1 output but the node lists 0");
}

// --- Dtypes -----------------------------------------------------------------------------

TEST(ValidateTypes, WrongDType) {
  const std::string ints = R"([
    {"name": "x", "dtype": "i32", "shape": [4]},
    {"name": "y", "dtype": "i32", "shape": [4]}])";
  SY_EXPECT_ERROR(
      Validate(ints, R"([{"op": "relu", "inputs": [0], "outputs": [1], "name": "act"}])"),
      "node 0 (relu) \"act\": input 0 (x) has dtype i32 but relu accepts f32 f16 "
      "bf16 f64");
  const std::string mixed = R"([
    {"name": "a", "dtype": "f32", "shape": [4]},
    {"name": "b", "dtype": "i32", "shape": [4]},
    {"name": "c", "dtype": "f32", "shape": [4]}])";
  SY_EXPECT_ERROR(Validate(mixed, R"([{"op": "add", "inputs": [0, 1], "outputs": [2]}])", "[0, 1]"),
                  "node 0 (add): input 1 (b) has dtype i32 but must match input 0 (f32)");
  const std::string where = R"([
    {"name": "cond", "dtype": "f32", "shape": [4]},
    {"name": "a", "dtype": "f32", "shape": [4]},
    {"name": "c", "dtype": "f32", "shape": [4]}])";
  SY_EXPECT_ERROR(
      Validate(where, R"([{"op": "where", "inputs": [0, 1, 1], "outputs": [2]}])", "[0, 1]"),
      "node 0 (where): input 0 (cond) has dtype f32 but where accepts bool");
}

// --- Attributes -------------------------------------------------------------------------

TEST(ValidateTypes, UnknownAttribute) {
  SY_EXPECT_ERROR(
      Validate(
          kBinaryValues,
          R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": "sum", "attrs": {"axis": 1}}])",
          "[0, 1]"),
      "node 0 (add) \"sum\": unknown attribute axis (add takes no attributes)");
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "clip", "inputs": [0], "outputs": [1], "attrs": {"minimum": 0}}])"),
      "node 0 (clip): unknown attribute minimum (clip takes min, max)");
}

TEST(ValidateTypes, MistypedAttribute) {
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "clip", "inputs": [0], "outputs": [1], "attrs": {"min": "0"}}])"),
      "node 0 (clip): attribute min is \"0\" (string) but must be float");
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "clip", "inputs": [0], "outputs": [1], "attrs": {"max": [6]}}])"),
      "node 0 (clip): attribute max is [6] (ints) but must be float");
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "cast", "inputs": [0], "outputs": [1], "attrs": {"to": 1}}])"),
      "node 0 (cast): attribute to is 1 (int) but must be string");
}

TEST(ValidateTypes, DisallowedStringAttribute) {
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "cast", "inputs": [0], "outputs": [1], "attrs": {"to": "float32"}}])"),
      "node 0 (cast): attribute to is \"float32\" but must be one of: f32, f16, bf16, f64, i8, "
      "u8, i16, u16, i32, u32, i64, bool");
}

TEST(ValidateTypes, MissingRequiredAttribute) {
  SY_EXPECT_ERROR(Validate(kUnaryValues, R"([{"op": "cast", "inputs": [0], "outputs": [1]}])"),
                  "node 0 (cast): missing required attribute to (string)");
}

TEST(ValidateTypes, AttributeRuleOfTheShapeRule) {
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "clip", "inputs": [0], "outputs": [1], "attrs": {"min": 2, "max": 1}}])"),
      "node 0 (clip): attribute min (2) is greater than max (1)");
}

TEST(ValidateTypes, DefaultsAreFilledInAndKindsNormalised) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "y", "dtype": "f32", "shape": [2, 3]},
    {"name": "z", "dtype": "f32", "shape": [2, 3]},
    {"name": "u", "dtype": "f32", "shape": [2, 3]}])";
  Expected<Graph> g = ValidateGraph(values, R"([
    {"op": "leaky_relu", "inputs": [0], "outputs": [1]},
    {"op": "clip", "inputs": [1], "outputs": [2], "attrs": {"min": 0, "max": 6}},
    {"op": "clip", "inputs": [2], "outputs": [3]}])");
  SY_ASSERT_OK(g);
  // A default is filled in.
  ASSERT_NE(g->nodes[0].attrs.Find("alpha"), nullptr);
  EXPECT_EQ(*g->nodes[0].attrs.Find("alpha"), AttrValue(0.01));
  // Integers given for float attributes become floats.
  EXPECT_EQ(*g->nodes[1].attrs.Find("min"), AttrValue(0.0));
  EXPECT_EQ(*g->nodes[1].attrs.Find("max"), AttrValue(6.0));
  // Optional attributes without a default stay absent.
  EXPECT_TRUE(g->nodes[2].attrs.empty());
}

// --- Shapes and recorded types ----------------------------------------------------------

TEST(ValidateTypes, RecordedTypeDisagreesWithInference) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 12]},
    {"name": "act", "dtype": "f32", "shape": [2, 12]},
    {"name": "w", "dtype": "f32", "shape": [12, 16]},
    {"name": "h", "dtype": "f32", "shape": [2, 8]}])";
  const std::string nodes = R"([
    {"op": "relu", "inputs": [0], "outputs": [1]},
    {"op": "matmul", "inputs": [1, 2], "outputs": [3], "name": "fc0"}])";
  const Status s = Validate(values, nodes, "[0, 2]");
  EXPECT_EQ(
      s.message(),
      "node 1 (matmul) \"fc0\" produces f32 [2, 16] but value 3 \"h\" is recorded as f32 [2, 8]");
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
}

TEST(ValidateTypes, RecordedDTypeDisagreesWithInference) {
  SY_EXPECT_ERROR(
      Validate(kUnaryValues,
               R"([{"op": "cast", "inputs": [0], "outputs": [1], "attrs": {"to": "i32"}}])"),
      "node 0 (cast) produces i32 [2, 3] but value 1 \"y\" is recorded as f32 [2, 3]");
  // A scalar recorded where a vector is produced.
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [1]},
    {"name": "y", "dtype": "f32", "shape": []}])";
  SY_EXPECT_ERROR(Validate(values, R"([{"op": "relu", "inputs": [0], "outputs": [1]}])"),
                  "node 0 (relu) produces f32 [1] but value 1 \"y\" is recorded as f32 []");
}

TEST(ValidateTypes, DisagreementInALaterOutputNamesIt) {
  if (OpRegistry::Global().Find("split") == nullptr) GTEST_SKIP() << "split not registered";
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [4, 2]},
    {"name": "p", "dtype": "f32", "shape": [2, 2]},
    {"name": "q", "dtype": "f32", "shape": [3, 2]}])";
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "split", "inputs": [0], "outputs": [1, 2], "name": "halves"}])"),
      "node 0 (split) \"halves\" produces f32 [2, 2] as output 1 but value 2 \"q\" is "
      "recorded as f32 [3, 2]");
}

TEST(ValidateTypes, ShapesThatDoNotBroadcast) {
  const std::string values = R"([
    {"name": "a", "dtype": "f32", "shape": [2, 3]},
    {"name": "b", "dtype": "f32", "shape": [4]},
    {"name": "c", "dtype": "f32", "shape": [2, 3]}])";
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "mul", "inputs": [0, 1], "outputs": [2], "name": "scale"}])",
               "[0, 1]"),
      "node 0 (mul) \"scale\": shapes [2, 3] and [4] do not broadcast (dimension 1: 3 vs 4)");
}

TEST(ValidateTypes, MatmulInnerDimensionsDisagree) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 12]},
    {"name": "w", "dtype": "f32", "shape": [10, 16]},
    {"name": "h", "dtype": "f32", "shape": [2, 16]}])";
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "matmul", "inputs": [0, 1], "outputs": [2], "name": "fc0"}])",
               "[0, 1]"),
      "node 0 (matmul) \"fc0\": input b has shape [10, 16] but its dimension 0 (10) must equal "
      "input a's last dimension (12)");
}

TEST(ValidateTypes, BroadcastingResultIsChecked) {
  const std::string values = R"([
    {"name": "a", "dtype": "f32", "shape": [2, 1]},
    {"name": "b", "dtype": "f32", "shape": [1, 3]},
    {"name": "c", "dtype": "f32", "shape": [2, 3]},
    {"name": "d", "dtype": "f32", "shape": [2, 1]}])";
  SY_EXPECT_OK(
      Validate(values, R"([{"op": "add", "inputs": [0, 1], "outputs": [2]}])", "[0, 1, 3]"));
  SY_EXPECT_ERROR(
      Validate(values, R"([{"op": "add", "inputs": [0, 1], "outputs": [3]}])", "[0, 1, 2]"),
      "node 0 (add) produces f32 [2, 3] but value 3 \"d\" is recorded as f32 [2, 1]");
}

TEST(ValidateTypes, ErrorsNameTheFailingNode) {
  const std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [4]},
    {"name": "y", "dtype": "f32", "shape": [4]},
    {"name": "z", "dtype": "i32", "shape": [4]}])";
  SY_EXPECT_ERROR(
      Validate(values, R"([
      {"op": "relu", "inputs": [0], "outputs": [1], "name": "ok"},
      {"op": "relu", "inputs": [1], "outputs": [2], "name": "bad"}])"),
      "node 1 (relu) \"bad\" produces f32 [4] but value 2 \"z\" is recorded as i32 [4]");
}

TEST(ValidateTypes, GraphBuiltInCodeWithIdsOutOfRange) {
  // Pass 1 rules these out for files; pass 2 must not index out of bounds either.
  Graph g;
  g.values = {{"x", {DType::kF32, {2}}}, {"y", {DType::kF32, {2}}}};
  g.inputs = {0};
  g.nodes = {Node{"relu", {5}, {1}, {}, "r", ""}};
  SY_EXPECT_ERROR(ValidateGraphTypes(g),
                  "node 0 (relu) \"r\": input value id 5 is out of range [0, 2)");
  g.nodes = {Node{"relu", {0}, {-1}, {}, "", ""}};
  SY_EXPECT_ERROR(ValidateGraphTypes(g),
                  "node 0 (relu): output value id -1 is out of range [0, 2)");
}

}  // namespace
}  // namespace sy
