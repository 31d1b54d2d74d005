// The symbolic pass (ops/symbolic_shapes.h): each op's rule on dims with symbols, and the
// errors it raises. Outputs are recorded as "?" where a test reads what the rule infers
// (the pass keeps the inferred dim over a "?"); every expected shape is derived by hand
// from the op's definition.
#include "ops/symbolic_shapes.h"

#include <gtest/gtest.h>

#include "switchyard/model_io.h"

namespace sy {
namespace {

// A graph from its parts' JSON; every value listed in `inputs` is a graph input.
Graph Make(const std::string& symbols, const std::string& values, const std::string& inputs,
           const std::string& nodes) {
  const std::string json = R"({"format": "rml-graph", "version": 1, "symbols": [)" + symbols +
                           R"(], "values": [)" + values + R"(], "inputs": [)" + inputs +
                           R"(], "outputs": [0], "nodes": [)" + nodes + "]}";
  Expected<Graph> g = ParseGraphJson(json, nullptr);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : Graph();
}

std::string V(const std::string& name, const std::string& shape, const std::string& dtype = "f32") {
  return R"({"name": ")" + name + R"(", "dtype": ")" + dtype + R"(", "shape": )" + shape + "}";
}

constexpr const char* kBatchSeq = R"({"name": "batch"}, {"name": "seq"})";

// The dims the pass decides for value `id`, or the error.
std::string Inferred(const Graph& g, ValueId id) {
  Expected<std::vector<SymShape>> shapes = InferSymbolicShapes(g);
  if (!shapes.ok()) return shapes.status().message();
  return SymShapeToString((*shapes)[id]);
}

std::string ErrorOf(const Graph& g) {
  Status s = CheckSymbolicShapes(g);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  return s.message();
}

// ---- elementwise ----

TEST(SymbolicShapes, UnaryKeepsTheShape) {
  Graph g = Make(kBatchSeq, V("x", R"(["batch", "seq"])") + "," + V("y", R"(["?", "?"])"), "0",
                 R"({"op": "relu", "inputs": [0], "outputs": [1]})");
  EXPECT_EQ(Inferred(g, 1), "[batch, seq]");
}

TEST(SymbolicShapes, BroadcastingMatchesSymbolsAndOnes) {
  Graph g = Make(kBatchSeq,
                 V("a", R"(["batch", "seq", 4])") + "," + V("b", R"(["batch", 1, 1])") + "," +
                     V("c", R"(["seq", 4])") + "," + V("s", R"(["?", "?", "?"])") + "," +
                     V("t", R"(["?", "?", "?"])") + "," + V("m", R"(["batch", "seq", 4])", "bool") +
                     "," + V("w", R"(["?", "?", "?"])"),
                 "0, 1, 2, 5",
                 R"({"op": "add", "inputs": [0, 1], "outputs": [3]},
                    {"op": "mul", "inputs": [2, 3], "outputs": [4]},
                    {"op": "where", "inputs": [5, 1, 4], "outputs": [6]})");
  EXPECT_EQ(Inferred(g, 3), "[batch, seq, 4]");
  EXPECT_EQ(Inferred(g, 4), "[batch, seq, 4]");
  EXPECT_EQ(Inferred(g, 6), "[batch, seq, 4]");
}

TEST(SymbolicShapes, BroadcastingDistinctSymbolsIsAnErrorNamingThem) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "seq2"})",
                 V("a", R"(["batch", "seq"])") + "," + V("b", R"(["batch", "seq2"])") + "," +
                     V("s", R"(["batch", "seq"])"),
                 "0, 1", R"({"op": "add", "name": "sum", "inputs": [0, 1], "outputs": [2]})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (add) \"sum\": inputs 'a' [batch, seq] and 'b' [batch, seq2] do not "
            "broadcast: dim 1 is seq against seq2 (needs equal sizes or 1)");
}

TEST(SymbolicShapes, BroadcastingASymbolWithAConstantOtherThanOneIsAnError) {
  Graph g = Make(
      kBatchSeq,
      V("a", R"(["batch", "seq"])") + "," + V("b", "[5]") + "," + V("s", R"(["batch", "seq"])"),
      "0, 1", R"({"op": "sub", "inputs": [0, 1], "outputs": [2]})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (sub): inputs 'a' [batch, seq] and 'b' [5] do not broadcast: dim 1 is seq "
            "against 5 (needs equal sizes or 1)");
}

