// The OpenCL plugin behind the C ABI (docs/opencl.md): one device per OpenCL device of
// every platform, each with its own context and in-order queue. Buffers are device
// memory (cl_mem at an offset; views share their parent's cl_mem), so host_pointer() is
// null and the host copies. copy_device_to_device is direct within a context and staged
// through host memory across contexts. The context and the entry are the GPU skeleton's
// (plugins/common/gpu_plugin.h); this file says what is OpenCL's.
#include <string>

#include "cl_runtime.h"
#include "gpu_plugin.h"
#include "opencl_executable.h"

namespace sy::opencl {
namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "opencl",
                                  "0.1.0",
                                  "Switchyard",
                                  "OpenCL 1.2+ devices through the ICD loader"};

struct OpenClBackend {
  using Device = opencl::Device;
  using Buffer = ClBuffer;
  using Executable = OpenClExecutable;
  static constexpr const char* kName = "OpenCL";

  static Discovery Discover() { return DiscoverDevices(); }
  static void Describe(const Device& d, sy_device_info& info) {
    info.name = d.name.c_str();
    info.vendor = d.vendor.c_str();
    info.kind = d.kind;
    // cache_write bound to its cache's own buffer writes only the update (ops_indexing.cpp);
    // executables run at other sizes (OpenClExecutable::ExecuteResized).
    info.flags = (d.fp16 ? SY_DEVICE_FLAG_F16 : 0u) | (d.fp64 ? SY_DEVICE_FLAG_F64 : 0u) |
                 SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE | SY_DEVICE_FLAG_RESIZABLE;
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
}  // namespace sy::opencl

SY_GPU_DEFINE_PLUGIN(sy::opencl::kInfo, sy::opencl::OpenClBackend)
