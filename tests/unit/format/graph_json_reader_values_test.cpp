// Pass 1 of loading (ParseGraphJson), continued: constants (inline data of every dtype
// and stored tensors), node attributes, backend hints, and well-formed graphs that must
// load (scalars, empty tensors, outputs that are inputs or constants).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/graph_doc.h"
#include "switchyard/model_io.h"
#include "switchyard/safetensors.h"
#include "test_util.h"

namespace sy {
namespace {

using test::GraphDoc;

// A graph with one constant value "c" of `dtype` and `shape` (JSON) holding inline `data`
// (JSON), which is also the graph's output.
Expected<Graph> ParseConstant(const std::string& dtype, const std::string& shape,
                              const std::string& data) {
  GraphDoc doc;
  doc.values = R"([{"name": "c", "dtype": ")" + dtype + R"(", "shape": )" + shape + "}]";
  doc.inputs = "[]";
  doc.constants = R"([{"value": 0, "data": )" + data + "}]";
  doc.nodes = "[]";
  doc.outputs = "[0]";
  return doc.Parse();
}

template <typename T>
std::vector<T> ConstantValues(const Graph& graph) {
  const Tensor& t = graph.constants.at(0).data;
  EXPECT_EQ(t.byte_size(), static_cast<size_t>(t.element_count()) * sizeof(T));
  std::vector<T> out(static_cast<size_t>(t.element_count()));
  if (!out.empty()) std::memcpy(out.data(), t.data(), t.byte_size());
  return out;
}

template <typename T>
Tensor MakeTensor(DType dtype, Shape shape, const std::vector<T>& values) {
  Expected<Tensor> t = Tensor::Allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->byte_size(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t->mutable_data(), values.data(), t->byte_size());
  return *t;
}

// An in-memory safetensors file named "mem.safetensors".
std::shared_ptr<const SafetensorsFile> MakeWeights(
    const std::vector<std::pair<std::string, Tensor>>& tensors) {
  Expected<std::vector<std::byte>> bytes = SerializeSafetensors(tensors);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(*bytes));
  Expected<std::shared_ptr<const SafetensorsFile>> file = SafetensorsFile::FromBuffer(
      owned, std::span<const std::byte>(owned->data(), owned->size()), "mem.safetensors");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? *file : nullptr;
}

// The default document with its constant (value 1 "w", f32 [3]) stored as `tensor`.
GraphDoc StoredDoc(const std::string& tensor) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "tensor": ")" + tensor + R"("}])";
  return doc;
}

// The default document with node 0's attrs set to `attrs` (JSON).
GraphDoc AttrsDoc(const std::string& attrs) {
  GraphDoc doc;
  doc.nodes =
      R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": "sum", "attrs": )" + attrs + "}]";
  return doc;
}

// The default document with node 0's backend set to `backend` (JSON).
GraphDoc BackendDoc(const std::string& backend) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": "sum", "backend": )" +
              backend + "}]";
  return doc;
}

// --- Constants: structure ---------------------------------------------------------------

TEST(GraphJsonReaderConstants, ConstantThatIsNotAnObject) {
  GraphDoc doc;
  doc.constants = "[1]";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0] is a number, expected an object");
}

TEST(GraphJsonReaderConstants, UnknownKey) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "data": [1, 2, 3], "dtype": "f32"}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0]: unknown key \"dtype\" (expected value, tensor, data)");
}

TEST(GraphJsonReaderConstants, MissingValue) {
  GraphDoc doc;
  doc.constants = R"([{"data": [1, 2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0]: missing \"value\" (expected an id)");
}

TEST(GraphJsonReaderConstants, BothOrNeitherTensorAndData) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "tensor": "w", "data": [1, 2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0] for value 1 \"w\": expected exactly one of "
                  "\"tensor\" and \"data\"");
  doc.constants = R"([{"value": 1}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0] for value 1 \"w\": expected exactly one of "
                  "\"tensor\" and \"data\"");
}