TEST(SymbolicShapes, CastKeepsTheShape) {
  Graph g = Make(kBatchSeq, V("x", R"(["batch", "seq"])") + "," + V("y", R"(["?", "?"])", "i64"),
                 "0", R"({"op": "cast", "inputs": [0], "outputs": [1], "attrs": {"to": "i64"}})");
  EXPECT_EQ(Inferred(g, 1), "[batch, seq]");
}

// ---- linear algebra ----

TEST(SymbolicShapes, MatmulContractsAndBroadcastsBatchDims) {
  Graph g =
      Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "past"})",
           V("q", R"(["batch", 12, "seq", 64])") + "," + V("k", R"(["batch", 12, 64, "past"])") +
               "," + V("w", "[64, 32]") + "," + V("s", R"(["?", "?", "?", "?"])") + "," +
               V("h", R"(["?", "?", "?", "?"])") + "," + V("v", R"([1, 12, "past", 64])") + "," +
               V("o", R"(["?", "?", "?", "?"])"),
           "0, 1, 2, 5",
           R"({"op": "matmul", "inputs": [0, 1], "outputs": [3]},
                    {"op": "matmul", "inputs": [0, 2], "outputs": [4]},
                    {"op": "matmul", "inputs": [3, 5], "outputs": [6]})");
  EXPECT_EQ(Inferred(g, 3), "[batch, 12, seq, past]");
  EXPECT_EQ(Inferred(g, 4), "[batch, 12, seq, 32]");
  EXPECT_EQ(Inferred(g, 6), "[batch, 12, seq, 64]");
}

TEST(SymbolicShapes, MatmulWithDifferentContractedDimsIsAnError) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "past"})",
                 V("a", R"(["batch", "seq", "past"])") + "," + V("b", R"(["batch", "seq", 8])") +
                     "," + V("c", R"(["batch", "seq", 8])"),
                 "0, 1", R"({"op": "matmul", "inputs": [0, 1], "outputs": [2]})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (matmul): inputs 'a' [batch, seq, past] and 'b' [batch, seq, 8] do not "
            "multiply: the contracted dims are past against seq");
}

TEST(SymbolicShapes, Gemm) {
  Graph g =
      Make(R"({"name": "batch"})",
           V("a", R"([16, "batch"])") + "," + V("b", R"([32, 16])") + "," + V("y", R"(["?", "?"])"),
           "0, 1",
           R"({"op": "gemm", "inputs": [0, 1], "outputs": [2],
                     "attrs": {"trans_a": 1, "trans_b": 1}})");
  EXPECT_EQ(Inferred(g, 2), "[batch, 32]");
}

// ---- movement ----

TEST(SymbolicShapes, ConcatSumsTheAxis) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "past"})",
                 V("p", R"(["batch", "past", 8])") + "," + V("x", R"(["batch", "seq", 8])") + "," +
                     V("y", R"(["?", "?", "?"])") + "," + V("z", R"(["?", "?", "?"])"),
                 "0, 1",
                 R"({"op": "concat", "inputs": [0, 1], "outputs": [2], "attrs": {"axis": 1}},
                    {"op": "concat", "inputs": [2, 1, 1], "outputs": [3], "attrs": {"axis": -2}})");
  EXPECT_EQ(Inferred(g, 2), "[batch, past+seq, 8]");
  EXPECT_EQ(Inferred(g, 3), "[batch, past+3*seq, 8]");
}

TEST(SymbolicShapes, ConcatOfMismatchedDimsIsAnError) {
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", "seq"])") + "," + V("d", R"(["batch", "seq"])") + "," +
                     V("y", R"(["?", "seq"])") + "," + V("z", R"(["?", "?"])"),
                 "0, 1",
                 R"({"op": "concat", "inputs": [0, 1], "outputs": [2], "attrs": {"axis": 0}},
                    {"op": "concat", "inputs": [0, 2], "outputs": [3], "attrs": {"axis": 1}})");
  EXPECT_EQ(ErrorOf(g),
            "node 1 (concat): inputs 'x' [batch, seq] and 'y' [2*batch, seq] do not concatenate "
            "on axis 1: dim 0 is batch against 2*batch");
}

