#include "conformance/api_cases.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "conformance/compare.h"
#include "plugin/node_descriptors.h"
#include "switchyard/op_schema.h"

namespace sy::conformance {
namespace {

CaseResult Pass() { return {Outcome::kPass, ""}; }
CaseResult Fail(std::string why) { return {Outcome::kFail, std::move(why)}; }

// Takes an error the plugin returned: its message must be readable and its code set;
// then it is destroyed (the sanitizers catch a double free or a leak).
std::string CheckError(const sy_plugin_api* api, sy_error* error, const char* call) {
  if (error == nullptr) return std::string(call) + " accepted it (expected an error status)";
  const char* message = api->error_message(error);
  const uint32_t code = api->error_code(error);
  std::string problem;
  if (message == nullptr)
    problem = std::string(call) + ": error_message returned NULL";
  else if (code == 0)
    problem = std::string(call) + ": error_code is 0 for an error";
  else
    (void)std::strlen(message);  // readable
  api->error_destroy(error);
  return problem;
}

// The library's own table, straight from sy_plugin_query (not the host's copy).
struct RawLibrary {
  void* handle = nullptr;
  sy_plugin_query_fn query = nullptr;
  explicit RawLibrary(const std::filesystem::path& path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) query = reinterpret_cast<sy_plugin_query_fn>(dlsym(handle, SY_PLUGIN_QUERY_SYMBOL));
  }
  ~RawLibrary() {
    if (handle) dlclose(handle);
  }
};

CaseResult QueryTwice(const std::filesystem::path& path, const Device&, const Device&) {
  RawLibrary lib(path);
  if (lib.query == nullptr) return Fail("cannot dlopen it or find sy_plugin_query");
  const sy_plugin_api* a = lib.query(SY_PLUGIN_ABI_VERSION);
  const sy_plugin_api* b = lib.query(SY_PLUGIN_ABI_VERSION);
  if (a == nullptr || b == nullptr) return Fail("sy_plugin_query returned NULL");
  if (a->struct_size != b->struct_size || a->abi_version != b->abi_version || a->info == nullptr ||
      b->info == nullptr || a->info->name == nullptr ||
      std::strcmp(a->info->name, b->info->name) != 0) {
    return Fail("two queries returned different tables");
  }
  if (lib.query(0) != nullptr) return Fail("sy_plugin_query(0) should return NULL (no ABI 0)");
  return Pass();
}

CaseResult LoadUnloadRepeatedly(const std::filesystem::path& path, const Device&, const Device&) {
  for (int i = 0; i < 20; ++i) {
    DiscoveryOptions options;
    options.scan_default_paths = false;
    options.explicit_plugins = {path};
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    if (!host.ok()) return Fail("load " + std::to_string(i) + ": " + host.status().message());
  }
  return Pass();
}

CaseResult DeviceEnumeration(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  const uint32_t count = api->device_count(plugin.context());
  if (count == 0 || device.index >= count) return Fail("device_count is " + std::to_string(count));
  for (uint32_t d = 0; d < count; ++d) {
    sy_device_info info{};
    info.struct_size = sizeof info;
    info.abi_version = SY_PLUGIN_ABI_VERSION;
    sy_error* e = api->device_info(plugin.context(), d, &info);
    if (e != nullptr)
      return Fail("device_info(" + std::to_string(d) + "): " + CheckError(api, e, "device_info"));
    if (info.name == nullptr || info.name[0] == '\0')
      return Fail("device " + std::to_string(d) + " has no name");
    if (info.kind > SY_DEVICE_ACCELERATOR)
      return Fail("device " + std::to_string(d) + " has an unknown kind");
  }
  sy_device_info info{};
  info.struct_size = sizeof info;
  info.abi_version = SY_PLUGIN_ABI_VERSION;
  std::string problem =
      CheckError(api, api->device_info(plugin.context(), count, &info), "device_info(count)");
  if (!problem.empty()) return Fail(problem);
  // A host built against a header with a shorter struct: only the first 8 bytes exist.
  struct {
    sy_device_info head;
    unsigned char canary[8];
  } small{};
  small.head.struct_size = 8;
  std::memset(small.canary, 0x5A, sizeof small.canary);
  sy_error* e = api->device_info(plugin.context(), device.index, &small.head);
  if (e != nullptr) {
    (void)CheckError(api, e, "device_info");  // refusing is acceptable
  } else if (small.head.name != nullptr) {
    return Fail("device_info wrote past struct_size 8");
  }
  return Pass();
}

CaseResult Allocations(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  sy_buffer* zero = nullptr;
  sy_error* e = api->buffer_alloc(plugin.context(), device.index, 0, &zero);
  if (e != nullptr)
    return Fail("a zero-byte allocation failed: " + CheckError(api, e, "buffer_alloc"));
  if (zero == nullptr) return Fail("a zero-byte allocation returned no buffer");
  api->buffer_free(zero);
  sy_buffer* huge = nullptr;
  e = api->buffer_alloc(plugin.context(), device.index, UINT64_MAX / 2, &huge);
  if (e == nullptr) {
    if (huge != nullptr) api->buffer_free(huge);
    return Fail("an allocation of 2^63 bytes succeeded");
  }
  const std::string problem = CheckError(api, e, "buffer_alloc");
  return problem.empty() ? Pass() : Fail(problem);
}

CaseResult Copies(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  sy_buffer* a = nullptr;
  sy_buffer* b = nullptr;
  std::string problem;
  if (sy_error* e = api->buffer_alloc(plugin.context(), device.index, 64, &a)) {
    return Fail(CheckError(api, e, "buffer_alloc"));
  }
  if (sy_error* e = api->buffer_alloc(plugin.context(), device.index, 64, &b)) {
    api->buffer_free(a);
    return Fail(CheckError(api, e, "buffer_alloc"));
  }
  unsigned char in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = static_cast<unsigned char>(i * 7 + 1);
  auto check = [&](sy_error* e, const char* what) {
    if (e != nullptr && problem.empty())
      problem = std::string(what) + " failed: " + CheckError(api, e, what);
  };
  check(api->copy_host_to_device(a, 0, in, 64), "copy_host_to_device");
  std::memset(out, 0, sizeof out);
  check(api->copy_device_to_host(a, 0, out, 64), "copy_device_to_host");
  if (problem.empty() && std::memcmp(in, out, 64) != 0)
    problem = "host -> device -> host changed the bytes";
  // At offsets.
  check(api->copy_host_to_device(a, 16, in, 8), "copy_host_to_device at offset 16");
  check(api->copy_device_to_host(a, 16, out, 8), "copy_device_to_host at offset 16");
  if (problem.empty() && std::memcmp(in, out, 8) != 0)
    problem = "a copy at offset 16 changed the bytes";
  if (api->copy_device_to_device != nullptr && problem.empty()) {
    check(api->copy_host_to_device(a, 0, in, 64), "copy_host_to_device");
    check(api->copy_device_to_device(b, 8, a, 0, 32), "copy_device_to_device");
    check(api->copy_device_to_host(b, 8, out, 32), "copy_device_to_host");
    if (problem.empty() && std::memcmp(in, out, 32) != 0)
      problem = "copy_device_to_device changed the bytes";
  }
  // Out of range: errors, not writes past the end.
  if (problem.empty())
    problem =
        CheckError(api, api->copy_host_to_device(a, 60, in, 8), "copy_host_to_device past the end");
  if (problem.empty())
    problem = CheckError(api, api->copy_device_to_host(a, 65, out, 0),
                         "copy_device_to_host at offset 65");
  if (problem.empty())
    problem = CheckError(api, api->copy_host_to_device(a, UINT64_MAX, in, 2),
                         "copy_host_to_device at offset 2^64-1");
  if (problem.empty() && api->copy_device_to_device != nullptr) {
    problem = CheckError(api, api->copy_device_to_device(b, 0, a, 40, 32),
                         "copy_device_to_device past the end");
  }
  if (problem.empty() && api->buffer_view != nullptr) {
    sy_buffer* view = nullptr;
    check(api->buffer_view(a, 32, 16, &view), "buffer_view");
    if (view != nullptr) {
      check(api->copy_host_to_device(view, 0, in + 3, 16), "copy_host_to_device into a view");
      check(api->copy_device_to_host(a, 32, out, 16), "copy_device_to_host");
      if (problem.empty() && std::memcmp(in + 3, out, 16) != 0)
        problem = "a view does not alias its parent";
      if (problem.empty())
        problem = CheckError(api, api->copy_host_to_device(view, 8, in, 16),
                             "copy_host_to_device past a view's end");
      api->buffer_free(view);
    }
    if (problem.empty()) {
      sy_buffer* bad = nullptr;
      problem = CheckError(api, api->buffer_view(a, 60, 16, &bad), "buffer_view past the end");
      if (bad != nullptr) api->buffer_free(bad);
    }
  }
  api->buffer_free(b);
  api->buffer_free(a);
  return problem.empty() ? Pass() : Fail(problem);
}

// f32 [2, 3] add: the node the argument cases mangle.
struct AddNode {
  int64_t dims[2] = {2, 3};
  sy_tensor_type types[3];
  uint32_t inputs[2] = {0, 1};
  uint32_t outputs[1] = {2};
  sy_node node{};
  sy_partition partition{};
  AddNode() {
    for (auto& t : types) t = {static_cast<uint32_t>(DType::kF32), 2, dims};
    node.struct_size = sizeof node;
    node.abi_version = SY_PLUGIN_ABI_VERSION;
    node.op = "add";
    node.name = "";
    node.num_inputs = 2;
    node.num_outputs = 1;
    node.inputs = types;
    node.outputs = types + 2;
    node.input_values = inputs;
    node.output_values = outputs;
    partition.struct_size = sizeof partition;
    partition.abi_version = SY_PLUGIN_ABI_VERSION;
    partition.num_values = 3;
    partition.values = types;
    partition.num_nodes = 1;
    partition.nodes = &node;
    partition.num_inputs = 2;
    partition.inputs = inputs;
    partition.num_outputs = 1;
    partition.outputs = outputs;
  }
};

CaseResult BadArguments(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  sy_context* ctx = plugin.context();
  const uint32_t d = device.index;
  uint32_t supported = 7;
  char reason[128];
  AddNode add;
  std::string p;
  auto expect_error = [&](sy_error* e, const char* what) {
    if (p.empty()) p = CheckError(api, e, what);
  };
  expect_error(api->supports_node(ctx, d, nullptr, &supported, reason, sizeof reason),
               "supports_node(node = NULL)");
  expect_error(api->supports_node(ctx, d, &add.node, nullptr, reason, sizeof reason),
               "supports_node(supported = NULL)");
  expect_error(api->supports_node(ctx, 1u << 30, &add.node, &supported, reason, sizeof reason),
               "supports_node(no such device)");
  // An unknown op is declined with a reason, not an error.
  AddNode unknown;
  unknown.node.op = "no_such_op";
  if (p.empty()) {
    sy_error* e = api->supports_node(ctx, d, &unknown.node, &supported, reason, sizeof reason);
    if (e != nullptr)
      p = "supports_node of an unknown op returned an error instead of declining: " +
          CheckError(api, e, "supports_node");
    else if (supported != 0)
      p = "supports_node accepted the unknown op \"no_such_op\"";
  }
  sy_executable* exe = nullptr;
  expect_error(api->prepare(ctx, d, nullptr, &exe), "prepare(partition = NULL)");
  expect_error(api->prepare(ctx, d, &add.partition, nullptr), "prepare(out = NULL)");
  AddNode small;
  small.partition.struct_size = 8;
  expect_error(api->prepare(ctx, d, &small.partition, &exe), "prepare(struct_size = 8)");
  expect_error(api->prepare(ctx, d, &unknown.partition, &exe), "prepare of an unknown op");
  AddNode out_of_range;
  out_of_range.inputs[1] = 99;
  expect_error(api->prepare(ctx, d, &out_of_range.partition, &exe),
               "prepare with a value index out of range");
  // A well-formed node whose shapes its op would not give (an add of [2, 3] and [4]
  // into [2, 3]) is not sent: the host sends canonical nodes only (plugin-abi.md), and a
  // plugin need not re-run the catalogue's shape rules to find one.
  // Execute with the wrong number of buffers.
  if (p.empty()) {
    sy_executable* good = nullptr;
    sy_error* e = api->prepare(ctx, d, &add.partition, &good);
    if (e != nullptr) {
      const std::string why = CheckError(api, e, "prepare");
      return {Outcome::kUnsupported, "cannot prepare f32 add: " + why};
    }
    sy_buffer* b = nullptr;
    if (sy_error* ae = api->buffer_alloc(ctx, d, 24, &b)) {
      api->release(good);
      return Fail(CheckError(api, ae, "buffer_alloc"));
    }
    sy_buffer* one[1] = {b};
    expect_error(api->execute(good, 1, one), "execute with 1 buffer for 3 values");
    sy_buffer* with_null[3] = {b, nullptr, b};
    expect_error(api->execute(good, 3, with_null), "execute with a NULL buffer");
    expect_error(api->execute(nullptr, 0, nullptr), "execute(NULL)");
    api->buffer_free(b);
    api->release(good);
  }
  expect_error(api->buffer_alloc(ctx, d, 16, nullptr), "buffer_alloc(out = NULL)");
  expect_error(api->copy_host_to_device(nullptr, 0, reason, 1), "copy_host_to_device(NULL)");
  return p.empty() ? Pass() : Fail(p);
}

// supports_node for every catalogue op with the wrong number of inputs or outputs: a
// decline or an error, never a crash (the op's own checks must not index missing
// inputs). The node with neither is the op-level question `switchyard devices` asks.
CaseResult WrongArity(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  int64_t dims[1] = {2};
  sy_tensor_type types[6];
  for (auto& t : types) t = {static_cast<uint32_t>(DType::kF32), 1, dims};
  const std::pair<uint32_t, uint32_t> shapes[] = {{0, 0}, {0, 1}, {1, 0}, {5, 1}, {1, 5}};
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    const std::string op(schema.name);
    for (const auto& [inputs, outputs] : shapes) {
      sy_node node{};
      node.struct_size = sizeof node;
      node.abi_version = SY_PLUGIN_ABI_VERSION;
      node.op = op.c_str();
      node.name = "";
      node.num_inputs = inputs;
      node.inputs = types;
      node.num_outputs = outputs;
      node.outputs = types;
      uint32_t supported = 0;
      char reason[128];
      sy_error* e = api->supports_node(plugin.context(), device.index, &node, &supported, reason,
                                       sizeof reason);
      if (e != nullptr) api->error_destroy(e);
    }
  }
  return Pass();
}

