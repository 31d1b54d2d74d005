// The import driver: bad files, unmappable ops (all listed at once), static shapes,
// values needed at import time, folding of shape computations, output naming.
#include "switchyard/onnx_import.h"
#include "switchyard/specialize.h"

#include <fstream>

#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "switchyard/model_io.h"

namespace sy::onnx_import {
namespace {

using onnx::TensorProto;
using testing::ModelBuilder;

namespace fs = std::filesystem;

fs::path TempDir() {
  const fs::path dir =
      fs::temp_directory_path() /
      ("sy_onnx_import_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  return dir;
}

Expected<ImportResult> ImportBuilt(const ModelBuilder& b, ImportProblem* problem = nullptr,
                                   const ImportOptions& options = {}) {
  return ImportOnnxBytes(b.Bytes(), fs::temp_directory_path(), options, problem);
}

Tensor I64(std::vector<int64_t> values) {
  Tensor t = *Tensor::Allocate(DType::kI64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.mutable_values<int64_t>()[i] = values[i];
  return t;
}

TEST(OnnxImporterTest, MissingFileIsABadFile) {
  ImportProblem problem;
  Expected<ImportResult> r = ImportOnnxFile("/nonexistent/model.onnx", {}, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kBadFile);
  EXPECT_NE(r.status().message().find("/nonexistent/model.onnx: no such file"), std::string::npos);
}

TEST(OnnxImporterTest, TextFileIsNotAnOnnxModel) {
  const fs::path path = TempDir() / "notes.onnx";
  std::ofstream(path) << "this is not protobuf at all, just words\n";
  ImportProblem problem;
  Expected<ImportResult> r = ImportOnnxFile(path, {}, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kBadFile);
  EXPECT_NE(r.status().message().find("not an ONNX model"), std::string::npos)
      << r.status().message();
}

TEST(OnnxImporterTest, TruncatedModelIsRejected) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2, 3}).Output("y");
  b.Node("Relu", {"x"}, {"y"});
  b.FloatInitializer("unused", {64}, std::vector<float>(64, 1.5f));
  const std::string bytes = b.Bytes();
  for (size_t keep : {bytes.size() / 2, bytes.size() - 3, size_t{1}}) {
    ImportProblem problem;
    Expected<ImportResult> r = ImportOnnxBytes(bytes.substr(0, keep), ".", {}, &problem);
    ASSERT_FALSE(r.ok()) << "kept " << keep << " of " << bytes.size() << " bytes";
    EXPECT_EQ(problem, ImportProblem::kBadFile);
  }
}

TEST(OnnxImporterTest, EveryUnmappableOpIsListedInOneMessage) {
  ModelBuilder b;
  auto* ml = b.model().add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  b.Input("x", TensorProto::FLOAT, {2, 3}).Output("z");
  b.Node("StringNormalizer", {"x"}, {"a"}, "first");
  b.Node("Relu", {"a"}, {"b"});
  b.Node("LinearRegressor", {"b"}, {"c"}, "second").set_domain("ai.onnx.ml");
  b.Node("StringNormalizer", {"c"}, {"z"}, "third");
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kUnsupportedOp);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("StringNormalizer (node 0 \"first\", node 3 \"third\")"), std::string::npos)
      << m;
  EXPECT_NE(m.find("ai.onnx.ml:LinearRegressor (node 2 \"second\")"), std::string::npos) << m;
  EXPECT_EQ(m.find("Relu"), std::string::npos) << m;
}

// y = reshape(x, [N * 4]) / float(N): a reshape target and a float computed from the
// run-time size N; the import keeps both as size expressions (docs/dynamic-shapes.md).
TEST(OnnxImporterTest, SizeComputationsStayExpressions) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {-1, 4}).Output("y");
  b.Int64Initializer("zero", {1}, {0}).Int64Initializer("four", {1}, {4});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Gather", {"s", "zero"}, {"n"});  // [N]
  b.Node("Mul", {"n", "four"}, {"n4"});    // [N * 4]
  b.Node("Reshape", {"x", "n4"}, {"flat"});
  auto& cast = b.Node("Cast", {"n"}, {"nf"});
  ModelBuilder::IntAttr(cast, "to", TensorProto::FLOAT);
  b.Node("Div", {"flat", "nf"}, {"y"});
  Expected<ImportResult> r = ImportBuilt(b, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  const Node* reshape = nullptr;
  const Node* range = nullptr;
  for (const Node& n : g.nodes) {
    if (n.op == "reshape" && n.attr_exprs.count("shape")) reshape = &n;
    if (n.op == "range") range = &n;
  }
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->attr_exprs.at("shape").items[0].ToString(), "N*4");
  ASSERT_NE(range, nullptr);  // float(N), computed at run time
  EXPECT_EQ(range->attr_exprs.at("start").items[0].ToString(), "N");
  // Specialised at N = 6: y is f32 [24].
  Expected<Graph> s = Specialize(g, {{"N", 6}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->values[s->outputs[0]].type.ToString(), "f32 [24]");
}