TEST(SymbolicShapes, ReshapeWithExpressionsZerosAndMinusOne) {
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", "seq", 768])") + "," + V("a", R"(["?", "?", "?", "?"])") +
                     "," + V("b", R"(["?", "?", "?"])") + "," + V("c", R"(["?", "?"])") + "," +
                     V("d", R"(["?", "?"])"),
                 "0",
                 R"j({"op": "reshape", "inputs": [0], "outputs": [1],
                     "attr_exprs": {"shape": ["batch", "seq", 12, 64]}},
                    {"op": "reshape", "inputs": [1], "outputs": [2], "attrs": {"shape": [0, -1, 64]}},
                    {"op": "reshape", "inputs": [2], "outputs": [3],
                     "attr_exprs": {"shape": ["dim(0,0)*dim(0,1)", -1]}},
                    {"op": "reshape", "inputs": [0], "outputs": [4], "attrs": {"shape": [0, -1]}})j");
  EXPECT_EQ(Inferred(g, 1), "[batch, seq, 12, 64]");
  EXPECT_EQ(Inferred(g, 2), "[batch, 12*seq, 64]");  // 768*batch*seq / (64*batch)
  EXPECT_EQ(Inferred(g, 3), "[batch*seq, 768]");     // the flatten of x
  EXPECT_EQ(Inferred(g, 4), "[batch, 768*seq]");
}

TEST(SymbolicShapes, ReshapeWithAllowZeroKeepsAZero) {
  Graph g =
      Make(kBatchSeq, V("x", R"(["batch", 0, "seq"])") + "," + V("y", R"(["?", "?", "?"])"), "0",
           R"j({"op": "reshape", "inputs": [0], "outputs": [1], "attrs": {"allowzero": 1},
                     "attr_exprs": {"shape": [0, "seq", "batch"]}})j");
  EXPECT_EQ(Inferred(g, 1), "[0, seq, batch]");
}

TEST(SymbolicShapes, ReshapeToAnotherElementCountIsAnError) {
  Graph g =
      Make(kBatchSeq,
           V("x", R"(["batch", "seq", 768])") + "," + V("y", R"(["batch", "seq", 12, 32])"), "0",
           R"({"op": "reshape", "inputs": [0], "outputs": [1],
                     "attr_exprs": {"shape": ["batch", "seq", 12, 32]}})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (reshape): input 'x' [batch, seq, 768] has 768*batch*seq elements but shape "
            "[batch, seq, 12, 32] has 384*batch*seq");
}

TEST(SymbolicShapes, ReshapeMinusOneThatDoesNotDivideIsOpaqueNotAnError) {
  // [batch, seq] to [seq/2, -1]: right for even seq (the -1 is 2*batch), which the
  // example check decides; the pass cannot.
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", "seq"])") + "," + V("y", R"(["seq/2", "2*batch"])") + "," +
                     V("z", R"(["?", "?"])"),
                 "0",
                 R"({"op": "reshape", "inputs": [0], "outputs": [1],
                     "attr_exprs": {"shape": ["seq/2", -1]}},
                    {"op": "relu", "inputs": [1], "outputs": [2]})");
  // The recorded polynomial stands where the inferred dim is opaque.
  EXPECT_EQ(Inferred(g, 2), "[seq/2, 2*batch]");
}

TEST(SymbolicShapes, SqueezeAndUnsqueezeAreReshapes) {
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", 1, "seq"])") + "," + V("s", R"(["?", "?"])") + "," +
                     V("u", R"(["?", "?", "?", "?"])"),
                 "0",
                 R"j({"op": "reshape", "inputs": [0], "outputs": [1],
                     "attr_exprs": {"shape": ["batch", "seq"]}},
                    {"op": "reshape", "inputs": [1], "outputs": [2],
                     "attr_exprs": {"shape": ["dim(1,0)", 1, 1, "dim(1,1)"]}})j");
  EXPECT_EQ(Inferred(g, 1), "[batch, seq]");
  EXPECT_EQ(Inferred(g, 2), "[batch, 1, 1, seq]");
}

