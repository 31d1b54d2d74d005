// SerializeGraphJson: what it writes parses back (ParseGraphJson) to an equal graph,
// including inline constants of every dtype bit for bit; values JSON cannot hold are
// errors that name the constant or node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "switchyard/model_io.h"
#include "switchyard/safetensors.h"
#include "test_util.h"

namespace sy {
namespace {

template <typename T>
Tensor MakeTensor(DType dtype, Shape shape, const std::vector<T>& values) {
  Expected<Tensor> t = Tensor::Allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->byte_size(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t->mutable_data(), values.data(), t->byte_size());
  return *t;
}

ValueId AddValue(Graph& g, std::string name, DType dtype, Shape shape) {
  g.values.push_back({std::move(name), {dtype, std::move(shape)}});
  return static_cast<ValueId>(g.values.size() - 1);
}

// A graph whose only content is one inline constant `c`, which is also its output.
Graph ConstantGraph(Tensor data) {
  Graph g;
  const ValueId id = AddValue(g, "c", data.dtype(), data.shape());
  g.constants.push_back({id, "", std::move(data)});
  g.outputs.push_back(id);
  return g;
}

void ExpectGraphsEqual(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.producer, b.producer);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    EXPECT_EQ(a.values[i].name, b.values[i].name) << "value " << i;
    EXPECT_EQ(a.values[i].type, b.values[i].type) << "value " << i;
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (size_t i = 0; i < a.constants.size(); ++i) {
    EXPECT_EQ(a.constants[i].value, b.constants[i].value) << "constant " << i;
    EXPECT_EQ(a.constants[i].tensor_name, b.constants[i].tensor_name) << "constant " << i;
    EXPECT_TRUE(a.constants[i].data.BitwiseEquals(b.constants[i].data)) << "constant " << i;
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].op, b.nodes[i].op) << "node " << i;
    EXPECT_EQ(a.nodes[i].inputs, b.nodes[i].inputs) << "node " << i;
    EXPECT_EQ(a.nodes[i].outputs, b.nodes[i].outputs) << "node " << i;
    EXPECT_TRUE(a.nodes[i].attrs == b.nodes[i].attrs) << "node " << i;
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name) << "node " << i;
    EXPECT_EQ(a.nodes[i].backend, b.nodes[i].backend) << "node " << i;
  }
}

// Serialises, parses back (with `weights` for stored constants) and compares.
void ExpectRoundTrip(const Graph& graph, const SafetensorsFile* weights = nullptr) {
  Expected<std::string> json = SerializeGraphJson(graph);
  SY_ASSERT_OK(json);
  Expected<Graph> back = ParseGraphJson(*json, weights);
  SY_ASSERT_OK(back);
  ExpectGraphsEqual(graph, *back);
}

TEST(GraphJsonWriter, RoundTripOfAFullGraph) {
  Graph g;
  g.producer = "writer test \"v1\" \xe2\x9c\x93";
  const ValueId x = AddValue(g, "x", DType::kF32, {2, 12});
  const ValueId w = AddValue(g, "layers.0.weight", DType::kF32, {12, 4});
  const ValueId b = AddValue(g, "bias \"b\"", DType::kF32, {4});
  const ValueId h = AddValue(g, "h", DType::kF32, {2, 4});
  const ValueId y = AddValue(g, "y", DType::kF32, {2, 4});
  const ValueId idx = AddValue(g, "idx", DType::kI64, {});
  const ValueId z = AddValue(g, "z", DType::kF32, {2, 4});
  g.inputs = {x, idx};
  g.outputs = {z, y, x};

  std::vector<float> wdata(48);
  for (size_t i = 0; i < wdata.size(); ++i) wdata[i] = 0.1f * static_cast<float>(i) - 2.0f;
  g.constants.push_back({w, "layers.0.weight", MakeTensor(DType::kF32, {12, 4}, wdata)});
  g.constants.push_back({b, "", MakeTensor<float>(DType::kF32, {4}, {0.5f, -0.25f, 1e-8f, 3e38f})});

  Node mm{"matmul", {x, w}, {h}, {}, "fc0", "cuda:1"};
  Node add{"add", {h, b}, {y}, {}, "", "opencl"};
  Node act{"gelu", {y}, {z}, {}, "act", ""};
  act.attrs = test::MakeAttrs({{"i", int64_t{-3}},
                               {"big", int64_t{INT64_MAX}},
                               {"f", 0.1},
                               {"third", 1.0 / 3.0},
                               {"whole", 2.0},
                               {"tiny", 5e-324},
                               {"s", std::string("tanh \"quoted\"")},
                               {"ints", std::vector<int64_t>{1, -2, INT64_MIN}},
                               {"floats", std::vector<double>{0.5, 1.0, -1e300}},
                               {"strings", std::vector<std::string>{"a", "", "c"}}});
  g.nodes = {mm, add, act};

  std::vector<std::pair<std::string, Tensor>> stored = {{"layers.0.weight", g.constants[0].data}};
  Expected<std::vector<std::byte>> bytes = SerializeSafetensors(stored);
  SY_ASSERT_OK(bytes);
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(*bytes));
  Expected<std::shared_ptr<const SafetensorsFile>> weights = SafetensorsFile::FromBuffer(
      owned, std::span<const std::byte>(owned->data(), owned->size()), "mem.safetensors");
  SY_ASSERT_OK(weights);
  ExpectRoundTrip(g, weights->get());

  // Stored constants are written as references, not data.
  Expected<std::string> json = SerializeGraphJson(g);
  SY_ASSERT_OK(json);
  EXPECT_NE(json->find(R"({"value":1,"tensor":"layers.0.weight"})"), std::string::npos) << *json;
  EXPECT_EQ(json->find("\"backend\":\"\""), std::string::npos) << "empty hints are omitted";
}

