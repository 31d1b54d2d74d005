// The two working test plugins of tests/plugins/ that the scheduler's tests place nodes
// on, loaded as real shared objects through the public discovery path and driven through
// the function table the host keeps:
//   partial: one accelerator over host memory running a subset of ops and dtypes
//   remote:  two discrete GPUs whose memory the host cannot address
// Both read their configuration from SY_TEST_PARTIAL_* / SY_TEST_REMOTE_* when loaded;
// every test starts with those variables unset and puts them back afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "switchyard/plugin_host.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

const fs::path kTestPlugins = SY_TEST_PLUGIN_DIR;
const fs::path kPartial = kTestPlugins / "partial" / "libswitchyard_test_partial.so";
const fs::path kRemote = kTestPlugins / "remote" / "libswitchyard_test_remote.so";

constexpr const char* kEnvVars[] = {"SY_TEST_PARTIAL_OPS",    "SY_TEST_PARTIAL_DTYPES",
                                    "SY_TEST_PARTIAL_MEMORY", "SY_TEST_REMOTE_OPS",
                                    "SY_TEST_REMOTE_DTYPES",  "SY_TEST_REMOTE_MEMORY",
                                    "SY_TEST_REMOTE_NO_D2D",  "SWITCHYARD_PLUGIN_PATH"};

// Clears the plugins' variables for the test and restores them afterwards; tests set
// what they need with setenv before creating the PluginHost (plugins read at load).
class TestPluginEnv : public testing::Test {
 protected:
  TestPluginEnv() {
    for (const char* var : kEnvVars) {
      const char* value = std::getenv(var);
      saved_.emplace_back(var, value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(var);
    }
  }
  ~TestPluginEnv() override {
    for (const auto& [var, value] : saved_) {
      if (value) {
        setenv(var, value->c_str(), 1);
      } else {
        unsetenv(var);
      }
    }
  }
  static void Set(const char* var, const char* value) { setenv(var, value, 1); }

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

class TestPluginPartial : public TestPluginEnv {};
class TestPluginRemote : public TestPluginEnv {};

Expected<std::unique_ptr<PluginHost>> Load(std::vector<fs::path> paths) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = std::move(paths);
  return PluginHost::Create(options);
}

// ---- thin wrappers over the host's copy of a plugin's function table ----

struct BufferFree {
  const sy_plugin_api* api;
  void operator()(sy_buffer* b) const { api->buffer_free(b); }
};
using BufferPtr = std::unique_ptr<sy_buffer, BufferFree>;  // freed before its host

Expected<BufferPtr> Alloc(const Device& d, uint64_t bytes) {
  const Plugin& p = *d.plugin;
  sy_buffer* b = nullptr;
  Status s = p.TakeError(p.api()->buffer_alloc(p.context(), d.index, bytes, &b), "buffer_alloc");
  if (!s.ok()) return s;
  return BufferPtr(b, {p.api()});
}

Expected<BufferPtr> View(const Device& d, sy_buffer* parent, uint64_t offset, uint64_t bytes) {
  const Plugin& p = *d.plugin;
  sy_buffer* b = nullptr;
  Status s = p.TakeError(p.api()->buffer_view(parent, offset, bytes, &b), "buffer_view");
  if (!s.ok()) return s;
  return BufferPtr(b, {p.api()});
}

Status Upload(const Device& d, sy_buffer* b, uint64_t offset, const std::vector<float>& v) {
  const Plugin& p = *d.plugin;
  return p.TakeError(p.api()->copy_host_to_device(b, offset, v.data(), v.size() * 4), "h2d");
}

Expected<std::vector<float>> Download(const Device& d, const sy_buffer* b, uint64_t offset,
                                      size_t count) {
  const Plugin& p = *d.plugin;
  std::vector<float> out(count);
  Status s = p.TakeError(p.api()->copy_device_to_host(b, offset, out.data(), count * 4), "d2h");
  if (!s.ok()) return s;
  return out;
}

const int64_t kDims23[] = {2, 3};
sy_tensor_type Type(sy_dtype dtype) { return {static_cast<uint32_t>(dtype), 2, kDims23}; }

struct Answer {
  bool supported = false;
  std::string reason;
};

// supports_node for a hand-built node (no attributes, as for elementwise ops).
Answer Ask(const Device& d, const char* op, std::vector<sy_tensor_type> in,
           std::vector<sy_tensor_type> out) {
  sy_node node{};
  node.struct_size = sizeof(sy_node);
  node.abi_version = SY_PLUGIN_ABI_VERSION;
  node.op = op;
  node.name = "";
  node.num_inputs = static_cast<uint32_t>(in.size());
  node.num_outputs = static_cast<uint32_t>(out.size());
  node.inputs = in.data();
  node.outputs = out.data();
  const Plugin& p = *d.plugin;
  uint32_t supported = 7;
  char reason[256] = "unset";
  const Status s = p.TakeError(
      p.api()->supports_node(p.context(), d.index, &node, &supported, reason, sizeof reason),
      "supports_node");
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(supported == 0 || supported == 1) << supported;
  return {supported == 1, reason};
}

// A partition of two f32 [2, 3] nodes, binary(a, b) -> t, unary(t) -> y, with a and b
// bound as inputs, y as the output and t an intermediate the plugin keeps. Owns every
// array the sy_partition points to.
class Chain {
 public:
  Chain(const char* binary, const char* unary) {
    const sy_tensor_type t = Type(SY_DTYPE_F32);
    values_.assign(4, t);
    types_.assign(2, t);
    nodes_[0] = Node(binary, "first", 2, in0_, out0_);
    nodes_[1] = Node(unary, "second", 1, in1_, out1_);
  }
  Chain(const Chain&) = delete;
  Chain& operator=(const Chain&) = delete;

