// The OpenCL plugin through its C ABI, for what the conformance suite does not see:
// multi-node partitions with intermediates, views at arena offsets bound to execute,
// integer division by zero as a data error, sample's and qlinear_conv's data errors with
// their details, direct device-to-device copies, declines with a reason, and compilation at
// prepare time.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "opencl_test_util.h"
#include "switchyard/plugin.h"
#include "test_util.h"

namespace sy::opencl {
namespace {

// Options as the plugin host passes them: the plugins refuse a host that does not say it
// sends canonical nodes.
constexpr sy_init_options kCanonicalHost = {sizeof(sy_init_options), SY_PLUGIN_ABI_VERSION, 0,
                                            SY_INIT_FLAG_CANONICAL_NODES};

// A tensor type that owns its dims.
struct Type {
  sy_dtype dtype;
  std::vector<int64_t> dims;
};

// One node of a partition under construction.
struct NodeSpec {
  std::string op;
  std::vector<uint32_t> inputs, outputs;
  std::vector<sy_attr> attrs;
};

// Builds the ABI structs for a partition over `values`.
class PartitionBuilder {
 public:
  explicit PartitionBuilder(std::vector<Type> values) : values_(std::move(values)) {}
  void Add(NodeSpec node) { nodes_.push_back(std::move(node)); }

  const sy_partition& Build(std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    inputs_ = std::move(inputs);
    outputs_ = std::move(outputs);
    types_.clear();
    for (const Type& t : values_) {
      types_.push_back(
          {static_cast<uint32_t>(t.dtype), static_cast<uint32_t>(t.dims.size()), t.dims.data()});
    }
    node_types_.assign(nodes_.size(), {});
    raw_nodes_.clear();
    for (size_t n = 0; n < nodes_.size(); ++n) {
      NodeSpec& spec = nodes_[n];
      auto& [in, out] = node_types_[n];
      for (uint32_t v : spec.inputs) in.push_back(types_[v]);
      for (uint32_t v : spec.outputs) out.push_back(types_[v]);
      sy_node node{};
      node.struct_size = sizeof node;
      node.abi_version = SY_PLUGIN_ABI_VERSION;
      node.op = spec.op.c_str();
      node.name = "";
      node.num_inputs = static_cast<uint32_t>(in.size());
      node.num_outputs = static_cast<uint32_t>(out.size());
      node.inputs = in.data();
      node.outputs = out.data();
      node.num_attrs = static_cast<uint32_t>(spec.attrs.size());
      node.attrs = spec.attrs.data();
      node.input_values = spec.inputs.data();
      node.output_values = spec.outputs.data();
      raw_nodes_.push_back(node);
    }
    partition_ = {};
    partition_.struct_size = sizeof partition_;
    partition_.abi_version = SY_PLUGIN_ABI_VERSION;
    partition_.num_values = static_cast<uint32_t>(types_.size());
    partition_.num_nodes = static_cast<uint32_t>(raw_nodes_.size());
    partition_.values = types_.data();
    partition_.nodes = raw_nodes_.data();
    partition_.num_inputs = static_cast<uint32_t>(inputs_.size());
    partition_.num_outputs = static_cast<uint32_t>(outputs_.size());
    partition_.inputs = inputs_.data();
    partition_.outputs = outputs_.data();
    return partition_;
  }