TEST(SymbolicShapes, TransposePadTileExpand) {
  Graph g =
      Make(kBatchSeq,
           V("x", R"(["batch", "seq", 8])") + "," + V("t", R"(["?", "?", "?"])") + "," +
               V("p", R"(["?", "?", "?"])") + "," + V("r", R"(["?", "?", "?"])") + "," +
               V("o", R"([1, "seq"])") + "," + V("e", R"(["?", "?"])"),
           "0, 4",
           R"({"op": "transpose", "inputs": [0], "outputs": [1], "attrs": {"perm": [2, 0, 1]}},
                    {"op": "pad", "inputs": [0], "outputs": [2],
                     "attrs": {"pads": [0, 1, 0, 0, 2, 3]}},
                    {"op": "tile", "inputs": [0], "outputs": [3], "attr_exprs": {"repeats": [1, "batch", 2]}},
                    {"op": "expand", "inputs": [4], "outputs": [5],
                     "attr_exprs": {"shape": ["batch", 1]}})");
  EXPECT_EQ(Inferred(g, 1), "[8, batch, seq]");
  EXPECT_EQ(Inferred(g, 2), "[batch, seq+3, 11]");
  EXPECT_EQ(Inferred(g, 3), "[batch, batch*seq, 16]");
  EXPECT_EQ(Inferred(g, 5), "[batch, seq]");
}

TEST(SymbolicShapes, ExpandThatDoesNotBroadcastIsAnError) {
  Graph g =
      Make(kBatchSeq, V("x", R"(["batch", "seq"])") + "," + V("e", R"(["batch", "seq"])"), "0",
           R"({"op": "expand", "inputs": [0], "outputs": [1],
                     "attr_exprs": {"shape": ["batch", "batch"]}})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (expand): input 'x' [batch, seq] and attribute shape [batch, batch] do not "
            "broadcast: dim 1 is seq against batch (needs equal sizes or 1)");
}

TEST(SymbolicShapes, SliceDecidesWhatItCan) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "past"})",
                 V("p", R"(["batch", "past", 10])") + "," + V("s", R"(["batch", "seq", 10])") +
                     "," + V("x", R"(["?", "?", "?"])") + "," + V("a", R"(["?", "?", "?"])") + "," +
                     V("b", R"(["?", "?", "?"])") + "," + V("c", R"(["?", "?", "?"])"),
                 "0, 1",
                 // x = [p, s]; then [past, past+seq) of its axis 1; the whole axis and every
                 // other element of 10; from 1 to the end (undecided: past+seq may be 0).
                 R"({"op": "concat", "inputs": [0, 1], "outputs": [2], "attrs": {"axis": 1}},
                    {"op": "slice", "inputs": [2], "outputs": [3],
                     "attr_exprs": {"starts": ["past"], "ends": ["past+seq"]}, "attrs": {"axes": [1]}},
                    {"op": "slice", "inputs": [2], "outputs": [4],
                     "attrs": {"starts": [0, 0], "ends": [9223372036854775807, 10], "axes": [1, 2],
                               "steps": [1, 2]}},
                    {"op": "slice", "inputs": [2], "outputs": [5],
                     "attrs": {"starts": [1], "ends": [9223372036854775807], "axes": [1]}})");
  EXPECT_EQ(Inferred(g, 2), "[batch, past+seq, 10]");
  EXPECT_EQ(Inferred(g, 3), "[batch, seq, 10]");
  EXPECT_EQ(Inferred(g, 4), "[batch, past+seq, 5]");
  EXPECT_EQ(Inferred(g, 5), "[batch, max(0,past+seq-1), 10]");
}

TEST(SymbolicShapes, SplitBySizesAndIntoEqualParts) {
  Graph g = Make(kBatchSeq,
                 V("h", R"(["batch", "seq"])") + "," + V("x", R"(["?", "?"])") + "," +
                     V("a", R"(["?", "?"])") + "," + V("b", R"(["?", "?"])") + "," +
                     V("c", R"(["?", "?"])") + "," + V("d", R"(["?", "?"])"),
                 "0",
                 R"({"op": "concat", "inputs": [0, 0], "outputs": [1], "attrs": {"axis": 1}},
                    {"op": "split", "inputs": [1], "outputs": [2, 3], "attrs": {"axis": 1}},
                    {"op": "split", "inputs": [1], "outputs": [4, 5], "attrs": {"axis": 1},
                     "attr_exprs": {"sizes": ["seq-1", "seq+1"]}})");
  EXPECT_EQ(Inferred(g, 1), "[batch, 2*seq]");
  EXPECT_EQ(Inferred(g, 2), "[batch, seq]");
  EXPECT_EQ(Inferred(g, 3), "[batch, seq]");
  EXPECT_EQ(Inferred(g, 4), "[batch, seq-1]");
  EXPECT_EQ(Inferred(g, 5), "[batch, seq+1]");
}

