// The single-file model and the binary graph section (docs/format.md, "Binary encoding"):
// round trips of the bundled examples, a decoder with run-time sizes and state, values
// JSON cannot hold; the weights mapped in place; and hostile bytes (every truncation,
// every single-byte change, hand-made sections with one thing wrong) refused with the
// byte offset and what was expected, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "../../graph_diff.h"
#include "format/byte_io.h"
#include "format/graph_binary.h"
#include "switchyard/model_io.h"
#include "switchyard/op_tags.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;
using test::GraphDiff;
using test::TempDir;

std::span<const std::byte> Bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// Parses a file's bytes held in a string that outlives the graph.
Expected<Graph> Parse(const std::string& bytes) {
  return ParseSingleFileModel(Bytes(bytes), std::make_shared<std::string>(bytes));
}

Graph Load(const std::string& model) {
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/" + model);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  return graph.ok() ? std::move(*graph) : Graph();
}

// Encodes, decodes, runs pass 2 on the result, and expects the same graph back and the
// same bytes when encoded again.
void ExpectRoundTrip(const Graph& graph) {
  Expected<std::string> bytes = EncodeSingleFileModel(graph);
  SY_ASSERT_OK(bytes);
  Expected<Graph> decoded = Parse(*bytes);
  SY_ASSERT_OK(decoded);
  SY_ASSERT_OK(ValidateGraphTypes(*decoded));
  EXPECT_EQ(GraphDiff(graph, *decoded), "");
  Expected<std::string> again = EncodeSingleFileModel(*decoded);
  SY_ASSERT_OK(again);
  EXPECT_TRUE(*again == *bytes) << "re-encoding changed the bytes";
}

TEST(SingleFileModel, ExamplesRoundTrip) {
  for (const char* model : {"examples/mlp", "examples/cnn", "examples/transformer"}) {
    SCOPED_TRACE(model);
    ExpectRoundTrip(Load(model));
  }
}

TEST(SingleFileModel, RunTimeSizesAndDecodingStateRoundTrip) {
  const Graph decoder = Load("tests/data/decoder/model");
  ASSERT_TRUE(decoder.IsSymbolic());
  ASSERT_FALSE(decoder.state.empty());
  ExpectRoundTrip(decoder);
}

// A graph with what JSON cannot hold: NaN and infinity inline, NaN attributes.
Graph NonFiniteGraph() {
  Graph g;
  g.producer = "single_file_model_test";
  g.values = {{"x", {DType::kF32, {4}}},
              {"c", {DType::kF32, {4}}},
              {"y", {DType::kF32, {4}}},
              {"z", {DType::kF32, {4}}}};
  g.inputs = {0};
  Tensor c = *Tensor::Allocate(DType::kF32, {4});
  const float values[4] = {std::nanf(""), std::numeric_limits<float>::infinity(), -0.0f, 1.0f};
  std::memcpy(c.mutable_data(), values, sizeof(values));
  g.constants.push_back({1, "", c});
  g.nodes.push_back({"add", {0, 1}, {2}, {}, "", ""});
  Attrs clip;
  clip.Set("min", std::numeric_limits<double>::quiet_NaN());
  clip.Set("max", std::numeric_limits<double>::infinity());
  g.nodes.push_back({"clip", {2}, {3}, clip, "clip", "cpu:0"});
  g.outputs = {3};
  return g;
}

TEST(SingleFileModel, HoldsWhatJsonCannot) {
  Graph g = NonFiniteGraph();
  SY_ASSERT_OK(ValidateGraphTypes(g));
  EXPECT_FALSE(SerializeGraphJson(g).ok());
  ExpectRoundTrip(g);
}

TEST(SingleFileModel, WeightsAreMappedInPlaceAndAligned) {
  TempDir dir;
  const Graph mlp = Load("examples/mlp");
  SY_ASSERT_OK(SaveModel(mlp, dir / "m.symodel"));
  // The file is what EncodeSingleFileModel gives.
  Expected<std::string> bytes = EncodeSingleFileModel(mlp);
  SY_ASSERT_OK(bytes);
  EXPECT_EQ(test::ReadFile(dir / "m.symodel"), *bytes);
  EXPECT_FALSE(fs::exists(dir / "m.json"));
  EXPECT_FALSE(fs::exists(dir / "m.safetensors"));

  for (const char* name : {"m.symodel", "m"}) {
    SCOPED_TRACE(name);
    Expected<Graph> loaded = LoadModel(dir / name);
    SY_ASSERT_OK(loaded);
    EXPECT_EQ(GraphDiff(mlp, *loaded), "");
    for (const Constant& c : loaded->constants) {
      EXPECT_FALSE(c.data.writable()) << "a view onto the mapping, not a copy";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data.data()) % format::kWeightAlignment, 0u);
    }
  }
}