  sy_partition partition() const {
    return {sizeof(sy_partition),
            SY_PLUGIN_ABI_VERSION,
            4,
            2,
            values_.data(),
            nodes_,
            2,
            1,
            inputs_,
            outputs_};
  }

 private:
  sy_node Node(const char* op, const char* name, uint32_t inputs, const uint32_t* in,
               const uint32_t* out) const {
    sy_node n{};
    n.struct_size = sizeof(sy_node);
    n.abi_version = SY_PLUGIN_ABI_VERSION;
    n.op = op;
    n.name = name;
    n.num_inputs = inputs;
    n.num_outputs = 1;
    n.inputs = types_.data();
    n.outputs = types_.data();
    n.input_values = in;
    n.output_values = out;
    return n;
  }

  std::vector<sy_tensor_type> values_, types_;
  const uint32_t in0_[2] = {0, 1}, out0_[1] = {2}, in1_[1] = {2}, out1_[1] = {3};
  const uint32_t inputs_[2] = {0, 1}, outputs_[1] = {3};
  sy_node nodes_[2] = {};
};

struct ExecutableRelease {
  const sy_plugin_api* api;
  void operator()(sy_executable* e) const { api->release(e); }
};
using ExecutablePtr = std::unique_ptr<sy_executable, ExecutableRelease>;

Expected<ExecutablePtr> Prepare(const Device& d, const Chain& chain) {
  const Plugin& p = *d.plugin;
  const sy_partition partition = chain.partition();
  sy_executable* e = nullptr;
  Status s = p.TakeError(p.api()->prepare(p.context(), d.index, &partition, &e), "prepare");
  if (!s.ok()) return s;
  return ExecutablePtr(e, {p.api()});
}

Status Execute(const Device& d, sy_executable* e, std::vector<sy_buffer*> buffers) {
  const Plugin& p = *d.plugin;
  return p.TakeError(p.api()->execute(e, static_cast<uint32_t>(buffers.size()), buffers.data()),
                     "execute");
}

const std::vector<float> kA = {-1.5f, 2.0f, 0.25f, -4.0f, 3.0f, 0.0f};
const std::vector<float> kB = {1.0f, -3.0f, 0.5f, 2.0f, -3.0f, -1.0f};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

// ---- partial ----

TEST_F(TestPluginPartial, DescribesOneHostMemoryAccelerator) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  ASSERT_EQ((*host)->plugins().size(), 1u);
  EXPECT_EQ((*host)->plugins()[0]->name(), "partial");
  const std::vector<const Device*> devices = (*host)->devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0]->name, "partial-accel");
  EXPECT_EQ(devices[0]->kind, DeviceKind::kAccelerator);
  EXPECT_TRUE(devices[0]->host_memory());
  EXPECT_FALSE(devices[0]->reference());
  EXPECT_EQ(devices[0]->memory_bytes, uint64_t{1} << 30);
}