 private:
  std::vector<Type> values_;
  std::vector<NodeSpec> nodes_;
  std::vector<sy_tensor_type> types_;
  std::vector<std::pair<std::vector<sy_tensor_type>, std::vector<sy_tensor_type>>> node_types_;
  std::vector<sy_node> raw_nodes_;
  std::vector<uint32_t> inputs_, outputs_;
  sy_partition partition_{};
};

class OpenClPluginTest : public testing::Test {
 protected:
  void SetUp() override {
    if (test::FirstDevice().second == nullptr) GTEST_SKIP() << "no OpenCL device";
    setenv("SWITCHYARD_OPENCL_CACHE", (cache_.path() / "programs").c_str(), 1);
    handle_ = dlopen(SY_OPENCL_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto query = reinterpret_cast<sy_plugin_query_fn>(dlsym(handle_, SY_PLUGIN_QUERY_SYMBOL));
    ASSERT_NE(query, nullptr);
    api_ = query(SY_PLUGIN_ABI_VERSION);
    ASSERT_NE(api_, nullptr);
    ASSERT_EQ(api_->initialize(&kCanonicalHost, &context_), nullptr);
    ASSERT_GT(api_->device_count(context_), 0u) << api_->context_status(context_);
  }
  void TearDown() override {
    if (context_ != nullptr) api_->shutdown(context_);
    if (handle_ != nullptr) dlclose(handle_);
    unsetenv("SWITCHYARD_OPENCL_CACHE");
  }

  // Expects success, or fails with the error's message.
  void Ok(sy_error* error) {
    if (error == nullptr) return;
    ADD_FAILURE() << api_->error_message(error);
    api_->error_destroy(error);
  }
  // The error code (0 for success), destroying the error.
  uint32_t Code(sy_error* error, std::string* message = nullptr) {
    if (error == nullptr) return 0;
    const uint32_t code = api_->error_code(error);
    if (message != nullptr) *message = api_->error_message(error);
    api_->error_destroy(error);
    return code;
  }

  sy_buffer* Alloc(uint64_t bytes) {
    sy_buffer* b = nullptr;
    Ok(api_->buffer_alloc(context_, 0, bytes, &b));
    return b;
  }
  template <typename T>
  void Write(sy_buffer* b, const std::vector<T>& v) {
    Ok(api_->copy_host_to_device(b, 0, v.data(), v.size() * sizeof(T)));
  }
  template <typename T>
  std::vector<T> Read(sy_buffer* b, size_t n) {
    std::vector<T> v(n);
    Ok(api_->copy_device_to_host(b, 0, v.data(), n * sizeof(T)));
    return v;
  }

  sy::test::TempDir cache_;
  void* handle_ = nullptr;
  const sy_plugin_api* api_ = nullptr;
  sy_context* context_ = nullptr;
};

TEST_F(OpenClPluginTest, DevicesAndBuffersAreDeviceMemory) {
  sy_device_info info{};
  info.struct_size = sizeof info;
  info.abi_version = SY_PLUGIN_ABI_VERSION;
  Ok(api_->device_info(context_, 0, &info));
  EXPECT_NE(std::string(info.name), "");
  EXPECT_LE(info.kind, 3u);
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_EQ(info.flags & (SY_DEVICE_FLAG_HOST_MEMORY | SY_DEVICE_FLAG_REFERENCE), 0u);
  EXPECT_STREQ(api_->context_status(context_), "");
  sy_buffer* b = Alloc(64);
  EXPECT_EQ(api_->buffer_host_pointer(b), nullptr);
  api_->buffer_free(b);
}

TEST_F(OpenClPluginTest, UnknownOpsAreDeclinedWithAReason) {
  sy_tensor_type t{SY_DTYPE_F32, 0, nullptr};
  sy_node node{};
  node.struct_size = sizeof node;
  node.abi_version = SY_PLUGIN_ABI_VERSION;
  node.op = "no_such_op";
  node.name = "";
  node.num_inputs = 1;
  node.inputs = &t;
  node.num_outputs = 1;
  node.outputs = &t;
  uint32_t supported = 1;
  char reason[128] = {};
  Ok(api_->supports_node(context_, 0, &node, &supported, reason, sizeof reason));
  EXPECT_EQ(supported, 0u);
  EXPECT_STREQ(reason, "not implemented in the OpenCL plugin");
  // A node with fewer operands than its op takes (add takes two inputs) is not canonical
  // and never sent; whatever the answer, nothing is read past the node's one input
  // (AddressSanitizer watches).
  node.op = "add";
  sy_error* error = api_->supports_node(context_, 0, &node, &supported, reason, sizeof reason);
  if (error != nullptr) {
    EXPECT_EQ(api_->error_code(error), SY_ERROR_INVALID_ARGUMENT);
    api_->error_destroy(error);
  }
  const sy_tensor_type two[2] = {t, t};
  node.num_inputs = 2;
  node.inputs = two;
  Ok(api_->supports_node(context_, 0, &node, &supported, reason, sizeof reason));
  EXPECT_EQ(supported, 1u);
}

// matmul -> add (bias) -> relu, with two intermediates the plugin allocates itself;
// inputs and the output bound as views at 256-byte arena offsets.
TEST_F(OpenClPluginTest, MultiNodePartitionOverArenaViews) {
  // values: 0 x [2,3], 1 w [3,4], 2 b [4], 3 xw [2,4], 4 xwb [2,4], 5 y [2,4]
  PartitionBuilder pb({{SY_DTYPE_F32, {2, 3}},
                       {SY_DTYPE_F32, {3, 4}},
                       {SY_DTYPE_F32, {4}},
                       {SY_DTYPE_F32, {2, 4}},
                       {SY_DTYPE_F32, {2, 4}},
                       {SY_DTYPE_F32, {2, 4}}});
  pb.Add({"matmul", {0, 1}, {3}, {}});
  pb.Add({"add", {3, 2}, {4}, {}});
  pb.Add({"relu", {4}, {5}, {}});
  const sy_partition& p = pb.Build({0, 1, 2}, {5});
  sy_executable* exe = nullptr;
  setenv("SWITCHYARD_OPENCL_GEMM", "tiled", 1);  // matmul by our kernel, not CLBlast
  Ok(api_->prepare(context_, 0, &p, &exe));
  unsetenv("SWITCHYARD_OPENCL_GEMM");
  ASSERT_NE(exe, nullptr);
  // Compiled at prepare: the program binaries are on disk before any execute.
  int binaries = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache_.path() / "programs")) {
    binaries += e.path().extension() == ".clbin";
  }
  EXPECT_EQ(binaries, 3);