// auto_pad SAME with stride 2: the pads depend on the size's parity, so with a run-time
// size they are expressions (traced at 3 and 4, the output size ceil(N / 2) agrees: the
// further specialisations keep it "?").
TEST(OnnxImporterTest, SamePadsFollowRunTimeSizes) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {1, 1, -1}).Output("y");
  b.FloatInitializer("w", {1, 1, 3}, {1, 2, 3});
  auto& conv = b.Node("Conv", {"x", "w"}, {"y"});
  ModelBuilder::IntsAttr(conv, "kernel_shape", {3});
  ModelBuilder::IntsAttr(conv, "strides", {2});
  auto* pad = conv.add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(onnx::AttributeProto::STRING);
  pad->set_s("SAME_UPPER");
  Expected<ImportResult> r = ImportBuilt(b, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(ValueTypeString(g.values[g.outputs[0]]), "f32 [1, 1, ?]");
  // ONNX: total pad = max(0, (ceil(N / 2) - 1) * 2 + 3 - N), the smaller half first.
  for (const auto& [n, pads] :
       std::vector<std::pair<int64_t, std::string>>{{4, "[0, 1]"}, {5, "[1, 1]"}, {1, "[1, 1]"}}) {
    Expected<Graph> s = Specialize(g, {{"N", n}});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(AttrValueToString(*s->nodes[0].attrs.Find("pads")), pads) << "N = " << n;
    EXPECT_EQ(s->values[s->outputs[0]].type.shape[2], (n + 1) / 2);
  }
}

TEST(OnnxImporterTest, DataDependentSizesBecomeDataSymbols) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2, 3}).Output("y", TensorProto::INT64);
  b.Node("NonZero", {"x"}, {"y"});
  Expected<ImportResult> r = ImportBuilt(b, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  // non_zero writes [2, 6] and a count; the count is a data symbol that trims it.
  ASSERT_EQ(g.symbols.size(), 1u);
  EXPECT_TRUE(g.symbols[0].from_data());
  EXPECT_EQ(g.values[g.symbols[0].value].type.ToString(), "i64 []");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, "non_zero");
  EXPECT_EQ(g.nodes[1].op, "slice");
  EXPECT_EQ(g.nodes[1].attr_exprs.at("ends").items[0].ToString(), g.symbols[0].name);
  EXPECT_EQ(ValueTypeString(g.values[g.outputs[0]]), "i64 [?, ?]");
}

// Gradient (automatic differentiation) is the training domain's op left unmapped; its
// optimizer steps (Adagrad, Adam, Momentum) are arithmetic and mapped (map_training.cpp).
TEST(OnnxImporterTest, TrainingDomainIsTrainingOnly) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2}).Output("y");
  b.Node("Gradient", {"x"}, {"y"}).set_domain("ai.onnx.preview.training");
  ImportProblem problem;
  ASSERT_FALSE(ImportBuilt(b, &problem).ok());
  EXPECT_EQ(problem, ImportProblem::kTrainingOnly);
}

TEST(OnnxImporterTest, SymbolicDimIsKeptAsARunTimeSize) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {-1, 3}).Output("y");
  b.Node("Relu", {"x"}, {"y"});
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  ASSERT_EQ(g.symbols.size(), 1u);
  EXPECT_EQ(g.symbols[0].name, "N");
  EXPECT_EQ(g.symbols[0].example, 3);  // the first default example size
  EXPECT_EQ(ValueTypeString(g.values[g.inputs[0]]), "f32 [N, 3]");
  EXPECT_EQ(ValueTypeString(g.values[g.outputs[0]]), "f32 [N, 3]");  // traced at N = 3 and 5

  ImportOptions options;
  options.input_shapes["x"] = {5, 3};
  Expected<ImportResult> ok = ImportBuilt(b, nullptr, options);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->graph.values[ok->graph.outputs[0]].type.ToString(), "f32 [5, 3]");
}

