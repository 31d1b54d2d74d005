// The "vendor" plugin: an example of a Switchyard backend built out of tree against the
// installed SDK. It offers one device, "vendor-accel", an accelerator whose memory is
// ordinary host memory, and runs six elementwise ops on f32 (add, sub, mul with NumPy
// broadcasting; relu, sigmoid, tanh). Everything else it declines, and the scheduler
// gives those nodes to another device (the CPU plugin).
//
// It uses only the SDK: switchyard/plugin.h (the C ABI) through switchyard/plugin_cpp.h
// (the C++ helper), which supplies the function table, catches every exception at the
// boundary and checks arguments (null pointers, device indices, copy ranges, malformed
// nodes) before our code sees them, and the plugin kit (Switchyard::plugin_kit), which
// reads nodes and partitions back into C++ types and keeps the bookkeeping of bound and
// intermediate values. What is left to write:
//
//   sy_plugin_info        who we are (static)
//   sy_context            one per `initialize`: devices, support answers, allocation,
//                         prepare
//   sy_buffer             device memory; sy_sdk::HostBuffer does it for host memory
//   sy_executable         a prepared partition (executable.h)
//   SY_SDK_DEFINE_PLUGIN  the one exported symbol, sy_plugin_query
//
// docs/writing-a-plugin.md walks through this file; docs/plugin-abi.md is the contract.
#include <memory>
#include <string>

#include "executable.h"
#include "switchyard/plugin_cpp.h"

namespace {

// Static storage: the host reads these strings for as long as the library is loaded.
// `name` is what users write in `--device vendor` and in a model's "backend" hints.
constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info),
    SY_PLUGIN_ABI_VERSION,
    "vendor",
    "1.0.0",
    "Example Vendor",
    "example out-of-tree plugin: f32 add, sub, mul, relu, sigmoid, tanh on vendor-accel"};

// One context per `initialize`. The host may call every method below from several
// threads at once (only initialize and shutdown are serialised), so the context keeps
// no mutable state: it answers questions and hands out objects the host owns.
class VendorContext : public sy_context {
 public:
  // A real plugin would open its driver here. If the hardware or runtime is missing it
  // should still succeed, report zero devices and say why in status(); failing
  // initialize is for a plugin that cannot work at all.
  explicit VendorContext(const sy_init_options&) {}

  uint32_t device_count() const override { return 1; }

  void DescribeDevice(uint32_t, sy_device_info& info) const override {
    // The trampoline copies only the members the host's sy_device_info has
    // (struct_size versioning); strings must live until shutdown.
    info.name = "vendor-accel";
    info.vendor = "Example Vendor";
    info.kind = SY_DEVICE_ACCELERATOR;
    // HOST_MEMORY: buffer_host_pointer works, so the host can copy to and from our
    // buffers without staging, and we can run kernels on them directly. No F16/F64 flag:
    // f32 only.
    info.flags = SY_DEVICE_FLAG_HOST_MEMORY;
    info.memory_bytes = 0;  // unknown: the scheduler then applies no limit of ours
  }

  // The support query: asked once per (node, device) when a plan is built. The answer
  // must be the truth, since prepare gets exactly the nodes we said yes to; a decline
  // carries a short reason that `switchyard plan` shows the user.
  bool Supports(uint32_t, const sy_node& node, std::string& reason) const override {
    // `switchyard devices` counts the ops a device runs by asking about each op of the
    // catalogue with a bare node (no inputs, no outputs): answer for the op alone.
    // prepare never sees such a node; it checks every node in full (executable.cpp).
    if (node.num_inputs == 0 && node.num_outputs == 0) {
      if (vendor::OpFromName(node.op)) return true;
      reason = std::string("vendor-accel does not run \"") + node.op + "\"";
      return false;
    }
    // The trampoline has refused a malformed node (plugin-abi.md); the kit decodes the
    // rest into C++ types.
    return vendor::CheckNode(sy::plugin::DecodeNode(node), reason);
  }

  // Buffers: host memory, 64-byte aligned. The host owns them until buffer_free, which
  // deletes the object (plugin_cpp.h). sy_sdk::HostBuffer also supplies buffer_view (a
  // window onto part of a buffer; the host plans one arena per device and binds views
  // of it) and the copies. Throwing std::bad_alloc reports SY_ERROR_RESOURCE_EXHAUSTED.
  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    return std::make_unique<sy_sdk::HostBuffer>(bytes);
  }

  // Host memory the caller owns, used in place (buffer_wrap_host): graph inputs, and
  // values another host-memory device (the CPU) produced, then reach us by pointer
  // instead of by copy. We only read such buffers; the caller keeps the memory alive.
  std::unique_ptr<sy_buffer> WrapHost(uint32_t, void* host, uint64_t bytes) override {
    return std::make_unique<sy_sdk::WrappedHostBuffer>(host, bytes);
  }

  // Compile a partition once; the host then executes it many times.
  std::unique_ptr<sy_executable> Prepare(uint32_t, const sy_partition& p) override {
    return std::make_unique<vendor::VendorExecutable>(p);
  }
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options& options) {
  return std::make_unique<VendorContext>(options);
}

}  // namespace

// Defines `extern "C" const sy_plugin_api* sy_plugin_query(uint32_t host_max_abi)`,
// the only symbol the library exports (switchyard_add_plugin's version script hides the
// rest). It returns NULL to a host older than SY_PLUGIN_ABI_MIN_VERSION.
SY_SDK_DEFINE_PLUGIN(kInfo, CreateContext)