TEST(SingleFileModel, ResolvesPaths) {
  TempDir dir;
  EXPECT_EQ(ResolveModelPaths("a/m.symodel").single_file, fs::path("a/m.symodel"));
  EXPECT_EQ(ResolveModelPaths("a/m.symodel").file(), fs::path("a/m.symodel"));
  // A stem with no JSON beside a .symodel is the single file; with both, the JSON.
  EXPECT_FALSE(ResolveModelPaths(dir / "m").is_single_file());
  test::WriteFile(dir / "m.symodel", "x");
  EXPECT_EQ(ResolveModelPaths(dir / "m").file(), dir / "m.symodel");
  test::WriteFile(dir / "m.json", "{}");
  EXPECT_EQ(ResolveModelPaths(dir / "m").file(), dir / "m.json");
  EXPECT_EQ(ResolveModelPaths(dir / "m.json").file(), dir / "m.json");
  // A folder named like the model it holds.
  fs::create_directories(dir / "f");
  test::WriteFile(dir / "f" / "f.symodel", "x");
  EXPECT_EQ(ResolveModelPaths(dir / "f").file(), dir / "f" / "f.symodel");
}

TEST(SingleFileModel, LoadErrorsNameTheFile) {
  TempDir dir;
  test::WriteFile(dir / "bad.symodel", "not a model at all, but long enough for a header....");
  SY_EXPECT_ERROR(LoadModel(dir / "bad.symodel"),
                  (dir / "bad.symodel").string() + ": byte 0: the file does not start with");
  SY_EXPECT_ERROR(LoadModel(dir / "missing.symodel"), "missing.symodel");
}

TEST(SingleFileModel, EveryTruncationIsRefused) {
  Expected<std::string> bytes = EncodeSingleFileModel(Load("examples/mlp"));
  SY_ASSERT_OK(bytes);
  for (size_t n = 0; n < bytes->size(); ++n) {
    Expected<Graph> graph = Parse(bytes->substr(0, n));
    ASSERT_FALSE(graph.ok()) << "a prefix of " << n << " bytes loaded";
  }
}

TEST(SingleFileModel, NoSingleByteChangeCrashes) {
  // Under ASan and UBSan: each byte of the graph section set to values that break
  // counts, ids, tags, kinds and lengths; each either loads (and validates or not) or is
  // an error, with no read out of bounds and no unbounded allocation.
  Expected<std::string> bytes = EncodeSingleFileModel(Load("examples/mlp"));
  SY_ASSERT_OK(bytes);
  uint64_t graph_size = 0;
  std::memcpy(&graph_size, bytes->data() + 24, 8);
  for (size_t at = 0; at < 64 + graph_size; ++at) {
    for (unsigned char v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string changed = *bytes;
      changed[at] = static_cast<char>(v);
      Expected<Graph> graph = Parse(changed);
      if (graph.ok()) (void)ValidateGraphTypes(*graph);
    }
  }
}

// Hand-made files: a header around a graph section written field by field, so that each
// test breaks exactly one thing.
std::string File(const std::string& section, const std::string& weights = "",
                 uint32_t version = 1) {
  format::ByteWriter h;
  for (char c : std::string("SYMODEL", 8)) h.U8(static_cast<uint8_t>(c));
  h.U32(version);
  h.U32(64);
  h.U64(64);
  h.U64(section.size());
  const uint64_t weights_offset = (64 + section.size() + 4095) / 4096 * 4096;
  h.U64(weights_offset);
  h.U64(weights.size());
  while (h.size() < 64) h.U8(0);
  std::string file = h.Take() + section;
  file.resize(weights_offset, '\0');
  return file + weights;
}