// A decoder's attention mask spans the past and the new tokens, but exporters give its
// length a name of its own: y = concat(past squeezed, input_ids) + attention_mask needs
// total = past + seq, which --dim-expr says (and --decoder-state assumes).
ModelBuilder MaskedDecoderModel() {
  ModelBuilder b;
  b.NamedInput("input_ids", TensorProto::FLOAT, {"batch", "seq"})
      .NamedInput("past_key_values.0.key", TensorProto::FLOAT, {"batch", "1", "past", "1"})
      .NamedInput("attention_mask", TensorProto::FLOAT, {"batch", "total"})
      .Int64Initializer("axes", {2}, {1, 3})
      .Output("y");
  b.Node("Squeeze", {"past_key_values.0.key", "axes"}, {"p"});
  ModelBuilder::IntAttr(b.Node("Concat", {"p", "input_ids"}, {"k"}), "axis", 1);
  b.Node("Add", {"k", "attention_mask"}, {"y"});
  return b;
}

// onnxruntime-genai's builder names the past inputs' head_dim `kv_cache_dim`; traced at
// a size of its own it does not fit the new keys. ImportOptions::past_head_size (its
// genai_config.json's head_size) fixes it; the mask's batch, named apart as the dynamo
// exporter does, is input_ids' batch.
TEST(OnnxImporterTest, DecoderPastHeadSizeAndMaskBatch) {
  ModelBuilder b;
  b.NamedInput("input_ids", TensorProto::FLOAT, {"batch", "seq"})
      .NamedInput("new_k", TensorProto::FLOAT, {"batch", "2", "seq", "4"})
      .NamedInput("past_key_values.0.key", TensorProto::FLOAT,
                  {"batch", "2", "past", "kv_cache_dim"})
      .NamedInput("attention_mask", TensorProto::FLOAT, {"mask_batch", "total"})
      .Output("present.0.key")
      .Output("m");
  ModelBuilder::IntAttr(b.Node("Concat", {"past_key_values.0.key", "new_k"}, {"present.0.key"}),
                        "axis", 2);
  b.Node("Identity", {"attention_mask"}, {"m"});
  ImportOptions options;
  options.decoder_with_past = true;
  Expected<ImportResult> unknown = ImportBuilt(b, nullptr, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("must match input 0's shape"), std::string::npos)
      << unknown.status().message();
  options.past_head_size = 4;
  Expected<ImportResult> r = ImportBuilt(b, nullptr, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(ValueTypeString(g.values[g.inputs[2]]), "f32 [batch, 2, past, 4]");
  EXPECT_EQ(ValueTypeString(g.values[g.inputs[3]]), "f32 [batch, past+seq]");
}

TEST(OnnxImporterTest, InputDimsCanBeExpressionsOfOtherInputDims) {
  ModelBuilder b = MaskedDecoderModel();
  // Traced with a length of its own, the mask does not fit the keys.
  Expected<ImportResult> independent = ImportBuilt(b, nullptr);
  ASSERT_FALSE(independent.ok());
  EXPECT_NE(independent.status().message().find("do not broadcast"), std::string::npos)
      << independent.status().message();

  for (bool decoder : {false, true}) {
    ImportOptions options;
    if (decoder) {
      options.decoder_with_past = true;
    } else {
      options.dim_exprs["total"] = "past+seq";
    }
    Expected<ImportResult> r = ImportBuilt(b, nullptr, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Graph& g = r->graph;
    EXPECT_EQ(ValueTypeString(g.values[g.inputs[2]]), "f32 [batch, past+seq]");
    EXPECT_EQ(ValueTypeString(g.values[g.outputs[0]]), "f32 [batch, seq+past]");
    for (const DimSymbol& s : g.symbols) EXPECT_NE(s.name, "total");
    // Each binding checks the mask's length.
    EXPECT_TRUE(BindSymbols(g, std::vector<Shape>{{2, 3}, {2, 1, 5, 1}, {2, 8}}).ok());
    Expected<SymbolBinding> wrong =
        BindSymbols(g, std::vector<Shape>{{2, 3}, {2, 1, 5, 1}, {2, 7}});
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.status().message().find("dim 1 must be past+seq = 8"), std::string::npos)
        << wrong.status().message();
  }

  const auto error = [&b](const std::string& expr) {
    ImportOptions bad;
    bad.dim_exprs["total"] = expr;
    Expected<ImportResult> r = ImportBuilt(b, nullptr, bad);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_NE(error("past+").find("--dim-expr total=past+:"), std::string::npos) << error("past+");
  EXPECT_NE(error("total+1").find("expected an expression of other dims' names"),
            std::string::npos);
  // A name no input dim has.
  EXPECT_NE(error("nowhere+1").find("no input dim is named nowhere"), std::string::npos)
      << error("nowhere+1");
  ImportOptions unnamed;
  unnamed.dim_exprs["length"] = "past+seq";
  Expected<ImportResult> r = ImportBuilt(b, nullptr, unnamed);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no input dim of the model is named length"),
            std::string::npos)
      << r.status().message();
}

TEST(OnnxImporterTest, UnsupportedElementTypeIsReported) {
  ModelBuilder b;
  b.Input("x", TensorProto::UINT64, {2}).Output("y", TensorProto::UINT64);
  b.Node("Relu", {"x"}, {"y"});
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kUnsupportedType);
  EXPECT_NE(r.status().message().find("UINT64"), std::string::npos);
  EXPECT_NE(r.status().message().find("values above 2^63"), std::string::npos);
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write a flatten: the
// shape computation folds and the reshape gets a static shape attribute.
TEST(OnnxImporterTest, ShapeComputationFoldsToStaticReshape) {
  ModelBuilder b(13);
  b.Input("x", TensorProto::FLOAT, {2, 3, 4}).Output("y");
  b.Int64Initializer("zero", {}, {0});
  b.Int64Initializer("axes", {1}, {0});
  b.Int64Initializer("minus_one", {1}, {-1});
  b.Node("Shape", {"x"}, {"s"});
  auto& gather = b.Node("Gather", {"s", "zero"}, {"batch"});
  ModelBuilder::IntAttr(gather, "axis", 0);
  b.Node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  auto& concat = b.Node("Concat", {"batch1", "minus_one"}, {"target"});
  ModelBuilder::IntAttr(concat, "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"}, "flatten");
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->folded_nodes, 4u);
  ASSERT_EQ(r->graph.nodes.size(), 1u);
  EXPECT_EQ(r->graph.nodes[0].op, "reshape");
  EXPECT_EQ(r->graph.nodes[0].attrs.GetInts("shape"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(r->graph.values[r->graph.outputs[0]].name, "y");
}

TEST(OnnxImporterTest, InputNeededAtImportTimeIsFrozenWhenGiven) {
  ModelBuilder b(13);
  b.Input("x", TensorProto::FLOAT, {2, 6}).Input("shape", TensorProto::INT64, {2}).Output("y");
  b.Node("Reshape", {"x", "shape"}, {"y"});
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kNeedsValue);
  EXPECT_NE(r.status().message().find("--input-value shape=FILE.npy"), std::string::npos)
      << r.status().message();

  ImportOptions options;
  options.input_values["shape"] = I64({3, 4});
  Expected<ImportResult> ok = ImportBuilt(b, nullptr, options);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->frozen_inputs, std::vector<std::string>{"shape"});
  ASSERT_EQ(ok->graph.inputs.size(), 1u);  // x only
  EXPECT_EQ(ok->graph.values[ok->graph.outputs[0]].type.ToString(), "f32 [3, 4]");
}