TEST_F(TestPluginPartial, DeclinesOpsAndDtypesOutsideTheDefaultSubset) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  const sy_tensor_type f32 = Type(SY_DTYPE_F32);
  for (const char* op : {"add", "mul", "matmul"}) {
    EXPECT_TRUE(Ask(d, op, {f32, f32}, {f32}).supported) << op;
  }
  for (const char* op : {"relu", "sigmoid", "softmax"}) {
    EXPECT_TRUE(Ask(d, op, {f32}, {f32}).supported) << op;
  }
  Answer a = Ask(d, "conv", {f32, f32}, {f32});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "op \"conv\" is not in this device's subset");
  a = Ask(d, "add", {Type(SY_DTYPE_F16), Type(SY_DTYPE_F16)}, {Type(SY_DTYPE_F16)});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "dtype f16 is not supported (input 0)");
  a = Ask(d, "add", {f32, Type(SY_DTYPE_I32)}, {f32});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "dtype i32 is not supported (input 1)");
}

TEST_F(TestPluginPartial, EnvironmentSetsOpsDtypesAndMemory) {
  Set("SY_TEST_PARTIAL_OPS", " add , cast,,conv");
  Set("SY_TEST_PARTIAL_DTYPES", "f32,f16");
  Set("SY_TEST_PARTIAL_MEMORY", "4096");
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  EXPECT_EQ(d.memory_bytes, 4096u);
  EXPECT_TRUE(d.flags & SY_DEVICE_FLAG_F16);
  const sy_tensor_type f16 = Type(SY_DTYPE_F16);
  const sy_tensor_type f32 = Type(SY_DTYPE_F32);
  EXPECT_TRUE(Ask(d, "add", {f16, f16}, {f16}).supported);
  EXPECT_TRUE(Ask(d, "conv", {f32, f32}, {f32}).supported);
  EXPECT_TRUE(Ask(d, "cast", {f32}, {f16}).supported);
  Answer a = Ask(d, "cast", {f32}, {Type(SY_DTYPE_I64)});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "dtype i64 is not supported (output 0)");
  a = Ask(d, "mul", {f32, f32}, {f32});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "op \"mul\" is not in this device's subset");
}

TEST_F(TestPluginPartial, MalformedEnvironmentFailsTheLoadNamingTheVariable) {
  Set("SY_TEST_PARTIAL_DTYPES", "f32,f99");
  SY_EXPECT_ERROR(Load({kPartial}), "SY_TEST_PARTIAL_DTYPES: unknown dtype \"f99\"");
  unsetenv("SY_TEST_PARTIAL_DTYPES");
  Set("SY_TEST_PARTIAL_MEMORY", "1G");
  SY_EXPECT_ERROR(Load({kPartial}), "SY_TEST_PARTIAL_MEMORY=\"1G\" is not a byte count");
}

TEST_F(TestPluginPartial, AllocatesNoMoreThanItsDeclaredMemory) {
  Set("SY_TEST_PARTIAL_MEMORY", "1024");
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  {
    Expected<BufferPtr> a = Alloc(d, 1000);
    SY_ASSERT_OK(a);
    EXPECT_NE(d.plugin->api()->buffer_host_pointer(a->get()), nullptr);
    Expected<BufferPtr> b = Alloc(d, 100);
    EXPECT_EQ(b.status().code(), StatusCode::kResourceExhausted);
    SY_EXPECT_ERROR(b, "partial-accel: out of device memory");
  }
  SY_EXPECT_OK(Alloc(d, 1024));  // the first buffer's memory came back
}