// y = relu(x), x f32 [2]; `edit` may change the writer's fields as it goes.
struct Fields {
  uint32_t section_version = 1;
  uint32_t value_count = 2;
  uint8_t dtype = 0;
  uint32_t input_id = 0;
  uint16_t tag = *FindOpTag("relu");
  uint8_t attr_kind = 0;
  uint32_t node_input = 0;
  std::string backend;
  std::string y_name = "y";
  std::string trailer;
};

std::string Section(const Fields& f) {
  format::ByteWriter w;
  w.U32(f.section_version);
  w.String("test");  // producer
  w.U32(0);          // symbols
  w.U32(f.value_count);
  w.String("x");
  w.U8(f.dtype);
  w.U32(1);
  w.I64(2);
  w.String(f.y_name);
  w.U8(0);
  w.U32(1);
  w.I64(2);
  w.U32(1);  // inputs
  w.U32(f.input_id);
  w.U32(0);  // constants
  w.U32(1);  // nodes
  w.U16(f.tag);
  w.U32(1);  // one attribute, unknown to relu: pass 1 keeps it, pass 2 refuses it
  w.String("note");
  w.U8(f.attr_kind);
  w.I64(3);
  w.U32(0);  // attr_exprs
  w.U32(1);
  w.U32(f.node_input);
  w.U32(1);
  w.U32(1);
  w.String("act");
  w.String(f.backend);
  w.U32(1);  // outputs
  w.U32(1);
  w.U8(0);  // no state
  return w.Take() + f.trailer;
}

TEST(SingleFileModel, HandMadeSectionLoads) {
  Expected<Graph> graph = Parse(File(Section({})));
  SY_ASSERT_OK(graph);
  ASSERT_EQ(graph->nodes.size(), 1u);
  EXPECT_EQ(graph->nodes[0].op, "relu");
  EXPECT_EQ(graph->nodes[0].name, "act");
  EXPECT_EQ(graph->nodes[0].attrs.GetInt("note"), 3);
  SY_EXPECT_ERROR(ValidateGraphTypes(*graph), "note");
}

TEST(SingleFileModel, ErrorsNameTheOffsetAndWhatWasExpected) {
  auto error = [](const Fields& f) { return Parse(File(Section(f))).status(); };
  Fields f;
  f.section_version = 2;
  SY_EXPECT_ERROR(error(f), "byte 64: graph section version is 2, expected 1");
  f = {};
  f.dtype = 40;
  SY_EXPECT_ERROR(error(f), "dtype code 40 is unknown (expected 0 to 11");
  f = {};
  f.input_id = 9;
  SY_EXPECT_ERROR(error(f), "byte 124: inputs[0]: value id is 9, expected a value id in [0, 2)");
  f = {};
  f.tag = 7;
  SY_EXPECT_ERROR(error(f), "node 0: byte ");
  SY_EXPECT_ERROR(error(f), "op tag 7 names no op this build knows");
  f = {};
  f.attr_kind = 9;
  SY_EXPECT_ERROR(error(f), "node 0 (relu): attribute note: byte ");
  SY_EXPECT_ERROR(error(f), "kind is 9, expected 0 to 5");
  f = {};
  f.node_input = 1;
  SY_EXPECT_ERROR(error(f),
                  "node 0 (relu) \"act\": input 0 reads value 1 \"y\" before it is "
                  "defined");
  f = {};
  f.backend = "CUDA!";
  SY_EXPECT_ERROR(error(f), "backend hint \"CUDA!\" is malformed");
  f = {};
  f.y_name = "x";
  SY_EXPECT_ERROR(error(f), "value 1 \"x\": name is also used by value 0");
  f = {};
  f.y_name = "\xff";
  SY_EXPECT_ERROR(error(f), "is not valid UTF-8");
  f = {};
  f.trailer = "junk";
  SY_EXPECT_ERROR(error(f), "4 bytes of the graph section follow (expected its end)");
  f = {};
  f.value_count = 0xffffffff;  // refused before anything is allocated for it
  SY_EXPECT_ERROR(error(f), "value count is 4294967295 but the");
}

