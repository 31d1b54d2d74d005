// The CUDA plugin (plugins/cuda, docs/cuda.md). Runs everywhere: without a GPU or driver
// the plugin must load and report zero devices with the CUDA error as the reason; the
// host-side parts (broadcast collapsing, node decoding, the registry, the pool's size
// classes, lazy cuBLAS) need no GPU. Tests that need one skip with the plugin's reason
// when there is none; tools/cuda_gpu_check.sh runs them on a GPU machine.
#include <cublas_v2.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cu_op.h"
#include "cuda_executable.h"
#include "cuda_runtime.h"
#include "switchyard/op_schema.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace sy::cuda {
namespace {

// Options as the plugin host passes them: the plugins refuse a host that does not say it
// sends canonical nodes.
constexpr sy_init_options kCanonicalHost = {sizeof(sy_init_options), SY_PLUGIN_ABI_VERSION, 0,
                                            SY_INIT_FLAG_CANONICAL_NODES};

// Expects `part` within `text` (both convertible to std::string).
#define EXPECT_CONTAINS(text, part)                          \
  EXPECT_NE(std::string(text).find(part), std::string::npos) \
      << "\"" << std::string(text) << "\" lacks \"" << std::string(part) << "\""

// ---- the plugin through the C ABI ---------------------------------------------------------

class CudaAbi {
 public:
  CudaAbi() {
    handle_ = dlopen(SY_CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      error_ = dlerror();
      return;
    }
    auto query = reinterpret_cast<sy_plugin_query_fn>(dlsym(handle_, SY_PLUGIN_QUERY_SYMBOL));
    if (query == nullptr) return;
    api_ = query(SY_PLUGIN_ABI_VERSION);
    if (api_ == nullptr) return;
    sy_error* error = api_->initialize(&kCanonicalHost, &context_);
    if (error != nullptr) {
      error_ = api_->error_message(error);
      api_->error_destroy(error);
    }
  }
  ~CudaAbi() {
    if (context_ != nullptr) api_->shutdown(context_);
    if (handle_ != nullptr) dlclose(handle_);
  }
  CudaAbi(const CudaAbi&) = delete;
  CudaAbi& operator=(const CudaAbi&) = delete;

  bool ok() const { return context_ != nullptr; }
  const std::string& error() const { return error_; }
  const sy_plugin_api* api() const { return api_; }
  sy_context* context() const { return context_; }
  uint32_t devices() const { return api_->device_count(context_); }
  std::string status() const { return api_->context_status(context_); }

 private:
  void* handle_ = nullptr;
  const sy_plugin_api* api_ = nullptr;
  sy_context* context_ = nullptr;
  std::string error_;
};

// What the runtime says about this machine: (device count, the error when it fails).
std::pair<int, cudaError_t> RuntimeDevices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return {0, err};
  }
  return {count, cudaSuccess};
}

TEST(CudaPluginTest, LoadsAndReportsItsDevicesOrWhyNot) {
  CudaAbi plugin;
  ASSERT_TRUE(plugin.ok()) << plugin.error();
  EXPECT_STREQ(plugin.api()->info->name, "cuda");
  const auto [count, err] = RuntimeDevices();
  if (count == 0) {
    // No GPU or no driver (this development machine: cudaErrorInsufficientDriver): zero
    // devices, and the status names the CUDA error.
    EXPECT_EQ(plugin.devices(), 0u);
    const std::string status = plugin.status();
    EXPECT_CONTAINS(status, "no CUDA device");
    if (err != cudaSuccess) {
      EXPECT_CONTAINS(status, cudaGetErrorString(err));
      EXPECT_CONTAINS(status, cudaGetErrorName(err));
    }
    // Device-indexed calls are refused, never a crash.
    sy_buffer* buffer = nullptr;
    sy_error* error = plugin.api()->buffer_alloc(plugin.context(), 0, 16, &buffer);
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(plugin.api()->error_code(error), static_cast<uint32_t>(SY_ERROR_NOT_FOUND));
    plugin.api()->error_destroy(error);
    return;
  }
  EXPECT_GT(plugin.devices(), 0u);
  for (uint32_t d = 0; d < plugin.devices(); ++d) {
    sy_device_info info{};
    info.struct_size = sizeof info;
    info.abi_version = SY_PLUGIN_ABI_VERSION;
    ASSERT_EQ(plugin.api()->device_info(plugin.context(), d, &info), nullptr);
    EXPECT_NE(std::string(info.name), "");
    EXPECT_TRUE(info.kind == SY_DEVICE_DISCRETE_GPU || info.kind == SY_DEVICE_INTEGRATED_GPU);
    EXPECT_EQ(info.flags & (SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64),
              static_cast<uint32_t>(SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64));
    EXPECT_EQ(info.flags & SY_DEVICE_FLAG_HOST_MEMORY, 0u);
    EXPECT_GT(info.memory_bytes, 0u);
  }
}