// A reshape target whose product overflows int64 (found by fuzz_onnx_import) is refused,
// not multiplied out.
TEST(OnnxImporterTest, ReshapeTargetWhoseProductOverflowsIsAnError) {
  ModelBuilder b(13);
  b.Input("x", TensorProto::FLOAT, {2, 6}).Output("y");
  b.Int64Initializer("shape", {3}, {15, -1, 9223372036854775807});
  b.Node("Reshape", {"x", "shape"}, {"y"}, "r");
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more elements than int64 holds"), std::string::npos)
      << r.status().message();
}

// A value needed at import time that is computed from a graph input: the error names the
// input, and giving its value makes the computation fold.
TEST(OnnxImporterTest, ComputedStaticValueNamesTheInputsItDependsOn) {
  ModelBuilder b(13);
  b.Input("x", TensorProto::FLOAT, {2, 12}).Input("half", TensorProto::INT64, {2}).Output("y");
  b.Int64Initializer("two", {}, {2});
  b.Node("Relu", {"x"}, {"unused"});
  b.Node("Mul", {"half", "two"}, {"shape"});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--input-value half=FILE.npy"), std::string::npos)
      << r.status().message();
  ImportOptions options;
  options.input_values["half"] = I64({2, 3});
  Expected<ImportResult> ok = ImportBuilt(b, nullptr, options);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->graph.values[ok->graph.outputs[0]].type.ToString(), "f32 [4, 6]");
}

