// The isolation wire format (core/src/plugin/isolation/wire.h): nodes and partitions read
// back as written, and what a hostile or broken peer could send (truncated messages,
// counts larger than the message, value indices past the partition, unknown attribute
// kinds) is refused with an error instead of being read past its end or allocated.
#include "plugin/isolation/wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sy::isolation {
namespace {

struct NodeFixture {
  std::vector<int64_t> dims_a = {2, 3}, dims_b = {3};
  std::vector<sy_tensor_type> inputs = {{SY_DTYPE_F32, 2, nullptr}, {SY_DTYPE_I64, 1, nullptr}};
  std::vector<sy_tensor_type> outputs = {{SY_DTYPE_F32, 0, nullptr}};
  std::vector<int64_t> ints = {1, -2, 3};
  std::vector<double> floats = {0.5, -1.25};
  std::vector<const char*> strings = {"a", "", "ccc"};
  std::vector<sy_attr> attrs;
  std::vector<uint32_t> input_values = {0, 1}, output_values = {2};
  sy_node node{};

  NodeFixture() {
    inputs[0].dims = dims_a.data();
    inputs[1].dims = dims_b.data();
    sy_attr a{};
    a.name = "i";
    a.kind = SY_ATTR_INT;
    a.i = -7;
    attrs.push_back(a);
    a = {};
    a.name = "f";
    a.kind = SY_ATTR_FLOAT;
    a.f = 2.5;
    attrs.push_back(a);
    a = {};
    a.name = "s";
    a.kind = SY_ATTR_STRING;
    a.s = "gelu";
    attrs.push_back(a);
    a = {};
    a.name = "ints";
    a.kind = SY_ATTR_INTS;
    a.count = 3;
    a.ints = ints.data();
    attrs.push_back(a);
    a = {};
    a.name = "floats";
    a.kind = SY_ATTR_FLOATS;
    a.count = 2;
    a.floats = floats.data();
    attrs.push_back(a);
    a = {};
    a.name = "strings";
    a.kind = SY_ATTR_STRINGS;
    a.count = 3;
    a.strings = strings.data();
    attrs.push_back(a);
    node.struct_size = sizeof node;
    node.abi_version = SY_PLUGIN_ABI_VERSION;
    node.op = "matmul";
    node.name = "mm";
    node.num_inputs = 2;
    node.num_outputs = 1;
    node.inputs = inputs.data();
    node.outputs = outputs.data();
    node.num_attrs = static_cast<uint32_t>(attrs.size());
    node.attrs = attrs.data();
    node.input_values = input_values.data();
    node.output_values = output_values.data();
  }
};

TEST(IsolationWire, NodeRoundTrips) {
  NodeFixture f;
  MessageWriter w;
  PutNode(w, f.node, true);
  MessageReader r(w.bytes());
  DecodedNode d;
  ASSERT_TRUE(GetNode(r, true, 3, d).ok());
  EXPECT_TRUE(r.done());
  EXPECT_STREQ(d.node.op, "matmul");
  EXPECT_STREQ(d.node.name, "mm");
  ASSERT_EQ(d.node.num_inputs, 2u);
  EXPECT_EQ(d.node.inputs[0].rank, 2u);
  EXPECT_EQ(d.node.inputs[0].dims[1], 3);
  EXPECT_EQ(d.node.inputs[1].dtype, static_cast<uint32_t>(SY_DTYPE_I64));
  EXPECT_EQ(d.node.outputs[0].rank, 0u);
  ASSERT_EQ(d.node.num_attrs, 6u);
  EXPECT_EQ(d.node.attrs[0].i, -7);
  EXPECT_EQ(d.node.attrs[1].f, 2.5);
  EXPECT_STREQ(d.node.attrs[2].s, "gelu");
  EXPECT_EQ(d.node.attrs[3].ints[1], -2);
  EXPECT_EQ(d.node.attrs[4].floats[1], -1.25);
  EXPECT_STREQ(d.node.attrs[5].strings[2], "ccc");
  EXPECT_STREQ(d.node.attrs[5].strings[1], "");
  EXPECT_EQ(d.node.output_values[0], 2u);
}

TEST(IsolationWire, EveryTruncationOfANodeIsRefused) {
  NodeFixture f;
  MessageWriter w;
  PutNode(w, f.node, true);
  const std::string& bytes = w.bytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    MessageReader r(std::string_view(bytes).substr(0, n));
    DecodedNode d;
    EXPECT_FALSE(GetNode(r, true, 3, d).ok())
        << "read a node from " << n << " of " << bytes.size() << " bytes";
  }
}