  sy_buffer* arena = Alloc(4 * 256);
  sy_buffer* views[4] = {};
  const uint64_t sizes[4] = {24, 48, 16, 32};
  for (int i = 0; i < 4; ++i) Ok(api_->buffer_view(arena, 256u * i, sizes[i], &views[i]));
  const std::vector<float> x = {1, 2, 3, -4, -5, -6};
  const std::vector<float> w = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1};
  const std::vector<float> b = {0.5f, -100, 0, 0};
  Write(views[0], x);
  Write(views[1], w);
  Write(views[2], b);
  for (int run = 0; run < 3; ++run) {
    Ok(api_->execute(exe, 4, views));
    const std::vector<float> y = Read<float>(views[3], 8);
    // x @ w = [[1, 2, 3, 6], [-4, -5, -6, -15]]; + b; relu
    const std::vector<float> want = {1.5f, 0, 3, 6, 0, 0, 0, 0};
    EXPECT_EQ(y, want);
  }
  api_->release(exe);
  for (sy_buffer* v : views) api_->buffer_free(v);
  api_->buffer_free(arena);
}

// One executable at every size (execute_resized, SY_DEVICE_FLAG_RESIZABLE): matmul,
// add and relu prepared for x [2, 3] run at x [3, 3] and [1, 3] and back, with results
// computed here; a partition of another structure is refused.
TEST_F(OpenClPluginTest, ExecutablesRunAtOtherSizes) {
  sy_device_info info{};
  info.struct_size = sizeof info;
  Ok(api_->device_info(context_, 0, &info));
  EXPECT_NE(info.flags & SY_DEVICE_FLAG_RESIZABLE, 0u);
  ASSERT_NE(api_->execute_resized, nullptr);
  const auto partition = [](int64_t rows) {
    // values: 0 x [rows,3], 1 w [3,2], 2 b [2], 3 xw, 4 xwb, 5 y [rows,2]
    auto pb = std::make_unique<PartitionBuilder>(std::vector<Type>{{SY_DTYPE_F32, {rows, 3}},
                                                                   {SY_DTYPE_F32, {3, 2}},
                                                                   {SY_DTYPE_F32, {2}},
                                                                   {SY_DTYPE_F32, {rows, 2}},
                                                                   {SY_DTYPE_F32, {rows, 2}},
                                                                   {SY_DTYPE_F32, {rows, 2}}});
    pb->Add({"matmul", {0, 1}, {3}, {}});
    pb->Add({"add", {3, 2}, {4}, {}});
    pb->Add({"relu", {4}, {5}, {}});
    return pb;
  };
  auto prepared = partition(2);
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &prepared->Build({0, 1, 2}, {5}), &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* w = Alloc(24);
  sy_buffer* b = Alloc(8);
  Write(w, std::vector<float>{1, -1, 2, 0, 0, 3});  // y = relu(x @ w + b)
  Write(b, std::vector<float>{0.5f, -1});
  for (int64_t rows : {2, 3, 1, 3, 2}) {
    SCOPED_TRACE(rows);
    std::vector<float> x(static_cast<size_t>(rows * 3));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 2;
    std::vector<float> want;
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = &x[static_cast<size_t>(r * 3)];
      want.push_back(std::max(0.0f, xr[0] * 1 + xr[1] * 2 + xr[2] * 0 + 0.5f));
      want.push_back(std::max(0.0f, xr[0] * -1 + xr[1] * 0 + xr[2] * 3 - 1));
    }
    sy_buffer* xb = Alloc(x.size() * 4);
    sy_buffer* yb = Alloc(want.size() * 4);
    Write(xb, x);
    sy_buffer* bufs[4] = {xb, w, b, yb};
    auto sized = partition(rows);
    Ok(api_->execute_resized(exe, &sized->Build({0, 1, 2}, {5}), 4, bufs));
    EXPECT_EQ(Read<float>(yb, want.size()), want);
    api_->buffer_free(xb);
    api_->buffer_free(yb);
  }
  // Another structure: relu dropped.
  PartitionBuilder other({{SY_DTYPE_F32, {2, 3}},
                          {SY_DTYPE_F32, {3, 2}},
                          {SY_DTYPE_F32, {2}},
                          {SY_DTYPE_F32, {2, 2}},
                          {SY_DTYPE_F32, {2, 2}},
                          {SY_DTYPE_F32, {2, 2}}});
  other.Add({"matmul", {0, 1}, {3}, {}});
  other.Add({"add", {3, 2}, {4}, {}});
  other.Add({"add", {4, 2}, {5}, {}});
  sy_buffer* xb = Alloc(24);
  sy_buffer* yb = Alloc(16);
  sy_buffer* bufs[4] = {xb, w, b, yb};
  std::string message;
  EXPECT_EQ(Code(api_->execute_resized(exe, &other.Build({0, 1, 2}, {5}), 4, bufs), &message),
            SY_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("the partition differs from the one prepared in node 2"),
            std::string::npos)
      << message;
  for (sy_buffer* buf : {xb, yb, w, b}) api_->buffer_free(buf);
  api_->release(exe);
}