TEST(CudaPluginTest, LoadsAndUnloadsRepeatedly) {
  for (int i = 0; i < 4; ++i) {
    CudaAbi plugin;
    ASSERT_TRUE(plugin.ok()) << plugin.error();
    if (plugin.devices() == 0) {
      EXPECT_NE(plugin.status(), "");
    }
  }
}

TEST(CudaPluginTest, PluginHostShowsTheReason) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_CUDA_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  if (RuntimeDevices().first == 0) {
    // A plugin without devices is not loaded; asked for explicitly, that is an error
    // that carries the plugin's status (what `switchyard plugins` shows).
    ASSERT_FALSE(host.ok());
    EXPECT_CONTAINS(host.status().message(), "no devices: no CUDA device");
    return;
  }
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  ASSERT_EQ((*host)->plugins().size(), 1u);
  EXPECT_EQ((*host)->plugins()[0]->name(), "cuda");
  EXPECT_FALSE((*host)->plugins()[0]->devices().empty());
}

TEST(CudaPluginTest, NoDeviceStatusExplainsTheError) {
  const std::string driver = NoDeviceStatus(cudaErrorInsufficientDriver);
  EXPECT_CONTAINS(driver, "no CUDA device: ");
  EXPECT_CONTAINS(driver, "cudaErrorInsufficientDriver");
  EXPECT_CONTAINS(driver, cudaGetErrorString(cudaErrorInsufficientDriver));
  EXPECT_CONTAINS(driver, "driver");
  const std::string none = NoDeviceStatus(cudaErrorNoDevice);
  EXPECT_CONTAINS(none, "cudaErrorNoDevice");
  EXPECT_CONTAINS(none, "CUDA_VISIBLE_DEVICES");
  EXPECT_CONTAINS(NoDeviceStatus(cudaErrorInitializationError), "no CUDA device: ");
}

// ---- host-side helpers ----------------------------------------------------------------------

std::vector<int64_t> Collapse(const Shape& out, const std::vector<Shape>& inputs, int& rank) {
  std::vector<int64_t> meta;
  rank = CollapseBroadcast(out, inputs, meta);
  return meta;
}

TEST(CudaCollapseBroadcastTest, SameShapesMergeIntoOneDim) {
  int rank = 0;
  EXPECT_EQ(Collapse({2, 3, 4}, {{2, 3, 4}, {2, 3, 4}}, rank), (std::vector<int64_t>{24, 1, 1}));
  EXPECT_EQ(rank, 1);
}

