// The CUDA plugin behind the C ABI (docs/cuda.md): one device per CUDA device the runtime
// finds. A machine without an NVIDIA driver or GPU loads the plugin with zero devices and
// context_status says why. Buffers are device memory from a per-device pool (views share
// their parent's block), so host_pointer() is null and the host copies, through pinned
// staging. copy_device_to_device is cudaMemcpyAsync on one device, cudaMemcpyPeerAsync
// across devices. The context and the entry are the GPU skeleton's
// (plugins/common/gpu_plugin.h); this file says what is CUDA's.
#include <string>

#include "cuda_executable.h"
#include "cuda_runtime.h"
#include "gpu_plugin.h"

namespace sy::cuda {
namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "cuda",
                                  "0.1.0",
                                  "Switchyard",
                                  "NVIDIA GPUs through the CUDA runtime and cuBLAS"};

struct CudaBackend {
  using Device = cuda::Device;
  using Buffer = CudaBuffer;
  using Executable = CudaExecutable;
  static constexpr const char* kName = "CUDA";

  static Discovery Discover() { return DiscoverDevices(); }
  static void Describe(const Device& d, sy_device_info& info) {
    info.name = d.name.c_str();
    info.vendor = "NVIDIA";
    info.kind = d.integrated ? SY_DEVICE_INTEGRATED_GPU : SY_DEVICE_DISCRETE_GPU;
    // f16 and bf16 compute in f32 on every device; f64 is native.
    // cache_write bound to its cache's own buffer writes only the update (ops_indexing.cpp).
    info.flags = SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64 | SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE;
    info.memory_bytes = d.memory_bytes;
  }
  static bool Supports(const Device& d, const NodeInfo& node, std::string& reason) {
    return SupportsNode(d, node, reason);
  }
  static void Copy(Buffer& dst, uint64_t dst_offset, const Buffer& src, uint64_t src_offset,
                   uint64_t bytes) {
    CopyBetween(dst, dst_offset, src, src_offset, bytes);
  }
};

}  // namespace
}  // namespace sy::cuda

SY_GPU_DEFINE_PLUGIN(sy::cuda::kInfo, sy::cuda::CudaBackend)