TEST_F(TestPluginPartial, RunsASubsetPartitionOnHostBuffers) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  Chain chain("mul", "sigmoid");
  Expected<ExecutablePtr> exe = Prepare(d, chain);
  SY_ASSERT_OK(exe);
  Expected<BufferPtr> a = Alloc(d, 24), b = Alloc(d, 24), y = Alloc(d, 24);
  SY_ASSERT_OK(a);
  SY_ASSERT_OK(b);
  SY_ASSERT_OK(y);
  SY_ASSERT_OK(Upload(d, a->get(), 0, kA));
  SY_ASSERT_OK(Upload(d, b->get(), 0, kB));
  SY_ASSERT_OK(Execute(d, exe->get(), {a->get(), b->get(), y->get()}));
  std::vector<float> want;
  for (size_t i = 0; i < kA.size(); ++i) {
    want.push_back(static_cast<float>(1.0 / (1.0 + std::exp(-double{kA[i]} * kB[i]))));
  }
  const float* host_y = static_cast<const float*>(d.plugin->api()->buffer_host_pointer(y->get()));
  ASSERT_NE(host_y, nullptr);
  ExpectNear(std::vector<float>(host_y, host_y + 6), want);
}

TEST_F(TestPluginPartial, PrepareRefusesANodeOutsideTheSubset) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kPartial});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  Chain chain("add", "tanh");
  Expected<ExecutablePtr> exe = Prepare(d, chain);
  EXPECT_EQ(exe.status().code(), StatusCode::kUnsupported);
  SY_EXPECT_ERROR(exe, "node 1 (tanh) \"second\": op \"tanh\" is not in this device's subset");
}

// ---- remote ----

TEST_F(TestPluginRemote, DescribesTwoDiscreteGpusWithoutHostMemory) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  ASSERT_EQ((*host)->plugins().size(), 1u);
  EXPECT_EQ((*host)->plugins()[0]->name(), "remote");
  const std::vector<const Device*> devices = (*host)->devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0]->name, "remote-gpu0");
  EXPECT_EQ(devices[1]->name, "remote-gpu1");
  for (const Device* d : devices) {
    EXPECT_EQ(d->kind, DeviceKind::kDiscreteGpu);
    EXPECT_FALSE(d->host_memory());
    EXPECT_EQ(d->memory_bytes, uint64_t{1} << 30);
  }
  const sy_plugin_api* api = devices[0]->plugin->api();
  EXPECT_NE(api->copy_device_to_device, nullptr);
  EXPECT_NE(api->buffer_view, nullptr);
}

TEST_F(TestPluginRemote, EnvironmentSetsOpsAndMemory) {
  Set("SY_TEST_REMOTE_OPS", "add,relu");
  Set("SY_TEST_REMOTE_MEMORY", "2048");
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[1];
  EXPECT_EQ(d.memory_bytes, 2048u);
  const sy_tensor_type f32 = Type(SY_DTYPE_F32);
  EXPECT_TRUE(Ask(d, "add", {f32, f32}, {f32}).supported);
  const Answer a = Ask(d, "mul", {f32, f32}, {f32});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "op \"mul\" is not in this device's subset");
  // Per device: each has its own 2048 bytes.
  Expected<BufferPtr> on0 = Alloc(*(*host)->devices()[0], 2048), on1 = Alloc(d, 2048);
  SY_EXPECT_OK(on0);
  SY_EXPECT_OK(on1);
  EXPECT_EQ(Alloc(d, 1).status().code(), StatusCode::kResourceExhausted);
}

TEST_F(TestPluginRemote, SupportsEveryReferenceOpAndDtypeByDefault) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  const sy_tensor_type f16 = Type(SY_DTYPE_F16), i64 = Type(SY_DTYPE_I64);
  EXPECT_TRUE(Ask(d, "add", {i64, i64}, {i64}).supported);
  EXPECT_TRUE(Ask(d, "conv", {f16, f16}, {f16}).supported);
  EXPECT_TRUE(Ask(d, "softmax", {f16}, {f16}).supported);
  const Answer a = Ask(d, "no_such_op", {f16}, {f16});
  EXPECT_FALSE(a.supported);
  EXPECT_EQ(a.reason, "op \"no_such_op\" is not in this device's subset");
}