TEST_F(OpenClPluginTest, IntegerDivisionByZeroIsADataError) {
  for (const char* op : {"div", "mod"}) {
    PartitionBuilder pb({{SY_DTYPE_I32, {4}}, {SY_DTYPE_I32, {4}}, {SY_DTYPE_I32, {4}}});
    pb.Add({op, {0, 1}, {2}, {}});  // mod without fmod: the default, 0
    const sy_partition& p = pb.Build({0, 1}, {2});
    sy_executable* exe = nullptr;
    Ok(api_->prepare(context_, 0, &p, &exe));
    ASSERT_NE(exe, nullptr);
    sy_buffer* bufs[3] = {Alloc(16), Alloc(16), Alloc(16)};
    Write(bufs[0], std::vector<int32_t>{7, -7, 9, 1});
    Write(bufs[1], std::vector<int32_t>{2, 2, 3, 1});
    Ok(api_->execute(exe, 3, bufs));
    if (std::string(op) == "div") {
      EXPECT_EQ(Read<int32_t>(bufs[2], 4), (std::vector<int32_t>{3, -3, 3, 1}));
    } else {
      EXPECT_EQ(Read<int32_t>(bufs[2], 4), (std::vector<int32_t>{1, 1, 0, 0}));
    }
    Write(bufs[1], std::vector<int32_t>{2, 0, 3, 1});
    std::string message;
    EXPECT_EQ(Code(api_->execute(exe, 3, bufs), &message), static_cast<uint32_t>(SY_ERROR_DATA))
        << op;
    EXPECT_NE(message.find("by zero"), std::string::npos) << message;
    // The flag is cleared for the next run.
    Write(bufs[1], std::vector<int32_t>{2, 2, 3, 1});
    Ok(api_->execute(exe, 3, bufs));
    api_->release(exe);
    for (sy_buffer* buf : bufs) api_->buffer_free(buf);
  }
}