TEST(CudaCollapseBroadcastTest, ScalarsAndOnesBroadcastWithStrideZero) {
  int rank = 0;
  EXPECT_EQ(Collapse({2, 3}, {{2, 3}, {}}, rank), (std::vector<int64_t>{6, 1, 0}));
  EXPECT_EQ(rank, 1);
  EXPECT_EQ(Collapse({2, 3}, {{2, 3}, {1, 1}}, rank), (std::vector<int64_t>{6, 1, 0}));
  // Every dim 1 (or a scalar output): one element.
  EXPECT_EQ(Collapse({1, 1}, {{1, 1}, {1}}, rank), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(Collapse({}, {{}, {}}, rank), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(rank, 1);
}

TEST(CudaCollapseBroadcastTest, TrailingVectorKeepsTwoDims) {
  int rank = 0;
  // [2,3] + [3]: a's strides 3,1; b's 0,1.
  EXPECT_EQ(Collapse({2, 3}, {{2, 3}, {3}}, rank), (std::vector<int64_t>{2, 3, 3, 1, 0, 1}));
  EXPECT_EQ(rank, 2);
  // [2,3] + [2,1]: b's strides 1,0.
  EXPECT_EQ(Collapse({2, 3}, {{2, 3}, {2, 1}}, rank), (std::vector<int64_t>{2, 3, 3, 1, 1, 0}));
}

TEST(CudaCollapseBroadcastTest, DimsOfOneAreDroppedAndNeighboursMerged) {
  int rank = 0;
  // [4,1,5,6] with [5,6]: the 1 goes, 5 and 6 merge (both inputs contiguous there).
  EXPECT_EQ(Collapse({4, 1, 5, 6}, {{4, 1, 5, 6}, {5, 6}}, rank),
            (std::vector<int64_t>{4, 30, 30, 1, 0, 1}));
  EXPECT_EQ(rank, 2);
  // Outer product [3,1] x [1,4] -> [3,4]; three inputs (where).
  EXPECT_EQ(Collapse({3, 4}, {{3, 1}, {1, 4}, {3, 4}}, rank),
            (std::vector<int64_t>{3, 4, 1, 0, 0, 1, 4, 1}));
  EXPECT_EQ(rank, 2);
}

TEST(CudaCollapseBroadcastTest, EmptyOutputs) {
  int rank = 0;
  const std::vector<int64_t> meta = Collapse({0, 3}, {{0, 3}, {3}}, rank);
  ASSERT_EQ(rank, 2);
  EXPECT_EQ(meta[0] * meta[1], 0);
}

sy_node MakeNode(const char* op, const sy_tensor_type* in, uint32_t nin, const sy_tensor_type* out,
                 uint32_t nout, const sy_attr* attrs = nullptr, uint32_t nattrs = 0) {
  sy_node node{};
  node.struct_size = sizeof node;
  node.abi_version = SY_PLUGIN_ABI_VERSION;
  node.op = op;
  node.name = "n";
  node.num_inputs = nin;
  node.inputs = in;
  node.num_outputs = nout;
  node.outputs = out;
  node.num_attrs = nattrs;
  node.attrs = attrs;
  return node;
}

// The error code DecodeNode throws (0 when it decodes).
uint32_t DecodeError(const sy_node& node, std::string* message = nullptr) {
  try {
    (void)DecodeNode(node);
  } catch (const sy_sdk::Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return 0;
}

TEST(CudaDecodeNodeTest, DecodesTypesAndAttributes) {
  const int64_t dims[] = {2, 3};
  const sy_tensor_type t{SY_DTYPE_F16, 2, dims};
  const sy_tensor_type in[] = {t, t};
  sy_attr attr{};
  attr.name = "fmod";
  attr.kind = SY_ATTR_INT;
  attr.i = 1;
  const NodeInfo info = DecodeNode(MakeNode("mod", in, 2, &t, 1, &attr, 1));
  EXPECT_EQ(info.op, "mod");
  EXPECT_EQ(info.Describe(), "mod \"n\"");
  ASSERT_EQ(info.inputs.size(), 2u);
  EXPECT_EQ(info.inputs[1].dtype, DType::kF16);
  EXPECT_EQ(info.outputs[0].shape, (Shape{2, 3}));
  EXPECT_EQ(info.attrs.GetInt("fmod"), 1);
}

TEST(CudaDecodeNodeTest, MalformedNodesAreInvalidArguments) {
  constexpr uint32_t kInvalid = SY_ERROR_INVALID_ARGUMENT;
  const int64_t dims[] = {2};
  const sy_tensor_type t{SY_DTYPE_F32, 1, dims};
  sy_node node = MakeNode("relu", &t, 1, &t, 1);
  node.op = nullptr;
  EXPECT_EQ(DecodeError(node), kInvalid);
  node = MakeNode("relu", nullptr, 1, &t, 1);  // an input count without inputs
  EXPECT_EQ(DecodeError(node), kInvalid);
  node = MakeNode("relu", &t, 1, nullptr, 1);
  EXPECT_EQ(DecodeError(node), kInvalid);
  node = MakeNode("relu", &t, 1, &t, 1, nullptr, 2);  // attributes missing
  EXPECT_EQ(DecodeError(node), kInvalid);
  sy_attr nameless{};
  nameless.kind = SY_ATTR_INT;
  node = MakeNode("relu", &t, 1, &t, 1, &nameless, 1);
  std::string message;
  EXPECT_EQ(DecodeError(node, &message), kInvalid);
  EXPECT_CONTAINS(message, "name is NULL");
  const sy_tensor_type bad_dtype{99, 1, dims};
  node = MakeNode("relu", &bad_dtype, 1, &t, 1);
  EXPECT_EQ(DecodeError(node), kInvalid);
  const sy_tensor_type no_dims{SY_DTYPE_F32, 2, nullptr};
  node = MakeNode("relu", &no_dims, 1, &t, 1);
  EXPECT_EQ(DecodeError(node), kInvalid);
  sy_attr bad_list{};
  bad_list.name = "axes";
  bad_list.kind = SY_ATTR_INTS;
  bad_list.count = 3;  // ints is NULL
  node = MakeNode("relu", &t, 1, &t, 1, &bad_list, 1);
  EXPECT_EQ(DecodeError(node), kInvalid);
}

TEST(CudaRegistryTest, EveryEntryIsACatalogueOpRegisteredOnce) {
  const CuOpRegistry& registry = CuOpRegistry::Global();
  std::vector<std::string_view> seen;
  for (const CuOpRegistry::Entry& e : registry.entries()) {
    EXPECT_NE(OpRegistry::Global().Find(e.op), nullptr) << e.op;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), e.op), 0) << e.op << " registered twice";
    EXPECT_NE(e.supports, nullptr);
    EXPECT_NE(e.create, nullptr);
    seen.push_back(e.op);
  }
}

TEST(CudaRegistryTest, TheElementwiseFamilyIsComplete) {
  for (const char* op :
       {"neg",        "abs",   "sign",  "exp",        "log",        "sqrt",         "rsqrt",
        "reciprocal", "sin",   "cos",   "tan",        "asin",       "acos",         "atan",
        "asinh",      "acosh", "atanh", "erf",        "tanh",       "sigmoid",      "relu",
        "softplus",   "silu",  "gelu",  "leaky_relu", "elu",        "hard_sigmoid", "hard_swish",
        "softsign",   "mish",  "selu",  "floor",      "ceil",       "round",        "not",
        "clip",       "add",   "sub",   "mul",        "div",        "pow",          "max",
        "min",        "mod",   "equal", "less",       "less_equal", "greater",      "greater_equal",
        "and",        "or",    "xor",   "prelu",      "where",      "cast"}) {
    EXPECT_NE(CuOpRegistry::Global().Find(op), nullptr) << op;
  }
}

