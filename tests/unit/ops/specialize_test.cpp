// Specialisation of graphs with run-time sizes (docs/dynamic-shapes.md): symbols bound
// from input shapes, attribute expressions computed, shapes inferred and checked against
// the recorded ones. Expected shapes are derived by hand from the graph.
#include "switchyard/specialize.h"

#include <gtest/gtest.h>

#include "switchyard/model_io.h"
#include "test_util.h"

namespace sy {
namespace {

// x [batch, seq, 4] @ w [4, 2] -> h [batch, seq, 2] -> reshape to [batch*seq, 2], written
// once with a size expression and once with a read of h's dims.
constexpr const char* kGraph = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": ["batch", "seq", 4]},
    {"name": "w", "dtype": "f32", "shape": [4, 2]},
    {"name": "m", "dtype": "f32", "shape": ["batch", "seq"]},
    {"name": "h", "dtype": "f32", "shape": ["batch", "seq", 2]},
    {"name": "r", "dtype": "f32", "shape": ["?", 2]},
    {"name": "y", "dtype": "f32", "shape": ["batch*seq", 2]}
  ],
  "inputs": [0, 2], "outputs": [5],
  "constants": [{"value": 1, "data": [1, 0, 0, 1, 1, 1, -1, 2]}],
  "nodes": [
    {"op": "matmul", "inputs": [0, 1], "outputs": [3]},
    {"op": "reshape", "inputs": [3], "outputs": [4], "attr_exprs": {"shape": ["dim(3,0)*dim(3,1)", 2]}},
    {"op": "reshape", "inputs": [4], "outputs": [5], "attr_exprs": {"shape": ["batch*seq", 2]}}
  ]
})json";

Graph Parse(const std::string& text) {
  Expected<Graph> g = ParseGraphJson(text, nullptr);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : Graph();
}

TEST(Specialize, InfersEveryShapeAtTheBinding) {
  Graph g = Parse(kGraph);
  ASSERT_TRUE(g.IsSymbolic());
  EXPECT_EQ(ValueTypeString(g.values[0]), "f32 [batch, seq, 4]");
  Expected<SymbolBinding> binding = BindSymbols(g, std::vector<Shape>{{5, 7, 4}, {5, 7}});
  ASSERT_TRUE(binding.ok()) << binding.status().ToString();
  EXPECT_EQ(BindingToString(*binding), "batch=5, seq=7");
  Expected<Graph> s = Specialize(g, *binding);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->IsSymbolic());
  EXPECT_EQ(s->values[3].type.ToString(), "f32 [5, 7, 2]");
  EXPECT_EQ(s->values[4].type.ToString(), "f32 [35, 2]");
  EXPECT_EQ(s->values[5].type.ToString(), "f32 [35, 2]");
  EXPECT_EQ(AttrValueToString(*s->nodes[1].attrs.Find("shape")), "[35, 2]");
  EXPECT_TRUE(s->nodes[1].attr_exprs.empty());
  // The static graph passes loading's type pass as it is.
  EXPECT_TRUE(ValidateGraphTypes(*s).ok());
  // An empty batch is a size like any other.
  Expected<Graph> empty = Specialize(g, {{"batch", 0}, {"seq", 7}});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->values[5].type.ToString(), "f32 [0, 2]");
}

TEST(Specialize, InputsThatDisagreeOnASymbolAreNamed) {
  Graph g = Parse(kGraph);
  SY_EXPECT_ERROR(BindSymbols(g, std::vector<Shape>{{5, 7, 4}, {5, 9}}),
                  "inputs 'x' and 'm' disagree on seq: 7 (dim 1 of 'x') and 9 (dim 1 of 'm')");
  SY_EXPECT_ERROR(BindSymbols(g, std::vector<Shape>{{5, 7, 3}, {5, 7}}),
                  "input 'x' has shape [5, 7, 3] but the graph takes f32 [batch, seq, 4]: dim 2 "
                  "must be 4");
  SY_EXPECT_ERROR(BindSymbols(g, std::vector<Shape>{{5, 7}, {5, 7}}),
                  "input 'x' has shape [5, 7] but the graph takes f32 [batch, seq, 4] (rank 3)");
}