// supports_node with each kind of malformed node (docs/plugin-abi.md, "Malformed nodes"),
// made from a well-formed f32 add: an error or a decline, never a crash and never
// "supported".
CaseResult MalformedNodes(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  const int64_t negative[2] = {2, -3};
  const char* const no_strings[2] = {"a", nullptr};
  struct Mangle {
    const char* what;
    void (*apply)(AddNode& a, sy_attr& attr, const int64_t* negative, const char* const* strs);
  };
  const Mangle mangles[] = {
      {"op NULL",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.node.op = nullptr; }},
      {"inputs NULL",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.node.inputs = nullptr; }},
      {"outputs NULL",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.node.outputs = nullptr; }},
      {"rank 2 with dims NULL",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.types[1].dims = nullptr; }},
      {"dtype 99",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.types[0].dtype = 99; }},
      {"a negative dim",
       [](AddNode& a, sy_attr&, const int64_t* neg, const char* const*) { a.types[0].dims = neg; }},
      {"attrs NULL with num_attrs 1",
       [](AddNode& a, sy_attr&, const int64_t*, const char* const*) { a.node.num_attrs = 1; }},
      {"an attribute named NULL",
       [](AddNode& a, sy_attr& attr, const int64_t*, const char* const*) {
         attr.name = nullptr;
         a.node.num_attrs = 1;
         a.node.attrs = &attr;
       }},
      {"an attribute of kind 77",
       [](AddNode& a, sy_attr& attr, const int64_t*, const char* const*) {
         attr.kind = 77;
         a.node.num_attrs = 1;
         a.node.attrs = &attr;
       }},
      {"a strings attribute holding NULL",
       [](AddNode& a, sy_attr& attr, const int64_t*, const char* const* strs) {
         attr.kind = SY_ATTR_STRINGS;
         attr.count = 2;
         attr.strings = strs;
         a.node.num_attrs = 1;
         a.node.attrs = &attr;
       }},
  };
  for (const Mangle& m : mangles) {
    AddNode add;
    sy_attr attr{};
    attr.name = "extra";
    attr.kind = SY_ATTR_INT;
    m.apply(add, attr, negative, no_strings);
    uint32_t supported = 7;
    char reason[128];
    sy_error* e = api->supports_node(plugin.context(), device.index, &add.node, &supported, reason,
                                     sizeof reason);
    if (e != nullptr) {
      const std::string problem = CheckError(api, e, "supports_node");
      if (!problem.empty()) return Fail(std::string(m.what) + ": " + problem);
    } else if (supported != 0) {
      return Fail(std::string("supports_node accepted a malformed node: ") + m.what);
    }
  }
  return Pass();
}