TEST(GraphJsonWriter, EmptyGraph) {
  Graph g;
  Expected<std::string> json = SerializeGraphJson(g);
  SY_ASSERT_OK(json);
  EXPECT_EQ(json->find("producer"), std::string::npos) << "an empty producer is omitted";
  ExpectRoundTrip(g);
}

TEST(GraphJsonWriter, OutputIsLineOrientedJson) {
  Graph g = ConstantGraph(MakeTensor<float>(DType::kF32, {2}, {1, 2}));
  Expected<std::string> json = SerializeGraphJson(g);
  SY_ASSERT_OK(json);
  EXPECT_EQ(json->rfind("{\n  \"format\": \"rml-graph\",\n  \"version\": 1,\n", 0), 0u) << *json;
  EXPECT_NE(json->find("\n    {\"name\":\"c\",\"dtype\":\"f32\",\"shape\":[2]}"), std::string::npos)
      << *json;
  EXPECT_EQ(json->back(), '\n');
}

TEST(GraphJsonWriter, InlineConstantsOfEveryDType) {
  ExpectRoundTrip(ConstantGraph(MakeTensor<float>(
      DType::kF32, {6},
      {0.1f, -0.0f, 1e-45f, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
       std::numeric_limits<float>::min()})));
  ExpectRoundTrip(
      ConstantGraph(MakeTensor<double>(DType::kF64, {6},
                                       {0.1, -0.0, 5e-324, std::numeric_limits<double>::max(),
                                        1.3927926388013963e-143, -1.6141610237995963e-68})));
  ExpectRoundTrip(ConstantGraph(MakeTensor<int8_t>(DType::kI8, {3}, {-128, 0, 127})));
  ExpectRoundTrip(ConstantGraph(MakeTensor<uint8_t>(DType::kU8, {3}, {0, 128, 255})));
  ExpectRoundTrip(ConstantGraph(MakeTensor<int32_t>(DType::kI32, {2}, {INT32_MIN, INT32_MAX})));
  ExpectRoundTrip(ConstantGraph(
      MakeTensor<int64_t>(DType::kI64, {3}, {INT64_MIN, INT64_MAX, 9007199254740993})));
  ExpectRoundTrip(ConstantGraph(MakeTensor<uint8_t>(DType::kBool, {2, 2}, {1, 0, 0, 1})));
  ExpectRoundTrip(ConstantGraph(MakeTensor<float>(DType::kF32, {}, {42.0f})));  // scalar
  ExpectRoundTrip(ConstantGraph(MakeTensor<float>(DType::kF32, {0, 5}, {})));   // empty
}

TEST(GraphJsonWriter, EveryFiniteHalfAndBFloat16RoundTrips) {
  std::vector<uint16_t> half, bf16;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00u) != 0x7c00u) half.push_back(static_cast<uint16_t>(bits));
    if ((bits & 0x7f80u) != 0x7f80u) bf16.push_back(static_cast<uint16_t>(bits));
  }
  ExpectRoundTrip(
      ConstantGraph(MakeTensor(DType::kF16, {static_cast<int64_t>(half.size())}, half)));
  ExpectRoundTrip(
      ConstantGraph(MakeTensor(DType::kBF16, {static_cast<int64_t>(bf16.size())}, bf16)));
}

