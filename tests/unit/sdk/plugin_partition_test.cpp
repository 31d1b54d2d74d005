// The plugin kit's partition decoding and execute-time value table
// (sdk/src/plugin_partition.cpp).
#include "switchyard/plugin_partition.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sy::plugin {
namespace {

// add(x, bias) -> h; relu(h) -> y. Values: 0 x f32 [2, 3], 1 bias f32 [3] (a constant),
// 2 h f32 [2, 3] (intermediate, not bound), 3 y f32 [2, 3]. Bound: inputs 0 1, output 3.
struct TwoNodes {
  int64_t d23[2] = {2, 3};
  int64_t d3[1] = {3};
  float bias[3] = {1, 2, 3};
  sy_tensor_type values[4] = {{SY_DTYPE_F32, 2, d23},
                              {SY_DTYPE_F32, 1, d3},
                              {SY_DTYPE_F32, 2, d23},
                              {SY_DTYPE_F32, 2, d23}};
  uint32_t add_in[2] = {0, 1}, add_out[1] = {2}, relu_in[1] = {2}, relu_out[1] = {3};
  sy_node nodes[2] = {};
  uint32_t inputs[2] = {0, 1}, outputs[1] = {3};
  const void* constants[2] = {nullptr, bias};
  uint8_t internal[1] = {1};
  sy_partition p{};

  TwoNodes() {
    auto node = [&](sy_node& n, const char* op, uint32_t* in, uint32_t num_in, uint32_t* out) {
      n.struct_size = sizeof n;
      n.abi_version = SY_PLUGIN_ABI_VERSION;
      n.op = op;
      n.name = "";
      n.num_inputs = num_in;
      n.inputs = &values[0];  // ignored by Partition: the value table is authoritative
      n.num_outputs = 1;
      n.outputs = &values[0];
      n.input_values = in;
      n.output_values = out;
    };
    node(nodes[0], "add", add_in, 2, add_out);
    node(nodes[1], "relu", relu_in, 1, relu_out);
    p.struct_size = sizeof p;
    p.abi_version = SY_PLUGIN_ABI_VERSION;
    p.num_values = 4;
    p.values = values;
    p.num_nodes = 2;
    p.nodes = nodes;
    p.num_inputs = 2;
    p.inputs = inputs;
    p.num_outputs = 1;
    p.outputs = outputs;
    p.constant_data = constants;
    p.outputs_internal = internal;
  }
};

std::string PrepareError(const sy_partition& p) {
  try {
    Partition partition(p);
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_INVALID_ARGUMENT);
    return e.what();
  }
  return "";
}

TEST(PluginPartitionTest, DecodesValuesNodesAndBindings) {
  TwoNodes t;
  const Partition partition(t.p);
  ASSERT_EQ(partition.values().size(), 4u);
  EXPECT_EQ(partition.values()[1], (TensorType{DType::kF32, {3}}));
  EXPECT_EQ(partition.bytes(0), 24u);  // 6 f32
  EXPECT_EQ(partition.bytes(1), 12u);
  EXPECT_EQ(partition.bound(), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(partition.num_inputs(), 2u);
  EXPECT_TRUE(partition.is_bound(1));
  EXPECT_FALSE(partition.is_bound(2));
  EXPECT_EQ(partition.constant_data(0), nullptr);
  EXPECT_EQ(partition.constant_data(1), t.bias);
  EXPECT_TRUE(partition.output_internal(3));
  EXPECT_FALSE(partition.output_internal(0));
  EXPECT_FALSE(partition.output_internal(2));
  ASSERT_EQ(partition.nodes().size(), 2u);
  const Partition::Node& add = partition.nodes()[0];
  EXPECT_EQ(add.info.op, "add");
  EXPECT_EQ(add.inputs, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(add.outputs, (std::vector<uint32_t>{2}));
  // Types from the value table, not from the node's own (deliberately wrong) arrays.
  EXPECT_EQ(add.info.inputs[1], (TensorType{DType::kF32, {3}}));
  EXPECT_EQ(partition.nodes()[1].info.inputs.size(), 1u);
}

// A host of the first release sends the shorter struct: the appended fields are not read.
TEST(PluginPartitionTest, FirstReleasePartitionsIgnoreAppendedFields) {
  TwoNodes t;
  t.p.struct_size = SY_PARTITION_V1_SIZE;
  const Partition partition(t.p);
  EXPECT_EQ(partition.constant_data(1), nullptr);
  EXPECT_FALSE(partition.output_internal(3));
  t.p.struct_size = 8;
  EXPECT_NE(PrepareError(t.p).find("struct_size"), std::string::npos);
}

TEST(PluginPartitionTest, MalformedPartitionsAreRefusedWithWhatIsWrong) {
  {
    TwoNodes t;
    t.relu_in[0] = 9;
    EXPECT_NE(PrepareError(t.p).find("names value 9 of 4"), std::string::npos) << PrepareError(t.p);
  }
  {
    TwoNodes t;
    t.outputs[0] = 4;
    EXPECT_NE(PrepareError(t.p).find("output names value 4"), std::string::npos);
  }
  {
    TwoNodes t;
    t.p.values = nullptr;
    EXPECT_NE(PrepareError(t.p).find("NULL array"), std::string::npos);
  }
  {
    TwoNodes t;
    t.values[2].dims = nullptr;
    EXPECT_NE(PrepareError(t.p).find("value 2"), std::string::npos);
  }
  {
    TwoNodes t;
    t.nodes[1].op = nullptr;
    EXPECT_NE(PrepareError(t.p).find("node 1"), std::string::npos);
  }
  {
    TwoNodes t;
    t.nodes[0].input_values = nullptr;
    EXPECT_NE(PrepareError(t.p).find("node 0"), std::string::npos);
  }
}

TEST(PluginPartitionTest, HostValuesBindBuffersAndKeepScratchForIntermediates) {
  TwoNodes t;
  const Partition partition(t.p);
  HostValues values(partition);
  std::byte* scratch = values.data(2);
  ASSERT_NE(scratch, nullptr);  // the intermediate h, owned by HostValues
  EXPECT_EQ(values.data(0), nullptr);
  sy_sdk::HostBuffer x(24), bias(12), y(24), small(8);
  sy_buffer* buffers[3] = {&x, &bias, &y};
  values.Bind(buffers, 3);
  EXPECT_EQ(values.data(0), x.host_pointer());
  EXPECT_EQ(values.data(1), bias.host_pointer());
  EXPECT_EQ(values.data(3), y.host_pointer());
  EXPECT_EQ(values.data(2), scratch);
  try {
    values.Bind(buffers, 2);
    FAIL() << "no throw";
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "execute: 2 buffers for 3 bound values");
  }
  sy_buffer* too_small[3] = {&x, &small, &y};
  try {
    values.Bind(too_small, 3);
    FAIL() << "no throw";
  } catch (const sy_sdk::Error& e) {
    EXPECT_STREQ(e.what(), "execute: buffer 1 holds 8 bytes, needs 12");
  }
}

}  // namespace
}  // namespace sy::plugin