// Four threads, each with its own executable of one f32 [64, 64] add, execute at once.
CaseResult Concurrency(const std::filesystem::path&, const Device& device, const Device&) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  AddNode add;
  add.dims[0] = add.dims[1] = 64;
  constexpr uint64_t kBytes = 64 * 64 * 4;
  std::atomic<int> failures{0};
  std::string first_problem;
  std::atomic<bool> reported{false};
  auto report = [&](std::string why) {
    ++failures;
    if (!reported.exchange(true)) first_problem = std::move(why);
  };
  auto work = [&](int id) {
    sy_executable* exe = nullptr;
    if (sy_error* e = api->prepare(plugin.context(), device.index, &add.partition, &exe)) {
      report("prepare: " + CheckError(api, e, "prepare"));
      return;
    }
    sy_buffer* bufs[3] = {nullptr, nullptr, nullptr};
    for (auto& b : bufs) {
      if (sy_error* e = api->buffer_alloc(plugin.context(), device.index, kBytes, &b)) {
        report(CheckError(api, e, "buffer_alloc"));
      }
    }
    std::vector<float> x(64 * 64), y(64 * 64), z(64 * 64);
    for (int i = 0; i < 64 * 64; ++i) {
      x[i] = static_cast<float>(i % 97 + id);
      y[i] = static_cast<float>(i % 13) * 0.5f;
    }
    if (bufs[0] && bufs[1] && bufs[2]) {
      for (int k = 0; k < 2; ++k) {
        const void* host = k == 0 ? x.data() : y.data();
        if (sy_error* e = api->copy_host_to_device(bufs[k], 0, host, kBytes)) {
          report("copy_host_to_device: " + CheckError(api, e, "copy_host_to_device"));
        }
      }
      for (int round = 0; round < 50 && failures == 0; ++round) {
        if (sy_error* e = api->execute(exe, 3, bufs)) {
          report("execute: " + CheckError(api, e, "execute"));
          break;
        }
        if (sy_error* e = api->copy_device_to_host(bufs[2], 0, z.data(), kBytes)) {
          report(CheckError(api, e, "copy_device_to_host"));
          break;
        }
        for (int i = 0; i < 64 * 64; ++i) {
          if (z[i] != x[i] + y[i]) {
            report("thread " + std::to_string(id) + " round " + std::to_string(round) +
                   ": element " + std::to_string(i) + " is " + std::to_string(z[i]) +
                   ", expected " + std::to_string(x[i] + y[i]));
            break;
          }
        }
      }
    }
    for (auto& b : bufs) {
      if (b) api->buffer_free(b);
    }
    api->release(exe);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  return failures == 0 ? Pass() : Fail(first_problem);
}