TEST_F(TestPluginRemote, BuffersAreNotHostAddressableAndRoundTrip) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  Expected<BufferPtr> b = Alloc(d, 32);
  SY_ASSERT_OK(b);
  EXPECT_EQ(d.plugin->api()->buffer_host_pointer(b->get()), nullptr);
  // Never-written bytes are 0xff (NaN as f32), so stale reads show.
  Expected<std::vector<float>> fresh = Download(d, b->get(), 0, 8);
  SY_ASSERT_OK(fresh);
  for (float v : *fresh) EXPECT_TRUE(std::isnan(v));
  SY_ASSERT_OK(Upload(d, b->get(), 8, kA));
  Expected<std::vector<float>> back = Download(d, b->get(), 8, 6);
  SY_ASSERT_OK(back);
  EXPECT_EQ(*back, kA);
  SY_EXPECT_ERROR(Upload(d, b->get(), 16, kA), "range past the end of the buffer");
}

TEST_F(TestPluginRemote, ViewsReadAndWriteTheirParentsBytes) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[1];
  Expected<BufferPtr> arena = Alloc(d, 1024);
  SY_ASSERT_OK(arena);
  Expected<BufferPtr> view = View(d, arena->get(), 256, 24);
  SY_ASSERT_OK(view);
  EXPECT_EQ(d.plugin->api()->buffer_host_pointer(view->get()), nullptr);
  // Through the view, seen in the parent.
  SY_ASSERT_OK(Upload(d, view->get(), 0, kA));
  Expected<std::vector<float>> in_parent = Download(d, arena->get(), 256, 6);
  SY_ASSERT_OK(in_parent);
  EXPECT_EQ(*in_parent, kA);
  // Through the parent, seen in the view.
  SY_ASSERT_OK(Upload(d, arena->get(), 264, {42.0f}));
  Expected<std::vector<float>> in_view = Download(d, view->get(), 8, 1);
  SY_ASSERT_OK(in_view);
  EXPECT_EQ((*in_view)[0], 42.0f);
  // A view of a view is offset from the parent by both offsets.
  Expected<BufferPtr> inner = View(d, view->get(), 4, 8);
  SY_ASSERT_OK(inner);
  Expected<std::vector<float>> in_inner = Download(d, inner->get(), 0, 2);
  SY_ASSERT_OK(in_inner);
  EXPECT_EQ(*in_inner, (std::vector<float>{kA[1], 42.0f}));
  SY_EXPECT_ERROR(View(d, arena->get(), 1000, 25), "range past the end of the buffer");
  // Views do not count against the device's memory; the parent alone does.
}

TEST_F(TestPluginRemote, CopiesDirectlyBetweenItsDevices) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d0 = *(*host)->devices()[0];
  const Device& d1 = *(*host)->devices()[1];
  const sy_plugin_api* api = d0.plugin->api();
  ASSERT_NE(api->copy_device_to_device, nullptr);
  Expected<BufferPtr> src = Alloc(d0, 512), dst = Alloc(d1, 512);
  SY_ASSERT_OK(src);
  SY_ASSERT_OK(dst);
  SY_ASSERT_OK(Upload(d0, src->get(), 256, kB));
  Expected<BufferPtr> dst_view = View(d1, dst->get(), 256, 24);
  SY_ASSERT_OK(dst_view);
  SY_ASSERT_OK(d0.plugin->TakeError(
      api->copy_device_to_device(dst_view->get(), 0, src->get(), 256, 24), "d2d"));
  Expected<std::vector<float>> got = Download(d1, dst->get(), 256, 6);
  SY_ASSERT_OK(got);
  EXPECT_EQ(*got, kB);
  SY_EXPECT_ERROR(
      d0.plugin->TakeError(api->copy_device_to_device(dst->get(), 500, src->get(), 0, 24), "d2d"),
      "range past the end of a buffer");
}

