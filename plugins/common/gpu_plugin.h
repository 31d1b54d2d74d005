// The C entry of a GPU plugin, shared by OpenCL and CUDA: a context over the devices the
// runtime finds (zero devices and a status saying why when it finds none), support
// queries on decoded nodes, device buffers, prepare, and direct device-to-device copies
// (the SDK's default stages every copy through host memory). Sees only the SDK.
//
// A plugin supplies a Backend, its runtime and op table behind one struct (a sketch):
//
//   struct Backend {
//     using Device = ...;      // one device of the runtime
//     using Buffer = ...;      // sy_buffer; Buffer(Device&, uint64_t bytes)
//     using Executable = ...;  // sy_executable; Executable(Device&, const sy_partition&)
//     static constexpr const char* kName = "OpenCL";  // in messages
//     // {std::vector<std::unique_ptr<Device>> devices; std::string status;}
//     static Discovery Discover();
//     // Strings must live as long as the Device.
//     static void Describe(const Device&, sy_device_info&);
//     static bool Supports(const Device&, const NodeInfo&, std::string& reason);
//     // Both buffers of this plugin; ranges already checked.
//     static void Copy(Buffer& dst, uint64_t dst_offset, const Buffer& src,
//                      uint64_t src_offset, uint64_t bytes);
//   };
//
// and defines its one exported symbol with SY_GPU_DEFINE_PLUGIN(info, Backend).
#pragma once

#include <memory>
#include <string>

#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_node.h"

namespace sy::plugin {

template <typename Backend>
class GpuContext : public sy_context {
 public:
  GpuContext() : discovery_(Backend::Discover()) {}

  uint32_t device_count() const override {
    return static_cast<uint32_t>(discovery_.devices.size());
  }
  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    Backend::Describe(*discovery_.devices[device], info);
  }
  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    return Backend::Supports(*discovery_.devices[device], DecodeNode(node), reason);
  }
  std::unique_ptr<sy_buffer> Allocate(uint32_t device, uint64_t bytes) override {
    return std::make_unique<typename Backend::Buffer>(*discovery_.devices[device], bytes);
  }
  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    return std::make_unique<typename Backend::Executable>(*discovery_.devices[device], p);
  }
  const char* status() const override { return discovery_.status.c_str(); }

 private:
  decltype(Backend::Discover()) discovery_;
};

template <const sy_plugin_info* Info, typename Backend>
struct GpuPlugin {
  static std::unique_ptr<sy_context> Create(const sy_init_options& options) {
    RequireCanonicalNodes(options, Info->name);
    return std::make_unique<GpuContext<Backend>>();
  }
  using Base = sy_sdk::Trampolines<Info, Create>;

  static sy_error* CopyDeviceToDevice(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src,
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
      auto* d = dynamic_cast<typename Backend::Buffer*>(dst);
      const auto* s = dynamic_cast<const typename Backend::Buffer*>(src);
      if (d == nullptr || s == nullptr) {
        throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                            std::string("copy_device_to_device: not a buffer of the ") +
                                Backend::kName + " plugin");
      }
      Backend::Copy(*d, dst_offset, *s, src_offset, bytes);
    });
  }

  static const sy_plugin_api* Api() {
    static const sy_plugin_api api = [] {
      sy_plugin_api a = *Base::Api();
      a.copy_device_to_device = CopyDeviceToDevice;
      return a;
    }();
    return &api;
  }
};

}  // namespace sy::plugin

// The plugin's one exported symbol, sy_plugin_query, for `info` (a static sy_plugin_info)
// and `Backend` (above). NULL to a host older than SY_PLUGIN_ABI_MIN_VERSION.
#define SY_GPU_DEFINE_PLUGIN(info, Backend)                                             \
  extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max) { \
    if (host_max < SY_PLUGIN_ABI_MIN_VERSION) return nullptr;                           \
    return ::sy::plugin::GpuPlugin<&info, Backend>::Api();                              \
  }