// add then reshape to one axis: x [r, c] + y [r, c] -> t -> z [r*c]. The reshape's
// `shape` is resolved against the sizes, as the host resolves attribute expressions.
struct AddReshape {
  int64_t dims[2];
  int64_t flat[1];
  sy_tensor_type types[4];
  uint32_t add_in[2] = {0, 1}, add_out[1] = {2}, reshape_in[1] = {2}, reshape_out[1] = {3};
  uint32_t bound_inputs[2] = {0, 1}, bound_outputs[1] = {3};
  sy_attr shape_attr{};
  sy_node nodes[2]{};
  sy_partition partition{};
  AddReshape(int64_t rows, int64_t cols) : dims{rows, cols}, flat{rows * cols} {
    for (int k = 0; k < 3; ++k) types[k] = {static_cast<uint32_t>(DType::kF32), 2, dims};
    types[3] = {static_cast<uint32_t>(DType::kF32), 1, flat};
    shape_attr.name = "shape";
    shape_attr.kind = SY_ATTR_INTS;
    shape_attr.count = 1;
    shape_attr.ints = flat;
    for (sy_node& node : nodes) {
      node.struct_size = sizeof node;
      node.abi_version = SY_PLUGIN_ABI_VERSION;
      node.name = "";
      node.num_inputs = 1;
      node.num_outputs = 1;
    }
    nodes[0].op = "add";
    nodes[0].num_inputs = 2;
    nodes[0].inputs = types;
    nodes[0].outputs = types + 2;
    nodes[0].input_values = add_in;
    nodes[0].output_values = add_out;
    nodes[1].op = "reshape";
    nodes[1].inputs = types + 2;
    nodes[1].outputs = types + 3;
    nodes[1].num_attrs = 1;
    nodes[1].attrs = &shape_attr;
    nodes[1].input_values = reshape_in;
    nodes[1].output_values = reshape_out;
    partition.struct_size = sizeof partition;
    partition.abi_version = SY_PLUGIN_ABI_VERSION;
    partition.num_values = 4;
    partition.values = types;
    partition.num_nodes = 2;
    partition.nodes = nodes;
    partition.num_inputs = 2;
    partition.inputs = bound_inputs;
    partition.num_outputs = 1;
    partition.outputs = bound_outputs;
  }
};