TEST(OnnxImporterTest, OpsInTheWrongOrderAreAnError) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2}).Output("y");
  b.Node("Relu", {"later"}, {"y"}, "early");
  b.Node("Relu", {"x"}, {"later"});
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kInvalidModel);
  EXPECT_NE(r.status().message().find("Relu node 0 \"early\": reads value 'later'"),
            std::string::npos)
      << r.status().message();
}

TEST(OnnxImporterTest, TwoNodesWritingOneNameAreAnError) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2}).Output("y");
  b.Node("Relu", {"x"}, {"y"}, "first");
  b.Node("Neg", {"x"}, {"y"}, "second");
  ImportProblem problem;
  Expected<ImportResult> r = ImportBuilt(b, &problem);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(problem, ImportProblem::kInvalidModel);
  EXPECT_NE(r.status().message().find(
                "Neg node 1 \"second\" writes 'y', which Relu node 0 \"first\" already defines"),
            std::string::npos)
      << r.status().message();
  ModelBuilder over_input;
  over_input.Input("x", TensorProto::FLOAT, {2}).Output("x");
  over_input.Node("Relu", {"x"}, {"x"}, "in_place");
  Expected<ImportResult> r2 = ImportBuilt(over_input, &problem);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("which a graph input already defines"), std::string::npos)
      << r2.status().message();
}

TEST(OnnxImporterTest, OpsetsOutsideWhatTheImporterKnowsAreRefused) {
  for (const int64_t opset : {int64_t{-5}, int64_t{29}, int64_t{99}, int64_t{1} << 40}) {
    ModelBuilder b(opset);
    b.Input("x", TensorProto::FLOAT, {2}).Output("y");
    b.Node("Relu", {"x"}, {"y"});
    ImportProblem problem;
    Expected<ImportResult> r = ImportBuilt(b, &problem);
    ASSERT_FALSE(r.ok()) << opset;
    EXPECT_EQ(problem, ImportProblem::kInvalidModel);
    EXPECT_NE(r.status().message().find("imports opset " + std::to_string(opset) +
                                        " of the default ONNX domain; this importer's schema "
                                        "table (onnx "),
              std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(") knows opsets 1 to 28"), std::string::npos)
        << r.status().message();
  }
  // A contrib domain newer than the table: refused the same way.
  ModelBuilder contrib(17);
  auto* ms = contrib.model().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(7);
  contrib.Input("x", TensorProto::FLOAT, {2}).Output("y");
  contrib.Node("Relu", {"x"}, {"y"});
  Expected<ImportResult> newer = ImportBuilt(contrib);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("imports opset 7 of domain 'com.microsoft'"),
            std::string::npos)
      << newer.status().message();
  ModelBuilder newest(28);
  newest.Input("x", TensorProto::FLOAT, {2}).Output("y");
  newest.Node("Relu", {"x"}, {"y"});
  EXPECT_TRUE(ImportBuilt(newest).ok());
}