TEST(IsolationWire, ValueIndexPastThePartitionIsRefused) {
  NodeFixture f;
  MessageWriter w;
  PutNode(w, f.node, true);
  MessageReader r(w.bytes());
  DecodedNode d;
  const Status s = GetNode(r, true, 2, d);  // output value 2 of a 2-value partition
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("past the partition"), std::string::npos) << s.message();
}

TEST(IsolationWire, HugeCountsAreRefusedBeforeAllocating) {
  // A node whose input count says 2^32 - 1 in a message of a few bytes.
  MessageWriter w;
  w.PutString("neg").PutString("n").Put(uint32_t{0xffffffffu});
  MessageReader r(w.bytes());
  DecodedNode d;
  EXPECT_FALSE(GetNode(r, false, 0, d).ok());
  EXPECT_TRUE(d.inputs.empty());
  // A string longer than the message.
  MessageWriter s;
  s.Put(uint32_t{1000}).PutBytes("x", 1);
  MessageReader rs(s.bytes());
  EXPECT_EQ(rs.GetString(), "");
  EXPECT_FALSE(rs.ok());
}

TEST(IsolationWire, UnknownAttributeKindIsRefused) {
  MessageWriter w;
  w.PutString("neg").PutString("n").Put(uint32_t{0}).Put(uint32_t{0}).Put(uint32_t{1});
  w.PutString("a").Put(uint32_t{99});
  MessageReader r(w.bytes());
  DecodedNode d;
  const Status s = GetNode(r, false, 0, d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown kind 99"), std::string::npos) << s.message();
}

TEST(IsolationWire, PartitionRoundTrips) {
  NodeFixture f;
  std::vector<int64_t> d23 = {2, 3}, d3 = {3};
  std::vector<sy_tensor_type> values = {
      {SY_DTYPE_F32, 2, d23.data()}, {SY_DTYPE_I64, 1, d3.data()}, {SY_DTYPE_F32, 0, nullptr}};
  std::vector<uint32_t> inputs = {0, 1}, outputs = {2};
  std::vector<uint8_t> internal = {1};
  sy_partition p{};
  p.struct_size = sizeof p;
  p.abi_version = SY_PLUGIN_ABI_VERSION;
  p.num_values = 3;
  p.values = values.data();
  p.num_nodes = 1;
  p.nodes = &f.node;
  p.num_inputs = 2;
  p.inputs = inputs.data();
  p.num_outputs = 1;
  p.outputs = outputs.data();
  p.outputs_internal = internal.data();
  MessageWriter w;
  PutPartition(w, p);
  MessageReader r(w.bytes());
  DecodedPartition d;
  ASSERT_TRUE(GetPartition(r, d).ok());
  EXPECT_TRUE(r.done());
  EXPECT_EQ(d.partition.num_values, 3u);
  EXPECT_EQ(d.partition.values[1].dims[0], 3);
  ASSERT_EQ(d.partition.num_nodes, 1u);
  EXPECT_STREQ(d.partition.nodes[0].op, "matmul");
  EXPECT_EQ(d.partition.nodes[0].input_values[1], 1u);
  EXPECT_EQ(d.partition.inputs[1], 1u);
  EXPECT_EQ(d.partition.outputs[0], 2u);
  ASSERT_NE(d.partition.outputs_internal, nullptr);
  EXPECT_EQ(d.partition.outputs_internal[0], 1u);
  ASSERT_NE(d.partition.constant_data, nullptr);
  EXPECT_EQ(d.partition.constant_data[0], nullptr);

  const std::string& bytes = w.bytes();
  for (size_t n = 0; n < bytes.size(); n += 3) {
    MessageReader t(std::string_view(bytes).substr(0, n));
    DecodedPartition dt;
    EXPECT_FALSE(GetPartition(t, dt).ok()) << "read a partition from " << n << " bytes";
  }
}

}  // namespace
}  // namespace sy::isolation