// A device declaring SY_DEVICE_FLAG_RESIZABLE: one executable, prepared at [2, 3], runs
// at [4, 5], [2, 3] again and [1, 7] through execute_resized (declining is allowed), then
// execute runs at the last sizes, [1, 7]; each result is x + y. A partition of another structure
// is refused with an error.
CaseResult ResizedExecution(const std::filesystem::path&, const Device& device, const Device&) {
  if (!device.resizable()) return Pass();  // nothing declared, nothing to check
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  if (api->execute_resized == nullptr) {
    return Fail(
        "the device declares SY_DEVICE_FLAG_RESIZABLE but the table has no execute_resized");
  }
  AddReshape prepared_at(2, 3);
  sy_executable* exe = nullptr;
  if (sy_error* e = api->prepare(plugin.context(), device.index, &prepared_at.partition, &exe)) {
    return Fail("prepare: " + CheckError(api, e, "prepare"));
  }
  std::string problem;
  // Runs at rows x cols, through execute_resized unless `plain`; true when it ran.
  auto run = [&](int64_t rows, int64_t cols, bool plain) -> bool {
    AddReshape at(rows, cols);
    const uint64_t bytes = static_cast<uint64_t>(rows * cols) * 4;
    std::vector<float> x(rows * cols), y(rows * cols), z(rows * cols, -1.0f);
    for (int64_t i = 0; i < rows * cols; ++i) {
      x[i] = static_cast<float>(i % 11) - 5;
      y[i] = static_cast<float>(rows * 100 + cols);
    }
    sy_buffer* bufs[3] = {nullptr, nullptr, nullptr};
    bool ran = false;
    for (auto& b : bufs) {
      if (sy_error* e = api->buffer_alloc(plugin.context(), device.index, bytes, &b)) {
        problem = CheckError(api, e, "buffer_alloc");
      }
    }
    if (problem.empty()) {
      for (int k = 0; k < 2 && problem.empty(); ++k) {
        if (sy_error* e =
                api->copy_host_to_device(bufs[k], 0, k == 0 ? x.data() : y.data(), bytes)) {
          problem = CheckError(api, e, "copy_host_to_device");
        }
      }
    }
    if (problem.empty()) {
      sy_error* e =
          plain ? api->execute(exe, 3, bufs) : api->execute_resized(exe, &at.partition, 3, bufs);
      const std::string call = (plain ? "execute at " : "execute_resized at ") +
                               std::to_string(rows) + "x" + std::to_string(cols);
      if (e != nullptr && !plain && api->error_code(e) == SY_ERROR_UNSUPPORTED) {
        api->error_destroy(e);  // declined: allowed
      } else if (e != nullptr) {
        problem = call + ": " + CheckError(api, e, call.c_str());
      } else if (sy_error* c = api->copy_device_to_host(bufs[2], 0, z.data(), bytes)) {
        problem = CheckError(api, c, "copy_device_to_host");
      } else {
        ran = true;
        for (int64_t i = 0; i < rows * cols && problem.empty(); ++i) {
          if (z[i] != x[i] + y[i]) {
            problem = call + ": element " + std::to_string(i) + " is " + std::to_string(z[i]) +
                      ", expected " + std::to_string(x[i] + y[i]);
          }
        }
      }
    }
    for (auto& b : bufs) {
      if (b) api->buffer_free(b);
    }
    return ran;
  };
  run(4, 5, false);
  if (problem.empty()) run(2, 3, false);
  if (problem.empty() && run(1, 7, false) && problem.empty()) run(1, 7, true);
  if (problem.empty()) {
    AddNode other;  // one node where the executable has two
    sy_buffer* bufs[3] = {nullptr, nullptr, nullptr};
    for (auto& b : bufs) {
      if (sy_error* e = api->buffer_alloc(plugin.context(), device.index, 24, &b)) {
        problem = CheckError(api, e, "buffer_alloc");
      }
    }
    if (problem.empty()) {
      sy_error* e = api->execute_resized(exe, &other.partition, 3, bufs);
      if (e == nullptr)
        problem = "execute_resized ran a partition of another structure";
      else {
        const std::string why = CheckError(api, e, "execute_resized (another structure)");
        if (!why.empty()) problem = why;
      }
    }
    for (auto& b : bufs) {
      if (b) api->buffer_free(b);
    }
  }
  api->release(exe);
  return problem.empty() ? Pass() : Fail(problem);
}

}  // namespace

const std::vector<ApiCase>& ApiCases() {
  static const std::vector<ApiCase> cases = {
      {"query_twice", QueryTwice},
      {"load_unload_repeatedly", LoadUnloadRepeatedly},
      {"device_enumeration", DeviceEnumeration},
      {"allocations", Allocations},
      {"copies", Copies},
      {"bad_arguments", BadArguments},
      {"every_op_with_wrong_arity", WrongArity},
      {"malformed_nodes", MalformedNodes},
      {"four_threads_execute", Concurrency},
      {"resized_execution", ResizedExecution},
  };
  return cases;
}

}  // namespace sy::conformance