TEST(SingleFileModel, HeaderErrors) {
  const std::string good = File(Section({}));
  SY_EXPECT_ERROR(Parse(good.substr(0, 10)).status(), "shorter than the 64-byte header");
  SY_EXPECT_ERROR(Parse("{\"format\": \"rml-graph\"}").status(),
                  "byte 0: the file does not start with \"SYMODEL\\0\"");
  SY_EXPECT_ERROR(Parse(File(Section({}), "", 2)).status(), "byte 8: version is 2, expected 1");
  std::string reserved = good;
  reserved[60] = 1;
  SY_EXPECT_ERROR(Parse(reserved).status(), "byte 60: reserved header byte is 1, expected 0");
  SY_EXPECT_ERROR(Parse(good + "x").status(), "is not the rest of the file");
  std::string huge = good;
  const uint64_t size = uint64_t{1} << 62;
  std::memcpy(huge.data() + 24, &size, 8);
  SY_EXPECT_ERROR(Parse(huge).status(), "byte 16: the graph section");
}

TEST(SingleFileModel, ConstantRangesAreChecked) {
  // x = constant f32 [2] at an offset that is not in the weights section.
  auto section = [](uint64_t offset, uint64_t size) {
    format::ByteWriter w;
    w.U32(1);
    w.String("");
    w.U32(0);
    w.U32(1);
    w.String("x");
    w.U8(0);
    w.U32(1);
    w.I64(2);
    w.U32(0);  // inputs
    w.U32(1);  // constants
    w.U32(0);
    w.String("x");
    w.U64(offset);
    w.U64(size);
    w.U32(0);  // nodes
    w.U32(1);
    w.U32(0);
    w.U8(0);
    return w.Take();
  };
  const std::string weights(64 + 8, '\0');
  SY_ASSERT_OK(Parse(File(section(64, 8), weights)));
  SY_EXPECT_ERROR(Parse(File(section(64, 12), weights)).status(),
                  "size is 12 bytes but f32 [2] takes 8");
  SY_EXPECT_ERROR(Parse(File(section(128, 8), weights)).status(),
                  "are not a range of the weights section");
  SY_EXPECT_ERROR(Parse(File(section(8, 8), weights)).status(), "starting at a multiple of 64");
  SY_EXPECT_ERROR(Parse(File(section(~uint64_t{0} - 3, 8), weights)).status(),
                  "are not a range of the weights section");
}

TEST(SingleFileModel, BytesOffABoundaryAreReadAligned) {
  Expected<std::string> bytes = EncodeSingleFileModel(Load("examples/mlp"));
  SY_ASSERT_OK(bytes);
  auto buffer = std::make_shared<std::string>(std::string(3, ' ') + *bytes);
  const std::span<const std::byte> misaligned(
      reinterpret_cast<const std::byte*>(buffer->data() + 3), bytes->size());
  Expected<Graph> graph = ParseSingleFileModel(misaligned, buffer);
  SY_ASSERT_OK(graph);
  for (const Constant& c : graph->constants) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data.data()) % format::kWeightAlignment, 0u);
  }
  EXPECT_EQ(GraphDiff(Load("examples/mlp"), *graph), "");
}

TEST(SingleFileModel, WhatCannotBeReadBackIsNotWritten) {
  // Graphs built in code that no reader accepts: refused by the writer, not written.
  Graph g = NonFiniteGraph();
  g.nodes[1].attr_exprs["limit"] = AttrExpr{false, {}};
  SY_EXPECT_ERROR(EncodeSingleFileModel(g), "attr_exprs.limit is one value with 0 items");
  g = NonFiniteGraph();
  g.nodes[1].attr_exprs["limit"] = AttrExpr{true, {DimExpr::Unknown()}};
  SY_EXPECT_ERROR(EncodeSingleFileModel(g), "attr_exprs.limit is \"?\"");
  g = NonFiniteGraph();
  g.values[1].type.shape = {5};  // the constant holds 4
  SY_EXPECT_ERROR(EncodeSingleFileModel(g), "holds f32 [4] but the value is f32 [5]");
  g = NonFiniteGraph();
  g.values[2].symbolic_shape = {DimExpr(int64_t{-1})};
  SY_EXPECT_ERROR(EncodeSingleFileModel(g), "shape[0] is -1 (expected a size of 0 or more)");
}

TEST(SingleFileModel, OpsWithoutTagsCannotBeWritten) {
  Graph g = NonFiniteGraph();
  g.nodes[0].op = "not_an_op";
  SY_EXPECT_ERROR(EncodeSingleFileModel(g), "op \"not_an_op\" has no op tag");
}

}  // namespace
}  // namespace sy