// SupportsNode reads only the device's capabilities: a Device made here (no GPU needed).
TEST(CudaRegistryTest, SupportDecisionsCarryReasons) {
  Device device;
  device.compute_major = 9;
  const int64_t d23[] = {2, 3}, d3[] = {3};
  const sy_tensor_type a{SY_DTYPE_F32, 2, d23}, b{SY_DTYPE_F32, 1, d3};
  const sy_tensor_type in[] = {a, b};
  std::string reason;
  EXPECT_TRUE(SupportsNode(device, DecodeNode(MakeNode("add", in, 2, &a, 1)), reason)) << reason;
  // The op-level question (no inputs, no outputs).
  EXPECT_TRUE(
      SupportsNode(device, DecodeNode(MakeNode("sigmoid", nullptr, 0, nullptr, 0)), reason));
  EXPECT_FALSE(SupportsNode(device, DecodeNode(MakeNode("no_such_op", &a, 1, &a, 1)), reason));
  EXPECT_EQ(reason, "not implemented in the CUDA plugin");
  // A node with fewer operands than its op reads (add takes two) is not canonical (the
  // host never sends one): NodeInfo's checked access refuses it instead of reading on.
  const NodeInfo one_input = DecodeNode(MakeNode("add", &a, 1, &a, 1));
  EXPECT_THROW((void)one_input.inputs[1], sy_sdk::Error);
  // Every catalogue op is either registered or declined as not implemented yet.
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    const std::string op(schema.name);
    const bool ok =
        SupportsNode(device, DecodeNode(MakeNode(op.c_str(), nullptr, 0, nullptr, 0)), reason);
    if (!ok) {
      EXPECT_EQ(reason, "not implemented in the CUDA plugin") << op;
    }
  }
}

TEST(CudaPoolTest, SizeClassesWasteAtMostAQuarter) {
  EXPECT_EQ(BufferPool::SizeClass(0), 0u);
  EXPECT_EQ(BufferPool::SizeClass(1), 512u);
  EXPECT_EQ(BufferPool::SizeClass(512), 512u);
  EXPECT_EQ(BufferPool::SizeClass(513), 640u);
  EXPECT_EQ(BufferPool::SizeClass(1024), 1024u);
  EXPECT_EQ(BufferPool::SizeClass(1025), 1280u);
  uint64_t previous = 0;
  for (uint64_t bytes = 1; bytes < (uint64_t{256} << 20); bytes = bytes * 5 / 4 + 7) {
    const uint64_t cls = BufferPool::SizeClass(bytes);
    EXPECT_GE(cls, bytes);
    EXPECT_GE(cls, previous);
    EXPECT_EQ(BufferPool::SizeClass(cls), cls) << bytes;  // a class is its own class
    if (bytes > 512 && bytes < (uint64_t{64} << 20)) {
      EXPECT_LE(cls, bytes + bytes / 4) << bytes;
    }
    if (bytes >= (uint64_t{64} << 20)) {
      EXPECT_EQ(cls % (uint64_t{2} << 20), 0u);
      EXPECT_LT(cls - bytes, uint64_t{2} << 20);
    }
    previous = cls;
  }
}

TEST(CudaEnvTest, SwitchesReadOffValues) {
  const char* name = "SWITCHYARD_CUDA_TEST_SWITCH";
  unsetenv(name);
  EXPECT_TRUE(EnvEnabled(name));
  EXPECT_FALSE(EnvEnabled(name, false));
  for (const char* off : {"0", "off", "OFF", "false", "no"}) {
    setenv(name, off, 1);
    EXPECT_FALSE(EnvEnabled(name)) << off;
  }
  setenv(name, "1", 1);
  EXPECT_TRUE(EnvEnabled(name, false));
  unsetenv(name);
}

// cuBLAS is loaded on first use (or linked): either way its functions work without a GPU.
TEST(CudaCublasTest, LibraryIsReachable) {
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_ALLOC_FAILED), "CUBLAS_STATUS_ALLOC_FAILED");
  EXPECT_STRNE(cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "");
}

// ---- with a GPU -------------------------------------------------------------------------------

// The plugin's devices, found as the plugin finds them; tests skip without one.
class CudaGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    discovery_ = DiscoverDevices();
    if (discovery_.devices.empty()) GTEST_SKIP() << "needs a CUDA device: " << discovery_.status;
    device_ = discovery_.devices.front().get();
  }

  template <typename T>
  std::unique_ptr<CudaBuffer> Buffer(const std::vector<T>& values) {
    auto b = std::make_unique<CudaBuffer>(*device_, values.size() * sizeof(T));
    b->CopyFromHost(0, values.data(), values.size() * sizeof(T));
    return b;
  }
  template <typename T>
  std::vector<T> Read(const sy_buffer& b, size_t n, uint64_t offset = 0) {
    std::vector<T> v(n);
    b.CopyToHost(offset, v.data(), n * sizeof(T));
    return v;
  }

  Discovery discovery_;
  Device* device_ = nullptr;
};