// qlinear_conv's scales are device data, checked once the run has finished: a scale the
// reference refuses is a data error with the reference's message (plugins/cpu/src/ref/
// conv_pool_ref.cpp QLinearConv: the first output channel at fault), and the next run with
// good scales succeeds. The data is the hand-derived case of
// tests/unit/plugins/cpu/ref/conv_pool_ref_test.cpp (a tie each way, padding, bias).
TEST_F(OpenClPluginTest, QLinearConvScaleErrorsCarryTheReferencesMessage) {
  const int64_t pad_values[2] = {1, 1};
  sy_attr pads{};
  pads.name = "pads";
  pads.kind = SY_ATTR_INTS;
  pads.count = 2;
  pads.ints = pad_values;
  sy_attr group{};
  group.name = "group";
  group.kind = SY_ATTR_INT;
  group.i = 1;
  // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, bias, y
  PartitionBuilder pb({{SY_DTYPE_U8, {1, 1, 4}},
                       {SY_DTYPE_F32, {}},
                       {SY_DTYPE_U8, {}},
                       {SY_DTYPE_I8, {2, 1, 3}},
                       {SY_DTYPE_F32, {2}},
                       {SY_DTYPE_I8, {2}},
                       {SY_DTYPE_F32, {}},
                       {SY_DTYPE_U8, {}},
                       {SY_DTYPE_I32, {2}},
                       {SY_DTYPE_U8, {1, 2, 4}}});
  pb.Add({"qlinear_conv", {0, 1, 2, 3, 4, 5, 6, 7, 8}, {9}, {pads, group}});
  const sy_partition& p = pb.Build({0, 1, 2, 3, 4, 5, 6, 7, 8}, {9});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[10] = {Alloc(4), Alloc(4), Alloc(1), Alloc(6), Alloc(8),
                         Alloc(2), Alloc(4), Alloc(1), Alloc(8), Alloc(8)};
  Write(bufs[0], std::vector<uint8_t>{10, 12, 9, 14});
  Write(bufs[1], std::vector<float>{0.5f});
  Write(bufs[2], std::vector<uint8_t>{10});
  Write(bufs[3], std::vector<int8_t>{2, 1, 3, -2, 0, 1});
  Write(bufs[5], std::vector<int8_t>{1, -2});
  Write(bufs[6], std::vector<float>{0.5f});
  Write(bufs[7], std::vector<uint8_t>{100});
  Write(bufs[8], std::vector<int32_t>{5, -3});
  const auto run = [&](std::vector<float> w_scale) {
    Write(bufs[4], w_scale);
    std::string message;
    const uint32_t code = Code(api_->execute(exe, 10, bufs), &message);
    return code == 0 ? std::string() : std::to_string(code) + " " + message;
  };
  EXPECT_EQ(run({0.5f, 0.25f}), "");
  EXPECT_EQ(Read<uint8_t>(bufs[9], 8),
            (std::vector<uint8_t>{104, 102, 108, 102, 101, 100, 102, 101}));
  const std::string data = std::to_string(SY_ERROR_DATA) + " execute: qlinear_conv: ";
  EXPECT_EQ(run({0.5f, -0.25f}),
            data + "w_scale is -0.25 but scales must be positive and finite (output channel 1)");
  EXPECT_EQ(run({std::numeric_limits<float>::infinity(), 0.0f}),
            data + "w_scale is inf but scales must be positive and finite (output channel 0)");
  EXPECT_EQ(run({0.5f, 0.25f}), "");
  Write(bufs[1], std::vector<float>{3e38f});
  const std::string overflow = run({10.0f, 0.25f});
  EXPECT_EQ(overflow.rfind(data + "x_scale * w_scale / y_scale overflows f32 (", 0), 0u)
      << overflow;
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

TEST_F(OpenClPluginTest, GatherIndexOutOfRangeIsADataError) {
  // data [3, 2] f32, indices [2] i64 -> [2, 2]
  PartitionBuilder pb({{SY_DTYPE_F32, {3, 2}}, {SY_DTYPE_I64, {2}}, {SY_DTYPE_F32, {2, 2}}});
  pb.Add({"gather", {0, 1}, {2}, {}});
  const sy_partition& p = pb.Build({0, 1}, {2});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[3] = {Alloc(24), Alloc(16), Alloc(16)};
  Write(bufs[0], std::vector<float>{0, 1, 10, 11, 20, 21});
  Write(bufs[1], std::vector<int64_t>{2, -3});
  Ok(api_->execute(exe, 3, bufs));
  EXPECT_EQ(Read<float>(bufs[2], 4), (std::vector<float>{20, 21, 0, 1}));
  for (int64_t bad : {3, -4}) {
    Write(bufs[1], std::vector<int64_t>{0, bad});
    std::string message;
    EXPECT_EQ(Code(api_->execute(exe, 3, bufs), &message), static_cast<uint32_t>(SY_ERROR_DATA))
        << bad;
    EXPECT_NE(message.find("out of range"), std::string::npos) << message;
  }
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

TEST_F(OpenClPluginTest, GatherNDIndexOutOfRangeIsADataError) {
  // data [2, 3] f32, indices [2, 2] i32 (pairs) -> [2]
  PartitionBuilder pb({{SY_DTYPE_F32, {2, 3}}, {SY_DTYPE_I32, {2, 2}}, {SY_DTYPE_F32, {2}}});
  pb.Add({"gather_nd", {0, 1}, {2}, {}});
  const sy_partition& p = pb.Build({0, 1}, {2});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[3] = {Alloc(24), Alloc(16), Alloc(8)};
  Write(bufs[0], std::vector<float>{0, 1, 2, 10, 11, 12});
  Write(bufs[1], std::vector<int32_t>{1, -1, -2, 0});
  Ok(api_->execute(exe, 3, bufs));
  EXPECT_EQ(Read<float>(bufs[2], 2), (std::vector<float>{12, 0}));
  for (const std::vector<int32_t>& bad :
       {std::vector<int32_t>{0, 0, 2, 0}, std::vector<int32_t>{0, -4, 0, 0}}) {
    Write(bufs[1], bad);
    std::string message;
    EXPECT_EQ(Code(api_->execute(exe, 3, bufs), &message), static_cast<uint32_t>(SY_ERROR_DATA));
    EXPECT_NE(message.find("out of range"), std::string::npos) << message;
  }
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

// scatter_nd finds the tuples naming each position in a scratch buffer that every execute
// starts afresh: a second run with other indices must not see the first run's.
TEST_F(OpenClPluginTest, ScatterNDAcrossRunsAndOutOfRange) {
  for (const char* reduction : {"none", "add"}) {
    // data [4] i32, indices [3, 1] i64, updates [3] -> [4]
    PartitionBuilder pb(
        {{SY_DTYPE_I32, {4}}, {SY_DTYPE_I64, {3, 1}}, {SY_DTYPE_I32, {3}}, {SY_DTYPE_I32, {4}}});
    sy_attr attr{};
    attr.name = "reduction";
    attr.kind = SY_ATTR_STRING;
    attr.s = reduction;
    pb.Add({"scatter_nd", {0, 1, 2}, {3}, {attr}});
    const sy_partition& p = pb.Build({0, 1, 2}, {3});
    sy_executable* exe = nullptr;
    Ok(api_->prepare(context_, 0, &p, &exe));
    ASSERT_NE(exe, nullptr);
    sy_buffer* bufs[4] = {Alloc(16), Alloc(24), Alloc(12), Alloc(16)};
    Write(bufs[0], std::vector<int32_t>{100, 200, 300, 400});
    Write(bufs[2], std::vector<int32_t>{5, 6, 7});
    const bool add = std::string(reduction) == "add";
    Write(bufs[1], std::vector<int64_t>{1, 1, -1});
    Ok(api_->execute(exe, 4, bufs));
    EXPECT_EQ(Read<int32_t>(bufs[3], 4), add ? (std::vector<int32_t>{100, 211, 300, 407})
                                             : (std::vector<int32_t>{100, 6, 300, 7}));
    Write(bufs[1], std::vector<int64_t>{0, 2, 2});
    Ok(api_->execute(exe, 4, bufs));
    EXPECT_EQ(Read<int32_t>(bufs[3], 4), add ? (std::vector<int32_t>{105, 200, 313, 400})
                                             : (std::vector<int32_t>{5, 200, 7, 400}));
    for (int64_t bad : {4, -5}) {
      Write(bufs[1], std::vector<int64_t>{0, bad, 1});
      std::string message;
      EXPECT_EQ(Code(api_->execute(exe, 4, bufs), &message), static_cast<uint32_t>(SY_ERROR_DATA))
          << reduction << " " << bad;
      EXPECT_NE(message.find("out of range"), std::string::npos) << message;
    }
    api_->release(exe);
    for (sy_buffer* buf : bufs) api_->buffer_free(buf);
  }
}

// The integer mean sums in 128 bits, as the reference does: exact past int64's range.
TEST_F(OpenClPluginTest, IntegerMeanIsExactBeyond64Bits) {
  PartitionBuilder pb({{SY_DTYPE_I64, {3}}, {SY_DTYPE_I64, {1}}});
  pb.Add({"reduce_mean", {0}, {1}, {}});
  const sy_partition& p = pb.Build({0}, {1});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[2] = {Alloc(24), Alloc(8)};
  const int64_t big = INT64_MAX;
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{big, big, -1}, 6148914691236517204},              // (2^64 - 3) / 3, truncated
      {{INT64_MIN, INT64_MIN, 1}, -6148914691236517205},  // (1 - 2^64) / 3
      {{-7, 0, 0}, -2},
  };
  for (const auto& [values, mean] : cases) {
    Write(bufs[0], values);
    Ok(api_->execute(exe, 2, bufs));
    EXPECT_EQ(Read<int64_t>(bufs[1], 1)[0], mean);
  }
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

// grid_sample with reflection folds a coordinate far outside back into the input the way
// the reference does (in double): x = [10, 20, 30, 40], grid x of 1.5e9 gives the
// coordinate 2 * 1.5e9 + 1.5, which reflects (an odd number of spans of 4 past 3.5) to
// 1.5, halfway between 20 and 30. In float the coordinate keeps too few bits (15 was read).
TEST_F(OpenClPluginTest, GridSampleReflectsFarCoordinatesAsTheReference) {
  sy_attr padding{};
  padding.name = "padding_mode";
  padding.kind = SY_ATTR_STRING;
  padding.s = "reflection";
  PartitionBuilder pb(
      {{SY_DTYPE_F32, {1, 1, 1, 4}}, {SY_DTYPE_F32, {1, 1, 3, 2}}, {SY_DTYPE_F32, {1, 1, 1, 3}}});
  pb.Add({"grid_sample", {0, 1}, {2}, {padding}});
  const sy_partition& p = pb.Build({0, 1}, {2});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[3] = {Alloc(16), Alloc(24), Alloc(12)};
  Write(bufs[0], std::vector<float>{10, 20, 30, 40});
  // (x, y) per point: 1.5e9 -> 1.5 (25); -1.5e9 -> -3e9 + 1.5, an odd number of spans
  // below -0.5 and 2 more, reflects to 1.5 as well (25); 0.25 -> 2 (30).
  Write(bufs[1], std::vector<float>{1.5e9f, 0, -1.5e9f, 0, 0.25f, 0});
  Ok(api_->execute(exe, 3, bufs));
  const std::vector<float> y = Read<float>(bufs[2], 3);
  EXPECT_FLOAT_EQ(y[0], 25.0f);
  EXPECT_FLOAT_EQ(y[1], 25.0f);
  EXPECT_FLOAT_EQ(y[2], 30.0f);
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

TEST_F(OpenClPluginTest, DeviceToDeviceCopies) {
  ASSERT_NE(api_->copy_device_to_device, nullptr);
  sy_buffer* a = Alloc(1024);
  sy_buffer* b = Alloc(1024);
  std::vector<uint8_t> bytes(1024);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  Write(a, bytes);
  Ok(api_->copy_device_to_device(b, 3, a, 5, 1000));
  const std::vector<uint8_t> got = Read<uint8_t>(b, 1024);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(got[3 + i], bytes[5 + i]) << i;
  // Overlapping ranges of one buffer (staged), and through views.
  Ok(api_->copy_device_to_device(a, 0, a, 8, 512));
  const std::vector<uint8_t> shifted = Read<uint8_t>(a, 512);
  for (size_t i = 0; i < 512; ++i) ASSERT_EQ(shifted[i], bytes[8 + i]) << i;
  sy_buffer* view = nullptr;
  Ok(api_->buffer_view(b, 256, 256, &view));
  Ok(api_->copy_device_to_device(view, 0, a, 0, 256));
  EXPECT_EQ(Read<uint8_t>(b, 512)[256], shifted[0]);
  std::string message;
  EXPECT_EQ(Code(api_->copy_device_to_device(view, 1, a, 0, 256), &message),
            static_cast<uint32_t>(SY_ERROR_INVALID_ARGUMENT));
  api_->buffer_free(view);
  api_->buffer_free(a);
  api_->buffer_free(b);
}

// sample's data errors carry the reference's message (plugins/cpu/src/ref/sampling_ref.cpp):
// the first row at fault, in a row a NaN (its first index) before the uniform number, and
// the number with 17 significant digits. The status is rewritten by every run.
TEST_F(OpenClPluginTest, SampleDataErrorsNameTheRowAndTheValue) {
  sy_attr method{};
  method.name = "method";
  method.kind = SY_ATTR_STRING;
  method.s = "temperature";
  PartitionBuilder pb({{SY_DTYPE_F32, {3, 4}}, {SY_DTYPE_F64, {3}}, {SY_DTYPE_I64, {3}}});
  pb.Add({"sample", {0, 1}, {2}, {method}});
  const sy_partition& p = pb.Build({0, 1}, {2});
  sy_executable* exe = nullptr;
  Ok(api_->prepare(context_, 0, &p, &exe));
  ASSERT_NE(exe, nullptr);
  sy_buffer* bufs[3] = {Alloc(48), Alloc(24), Alloc(24)};
  // One logit far above the rest: p of the others is e^-50, so u = 0.5 picks it.
  const std::vector<float> good = {0, 0, 50, 0, 50, 0, 0, 0, 0, 0, 0, 50};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto run = [&](std::vector<float> logits, std::vector<double> u) {
    Write(bufs[0], logits);
    Write(bufs[1], u);
    std::string message;
    const uint32_t code = Code(api_->execute(exe, 3, bufs), &message);
    return code == 0 ? std::string() : std::to_string(code) + " " + message;
  };
  EXPECT_EQ(run(good, {0.5, 0.5, 0.5}), "");
  EXPECT_EQ(Read<int64_t>(bufs[2], 3), (std::vector<int64_t>{2, 0, 3}));
  const std::string data = std::to_string(SY_ERROR_DATA) + " execute: sample: ";
  std::vector<float> bad = good;
  bad[4 + 3] = nan;
  bad[8 + 1] = nan;
  bad[8 + 2] = nan;
  EXPECT_EQ(run(bad, {0.5, 0.5, 1.0}), data + "row 1 of logits has a NaN at index 3");
  EXPECT_EQ(run(good, {0.5, 0.5, 1.0}), data + "uniform[2] (row 2) is 1, outside [0, 1)");
  EXPECT_EQ(run(good, {0.5, -0.1, 1.0}),
            data + "uniform[1] (row 1) is -0.10000000000000001, outside [0, 1)");
  bad[4 + 3] = 0;
  EXPECT_EQ(run(bad, {0.5, 0.5, 1.0}), data + "row 2 of logits has a NaN at index 1");
  EXPECT_EQ(run(good, {0.5, 0.5, 0.5}), "");
  EXPECT_EQ(Read<int64_t>(bufs[2], 3), (std::vector<int64_t>{2, 0, 3}));
  api_->release(exe);
  for (sy_buffer* buf : bufs) api_->buffer_free(buf);
}

// sample on cases whose sums are exact (docs/ops.md, "Sampling"): a uniform number on the
// boundary between two tokens picks the later one, ties go to the lower index (greedy, and
// "by p" for top_k and top_p), +inf logits share the mass, -inf ones are never picked; and
// the tokens below the kernel's first floor of p are sorted when the method needs them.
TEST_F(OpenClPluginTest, SampleFollowsTheSpecOnBoundariesAndTies) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto tokens = [&](const char* method, const char* extra, sy_attr_kind kind, double value,
                          const std::vector<float>& logits, const std::vector<double>& u) {
    const int64_t n = static_cast<int64_t>(u.size());
    const int64_t v = static_cast<int64_t>(logits.size()) / n;
    std::vector<sy_attr> attrs(1);
    attrs[0].name = "method";
    attrs[0].kind = SY_ATTR_STRING;
    attrs[0].s = method;
    if (extra != nullptr) {
      sy_attr a{};
      a.name = extra;
      a.kind = kind;
      a.i = static_cast<int64_t>(value);
      a.f = value;
      attrs.push_back(a);
    }
    PartitionBuilder pb({{SY_DTYPE_F32, {n, v}}, {SY_DTYPE_F64, {n}}, {SY_DTYPE_I64, {n}}});
    pb.Add({"sample", {0, 1}, {2}, attrs});
    const sy_partition& p = pb.Build({0, 1}, {2});
    sy_executable* exe = nullptr;
    Ok(api_->prepare(context_, 0, &p, &exe));
    if (exe == nullptr) return std::vector<int64_t>();
    sy_buffer* bufs[3] = {Alloc(static_cast<uint64_t>(4 * n * v)),
                          Alloc(static_cast<uint64_t>(8 * n)), Alloc(static_cast<uint64_t>(8 * n))};
    Write(bufs[0], logits);
    Write(bufs[1], u);
    Ok(api_->execute(exe, 3, bufs));
    std::vector<int64_t> got = Read<int64_t>(bufs[2], static_cast<size_t>(n));
    api_->release(exe);
    for (sy_buffer* buf : bufs) api_->buffer_free(buf);
    return got;
  };
  EXPECT_EQ(tokens("greedy", nullptr, SY_ATTR_INT, 0,
                   {1, 3, 3, -inf, -inf, -inf, -inf, -inf, -0.0f, 0.0f, -1, inf}, {0, 0, 0}),
            (std::vector<int64_t>{1, 0, 3}));
  // p = 1 at every 0 and +inf (the maximum), 0 at -inf beside a larger logit.
  EXPECT_EQ(
      tokens("temperature", nullptr, SY_ATTR_INT, 0,
             {0, 0, 0, 0, 0, 0, 0, 0, inf, 0, inf, 0, -inf, -inf, -inf, -inf, 0, -inf, 0, -inf},
             {0.25, 0, 0.5, 0.75, 0.5}),
      (std::vector<int64_t>{1, 0, 2, 3, 2}));
  EXPECT_EQ(tokens("top_k", "top_k", SY_ATTR_INT, 2, {0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0},
                   {0.5, 0.5, 0.4999}),
            (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(tokens("top_p", "top_p", SY_ATTR_FLOAT, 0.5, {0, 0, 0, 0, -inf, 0, 0, 0}, {0.5, 0.5}),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(tokens("min_p", "min_p", SY_ATTR_FLOAT, 1.0, {0, 5, 5, 1}, {0.5}),
            (std::vector<int64_t>{2}));

  // One logit at 0 (the last) and 999 at -7.5, whose p (e^-7.5) lies below the kernel's
  // first floor (2^-10) but whose mass counts: top_k = 600 and top_p = 0.9 keep some.
  std::vector<float> tail(1000, -7.5f);
  tail[999] = 0;
  const double pt = std::exp(-7.5);
  // The walk in ascending index order over the first `kept` tail tokens, then token 999.
  const auto walk = [pt](int kept, double u) {
    double total = 0;
    for (int i = 0; i < kept; ++i) total += pt;
    total += 1.0;
    const double target = u * total;
    double running = 0;
    for (int i = 0; i < kept; ++i) {
      running += pt;
      if (running > target) return int64_t{i};
    }
    return int64_t{999};
  };
  EXPECT_EQ(tokens("top_k", "top_k", SY_ATTR_INT, 600, tail, {0.1}),
            (std::vector<int64_t>{walk(599, 0.1)}));
  double all = 0;  // top_p: S in index order, then the prefix by p (token 999 first)
  for (int i = 0; i < 999; ++i) all += pt;
  all += 1.0;
  double prefix = 1.0;
  int kept = 0;
  while (prefix < 0.9 * all) {
    prefix += pt;
    ++kept;
  }
  EXPECT_EQ(tokens("top_p", "top_p", SY_ATTR_FLOAT, 0.9, tail, {0.2}),
            (std::vector<int64_t>{walk(kept, 0.2)}));
  EXPECT_GT(walk(599, 0.1), 100);  // tail tokens, not 999
  EXPECT_LT(walk(kept, 0.2), 999);
}

// Shapes an op would not give are never sent (canonical nodes, plugin-abi.md); what the
// plugin kit still refuses is structure: an operand naming a value the table lacks.
TEST_F(OpenClPluginTest, OperandsOutsideTheValueTableAreRefusedAtPrepare) {
  PartitionBuilder pb({{SY_DTYPE_F32, {2, 3}}, {SY_DTYPE_F32, {2, 3}}, {SY_DTYPE_F32, {2, 3}}});
  pb.Add({"add", {0, 1}, {2}, {}});
  const sy_partition& p = pb.Build({0, 7}, {2});  // a bound input the table lacks
  sy_executable* exe = nullptr;
  std::string message;
  EXPECT_EQ(Code(api_->prepare(context_, 0, &p, &exe), &message),
            static_cast<uint32_t>(SY_ERROR_INVALID_ARGUMENT));
  EXPECT_EQ(exe, nullptr);
  EXPECT_NE(message.find("input names value 7 of 3"), std::string::npos) << message;
}

}  // namespace
}  // namespace sy::opencl