TEST(OnnxImporterTest, FoldingStopsAtTheMemoryBound) {
  // ConstantOfShape of 8 GiB (f32 [2^31, 4]) and of 2^62 elements: refused before
  // anything is allocated, naming the node and the limit.
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{int64_t{1} << 31, 4}, std::vector<int64_t>{int64_t{1} << 62, 4}}) {
    ModelBuilder b;
    b.Int64Initializer("shape", {2}, shape).Output("y");
    b.Node("ConstantOfShape", {"shape"}, {"y"}, "huge");
    ImportProblem problem;
    Expected<ImportResult> r = ImportBuilt(b, &problem);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(problem, ImportProblem::kInvalidModel);
    EXPECT_NE(r.status().message().find("\"huge\""), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("larger than the import's limit of 1073741824 bytes"),
              std::string::npos)
        << r.status().message();
  }
  // The limit is the caller's: 24 bytes (f32 [2, 3]) pass at 24 and fail at 23, for an
  // Expand as for a ConstantOfShape.
  ModelBuilder b;
  b.FloatInitializer("one", {1}, {1.0f}).Int64Initializer("shape", {2}, {2, 3}).Output("y");
  b.Node("Expand", {"one", "shape"}, {"y"}, "grow");
  ImportOptions options;
  options.max_fold_bytes = 24;
  EXPECT_TRUE(ImportBuilt(b, nullptr, options).ok());
  options.max_fold_bytes = 23;
  Expected<ImportResult> r = ImportBuilt(b, nullptr, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f32 [2, 3] larger than the import's limit of 23 bytes"),
            std::string::npos)
      << r.status().message();
}

// Every fold that can grow checks its result against --max-fold-bytes before computing:
// a broadcasting Add of [2^15, 1] and [1, 2^15] (4 GiB of f32) from 256 KiB of inputs,
// Where and Concat (a chain doubles), Gather with repeated indices, Cast to a wider type.
TEST(OnnxImporterTest, EveryGrowingFoldIsCheckedBeforeItComputes) {
  ImportOptions options;
  options.max_fold_bytes = 1 << 20;
  const auto refused = [&](ModelBuilder& b, const std::string& what) {
    Expected<ImportResult> r = ImportBuilt(b, nullptr, options);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_NE(r.status().message().find("larger than the import's limit of 1048576 bytes"),
              std::string::npos)
        << what << ": " << r.status().message();
  };
  const std::vector<float> column(1 << 15, 1.0f);
  {
    ModelBuilder b;
    b.FloatInitializer("a", {1 << 15, 1}, column).FloatInitializer("b", {1, 1 << 15}, column);
    b.Output("y").Node("Add", {"a", "b"}, {"y"});
    refused(b, "Add");
  }
  {
    ModelBuilder b;
    b.FloatInitializer("a", {1 << 15, 1}, column).FloatInitializer("b", {1, 1 << 15}, column);
    b.Int64Initializer("c", {1}, {1});
    b.Output("y").Node("Where", {"c", "a", "b"}, {"y"});
    refused(b, "Where");
  }
  {
    ModelBuilder b;  // 128 KiB, doubled five times
    b.FloatInitializer("x0", {1 << 15}, column).Output("x5");
    for (int i = 0; i < 5; ++i) {
      const std::string in = "x" + std::to_string(i), out = "x" + std::to_string(i + 1);
      ModelBuilder::IntAttr(b.Node("Concat", {in, in}, {out}), "axis", 0);
    }
    refused(b, "Concat chain");
  }
  {
    ModelBuilder b;  // rows of 256 bytes gathered 2^13 times: 2 MiB from 80 KiB
    b.FloatInitializer("data", {16, 64}, std::vector<float>(16 * 64, 1.0f));
    b.Int64Initializer("idx", {1 << 13}, std::vector<int64_t>(1 << 13, 3));
    b.Output("y").Node("Gather", {"data", "idx"}, {"y"});
    refused(b, "Gather");
  }
}

