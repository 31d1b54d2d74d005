// The OpenCL plugin behind the C ABI (docs/opencl.md): one device per OpenCL device of
// every platform, each with its own context and in-order queue. Buffers are device
// memory (cl_mem at an offset; views share their parent's cl_mem), so host_pointer() is
// null and the host copies. copy_device_to_device is direct within a context and staged
// through host memory across contexts.
#include <memory>
#include <string>

#include "cl_runtime.h"
#include "opencl_executable.h"
#include "switchyard/plugin_cpp.h"

namespace sy::opencl {
namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "opencl",
                                  "0.1.0",
                                  "Switchyard",
                                  "OpenCL 1.2+ devices through the ICD loader"};

class OpenClContext : public sy_context {
 public:
  OpenClContext() : discovery_(DiscoverDevices()) {}

  uint32_t device_count() const override {
    return static_cast<uint32_t>(discovery_.devices.size());
  }

  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    const Device& d = *discovery_.devices[device];
    info.name = d.name.c_str();
    info.vendor = d.vendor.c_str();
    info.kind = d.kind;
    info.flags = (d.fp16 ? SY_DEVICE_FLAG_F16 : 0u) | (d.fp64 ? SY_DEVICE_FLAG_F64 : 0u);
    info.memory_bytes = d.memory_bytes;
  }

  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    return SupportsNode(*discovery_.devices[device], DecodeNode(node), reason);
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t device, uint64_t bytes) override {
    return std::make_unique<ClBuffer>(*discovery_.devices[device], bytes);
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    return std::make_unique<OpenClExecutable>(*discovery_.devices[device], p);
  }

  const char* status() const override { return discovery_.status.c_str(); }

 private:
  Discovery discovery_;
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options&) {
  return std::make_unique<OpenClContext>();
}

using Base = sy_sdk::Trampolines<&kInfo, CreateContext>;

// Direct copies within one context (the SDK's default stages every copy through host).
sy_error* CopyDeviceToDevice(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src,
                             uint64_t src_offset, uint64_t bytes) {
  if (dst == nullptr || src == nullptr) {
    return sy_sdk::MakeError(SY_ERROR_INVALID_ARGUMENT, "copy_device_to_device: null argument");
  }
  if (!Base::RangeOk(dst->size(), dst_offset, bytes) ||
      !Base::RangeOk(src->size(), src_offset, bytes)) {
    return sy_sdk::MakeError(SY_ERROR_INVALID_ARGUMENT,
                             "copy_device_to_device: range past the end of a buffer");
  }
  return sy_sdk::Guard([&] {
    auto* d = dynamic_cast<ClBuffer*>(dst);
    const auto* s = dynamic_cast<const ClBuffer*>(src);
    if (d == nullptr || s == nullptr) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          "copy_device_to_device: not a buffer of the OpenCL plugin");
    }
    CopyBetween(*d, dst_offset, *s, src_offset, bytes);
  });
}

const sy_plugin_api* Api() {
  static const sy_plugin_api api = [] {
    sy_plugin_api a = *Base::Api();
    a.copy_device_to_device = CopyDeviceToDevice;
    return a;
  }();
  return &api;
}

}  // namespace
}  // namespace sy::opencl

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max) {
  if (host_max < SY_PLUGIN_ABI_MIN_VERSION) return nullptr;
  return sy::opencl::Api();
}
