// The plugin kit's node decoding (sdk/src/plugin_node.cpp): what a plugin reads back from
// an sy_node, and the nodes it refuses (docs/plugin-abi.md, "Malformed nodes").
#include "switchyard/plugin_node.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sy::plugin {
namespace {

sy_node Node(const char* op, const sy_tensor_type* inputs, uint32_t num_inputs,
             const sy_tensor_type* outputs, uint32_t num_outputs, const sy_attr* attrs = nullptr,
             uint32_t num_attrs = 0) {
  sy_node node{};
  node.struct_size = sizeof node;
  node.abi_version = SY_PLUGIN_ABI_VERSION;
  node.op = op;
  node.name = "n0";
  node.num_inputs = num_inputs;
  node.inputs = inputs;
  node.num_outputs = num_outputs;
  node.outputs = outputs;
  node.num_attrs = num_attrs;
  node.attrs = attrs;
  return node;
}

// The code and message of the sy_sdk::Error that DecodeNode throws; 0 when none.
sy_error_code DecodeError(const sy_node& node, std::string* message = nullptr) {
  try {
    (void)DecodeNode(node);
  } catch (const sy_sdk::Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return static_cast<sy_error_code>(0);  // no error
}

TEST(PluginNodeTest, DecodesOpTypesAndEveryAttributeKind) {
  const int64_t d23[] = {2, 3}, d3[] = {3};
  const sy_tensor_type in[] = {{SY_DTYPE_F32, 2, d23}, {SY_DTYPE_F16, 1, d3}};
  const sy_tensor_type out{SY_DTYPE_BF16, 2, d23};
  const int64_t ints[] = {1, -2};
  const double floats[] = {0.5};
  const char* strings[] = {"a", "bc"};
  sy_attr attrs[6] = {};
  attrs[0] = {"axis", SY_ATTR_INT, 0, -1, 0.0, nullptr, nullptr, nullptr, nullptr};
  attrs[1] = {"alpha", SY_ATTR_FLOAT, 0, 0, 0.25, nullptr, nullptr, nullptr, nullptr};
  attrs[2] = {"mode", SY_ATTR_STRING, 0, 0, 0.0, "tanh", nullptr, nullptr, nullptr};
  attrs[3] = {"perm", SY_ATTR_INTS, 2, 0, 0.0, nullptr, ints, nullptr, nullptr};
  attrs[4] = {"scales", SY_ATTR_FLOATS, 1, 0, 0.0, nullptr, nullptr, floats, nullptr};
  attrs[5] = {"names", SY_ATTR_STRINGS, 2, 0, 0.0, nullptr, nullptr, nullptr, strings};
  const NodeInfo info = DecodeNode(Node("add", in, 2, &out, 1, attrs, 6));
  EXPECT_EQ(info.op, "add");
  EXPECT_EQ(info.Describe(), "add \"n0\"");
  ASSERT_EQ(info.inputs.size(), 2u);
  EXPECT_EQ(info.inputs[0], (TensorType{DType::kF32, {2, 3}}));
  EXPECT_EQ(info.inputs[1], (TensorType{DType::kF16, {3}}));
  EXPECT_EQ(info.outputs[0], (TensorType{DType::kBF16, {2, 3}}));
  EXPECT_EQ(info.attrs.GetInt("axis"), -1);
  EXPECT_EQ(info.attrs.GetFloat("alpha"), 0.25);
  EXPECT_EQ(info.attrs.GetString("mode"), "tanh");
  EXPECT_EQ(info.attrs.GetInts("perm"), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(info.attrs.GetFloats("scales"), (std::vector<double>{0.5}));
  EXPECT_EQ(info.attrs.GetStrings("names"), (std::vector<std::string>{"a", "bc"}));
}

// Reading an operand the node lacks throws instead of reading past the list: an op's code
// may index the operands its op has without counting them first.
TEST(PluginNodeTest, OperandAccessIsChecked) {
  const int64_t d3[] = {3};
  const sy_tensor_type t{SY_DTYPE_F32, 1, d3};
  const NodeInfo info = DecodeNode(Node("add", &t, 1, &t, 1));
  EXPECT_EQ(info.inputs[0].shape, (Shape{3}));
  try {
    (void)info.inputs[1];
    FAIL() << "no throw";
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("has 1 operand(s)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("operand 1 was read"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)info.outputs[3], sy_sdk::Error);
  const NodeInfo bare = DecodeNode(Node("relu", nullptr, 0, nullptr, 0));
  EXPECT_THROW((void)bare.inputs.front(), sy_sdk::Error);
  EXPECT_THROW((void)bare.outputs.back(), sy_sdk::Error);
}

TEST(PluginNodeTest, MalformedNodesAreInvalidArguments) {
  const int64_t dims[] = {3}, negative[] = {-1}, huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  const sy_tensor_type t{SY_DTYPE_F32, 1, dims};
  std::string message;
  sy_node node = Node(nullptr, &t, 1, &t, 1);
  EXPECT_EQ(DecodeError(node, &message), SY_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("op is NULL"), std::string::npos) << message;
  EXPECT_EQ(DecodeError(Node("relu", nullptr, 1, &t, 1)), SY_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(DecodeError(Node("relu", &t, 1, nullptr, 1)), SY_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(DecodeError(Node("relu", &t, 1, &t, 1, nullptr, 2)), SY_ERROR_INVALID_ARGUMENT);
  const sy_tensor_type bad_dtype{99, 1, dims}, no_dims{SY_DTYPE_F32, 2, nullptr},
      negative_dim{SY_DTYPE_F32, 1, negative}, too_big{SY_DTYPE_F32, 2, huge};
  EXPECT_EQ(DecodeError(Node("relu", &bad_dtype, 1, &t, 1)), SY_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(DecodeError(Node("relu", &no_dims, 1, &t, 1)), SY_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(DecodeError(Node("relu", &negative_dim, 1, &t, 1)), SY_ERROR_INVALID_ARGUMENT);
  // 2^80 elements: beyond kMaxElementCount (2^60), so no byte size would fit.
  EXPECT_EQ(DecodeError(Node("relu", &too_big, 1, &t, 1)), SY_ERROR_INVALID_ARGUMENT);
  sy_attr nameless{};
  nameless.kind = SY_ATTR_INT;
  EXPECT_EQ(DecodeError(Node("relu", &t, 1, &t, 1, &nameless, 1), &message),
            SY_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("name is NULL"), std::string::npos) << message;
  const char* with_null[] = {"a", nullptr};
  sy_attr strings{};
  strings.name = "names";
  strings.kind = SY_ATTR_STRINGS;
  strings.count = 2;
  strings.strings = with_null;
  EXPECT_EQ(DecodeError(Node("relu", &t, 1, &t, 1, &strings, 1)), SY_ERROR_INVALID_ARGUMENT);
  sy_attr unknown_kind{};
  unknown_kind.name = "x";
  unknown_kind.kind = 42;
  EXPECT_EQ(DecodeError(Node("relu", &t, 1, &t, 1, &unknown_kind, 1)), SY_ERROR_INVALID_ARGUMENT);
}

// The kit's reading of a canonical slice refuses any window that would read outside x.
TEST(PluginNodeTest, CanonicalSliceIsCheckedAgainstTheShapes) {
  Attrs attrs;
  attrs.Set("starts", std::vector<int64_t>{4, 1});
  attrs.Set("ends", std::vector<int64_t>{-6, 3});
  attrs.Set("axes", std::vector<int64_t>{0, 1});
  attrs.Set("steps", std::vector<int64_t>{-1, 2});
  const Shape x = {5, 3}, y = {5, 1};  // x[::-1, 1:3:2]
  const SliceWindow window = CanonicalSlice(attrs, x, y);
  EXPECT_EQ(window.starts, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(window.steps, (std::vector<int64_t>{-1, 2}));
  const Shape too_long = {6, 1};  // would read index -1 on axis 0
  EXPECT_THROW(CanonicalSlice(attrs, x, too_long), sy_sdk::Error);
  Attrs raw = attrs;
  raw.Set("starts", std::vector<int64_t>{-1, 1});  // ONNX's form, not the canonical one
  EXPECT_THROW(CanonicalSlice(raw, x, y), sy_sdk::Error);
  raw = attrs;
  raw.Set("axes", std::vector<int64_t>{1, 0});
  EXPECT_THROW(CanonicalSlice(raw, x, y), sy_sdk::Error);
  raw = attrs;
  raw.Set("steps", std::vector<int64_t>{0, 2});
  EXPECT_THROW(CanonicalSlice(raw, x, y), sy_sdk::Error);
  raw = attrs;
  raw.Set("steps", std::vector<int64_t>{-1, INT64_MAX});
  const Shape two = {5, 2};  // 1 + INT64_MAX overflows: refused, not wrapped
  EXPECT_THROW(CanonicalSlice(raw, x, two), sy_sdk::Error);
  raw = attrs;
  raw.Erase("axes");
  EXPECT_THROW(CanonicalSlice(raw, x, y), sy_sdk::Error);
}

TEST(PluginNodeTest, HostsThatDoNotSendCanonicalNodesAreRefused) {
  sy_init_options options{sizeof(sy_init_options), SY_PLUGIN_ABI_VERSION, 0, 0};
  try {
    RequireCanonicalNodes(options, "cpu");
    FAIL() << "no throw";
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("canonical nodes"), std::string::npos) << e.what();
  }
  options.flags = SY_INIT_FLAG_CANONICAL_NODES;
  EXPECT_NO_THROW(RequireCanonicalNodes(options, "cpu"));
}

TEST(PluginNodeTest, ConversionsReportMalformedValues) {
  sy_attr ints{};
  ints.name = "perm";
  ints.kind = SY_ATTR_INTS;
  ints.count = 2;  // and a NULL array
  EXPECT_FALSE(AttrFromC(ints).ok());
  ints.count = 0;
  const Expected<AttrValue> empty = AttrFromC(ints);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(std::get<std::vector<int64_t>>(*empty), std::vector<int64_t>{});
  const sy_tensor_type scalar{SY_DTYPE_I64, 0, nullptr};  // rank 0: dims may be NULL
  const Expected<TensorType> type = TensorTypeFromC(scalar);
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type, (TensorType{DType::kI64, {}}));
}

}  // namespace
}  // namespace sy::plugin