TEST(GraphJsonReaderConstants, MistypedTensorOrData) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "tensor": 4}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0] for value 1 \"w\": \"tensor\" is a number, "
                  "expected a string");
  doc.constants = R"([{"value": 1, "tensor": ""}])";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0] for value 1 \"w\": \"tensor\" is empty");
  doc.constants = R"([{"value": 1, "data": 1}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0] for value 1 \"w\": \"data\" is a number, "
                  "expected an array");
}

// --- Constants: inline data -------------------------------------------------------------

TEST(GraphJsonReaderConstants, InlineDataOfWrongLength) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "data": [1, 2]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "constants[0] for value 1 \"w\": data has 2 elements but f32 [3] needs 3");
  doc.constants = R"([{"value": 1, "data": [1, 2, 3, 4]}])";
  SY_EXPECT_ERROR(doc.Parse(), "data has 4 elements but f32 [3] needs 3");
  doc.constants = R"([{"value": 1, "data": [[1, 2, 3]]}])";  // not flat
  SY_EXPECT_ERROR(doc.Parse(), "data has 1 elements but f32 [3] needs 3");
  SY_EXPECT_ERROR(ParseConstant("f32", "[]", "[]"), "data has 0 elements but f32 [] needs 1");
}

TEST(GraphJsonReaderConstants, WrongElementKinds) {
  SY_EXPECT_ERROR(ParseConstant("f32", "[3]", R"([1, "2", 3])"),
                  "constants[0] for value 0 \"c\": data[1] is a string, expected a number");
  SY_EXPECT_ERROR(ParseConstant("f64", "[1]", "[true]"), "data[0] is a boolean, expected a number");
  SY_EXPECT_ERROR(ParseConstant("f16", "[1]", "[null]"), "data[0] is null, expected a number");
  SY_EXPECT_ERROR(ParseConstant("i32", "[2]", "[1.5, 2]"),
                  "constants[0] for value 0 \"c\": data[0] is 1.5, expected an integer in "
                  "[-2147483648, 2147483647]");
  SY_EXPECT_ERROR(ParseConstant("u8", "[3]", "[0, 255, 300]"),
                  "data[2] is 300, expected an integer in [0, 255]");
  SY_EXPECT_ERROR(ParseConstant("u8", "[1]", "[-1]"),
                  "data[0] is -1, expected an integer in [0, 255]");
  SY_EXPECT_ERROR(ParseConstant("i8", "[1]", "[128]"),
                  "data[0] is 128, expected an integer in [-128, 127]");
  SY_EXPECT_ERROR(ParseConstant("i64", "[1]", "[9223372036854775808]"),
                  "data[0] is 9223372036854775808, expected an integer in "
                  "[-9223372036854775808, 9223372036854775807]");
  SY_EXPECT_ERROR(ParseConstant("i64", "[1]", R"(["1"])"),
                  "data[0] is a string, expected an integer");
  SY_EXPECT_ERROR(ParseConstant("bool", "[2]", "[true, 2]"),
                  "data[1] is 2, expected true, false, 0 or 1");
  SY_EXPECT_ERROR(ParseConstant("bool", "[1]", R"(["true"])"),
                  "data[0] is a string, expected true, false, 0 or 1");
  SY_EXPECT_ERROR(ParseConstant("bool", "[1]", "[0.5]"),
                  "data[0] is 0.5, expected true, false, 0 or 1");
}

TEST(GraphJsonReaderConstants, FloatsOutOfTheDTypeRange) {
  SY_EXPECT_ERROR(ParseConstant("f32", "[2]", "[1, 1e300]"),
                  "constants[0] for value 0 \"c\": data[1] is 1e+300, out of the range of f32 "
                  "(expected a finite number)");
  SY_EXPECT_ERROR(ParseConstant("f16", "[1]", "[65520]"),
                  "data[0] is 65520, out of the range of f16");
  SY_EXPECT_ERROR(ParseConstant("f16", "[1]", "[-1e5]"), "out of the range of f16");
  SY_EXPECT_ERROR(ParseConstant("bf16", "[1]", "[3.4e38]"), "out of the range of bf16");
  // The largest values that round to a finite number are accepted.
  Expected<Graph> half = ParseConstant("f16", "[2]", "[65504, 65519]");
  SY_ASSERT_OK(half);
  EXPECT_EQ(ConstantValues<uint16_t>(*half), (std::vector<uint16_t>{0x7bff, 0x7bff}));
  SY_EXPECT_OK(ParseConstant("f64", "[1]", "[1e300]"));
}