TEST_F(TestPluginRemote, NoD2DEnvironmentLeavesTheCopyToTheHost) {
  Set("SY_TEST_REMOTE_NO_D2D", "1");
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  unsetenv("SY_TEST_REMOTE_NO_D2D");
  SY_ASSERT_OK(host);
  const sy_plugin_api* api = (*host)->plugins()[0]->api();
  EXPECT_EQ(api->copy_device_to_device, nullptr);
  // The rest of the table is intact, views included.
  EXPECT_NE(api->copy_host_to_device, nullptr);
  EXPECT_NE(api->copy_device_to_host, nullptr);
  EXPECT_NE(api->buffer_view, nullptr);
  // A host loading it again without the variable gets the direct copy back.
  Expected<std::unique_ptr<PluginHost>> again = Load({kRemote});
  SY_ASSERT_OK(again);
  EXPECT_NE((*again)->plugins()[0]->api()->copy_device_to_device, nullptr);
}

TEST_F(TestPluginRemote, RefusesAnotherPluginsBufferInACopy) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote, kPartial});
  SY_ASSERT_OK(host);
  Expected<const Device*> gpu = (*host)->FindDevice("remote-gpu0");
  Expected<const Device*> accel = (*host)->FindDevice("partial-accel");
  SY_ASSERT_OK(gpu);
  SY_ASSERT_OK(accel);
  Expected<BufferPtr> mine = Alloc(**gpu, 24), theirs = Alloc(**accel, 24);
  SY_ASSERT_OK(mine);
  SY_ASSERT_OK(theirs);
  const Plugin& remote = *(*gpu)->plugin;
  const Status s = remote.TakeError(
      remote.api()->copy_device_to_device(mine->get(), 0, theirs->get(), 0, 24), "d2d");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  SY_EXPECT_ERROR(s, "the source is not a buffer of the remote plugin");
}

// add then relu over [2, 3] f32, with every bound value a view of one arena per device,
// as the scheduler's memory plan binds them.
TEST_F(TestPluginRemote, RunsAPartitionOnViewsOfAnArena) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[1];
  Chain chain("add", "relu");
  Expected<ExecutablePtr> exe = Prepare(d, chain);
  SY_ASSERT_OK(exe);
  Expected<BufferPtr> arena = Alloc(d, 768);
  SY_ASSERT_OK(arena);
  Expected<BufferPtr> a = View(d, arena->get(), 0, 24), b = View(d, arena->get(), 256, 24),
                      y = View(d, arena->get(), 512, 24);
  SY_ASSERT_OK(a);
  SY_ASSERT_OK(b);
  SY_ASSERT_OK(y);
  SY_ASSERT_OK(Upload(d, a->get(), 0, kA));
  SY_ASSERT_OK(Upload(d, b->get(), 0, kB));
  SY_ASSERT_OK(Execute(d, exe->get(), {a->get(), b->get(), y->get()}));
  Expected<std::vector<float>> got = Download(d, arena->get(), 512, 6);
  SY_ASSERT_OK(got);
  ExpectNear(*got, {0.0f, 0.0f, 0.75f, 0.0f, 0.0f, 0.0f});
  // Again with other inputs: the intermediate is reused, nothing stale leaks through.
  SY_ASSERT_OK(Upload(d, a->get(), 0, kB));
  SY_ASSERT_OK(Upload(d, b->get(), 0, {1.0f, 4.0f, 1.0f, 1.0f, 4.0f, 2.0f}));
  SY_ASSERT_OK(Execute(d, exe->get(), {a->get(), b->get(), y->get()}));
  got = Download(d, y->get(), 0, 6);
  SY_ASSERT_OK(got);
  ExpectNear(*got, {2.0f, 1.0f, 1.5f, 3.0f, 1.0f, 1.0f});
}