TEST(GraphJsonWriter, RandomFloatsAndDoublesRoundTripExactly) {
  std::mt19937_64 rng(20240501);
  std::vector<float> floats;
  std::vector<double> doubles;
  while (doubles.size() < 20000) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) doubles.push_back(d);
    const uint32_t fbits = static_cast<uint32_t>(bits >> 32);
    float f;
    std::memcpy(&f, &fbits, sizeof f);
    if (std::isfinite(f)) floats.push_back(f);
  }
  ExpectRoundTrip(
      ConstantGraph(MakeTensor(DType::kF32, {static_cast<int64_t>(floats.size())}, floats)));
  ExpectRoundTrip(
      ConstantGraph(MakeTensor(DType::kF64, {static_cast<int64_t>(doubles.size())}, doubles)));
}

TEST(GraphJsonWriter, NaNInAnInlineConstantIsAnErrorNamingIt) {
  Graph g;
  AddValue(g, "x", DType::kF32, {2});
  const ValueId c = AddValue(g, "scale", DType::kF32, {3});
  g.inputs = {0};
  g.constants.push_back({c, "", MakeTensor<float>(DType::kF32, {3}, {1.0f, std::nanf(""), 2.0f})});
  SY_EXPECT_ERROR(SerializeGraphJson(g),
                  "constant 0 for value 1 \"scale\": element 1 is nan, "
                  "which JSON cannot hold; store the constant in "
                  "safetensors");
  g.constants[0].data = MakeTensor<float>(DType::kF32, {3}, {INFINITY, 0, 0});
  SY_EXPECT_ERROR(SerializeGraphJson(g), "constant 0 for value 1 \"scale\": element 0 is inf");
  g.constants[0].data = MakeTensor<double>(DType::kF64, {3}, {0, 0, -INFINITY});
  SY_EXPECT_ERROR(SerializeGraphJson(g), "element 2 is -inf");
  g.constants[0].data = MakeTensor<uint16_t>(DType::kF16, {3}, {0, 0x7e00, 0});
  SY_EXPECT_ERROR(SerializeGraphJson(g), "constant 0 for value 1 \"scale\": element 1 is nan");
  // The same constant stored in safetensors is fine: only the reference is written.
  g.constants[0].tensor_name = "scale";
  SY_EXPECT_OK(SerializeGraphJson(g));
}

TEST(GraphJsonWriter, NonFiniteAttributeIsAnErrorNamingTheNode) {
  Graph g;
  AddValue(g, "x", DType::kF32, {2});
  AddValue(g, "y", DType::kF32, {2});
  g.inputs = {0};
  g.outputs = {1};
  Node clip{"clip", {0}, {1}, test::MakeAttrs({{"max", INFINITY}}), "cap", ""};
  g.nodes = {clip};
  SY_EXPECT_ERROR(SerializeGraphJson(g),
                  "node 0 (clip) \"cap\": attribute max is inf, which "
                  "JSON cannot hold");
  g.nodes[0].attrs = test::MakeAttrs({{"scales", std::vector<double>{1.0, NAN}}});
  SY_EXPECT_ERROR(SerializeGraphJson(g), "node 0 (clip) \"cap\": attribute scales is");
}

TEST(GraphJsonWriter, EmptyListAttributesReadBackAsInts) {
  // JSON cannot tell an empty list's kind; the reader makes it ints and pass 2 coerces it
  // to the schema's kind. Everything else about the node round-trips.
  Graph g;
  AddValue(g, "x", DType::kF32, {2});
  AddValue(g, "y", DType::kF32, {2});
  g.inputs = {0};
  g.outputs = {1};
  g.nodes = {Node{"relu", {0}, {1}, test::MakeAttrs({{"e", std::vector<double>{}}}), "", ""}};
  Expected<std::string> json = SerializeGraphJson(g);
  SY_ASSERT_OK(json);
  Expected<Graph> back = ParseGraphJson(*json, nullptr);
  SY_ASSERT_OK(back);
  EXPECT_EQ(*back->nodes[0].attrs.Find("e"), AttrValue(std::vector<int64_t>{}));
}

}  // namespace
}  // namespace sy