TEST(SymbolicShapes, SplitSizesThatDoNotSumToTheAxisAreAnError) {
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", "seq"])") + "," + V("a", R"(["batch", "seq"])") + "," +
                     V("b", R"(["batch", 1])"),
                 "0",
                 R"({"op": "split", "inputs": [0], "outputs": [1, 2], "attrs": {"axis": 1},
                     "attr_exprs": {"sizes": ["seq", 1]}})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (split): attribute sizes [seq, 1] sums to seq+1 but input 'x' [batch, seq] "
            "has seq on axis 1");
}

// ---- reductions, indexing, normalisation ----

TEST(SymbolicShapes, ReductionsSoftmaxGatherTopk) {
  Graph g = Make(kBatchSeq,
                 V("x", R"(["batch", "seq", 8])") + "," + V("r", R"(["?", "?", "?"])") + "," +
                     V("q", R"(["?"])") + "," + V("s", R"(["?", "?", "?"])") + "," +
                     V("table", "[1000, 64]") + "," + V("ids", R"(["batch", "seq"])", "i64") + "," +
                     V("g", R"(["?", "?", "?"])") + "," + V("a", R"(["?", "?"])", "i64"),
                 "0, 4, 5",
                 R"({"op": "reduce_mean", "inputs": [0], "outputs": [1], "attrs": {"axes": [1]}},
                    {"op": "reduce_sum", "inputs": [0], "outputs": [2],
                     "attrs": {"axes": [-1, 1], "keepdims": 0}},
                    {"op": "softmax", "inputs": [0], "outputs": [3]},
                    {"op": "gather", "inputs": [4, 5], "outputs": [6]},
                    {"op": "argmax", "inputs": [0], "outputs": [7], "attrs": {"axis": 2, "keepdims": 0}})");
  EXPECT_EQ(Inferred(g, 1), "[batch, 1, 8]");
  EXPECT_EQ(Inferred(g, 2), "[batch]");
  EXPECT_EQ(Inferred(g, 3), "[batch, seq, 8]");
  EXPECT_EQ(Inferred(g, 6), "[batch, seq, 64]");
  EXPECT_EQ(Inferred(g, 7), "[batch, seq]");
}

// ---- convolution, pooling ----

TEST(SymbolicShapes, ConvAndPoolSizesArePolynomialsWhenTheDivisionIsExact) {
  Graph g =
      Make(R"({"name": "batch"}, {"name": "h"}, {"name": "w"})",
           V("x", R"(["batch", 3, "h", "w"])") + "," + V("k", "[16, 3, 3, 3]") + "," +
               V("c", R"(["?", "?", "?", "?"])") + "," + V("p", R"(["?", "?", "?", "?"])") + "," +
               V("s", R"(["?", "?", "?", "?"])") + "," + V("g", R"(["?", "?", "?", "?"])"),
           "0, 1",
           R"({"op": "conv", "inputs": [0, 1], "outputs": [2]},
                    {"op": "max_pool", "inputs": [0], "outputs": [3],
                     "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
                    {"op": "conv", "inputs": [0, 1], "outputs": [4],
                     "attrs": {"strides": [2, 2], "pads": [1, 1, 1, 1]}},
                    {"op": "global_avg_pool", "inputs": [0], "outputs": [5]})");
  EXPECT_EQ(Inferred(g, 2), "[batch, 16, h-2, w-2]");
  EXPECT_EQ(Inferred(g, 3), "[batch, 3, h, w]");
  // (h + 2 - 3) / 2 + 1: not exact, an opaque quotient.
  EXPECT_EQ(Inferred(g, 4), "[batch, 16, (h-1)/2+1, (w-1)/2+1]");
  EXPECT_EQ(Inferred(g, 5), "[batch, 3, 1, 1]");
}

TEST(SymbolicShapes, ConvOutputRecordedWithTheInputSizeIsAnError) {
  Graph g = Make(R"({"name": "batch"}, {"name": "h"})",
                 V("x", R"(["batch", 3, "h"])") + "," + V("k", "[4, 3, 3]") + "," +
                     V("y", R"(["batch", 4, "h"])"),
                 "0, 1", R"({"op": "conv", "inputs": [0, 1], "outputs": [2]})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (conv) produces [batch, 4, h-2] but value 2 \"y\" is recorded as "
            "f32 [batch, 4, h]: dim 2 is h-2 against h");
}

// ---- what the pass leaves to the example check ----

TEST(SymbolicShapes, RecordedMismatchIsAnErrorNamingNodeAndValue) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "seq2"})",
                 V("x", R"(["batch", "seq", 64])") + "," + V("w", "[64, 32]") + "," +
                     V("z", R"(["batch", "seq2"])") + "," + V("y", R"(["batch", "seq2", 32])"),
                 "0, 1, 2", R"({"op": "matmul", "inputs": [0, 1], "outputs": [3]})");
  EXPECT_EQ(ErrorOf(g),
            "node 0 (matmul) produces [batch, seq, 32] but value 3 \"y\" is recorded as "
            "f32 [batch, seq2, 32]: dim 1 is seq against seq2");
}

