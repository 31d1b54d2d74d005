// Model files on disk: ResolveModelPaths, LoadModel (both passes, errors prefixed with
// the JSON path) and SaveModel, plus loading the bundled example.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "switchyard/model_io.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::WriteFile;

template <typename T>
Tensor MakeTensor(DType dtype, Shape shape, const std::vector<T>& values) {
  Expected<Tensor> t = Tensor::Allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!values.empty()) std::memcpy(t->mutable_data(), values.data(), t->byte_size());
  return *t;
}

// x f32 [2, 3] (input); w f32 [3] (constant, stored as "weights.w" unless inline_only);
// b i64 [] is unused by nodes but an output (inline constant); y = add(x, w);
// z = relu(y) (output).
Graph MakeGraph(bool inline_only) {
  Graph g;
  g.producer = "model_io_test";
  g.values = {{"x", {DType::kF32, {2, 3}}},
              {"w", {DType::kF32, {3}}},
              {"b", {DType::kI64, {}}},
              {"y", {DType::kF32, {2, 3}}},
              {"z", {DType::kF32, {2, 3}}}};
  g.inputs = {0};
  g.outputs = {4, 2};
  g.constants.push_back({1, inline_only ? "" : "weights.w",
                         MakeTensor<float>(DType::kF32, {3}, {0.25f, -1.5f, 3.0f})});
  g.constants.push_back({2, "", MakeTensor<int64_t>(DType::kI64, {}, {-7})});
  g.nodes.push_back({"add", {0, 1}, {3}, {}, "bias", ""});
  g.nodes.push_back({"relu", {3}, {4}, {}, "act", "cpu"});
  return g;
}

// The JSON of a graph that passes both passes and has no stored constants.
std::string ValidJson() {
  Expected<std::string> json = SerializeGraphJson(MakeGraph(/*inline_only=*/true));
  EXPECT_TRUE(json.ok()) << json.status().message();
  return json.ok() ? *json : std::string();
}

// Expects `status` to be an error whose message starts with `prefix`.
void ExpectStartsWith(const Status& status, const std::string& prefix) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind(prefix, 0), 0u)
      << "message was: " << status.message() << "\nexpected to start with: " << prefix;
}

TEST(ModelIo, ResolveModelPaths) {
  for (const char* model : {"m", "m.json", "m.safetensors"}) {
    SCOPED_TRACE(model);
    const ModelPaths paths = ResolveModelPaths(model);
    EXPECT_EQ(paths.json, fs::path("m.json"));
    EXPECT_EQ(paths.safetensors, fs::path("m.safetensors"));
  }
  const ModelPaths nested = ResolveModelPaths("dir/m");
  EXPECT_EQ(nested.json, fs::path("dir/m.json"));
  EXPECT_EQ(nested.safetensors, fs::path("dir/m.safetensors"));
  // Other extensions are part of the stem.
  const ModelPaths dotted = ResolveModelPaths("dir/mlp.v2");
  EXPECT_EQ(dotted.json, fs::path("dir/mlp.v2.json"));
  EXPECT_EQ(dotted.safetensors, fs::path("dir/mlp.v2.safetensors"));
}

TEST(ModelIo, SaveThenLoadRoundTrip) {
  TempDir dir;
  const Graph graph = MakeGraph(/*inline_only=*/false);
  SY_ASSERT_OK(SaveModel(graph, dir / "m"));
  EXPECT_TRUE(fs::is_regular_file(dir / "m.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "m.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "m.json.tmp"));

  for (const char* name : {"m", "m.json", "m.safetensors"}) {
    SCOPED_TRACE(name);
    Expected<Graph> loaded = LoadModel(dir / name);
    SY_ASSERT_OK(loaded);
    EXPECT_EQ(loaded->producer, graph.producer);
    ASSERT_EQ(loaded->values.size(), graph.values.size());
    for (size_t i = 0; i < graph.values.size(); ++i) {
      EXPECT_EQ(loaded->values[i].name, graph.values[i].name);
      EXPECT_EQ(loaded->values[i].type, graph.values[i].type);
    }
    EXPECT_EQ(loaded->inputs, graph.inputs);
    EXPECT_EQ(loaded->outputs, graph.outputs);
    ASSERT_EQ(loaded->constants.size(), 2u);
    EXPECT_EQ(loaded->constants[0].tensor_name, "weights.w");
    EXPECT_TRUE(loaded->constants[0].data.BitwiseEquals(graph.constants[0].data));
    EXPECT_TRUE(loaded->constants[1].tensor_name.empty());
    EXPECT_TRUE(loaded->constants[1].data.BitwiseEquals(graph.constants[1].data));
    ASSERT_EQ(loaded->nodes.size(), 2u);
    EXPECT_EQ(loaded->nodes[1].op, "relu");
    EXPECT_EQ(loaded->nodes[1].name, "act");
    EXPECT_EQ(loaded->nodes[1].backend, "cpu");
  }
}