TEST_F(TestPluginRemote, RunsAPartitionOnWholeBuffers) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  const Device& d = *(*host)->devices()[0];
  Chain chain("mul", "relu");
  Expected<ExecutablePtr> exe = Prepare(d, chain);
  SY_ASSERT_OK(exe);
  Expected<BufferPtr> a = Alloc(d, 24), b = Alloc(d, 24), y = Alloc(d, 24);
  SY_ASSERT_OK(a);
  SY_ASSERT_OK(b);
  SY_ASSERT_OK(y);
  SY_ASSERT_OK(Upload(d, a->get(), 0, kA));
  SY_ASSERT_OK(Upload(d, b->get(), 0, kB));
  SY_ASSERT_OK(Execute(d, exe->get(), {a->get(), b->get(), y->get()}));
  Expected<std::vector<float>> got = Download(d, y->get(), 0, 6);
  SY_ASSERT_OK(got);
  ExpectNear(*got, {0.0f, 0.0f, 0.125f, 0.0f, 0.0f, 0.0f});
}

TEST_F(TestPluginRemote, ExecuteRefusesForeignAndOtherDeviceBuffers) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote, kPartial});
  SY_ASSERT_OK(host);
  Expected<const Device*> gpu0 = (*host)->FindDevice("remote-gpu0");
  Expected<const Device*> gpu1 = (*host)->FindDevice("remote-gpu1");
  Expected<const Device*> accel = (*host)->FindDevice("partial-accel");
  SY_ASSERT_OK(gpu0);
  SY_ASSERT_OK(gpu1);
  SY_ASSERT_OK(accel);
  const Device& d = **gpu0;
  Chain chain("add", "relu");
  Expected<ExecutablePtr> exe = Prepare(d, chain);
  SY_ASSERT_OK(exe);
  Expected<BufferPtr> a = Alloc(d, 24), b = Alloc(d, 24), y = Alloc(d, 24);
  Expected<BufferPtr> host_buffer = Alloc(**accel, 24), elsewhere = Alloc(**gpu1, 24);
  SY_ASSERT_OK(a);
  SY_ASSERT_OK(b);
  SY_ASSERT_OK(y);
  SY_ASSERT_OK(host_buffer);
  SY_ASSERT_OK(elsewhere);

  Status s = Execute(d, exe->get(), {host_buffer->get(), b->get(), y->get()});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  SY_EXPECT_ERROR(s, "execute: buffer 0 is not a buffer of the remote plugin");

  s = Execute(d, exe->get(), {a->get(), b->get(), elsewhere->get()});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  SY_EXPECT_ERROR(s, "execute: buffer 2 lives on remote-gpu1, not remote-gpu0");

  Expected<BufferPtr> small = Alloc(d, 20);
  SY_ASSERT_OK(small);
  SY_EXPECT_ERROR(Execute(d, exe->get(), {a->get(), small->get(), y->get()}),
                  "buffer 1 holds 20 bytes, needs 24");
  SY_EXPECT_ERROR(Execute(d, exe->get(), {a->get(), b->get()}), "expected 3 buffers, got 2");
}

TEST_F(TestPluginRemote, PrepareRefusesAnOpOutsideTheSubset) {
  Set("SY_TEST_REMOTE_OPS", "add");
  Expected<std::unique_ptr<PluginHost>> host = Load({kRemote});
  SY_ASSERT_OK(host);
  Chain chain("add", "relu");
  Expected<ExecutablePtr> exe = Prepare(*(*host)->devices()[0], chain);
  EXPECT_EQ(exe.status().code(), StatusCode::kUnsupported);
  SY_EXPECT_ERROR(exe, "op \"relu\" is not in this device's subset");
}

// ---- both, found by a scan of SWITCHYARD_PLUGIN_PATH ----

TEST_F(TestPluginRemote, BothAreFoundThroughThePluginPath) {
  Set("SWITCHYARD_PLUGIN_PATH",
      ((kTestPlugins / "partial").string() + ":" + (kTestPlugins / "remote").string()).c_str());
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(DiscoveryOptions{});
  SY_ASSERT_OK(host);
  for (const char* name : {"partial-accel", "remote-gpu0", "remote-gpu1"}) {
    Expected<const Device*> d = (*host)->FindDevice(name);
    SY_EXPECT_OK(d);
  }
}

}  // namespace
}  // namespace sy