TEST(GraphJsonReaderConstants, InlineDataOfEveryDType) {
  {
    Expected<Graph> g = ParseConstant("f32", "[2, 2]", "[0.5, -1.25, 3, 0.1]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(g->constants[0].data.type(), (TensorType{DType::kF32, {2, 2}}));
    EXPECT_EQ(ConstantValues<float>(*g), (std::vector<float>{0.5f, -1.25f, 3.0f, 0.1f}));
  }
  {
    // f64 values are read exactly (correctly rounded), including 17-digit ones.
    Expected<Graph> g = ParseConstant("f64", "[4]", "[0.1, 1e-300, -2.5, 1.3927926388013963e-143]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<double>(*g),
              (std::vector<double>{0.1, 1e-300, -2.5, 1.3927926388013963e-143}));
  }
  {
    // f16 and bf16 round to nearest even.
    Expected<Graph> g = ParseConstant("f16", "[4]", "[0.1, 1, 65504, -2]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<uint16_t>(*g),
              (std::vector<uint16_t>{0x2e66, 0x3c00, 0x7bff, 0xc000}));
  }
  {
    Expected<Graph> g = ParseConstant("bf16", "[3]", "[0.1, 1, -2]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<uint16_t>(*g), (std::vector<uint16_t>{0x3dcd, 0x3f80, 0xc000}));
  }
  {
    Expected<Graph> g = ParseConstant("i8", "[3]", "[-128, 127, 0]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<int8_t>(*g), (std::vector<int8_t>{-128, 127, 0}));
  }
  {
    Expected<Graph> g = ParseConstant("u8", "[2]", "[0, 255]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<uint8_t>(*g), (std::vector<uint8_t>{0, 255}));
  }
  {
    // Integral numbers written as floats are integers.
    Expected<Graph> g = ParseConstant("i32", "[3]", "[-2147483648, 2147483647, 2.0]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<int32_t>(*g), (std::vector<int32_t>{INT32_MIN, INT32_MAX, 2}));
  }
  {
    // Exact beyond 2^53.
    Expected<Graph> g = ParseConstant(
        "i64", "[3]", "[-9223372036854775808, 9223372036854775807, 9007199254740993]");
    SY_ASSERT_OK(g);
    EXPECT_EQ(ConstantValues<int64_t>(*g),
              (std::vector<int64_t>{INT64_MIN, INT64_MAX, 9007199254740993}));
  }
}

TEST(GraphJsonReaderConstants, BooleansAsTrueFalseAndZeroOne) {
  Expected<Graph> g = ParseConstant("bool", "[2, 2]", "[true, false, 1, 0]");
  SY_ASSERT_OK(g);
  EXPECT_EQ(ConstantValues<uint8_t>(*g), (std::vector<uint8_t>{1, 0, 1, 0}));
}

TEST(GraphJsonReaderConstants, ScalarAndEmptyConstants) {
  Expected<Graph> scalar = ParseConstant("f32", "[]", "[5]");
  SY_ASSERT_OK(scalar);
  EXPECT_TRUE(scalar->values[0].type.shape.empty());
  EXPECT_EQ(ConstantValues<float>(*scalar), std::vector<float>{5.0f});

  Expected<Graph> empty = ParseConstant("i64", "[0, 3]", "[]");
  SY_ASSERT_OK(empty);
  EXPECT_EQ(empty->constants[0].data.element_count(), 0);
  EXPECT_EQ(empty->constants[0].data.byte_size(), 0u);
  EXPECT_EQ(empty->constants[0].data.shape(), (Shape{0, 3}));
}

// --- Constants: stored in safetensors ---------------------------------------------------

TEST(GraphJsonReaderConstants, StoredConstant) {
  const Tensor w = MakeTensor<float>(DType::kF32, {3}, {1.5f, -2.0f, 4.0f});
  auto weights = MakeWeights({{"layers.0.weight", w}});
  ASSERT_NE(weights, nullptr);
  Expected<Graph> g = StoredDoc("layers.0.weight").Parse(weights.get());
  SY_ASSERT_OK(g);
  ASSERT_EQ(g->constants.size(), 1u);
  EXPECT_EQ(g->constants[0].value, 1);
  EXPECT_EQ(g->constants[0].tensor_name, "layers.0.weight");
  EXPECT_TRUE(g->constants[0].data.BitwiseEquals(w));
  // The graph keeps the bytes alive after the file handle is gone.
  weights.reset();
  EXPECT_EQ(ConstantValues<float>(*g), (std::vector<float>{1.5f, -2.0f, 4.0f}));
}

TEST(GraphJsonReaderConstants, StoredConstantWithoutASafetensorsFile) {
  SY_EXPECT_ERROR(StoredDoc("w.t").Parse(nullptr),
                  "constants[0] for value 1 \"w\": names stored tensor \"w.t\" but the model has "
                  "no safetensors file");
}

TEST(GraphJsonReaderConstants, StoredConstantMissingFromTheFile) {
  auto weights = MakeWeights({{"other", MakeTensor<float>(DType::kF32, {3}, {1, 2, 3})}});
  ASSERT_NE(weights, nullptr);
  SY_EXPECT_ERROR(StoredDoc("nope").Parse(weights.get()),
                  "constants[0] for value 1 \"w\": tensor \"nope\" is not in mem.safetensors");
}

TEST(GraphJsonReaderConstants, StoredConstantOfAnotherDTypeOrShape) {
  auto weights = MakeWeights({{"w16", MakeTensor<uint16_t>(DType::kF16, {3}, {0, 0, 0})},
                              {"w4", MakeTensor<float>(DType::kF32, {4}, {1, 2, 3, 4})},
                              {"w13", MakeTensor<float>(DType::kF32, {1, 3}, {1, 2, 3})}});
  ASSERT_NE(weights, nullptr);
  SY_EXPECT_ERROR(StoredDoc("w16").Parse(weights.get()),
                  "constants[0] for value 1 \"w\": tensor \"w16\" in mem.safetensors is f16 [3] "
                  "but the value is recorded as f32 [3]");
  SY_EXPECT_ERROR(
      StoredDoc("w4").Parse(weights.get()),
      "tensor \"w4\" in mem.safetensors is f32 [4] but the value is recorded as f32 [3]");
  // Same element count, different shape.
  SY_EXPECT_ERROR(StoredDoc("w13").Parse(weights.get()),
                  "tensor \"w13\" in mem.safetensors is f32 [1, 3] but the value is recorded as "
                  "f32 [3]");
}

// --- Attributes -------------------------------------------------------------------------

TEST(GraphJsonReaderAttrs, AttrsThatAreNotAnObject) {
  SY_EXPECT_ERROR(AttrsDoc("[]").Parse(),
                  "node 0 (add) \"sum\": attrs is an array, expected an object");
  SY_EXPECT_ERROR(AttrsDoc("null").Parse(),
                  "node 0 (add) \"sum\": attrs is null, expected an object");
  SY_EXPECT_ERROR(AttrsDoc(R"("axis=1")").Parse(), "attrs is a string, expected an object");
}

TEST(GraphJsonReaderAttrs, AttrValuesOfTheWrongKind) {
  SY_EXPECT_ERROR(AttrsDoc(R"({"alpha": null})").Parse(),
                  "node 0 (add) \"sum\": attribute alpha is null (expected a number, string, "
                  "boolean, or array of numbers or strings)");
  SY_EXPECT_ERROR(AttrsDoc(R"({"alpha": {"v": 1}})").Parse(),
                  "node 0 (add) \"sum\": attribute alpha is an object (expected a number");
  SY_EXPECT_ERROR(AttrsDoc(R"({"perm": [[0, 1], [1, 0]]})").Parse(),
                  "node 0 (add) \"sum\": attribute perm contains an array (expected an array of "
                  "numbers or of strings)");
  SY_EXPECT_ERROR(AttrsDoc(R"({"perm": [0, "1"]})").Parse(),
                  "attribute perm contains a string (expected an array of numbers or of strings)");
  SY_EXPECT_ERROR(AttrsDoc(R"({"modes": ["a", 1]})").Parse(),
                  "attribute modes mixes strings and a number (expected an array of numbers or "
                  "of strings)");
  SY_EXPECT_ERROR(AttrsDoc(R"({"flags": [true, false]})").Parse(),
                  "attribute flags contains a boolean");
  SY_EXPECT_ERROR(AttrsDoc(R"({"pads": [1, null]})").Parse(), "attribute pads contains null");
  SY_EXPECT_ERROR(AttrsDoc(R"({"big": 9223372036854775808})").Parse(),
                  "attribute big is 9223372036854775808, out of the int64 range");
  SY_EXPECT_ERROR(AttrsDoc(R"({"bigs": [1, 18446744073709551615]})").Parse(),
                  "attribute bigs contains 18446744073709551615, out of the int64 range");
}

TEST(GraphJsonReaderAttrs, AttrsOfEveryKind) {
  Expected<Graph> g = AttrsDoc(R"({
      "i": 3, "f": 0.5, "whole": 2.0, "s": "tanh", "yes": true, "no": false,
      "ints": [1, -2], "floats": [0.5, 1], "strings": ["a", "b"], "empty": [],
      "neg": -9223372036854775808})")
                          .Parse();
  SY_ASSERT_OK(g);
  const Attrs& a = g->nodes[0].attrs;
  EXPECT_EQ(a.size(), 11u);
  EXPECT_EQ(*a.Find("i"), AttrValue(int64_t{3}));
  EXPECT_EQ(*a.Find("f"), AttrValue(0.5));
  EXPECT_EQ(*a.Find("whole"), AttrValue(2.0));  // kept as written: a float
  EXPECT_EQ(*a.Find("s"), AttrValue(std::string("tanh")));
  EXPECT_EQ(*a.Find("yes"), AttrValue(int64_t{1}));  // booleans become ints
  EXPECT_EQ(*a.Find("no"), AttrValue(int64_t{0}));
  EXPECT_EQ(*a.Find("ints"), AttrValue(std::vector<int64_t>{1, -2}));
  EXPECT_EQ(*a.Find("floats"), AttrValue(std::vector<double>{0.5, 1.0}));  // any float: floats
  EXPECT_EQ(*a.Find("strings"), AttrValue(std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*a.Find("empty"), AttrValue(std::vector<int64_t>{}));
  EXPECT_EQ(*a.Find("neg"), AttrValue(int64_t{INT64_MIN}));
}

TEST(GraphJsonReaderAttrs, EmptyAttrsObject) {
  Expected<Graph> g = AttrsDoc("{}").Parse();
  SY_ASSERT_OK(g);
  EXPECT_TRUE(g->nodes[0].attrs.empty());
}

// --- Backend hints ----------------------------------------------------------------------

TEST(GraphJsonReaderBackend, MalformedHints) {
  for (const char* hint : {"CUDA", "cuda:", "cuda:x", ":1", "cuda:1:2", "cu da", "cuda:-1",
                           "cuda:1234567890", "cuda/1"}) {
    SCOPED_TRACE(hint);
    SY_EXPECT_ERROR(BackendDoc(std::string("\"") + hint + "\"").Parse(),
                    std::string("node 0 (add) \"sum\": backend hint \"") + hint +
                        "\" is malformed (expected a plugin name such as \"cuda\", optionally "
                        "with a device index such as \"cuda:1\")");
  }
  SY_EXPECT_ERROR(BackendDoc("1").Parse(),
                  "node 0 (add) \"sum\": \"backend\" is a number, expected a string");
}

TEST(GraphJsonReaderBackend, WellFormedHints) {
  for (const char* hint : {"cpu", "cuda", "cuda:1", "opencl:0", "metal", "acme-npu_2.1:12"}) {
    SCOPED_TRACE(hint);
    Expected<Graph> g = BackendDoc(std::string("\"") + hint + "\"").Parse();
    SY_ASSERT_OK(g);
    EXPECT_EQ(g->nodes[0].backend, hint);
  }
}

TEST(GraphJsonReaderBackend, EmptyHintMeansNoHint) {
  // "" names no plugin; it is read as an absent hint (which the writer then omits).
  Expected<Graph> g = BackendDoc(R"("")").Parse();
  SY_ASSERT_OK(g);
  EXPECT_TRUE(g->nodes[0].backend.empty());
}

// --- Well-formed graphs -----------------------------------------------------------------

TEST(GraphJsonReaderGood, MinimalGraph) {
  GraphDoc doc;
  doc.producer = R"("unit test")";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_EQ(g->producer, "unit test");
  ASSERT_EQ(g->values.size(), 3u);
  EXPECT_EQ(g->values[0].name, "x");
  EXPECT_EQ(g->values[0].type, (TensorType{DType::kF32, {2, 3}}));
  EXPECT_EQ(g->values[1].name, "w");
  EXPECT_EQ(g->values[1].type, (TensorType{DType::kF32, {3}}));
  EXPECT_EQ(g->values[2].name, "y");
  EXPECT_EQ(g->inputs, std::vector<ValueId>{0});
  EXPECT_EQ(g->outputs, std::vector<ValueId>{2});
  ASSERT_EQ(g->constants.size(), 1u);
  EXPECT_EQ(g->constants[0].value, 1);
  EXPECT_TRUE(g->constants[0].tensor_name.empty());
  EXPECT_EQ(ConstantValues<float>(*g), (std::vector<float>{1, 2, 3}));
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, "add");
  EXPECT_EQ(g->nodes[0].inputs, (std::vector<ValueId>{0, 1}));
  EXPECT_EQ(g->nodes[0].outputs, std::vector<ValueId>{2});
  EXPECT_EQ(g->nodes[0].name, "sum");
  EXPECT_TRUE(g->nodes[0].backend.empty());
  EXPECT_TRUE(g->nodes[0].attrs.empty());
}

TEST(GraphJsonReaderGood, EmptyGraph) {
  GraphDoc doc;
  doc.values = "[]";
  doc.inputs = "[]";
  doc.outputs = "[]";
  doc.constants = "[]";
  doc.nodes = "[]";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_TRUE(g->values.empty());
  EXPECT_TRUE(g->producer.empty());
}

TEST(GraphJsonReaderGood, ScalarValue) {
  GraphDoc doc;
  doc.values =
      R"([{"name": "s", "dtype": "i64", "shape": []}, {"name": "t", "dtype": "i64", "shape": []}])";
  doc.inputs = "[0]";
  doc.constants = "[]";
  doc.nodes = R"([{"op": "relu", "inputs": [0], "outputs": [1]}])";
  doc.outputs = "[1]";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_EQ(g->values[0].type, (TensorType{DType::kI64, {}}));
}

TEST(GraphJsonReaderGood, EmptyTensorValue) {
  GraphDoc doc;
  doc.values = R"([{"name": "e", "dtype": "f32", "shape": [4, 0]}])";
  doc.inputs = "[0]";
  doc.constants.clear();
  doc.nodes = "[]";
  doc.outputs = "[0]";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_EQ(g->values[0].type.shape, (Shape{4, 0}));
}

TEST(GraphJsonReaderGood, OutputThatIsAGraphInputOrAConstant) {
  GraphDoc doc;
  doc.outputs = "[0, 1, 2]";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_EQ(g->outputs, (std::vector<ValueId>{0, 1, 2}));
}

TEST(GraphJsonReaderGood, NonAsciiNames) {
  GraphDoc doc;
  doc.values = R"([
    {"name": "入力", "dtype": "f32", "shape": [2, 3]},
    {"name": "w\"quoted\"", "dtype": "f32", "shape": [3]},
    {"name": "y", "dtype": "f32", "shape": [2, 3]}])";
  Expected<Graph> g = doc.Parse();
  SY_ASSERT_OK(g);
  EXPECT_EQ(g->values[0].name, "入力");
  EXPECT_EQ(g->values[1].name, "w\"quoted\"");
}

}  // namespace
}  // namespace sy