TEST(ModelIo, SaveAcceptsAJsonPath) {
  TempDir dir;
  SY_ASSERT_OK(SaveModel(MakeGraph(false), dir / "m.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "m.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "m.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "m.json.json"));
}

TEST(ModelIo, SaveWithoutStoredConstantsRemovesAStaleSafetensorsFile) {
  TempDir dir;
  SY_ASSERT_OK(SaveModel(MakeGraph(/*inline_only=*/false), dir / "m"));
  ASSERT_TRUE(fs::exists(dir / "m.safetensors"));
  SY_ASSERT_OK(SaveModel(MakeGraph(/*inline_only=*/true), dir / "m"));
  EXPECT_FALSE(fs::exists(dir / "m.safetensors"));
  SY_EXPECT_OK(LoadModel(dir / "m"));

  // Also a stale file that is not even valid safetensors.
  WriteFile(dir / "m.safetensors", "junk");
  SY_ASSERT_OK(SaveModel(MakeGraph(/*inline_only=*/true), dir / "m"));
  EXPECT_FALSE(fs::exists(dir / "m.safetensors"));
}

TEST(ModelIo, SaveRejectsDuplicateTensorNames) {
  TempDir dir;
  Graph g = MakeGraph(false);
  g.constants[1].data = MakeTensor<float>(DType::kF32, {3}, {1, 2, 3});
  g.values[2].type = {DType::kF32, {3}};
  g.constants[1].tensor_name = "weights.w";
  SY_EXPECT_ERROR(SaveModel(g, dir / "m"), "two constants are stored as tensor \"weights.w\"");
  EXPECT_FALSE(fs::exists(dir / "m.json"));
}

TEST(ModelIo, SaveOfAnUnwritableGraphWritesNothing) {
  TempDir dir;
  Graph g = MakeGraph(true);
  g.values[1].type = {DType::kF32, {3}};
  g.constants[0].data = MakeTensor<float>(DType::kF32, {3}, {1, std::nanf(""), 3});
  SY_EXPECT_ERROR(SaveModel(g, dir / "m"), "element 1 is nan");
  EXPECT_FALSE(fs::exists(dir / "m.json"));
  EXPECT_FALSE(fs::exists(dir / "m.safetensors"));
}

TEST(ModelIo, LoadErrorsStartWithTheJsonPath) {
  TempDir dir;
  const std::string json_path = (dir / "m.json").string();
  // Pass 1.
  WriteFile(dir / "m.json", "{\"format\": \"rml-graph\", \"version\": 2}");
  ExpectStartsWith(LoadModel(dir / "m").status(), json_path + ": version is 2, expected 1");
  WriteFile(dir / "m.json", "");
  ExpectStartsWith(LoadModel(dir / "m").status(), json_path + ": not valid JSON");
  // Pass 2.
  std::string json = ValidJson();
  const size_t at = json.find("\"relu\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 6, "\"reluu\"");
  WriteFile(dir / "m.json", json);
  ExpectStartsWith(LoadModel(dir / "m").status(),
                   json_path + ": node 1 (reluu) \"act\": unknown op \"reluu\"");
  EXPECT_EQ(LoadModel(dir / "m").status().code(), StatusCode::kInvalidModel);
}

TEST(ModelIo, LoadOfAStoredConstantWithoutASafetensorsFile) {
  TempDir dir;
  SY_ASSERT_OK(SaveModel(MakeGraph(false), dir / "m"));
  fs::remove(dir / "m.safetensors");
  ExpectStartsWith(LoadModel(dir / "m").status(),
                   (dir / "m.json").string() +
                       ": constants[0] for value 1 \"w\": names stored "
                       "tensor \"weights.w\" but the model has no "
                       "safetensors file");
}

TEST(ModelIo, MissingJsonFile) {
  TempDir dir;
  const Status s = LoadModel(dir / "absent").status();
  ExpectStartsWith(s, (dir / "absent.json").string() + ": cannot open: no such file");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  // A safetensors file alone is not a model.
  SY_ASSERT_OK(SaveModel(MakeGraph(false), dir / "m"));
  fs::remove(dir / "m.json");
  SY_EXPECT_ERROR(LoadModel(dir / "m.safetensors"), "m.json: cannot open: no such file");
}

TEST(ModelIo, DirectoryInsteadOfAFile) {
  TempDir dir;
  fs::create_directory(dir / "d.json");
  const Status s = LoadModel(dir / "d").status();
  ExpectStartsWith(s, (dir / "d.json").string() + ": is a directory, expected a file");
  EXPECT_NE(s.code(), StatusCode::kOk);
}

TEST(ModelIo, JsonOverTheSizeLimit) {
  TempDir dir;
  {
    WriteFile(dir / "big.json", "{}");
    fs::resize_file(dir / "big.json", kMaxGraphJsonBytes + 1);  // sparse: costs no disk
  }
  const Status s = LoadModel(dir / "big").status();
  ExpectStartsWith(s, (dir / "big.json").string() + ": is " +
                          std::to_string(kMaxGraphJsonBytes + 1) + " bytes, over the limit");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
}

TEST(ModelIo, CorruptSafetensorsBesideAValidJson) {
  TempDir dir;
  SY_ASSERT_OK(SaveModel(MakeGraph(false), dir / "m"));
  const std::string safetensors = (dir / "m.safetensors").string();
  // Truncated to less than its 8-byte length prefix.
  WriteFile(dir / "m.safetensors", "abc");
  Status s = LoadModel(dir / "m").status();
  SY_EXPECT_ERROR(s, safetensors);
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel) << s.message();
  // A header length far beyond the file.
  WriteFile(dir / "m.safetensors", std::string("\xff\xff\xff\xff\x00\x00\x00\x00{}", 10));
  SY_EXPECT_ERROR(LoadModel(dir / "m"), safetensors);
  // Even when the graph stores nothing, a safetensors file that is present must be valid.
  SY_ASSERT_OK(SaveModel(MakeGraph(true), dir / "m"));
  WriteFile(dir / "m.safetensors", "garbage");
  SY_EXPECT_ERROR(LoadModel(dir / "m"), safetensors);
}

TEST(ModelIo, SafetensorsTensorThatDisagreesWithTheGraph) {
  TempDir dir;
  SY_ASSERT_OK(SaveModel(MakeGraph(false), dir / "m"));
  // Record w as f32 [4] in the JSON while the file holds f32 [3].
  std::string json = test::ReadFile(dir / "m.json");
  const std::string from = R"({"name":"w","dtype":"f32","shape":[3]})";
  const size_t at = json.find(from);
  ASSERT_NE(at, std::string::npos) << json;
  json.replace(at, from.size(), R"({"name":"w","dtype":"f32","shape":[4]})");
  WriteFile(dir / "m.json", json);
  SY_EXPECT_ERROR(LoadModel(dir / "m"), "tensor \"weights.w\" in " +
                                            (dir / "m.safetensors").string() +
                                            " is f32 [3] but the value is recorded as f32 [4]");
}

TEST(ModelIo, LoadsTheBundledExample) {
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/examples/mlp/mlp");
  SY_ASSERT_OK(graph);
  EXPECT_EQ(graph->values.size(), 15u);
  EXPECT_EQ(graph->nodes.size(), 8u);
  EXPECT_EQ(graph->constants.size(), 6u);
  for (const Constant& c : graph->constants) {
    EXPECT_FALSE(c.tensor_name.empty());
    EXPECT_EQ(c.data.type(), graph->values[c.value].type);
    EXPECT_EQ(c.data.byte_size(),
              static_cast<size_t>(c.data.element_count()) * DTypeSize(c.data.dtype()));
  }
  // 12*16 + 16 + 16*16 + 16 + 16*4 + 4 floats.
  EXPECT_EQ(graph->ConstantBytes(), (192u + 16 + 256 + 16 + 64 + 4) * 4);
}

}  // namespace
}  // namespace sy