// A partition under construction: values, nodes (with attributes), bound inputs/outputs.
class Partition {
 public:
  uint32_t Value(sy_dtype dtype, std::vector<int64_t> dims) {
    dims_.push_back(std::make_unique<std::vector<int64_t>>(std::move(dims)));
    values_.push_back({static_cast<uint32_t>(dtype), static_cast<uint32_t>(dims_.back()->size()),
                       dims_.back()->data()});
    return static_cast<uint32_t>(values_.size() - 1);
  }
  void Node(const char* op, std::vector<uint32_t> in, std::vector<uint32_t> out,
            std::vector<sy_attr> attrs = {}) {
    specs_.push_back({op, std::move(in), std::move(out), std::move(attrs)});
  }
  const sy_partition& Build(std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    inputs_ = std::move(inputs);
    outputs_ = std::move(outputs);
    types_.clear();
    nodes_.clear();
    for (Spec& s : specs_) {
      s.in_types.clear();
      s.out_types.clear();
      for (uint32_t v : s.in) s.in_types.push_back(values_[v]);
      for (uint32_t v : s.out) s.out_types.push_back(values_[v]);
    }
    for (Spec& s : specs_) {
      sy_node node = MakeNode(s.op, s.in_types.data(), static_cast<uint32_t>(s.in.size()),
                              s.out_types.data(), static_cast<uint32_t>(s.out.size()),
                              s.attrs.data(), static_cast<uint32_t>(s.attrs.size()));
      node.input_values = s.in.data();
      node.output_values = s.out.data();
      nodes_.push_back(node);
    }
    p_ = {};
    p_.struct_size = sizeof p_;
    p_.abi_version = SY_PLUGIN_ABI_VERSION;
    p_.num_values = static_cast<uint32_t>(values_.size());
    p_.values = values_.data();
    p_.num_nodes = static_cast<uint32_t>(nodes_.size());
    p_.nodes = nodes_.data();
    p_.num_inputs = static_cast<uint32_t>(inputs_.size());
    p_.inputs = inputs_.data();
    p_.num_outputs = static_cast<uint32_t>(outputs_.size());
    p_.outputs = outputs_.data();
    return p_;
  }

 private:
  struct Spec {
    const char* op;
    std::vector<uint32_t> in, out;
    std::vector<sy_attr> attrs;
    std::vector<sy_tensor_type> in_types, out_types;
  };
  std::vector<std::unique_ptr<std::vector<int64_t>>> dims_;
  std::vector<sy_tensor_type> values_, types_;
  std::vector<Spec> specs_;
  std::vector<sy_node> nodes_;
  std::vector<uint32_t> inputs_, outputs_;
  sy_partition p_{};
};

sy_attr StringAttr(const char* name, const char* value) {
  sy_attr a{};
  a.name = name;
  a.kind = SY_ATTR_STRING;
  a.s = value;
  return a;
}