TEST(OnnxImporterTest, NodesMustMatchTheirOpsSchema) {
  // Found by fuzz_onnx_import: folds read inputs the op requires without checking again.
  auto import = [](ModelBuilder& b) {
    ImportProblem problem;
    Expected<ImportResult> r = ImportBuilt(b, &problem);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(problem, ImportProblem::kInvalidModel);
    return r.ok() ? std::string() : r.status().message();
  };
  ModelBuilder too_few;
  too_few.Input("x", TensorProto::FLOAT, {2}).Output("y");
  too_few.Node("CastLike", {"x"}, {"y"}, "cast");
  EXPECT_NE(import(too_few).find("CastLike node 0 \"cast\" has 1 inputs and 1 outputs; "
                                 "CastLike-15 takes 2 inputs and 1 outputs"),
            std::string::npos)
      << import(too_few);
  ModelBuilder absent;
  absent.Input("x", TensorProto::FLOAT, {2}).Output("y");
  absent.Node("Reshape", {"x", ""}, {"y"}, "r");
  EXPECT_NE(import(absent).find("input 1 (shape) of Reshape-14 is required but absent"),
            std::string::npos)
      << import(absent);
  ModelBuilder too_early(13);
  too_early.Input("x", TensorProto::FLOAT, {2}).Input("t", TensorProto::INT64, {2}).Output("y");
  too_early.Node("CastLike", {"x", "t"}, {"y"}, "cast");
  EXPECT_NE(import(too_early).find(
                "CastLike exists from opset 15 of its domain on, but the model imports opset 13"),
            std::string::npos)
      << import(too_early);
}

TEST(OnnxImporterTest, IdentityOfAnInputStillGivesANamedOutput) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2, 2}).Output("y");
  b.Node("Identity", {"x"}, {"y"});
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(g.values[g.outputs[0]].name, "y");
  EXPECT_NE(g.outputs[0], g.inputs[0]);
}

TEST(OnnxImporterTest, ImportedModelSavesAndLoads) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {1, 3}).Output("y");
  b.FloatInitializer("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  b.FloatInitializer("bias", {2}, {0.5f, -0.5f});
  auto& gemm = b.Node("Gemm", {"x", "w", "bias"}, {"y"});
  ModelBuilder::IntAttr(gemm, "transB", 0);
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const fs::path stem = TempDir() / "gemm";
  ASSERT_TRUE(SaveModel(r->graph, stem).ok());
  Expected<Graph> loaded = LoadModel(stem);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->nodes[0].op, "gemm");
}

TEST(OnnxImporterTest, LegacyBroadcastAlongAnAxis) {
  ModelBuilder b(6);
  b.Input("a", TensorProto::FLOAT, {2, 3, 4}).Input("b", TensorProto::FLOAT, {3}).Output("y");
  auto& add = b.Node("Add", {"a", "b"}, {"y"});
  ModelBuilder::IntAttr(add, "broadcast", 1);
  ModelBuilder::IntAttr(add, "axis", 1);
  Expected<ImportResult> r = ImportBuilt(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->graph.nodes.size(), 2u);
  EXPECT_EQ(r->graph.nodes[0].op, "reshape");
  EXPECT_EQ(r->graph.nodes[0].attrs.GetInts("shape"), (std::vector<int64_t>{3, 1}));
}

TEST(OnnxImporterTest, ExternalDataIsResolvedNextToTheModel) {
  const fs::path dir = TempDir();
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2}).Output("y");
  auto* w = b.model().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  b.Node("Add", {"x", "w"}, {"y"});
  b.Save(dir / "model.onnx");
  const float values[2] = {0.25f, -4.0f};
  std::ofstream(dir / "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(values), sizeof(values));
  Expected<ImportResult> r = ImportOnnxFile(dir / "model.onnx");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->graph.constants.size(), 1u);
  EXPECT_EQ(r->graph.constants[0].data.values<float>()[1], -4.0f);

  fs::remove(dir / "weights.bin");
  ImportProblem problem;
  Expected<ImportResult> missing = ImportOnnxFile(dir / "model.onnx", {}, &problem);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(problem, ImportProblem::kBadFile);
  EXPECT_NE(missing.status().message().find("initializer 'w': tensor 'w': cannot open external "
                                            "data file"),
            std::string::npos)
      << missing.status().message();
}

TEST(OnnxImporterTest, SignatureListsInputsWithoutInitializers) {
  ModelBuilder b;
  b.Input("x", TensorProto::FLOAT, {2}).Input("w", TensorProto::FLOAT, {2}).Output("y");
  b.FloatInitializer("w", {2}, {1, 2});
  b.Node("Add", {"x", "w"}, {"y"});
  const fs::path path = TempDir() / "sig.onnx";
  b.Save(path);
  Expected<OnnxSignature> sig = ReadOnnxSignature(path);
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(sig->inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(sig->outputs, std::vector<std::string>{"y"});
  Expected<ImportResult> r = ImportOnnxFile(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph.inputs.size(), 1u);
}

}  // namespace
}  // namespace sy::onnx_import