TEST(Specialize, ARecordedShapeThatDisagreesIsAnErrorWithTheBinding) {
  std::string text = kGraph;
  text.replace(text.find("[\"batch*seq\", 2]"), 16, "[\"batch+seq\", 2]");
  Graph g = Parse(text);
  SY_EXPECT_ERROR(Specialize(g, {{"batch", 5}, {"seq", 7}}),
                  "with batch=5, seq=7: node 2 (reshape) produces f32 [35, 2] but value 5 \"y\" is "
                  "recorded as f32 [batch+seq, 2]");
  // Loading's symbolic pass finds it for every size, before the check at the examples.
  SY_EXPECT_ERROR(ValidateGraphTypes(g),
                  "node 2 (reshape) produces [batch*seq, 2] but value 5 \"y\" is recorded as "
                  "f32 [batch+seq, 2]: dim 0 is batch*seq against batch+seq");
}

TEST(Specialize, ExpressionsThatFailSayWhichAttribute) {
  std::string text = kGraph;
  text.replace(text.rfind("[\"batch*seq\", 2]}"), 16, "[\"seq/(batch-batch)\", 2]");
  Graph g = Parse(text);
  SY_EXPECT_ERROR(Specialize(g, {{"batch", 5}, {"seq", 7}}),
                  "with batch=5, seq=7: node 2 (reshape): attribute shape = seq/(batch-batch): "
                  "seq/(batch-batch) is 7 / 0: division by zero");
}

TEST(Specialize, StructureIsCheckedWhenReading) {
  std::string text = kGraph;
  text.replace(text.find("{\"name\": \"seq\", \"example\": 3}"), 29, "{\"name\": \"len\"}");
  SY_EXPECT_ERROR(ParseGraphJson(text, nullptr),
                  "value 0 \"x\" uses symbol seq, which \"symbols\" does not declare");
  text = kGraph;
  text.replace(text.find("dim(3,0)"), 8, "dim(4,0)");
  SY_EXPECT_ERROR(ParseGraphJson(text, nullptr),
                  "node 1 (reshape): attr_exprs.shape reads the dims of value 4 \"r\", which is "
                  "not defined before the node");
  // An input dim may be an expression only of symbols other input dims bind.
  text = kGraph;
  text.replace(text.find("[\"batch\", \"seq\"]"), 16, "[\"batch\", \"len+1\"]");
  text.replace(text.find("{\"name\": \"seq\", \"example\": 3}"), 29,
               "{\"name\": \"seq\", \"example\": 3}, {\"name\": \"len\"}");
  SY_EXPECT_ERROR(ParseGraphJson(text, nullptr),
                  "graph input value 2 \"m\": shape[1] is len+1, but no graph input's dim is len "
                  "itself");
}

// An attention mask spanning the past and the new tokens: m [batch, seq+1] is checked
// against the symbols x binds, not a symbol of its own.
TEST(Specialize, InputDimsThatAreExpressionsAreCheckedAtBinding) {
  std::string text = kGraph;
  text.replace(text.find("[\"batch\", \"seq\"]"), 16, "[\"batch\", \"seq+1\"]");
  Graph g = Parse(text);
  Expected<SymbolBinding> binding = BindSymbols(g, std::vector<Shape>{{5, 7, 4}, {5, 8}});
  ASSERT_TRUE(binding.ok()) << binding.status().ToString();
  EXPECT_EQ(BindingToString(*binding), "batch=5, seq=7");
  SY_EXPECT_ERROR(BindSymbols(g, std::vector<Shape>{{5, 7, 4}, {5, 7}}),
                  "input 'm' has shape [5, 7] but the graph takes f32 [batch, seq+1]: dim 1 must "
                  "be seq+1 = 8 with batch=5, seq=7");
  Expected<Shape> example = ExampleShape(g, 2);
  ASSERT_TRUE(example.ok()) << example.status().ToString();
  EXPECT_EQ(*example, (Shape{2, 4}));  // batch 2, seq 3 + 1
}

}  // namespace
}  // namespace sy