TEST(SymbolicShapes, OpsWithoutARuleTakeTheRecordedShapes) {
  // depth_to_space has no symbolic rule: its output is taken as recorded, "?" a fresh
  // size that the next node neither equals nor contradicts.
  Graph g =
      Make(R"({"name": "batch"}, {"name": "h"})",
           V("x", R"(["batch", 8, "h", 4])") + "," + V("d", R"(["batch", 2, "?", 8])") + "," +
               V("e", R"(["batch", 2, "2*h", 8])") + "," + V("s", R"(["?", "?", "?", "?"])"),
           "0",
           R"({"op": "depth_to_space", "inputs": [0], "outputs": [1], "attrs": {"blocksize": 2}},
                    {"op": "depth_to_space", "inputs": [0], "outputs": [2], "attrs": {"blocksize": 2}},
                    {"op": "add", "inputs": [1, 2], "outputs": [3]})");
  EXPECT_EQ(Inferred(g, 1), "[batch, 2, ?, 8]");
  // Neither side is known to be 1 or equal to the other: an opaque size, not an error.
  EXPECT_EQ(Inferred(g, 3), "[batch, 2, broadcast(2*h,?), 8]");
}

TEST(SymbolicShapes, OpaqueSizesAreNotErrors) {
  // A data symbol (the count of a selection) and an opaque min: the slice's size is
  // min(12, nz), recorded as nz; the pass cannot tell and leaves it to the examples.
  Graph g = Make(R"({"name": "batch"}, {"name": "nz", "example": 3, "value": 1})",
                 V("x", R"(["batch", 12])") + "," + V("n", "[1]", "i64") + "," +
                     V("y", R"(["batch", "nz"])") + "," + V("z", R"(["batch", "nz"])"),
                 "0, 1",
                 R"({"op": "slice", "inputs": [0], "outputs": [2],
                     "attr_exprs": {"ends": ["nz"]}, "attrs": {"starts": [0], "axes": [1]}},
                    {"op": "mul", "inputs": [2, 2], "outputs": [3]})");
  EXPECT_EQ(Inferred(g, 3), "[batch, nz]");
}

TEST(SymbolicShapes, ValidateGraphTypesRunsThePassWithoutExamples) {
  Graph g = Make(R"({"name": "batch"}, {"name": "seq"}, {"name": "seq2"})",
                 V("a", R"(["batch", "seq"])") + "," + V("b", R"(["batch", "seq2"])") + "," +
                     V("s", R"(["batch", "seq"])"),
                 "0, 1", R"({"op": "add", "inputs": [0, 1], "outputs": [2]})");
  Status s = ValidateGraphTypes(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("dim 1 is seq against seq2"), std::string::npos) << s.message();
  Graph ok = Make(kBatchSeq, V("a", R"(["batch", "seq"])") + "," + V("s", R"(["batch", "seq"])"),
                  "0", R"({"op": "relu", "inputs": [0], "outputs": [1]})");
  EXPECT_TRUE(ValidateGraphTypes(ok).ok());
}

}  // namespace
}  // namespace sy