TEST_F(CudaGpuTest, BuffersCopyThroughStagingAndViews) {
  // 20 MiB: more than the two 8 MiB staging halves.
  std::vector<uint32_t> big(5u << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint32_t>(i * 2654435761u);
  auto b = Buffer(big);
  EXPECT_EQ(b->host_pointer(), nullptr);
  EXPECT_EQ(Read<uint32_t>(*b, big.size()), big);
  // A view at an odd offset reads and writes its parent's bytes.
  std::unique_ptr<sy_buffer> view = b->View(4 * 1001, 4 * 10);
  const std::vector<uint32_t> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  view->CopyFromHost(0, ten.data(), 40);
  EXPECT_EQ(Read<uint32_t>(*b, 10, 4 * 1001), ten);
  // Device to device, also between overlapping ranges of one buffer.
  CudaBuffer other(*device_, 40);
  CopyBetween(other, 0, *static_cast<CudaBuffer*>(view.get()), 0, 40);
  EXPECT_EQ(Read<uint32_t>(other, 10), ten);
  CopyBetween(*b, 4 * 1003, *b, 4 * 1001, 40);
  EXPECT_EQ(Read<uint32_t>(*b, 10, 4 * 1003), ten);
  CudaBuffer empty(*device_, 0);
  EXPECT_EQ(empty.data(), nullptr);
}

TEST_F(CudaGpuTest, PoolReusesBlocksOfASizeClass) {
  const BufferPool::Stats before = device_->pool->stats();
  void* first = nullptr;
  {
    CudaBuffer a(*device_, 3000);
    first = a.data();
  }
  CudaBuffer b(*device_, 3050);  // the same size class (3072 bytes)
  const BufferPool::Stats after = device_->pool->stats();
  EXPECT_EQ(b.data(), first);
  EXPECT_GT(after.reuses, before.reuses);
}

// add (broadcast) -> relu with an intermediate the executable owns; graph capture on the
// first execute, replay on the second, capture again when the bound buffers change.
TEST_F(CudaGpuTest, PartitionRunsCapturesAndReplays) {
  Partition p;
  const uint32_t x = p.Value(SY_DTYPE_F32, {2, 3}), bias = p.Value(SY_DTYPE_F32, {3});
  const uint32_t h = p.Value(SY_DTYPE_F32, {2, 3}), y = p.Value(SY_DTYPE_F32, {2, 3});
  p.Node("add", {x, bias}, {h});
  p.Node("relu", {h}, {y});
  unsetenv("SWITCHYARD_CUDA_GRAPHS");
  CudaExecutable exe(*device_, p.Build({x, bias}, {y}));
  EXPECT_TRUE(exe.uses_graphs());
  auto xb = Buffer(std::vector<float>{1, -2, 3, -4, 5, -6});
  auto bb = Buffer(std::vector<float>{0.5f, 0.5f, -10});
  CudaBuffer yb(*device_, 24);
  sy_buffer* bound[] = {xb.get(), bb.get(), &yb};
  exe.Execute(bound, 3);
  EXPECT_EQ(exe.last_mode(), CudaExecutable::Mode::kCaptured);
  EXPECT_EQ(Read<float>(yb, 6), (std::vector<float>{1.5f, 0, 0, 0, 5.5f, 0}));
  const std::vector<float> x2 = {-1, 2, 30, 4, -5, 60};
  xb->CopyFromHost(0, x2.data(), 24);
  exe.Execute(bound, 3);
  EXPECT_EQ(exe.last_mode(), CudaExecutable::Mode::kReplayed);
  EXPECT_EQ(Read<float>(yb, 6), (std::vector<float>{0, 2.5f, 20, 4.5f, 0, 50}));
  CudaBuffer y2(*device_, 24);
  sy_buffer* rebound[] = {xb.get(), bb.get(), &y2};
  exe.Execute(rebound, 3);
  EXPECT_EQ(exe.last_mode(), CudaExecutable::Mode::kCaptured);
  EXPECT_EQ(Read<float>(y2, 6), (std::vector<float>{0, 2.5f, 20, 4.5f, 0, 50}));

  setenv("SWITCHYARD_CUDA_GRAPHS", "0", 1);
  CudaExecutable direct(*device_, p.Build({x, bias}, {y}));
  unsetenv("SWITCHYARD_CUDA_GRAPHS");
  EXPECT_FALSE(direct.uses_graphs());
  direct.Execute(bound, 3);
  EXPECT_EQ(direct.last_mode(), CudaExecutable::Mode::kDirect);
  EXPECT_EQ(Read<float>(yb, 6), (std::vector<float>{0, 2.5f, 20, 4.5f, 0, 50}));
}

// Profiling (docs/profiling.md): each node timed between CUDA events, in order, inside
// the call; the results as without profiling.
TEST_F(CudaGpuTest, ProfiledExecuteTimesEachNodeWithEvents) {
  Partition p;
  const uint32_t x = p.Value(SY_DTYPE_F32, {2, 3}), bias = p.Value(SY_DTYPE_F32, {3});
  const uint32_t h = p.Value(SY_DTYPE_F32, {2, 3}), y = p.Value(SY_DTYPE_F32, {2, 3});
  p.Node("add", {x, bias}, {h});
  p.Node("relu", {h}, {y});
  CudaExecutable exe(*device_, p.Build({x, bias}, {y}));
  auto xb = Buffer(std::vector<float>{1, -2, 3, -4, 5, -6});
  auto bb = Buffer(std::vector<float>{0.5f, 0.5f, -10});
  CudaBuffer yb(*device_, 24);
  sy_buffer* bound[] = {xb.get(), bb.get(), &yb};
  sy_node_time times[2] = {};
  exe.ExecuteTimed(bound, 3, times, 2);
  EXPECT_EQ(exe.last_mode(), CudaExecutable::Mode::kDirect);
  EXPECT_EQ(Read<float>(yb, 6), (std::vector<float>{1.5f, 0, 0, 0, 5.5f, 0}));
  EXPECT_GT(times[0].end_ns, 0u);
  EXPECT_LE(times[0].start_ns, times[0].end_ns);
  EXPECT_LE(times[0].end_ns, times[1].start_ns);
  EXPECT_LE(times[1].start_ns, times[1].end_ns);
  EXPECT_LT(times[1].end_ns, uint64_t{10'000'000'000});  // well under 10 s
}

TEST_F(CudaGpuTest, IntegerDivisionByZeroIsADataErrorEveryRun) {
  Partition p;
  const uint32_t a = p.Value(SY_DTYPE_I32, {4}), b = p.Value(SY_DTYPE_I32, {4});
  const uint32_t y = p.Value(SY_DTYPE_I32, {4});
  p.Node("div", {a, b}, {y});
  CudaExecutable exe(*device_, p.Build({a, b}, {y}));
  auto ab = Buffer(std::vector<int32_t>{7, -7, INT32_MIN, 1});
  auto bb = Buffer(std::vector<int32_t>{2, 2, -1, 1});
  CudaBuffer yb(*device_, 16);
  sy_buffer* bound[] = {ab.get(), bb.get(), &yb};
  exe.Execute(bound, 3);
  EXPECT_EQ(Read<int32_t>(yb, 4), (std::vector<int32_t>{3, -3, INT32_MIN, 1}));
  const std::vector<int32_t> zero = {1, 0, 1, 1};
  bb->CopyFromHost(0, zero.data(), 16);
  try {
    exe.Execute(bound, 3);
    ADD_FAILURE() << "no error";
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_DATA);
    EXPECT_CONTAINS(std::string(e.what()), "integer division by zero");
  }
  const std::vector<int32_t> ones = {1, 1, 1, 1};
  bb->CopyFromHost(0, ones.data(), 16);
  exe.Execute(bound, 3);  // the flag was reset
  EXPECT_EQ(Read<int32_t>(yb, 4), (std::vector<int32_t>{7, -7, INT32_MIN, 1}));
}

TEST_F(CudaGpuTest, CastSaturatesTruncatesAndRoundsOnce) {
  Partition p;
  const uint32_t x = p.Value(SY_DTYPE_F32, {6}), y = p.Value(SY_DTYPE_I32, {6});
  const sy_attr to = StringAttr("to", "i32");
  p.Node("cast", {x}, {y}, {to});
  CudaExecutable exe(*device_, p.Build({x}, {y}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto xb = Buffer(std::vector<float>{nan, 1e10f, -1e10f, 2.7f, -2.7f, -0.5f});
  CudaBuffer yb(*device_, 24);
  sy_buffer* bound[] = {xb.get(), &yb};
  exe.Execute(bound, 2);
  EXPECT_EQ(Read<int32_t>(yb, 6), (std::vector<int32_t>{0, INT32_MAX, INT32_MIN, 2, -2, 0}));

  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is just above the halfway point between
  // f16's 1 and 1 + 2^-10, so it rounds up (a rounding through f32 would tie to even: 1).
  Partition q;
  const uint32_t d = q.Value(SY_DTYPE_F64, {1}), h = q.Value(SY_DTYPE_F16, {1});
  const sy_attr to16 = StringAttr("to", "f16");
  q.Node("cast", {d}, {h}, {to16});
  CudaExecutable exe16(*device_, q.Build({d}, {h}));
  auto db = Buffer(std::vector<double>{1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
  CudaBuffer hb(*device_, 2);
  sy_buffer* bound16[] = {db.get(), &hb};
  exe16.Execute(bound16, 2);
  EXPECT_EQ(Read<uint16_t>(hb, 1)[0], 0x3c01);  // 1 + 2^-10
}

TEST_F(CudaGpuTest, WhereAndComparisonsBroadcast) {
  Partition p;
  const uint32_t a = p.Value(SY_DTYPE_I64, {2, 3}), b = p.Value(SY_DTYPE_I64, {3});
  const uint32_t c = p.Value(SY_DTYPE_BOOL, {2, 3}), y = p.Value(SY_DTYPE_I64, {2, 3});
  p.Node("less", {a, b}, {c});
  p.Node("where", {c, a, b}, {y});
  CudaExecutable exe(*device_, p.Build({a, b}, {c, y}));
  auto ab = Buffer(std::vector<int64_t>{1, 5, 3, 7, 0, 9});
  auto bb = Buffer(std::vector<int64_t>{2, 2, 4});
  CudaBuffer cb(*device_, 6), yb(*device_, 48);
  sy_buffer* bound[] = {ab.get(), bb.get(), &cb, &yb};
  exe.Execute(bound, 4);
  EXPECT_EQ(Read<uint8_t>(cb, 6), (std::vector<uint8_t>{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(Read<int64_t>(yb, 6), (std::vector<int64_t>{1, 2, 3, 2, 0, 4}));
}

// sample (docs/ops.md, "Sampling") on cases whose sums are exact: a uniform number on a
// boundary picks the later token, +inf logits share the mass, ties go to the lower index;
// data errors name the first row at fault, also from a replayed graph, and clear.
TEST_F(CudaGpuTest, SampleFollowsTheSpecAndNamesItsDataErrors) {
  const float inf = std::numeric_limits<float>::infinity();
  Partition p;
  const uint32_t x = p.Value(SY_DTYPE_F32, {5, 4}), u = p.Value(SY_DTYPE_F64, {5});
  const uint32_t t = p.Value(SY_DTYPE_I64, {5});
  p.Node("sample", {x, u}, {t}, {StringAttr("method", "temperature")});
  CudaExecutable exe(*device_, p.Build({x, u}, {t}));
  const std::vector<float> good = {0,   0, 0,    0,    0,    0,    0, 0,    inf, 0,
                                   inf, 0, -inf, -inf, -inf, -inf, 0, -inf, 0,   -inf};
  auto xb = Buffer(good);
  auto ub = Buffer(std::vector<double>{0.25, 0, 0.5, 0.75, 0.5});
  CudaBuffer tb(*device_, 40);
  sy_buffer* bound[] = {xb.get(), ub.get(), &tb};
  const auto error = [&]() -> std::string {
    try {
      exe.Execute(bound, 3);
    } catch (const sy_sdk::Error& e) {
      return std::to_string(e.code()) + " " + e.what();
    }
    return "";
  };
  EXPECT_EQ(error(), "");
  EXPECT_EQ(Read<int64_t>(tb, 5), (std::vector<int64_t>{1, 0, 2, 3, 2}));
  std::vector<float> bad = good;
  bad[4 + 3] = std::numeric_limits<float>::quiet_NaN();
  xb->CopyFromHost(0, bad.data(), bad.size() * 4);
  const std::vector<double> u_bad = {0.25, 0, 1, 0.75, 0.5};
  ub->CopyFromHost(0, u_bad.data(), 40);
  const std::string data = std::to_string(SY_ERROR_DATA) + " execute: sample: ";
  EXPECT_EQ(error(), data + "row 1 of logits has a NaN at index 3");
  xb->CopyFromHost(0, good.data(), good.size() * 4);
  EXPECT_EQ(error(), data + "uniform[2] (row 2) is 1, outside [0, 1)");
  const std::vector<double> u_good = {0.25, 0, 0.5, 0.75, 0.5};
  ub->CopyFromHost(0, u_good.data(), 40);
  EXPECT_EQ(error(), "");
  EXPECT_EQ(Read<int64_t>(tb, 5), (std::vector<int64_t>{1, 0, 2, 3, 2}));

  // top_k and top_p keep the first tokens by p, the lower index first on ties.
  Partition q;
  const uint32_t x2 = q.Value(SY_DTYPE_F32, {2, 4}), u2 = q.Value(SY_DTYPE_F64, {2});
  const uint32_t tk = q.Value(SY_DTYPE_I64, {2}), tp = q.Value(SY_DTYPE_I64, {2});
  sy_attr k{};
  k.name = "top_k";
  k.kind = SY_ATTR_INT;
  k.i = 2;
  sy_attr top_p{};
  top_p.name = "top_p";
  top_p.kind = SY_ATTR_FLOAT;
  top_p.f = 0.5;
  q.Node("sample", {x2, u2}, {tk}, {StringAttr("method", "top_k"), k});
  q.Node("sample", {x2, u2}, {tp}, {StringAttr("method", "top_p"), top_p});
  CudaExecutable exe2(*device_, q.Build({x2, u2}, {tk, tp}));
  auto xb2 = Buffer(std::vector<float>{0, 0, 0, 0, -inf, 0, 0, 0});
  auto ub2 = Buffer(std::vector<double>{0.5, 0.5});
  CudaBuffer tkb(*device_, 16), tpb(*device_, 16);
  sy_buffer* bound2[] = {xb2.get(), ub2.get(), &tkb, &tpb};
  exe2.Execute(bound2, 4);
  EXPECT_EQ(Read<int64_t>(tkb, 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Read<int64_t>(tpb, 2), (std::vector<int64_t>{1, 2}));

  // One logit at 0 (the last) and 999 at -7.5, whose p lies below the kernel's first floor
  // (2^-10) but whose mass counts: top_k = 600 keeps 599 of them, top_p = 0.9 `kept`.
  const double pt = std::exp(-7.5);
  const auto walk = [pt](int kept, double at) {  // ascending index order, token 999 last
    double total = 0;
    for (int i = 0; i < kept; ++i) total += pt;
    const double target = at * (total + 1.0);
    double running = 0;
    for (int i = 0; i < kept; ++i) {
      running += pt;
      if (running > target) return int64_t{i};
    }
    return int64_t{999};
  };
  double all = 0;
  for (int i = 0; i < 999; ++i) all += pt;
  all += 1.0;
  int kept = 0;
  for (double prefix = 1.0; prefix < 0.9 * all; prefix += pt) ++kept;
  Partition r;
  const uint32_t x3 = r.Value(SY_DTYPE_F32, {1, 1000}), u3 = r.Value(SY_DTYPE_F64, {1});
  const uint32_t tk3 = r.Value(SY_DTYPE_I64, {1}), tp3 = r.Value(SY_DTYPE_I64, {1});
  k.i = 600;
  top_p.f = 0.9;
  r.Node("sample", {x3, u3}, {tk3}, {StringAttr("method", "top_k"), k});
  r.Node("sample", {x3, u3}, {tp3}, {StringAttr("method", "top_p"), top_p});
  CudaExecutable exe3(*device_, r.Build({x3, u3}, {tk3, tp3}));
  std::vector<float> tail(1000, -7.5f);
  tail[999] = 0;
  auto xb3 = Buffer(tail);
  auto ub3 = Buffer(std::vector<double>{0.1});
  CudaBuffer tkb3(*device_, 8), tpb3(*device_, 8);
  sy_buffer* bound3[] = {xb3.get(), ub3.get(), &tkb3, &tpb3};
  exe3.Execute(bound3, 4);
  EXPECT_EQ(Read<int64_t>(tkb3, 1)[0], walk(599, 0.1));
  EXPECT_EQ(Read<int64_t>(tpb3, 1)[0], walk(kept, 0.1));
}

}  // namespace
}  // namespace sy::cuda
