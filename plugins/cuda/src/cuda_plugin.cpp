// The CUDA plugin behind the C ABI (docs/cuda.md): one device per CUDA device the runtime
// finds. A machine without an NVIDIA driver or GPU loads the plugin with zero devices and
// context_status says why. Buffers are device memory from a per-device pool (views share
// their parent's block), so host_pointer() is null and the host copies, through pinned
// staging. copy_device_to_device is cudaMemcpyAsync on one device, cudaMemcpyPeerAsync
// across devices.
#include <memory>
#include <string>

#include "cuda_executable.h"
#include "cuda_runtime.h"
#include "switchyard/plugin_cpp.h"

namespace sy::cuda {
namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "cuda",
                                  "0.1.0",
                                  "Switchyard",
                                  "NVIDIA GPUs through the CUDA runtime and cuBLAS"};

class CudaContext : public sy_context {
 public:
  CudaContext() : discovery_(DiscoverDevices()) {}

  uint32_t device_count() const override {
    return static_cast<uint32_t>(discovery_.devices.size());
  }

  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    const Device& d = *discovery_.devices[device];
    info.name = d.name.c_str();
    info.vendor = "NVIDIA";
    info.kind = d.integrated ? SY_DEVICE_INTEGRATED_GPU : SY_DEVICE_DISCRETE_GPU;
    // f16 and bf16 compute in f32 on every device; f64 is native.
    info.flags = SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64;
    info.memory_bytes = d.memory_bytes;
  }

  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    return SupportsNode(*discovery_.devices[device], DecodeNode(node), reason);
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t device, uint64_t bytes) override {
    return std::make_unique<CudaBuffer>(*discovery_.devices[device], bytes);
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    return std::make_unique<CudaExecutable>(*discovery_.devices[device], p);
  }

  const char* status() const override { return discovery_.status.c_str(); }

 private:
  Discovery discovery_;
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options&) {
  return std::make_unique<CudaContext>();
}

using Base = sy_sdk::Trampolines<&kInfo, CreateContext>;

// Direct copies on the device (the SDK's default stages every copy through host memory).
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
    auto* d = dynamic_cast<CudaBuffer*>(dst);
    const auto* s = dynamic_cast<const CudaBuffer*>(src);
    if (d == nullptr || s == nullptr) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          "copy_device_to_device: not a buffer of the CUDA plugin");
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
}  // namespace sy::cuda

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max) {
  if (host_max < SY_PLUGIN_ABI_MIN_VERSION) return nullptr;
  return sy::cuda::Api();
}
