// The OpenCL runtime layer of the plugin: error handling, owned handles, device
// discovery (one context and one in-order queue per device) and buffers.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin_cpp.h"

namespace sy::opencl {

class ProgramCache;  // program_cache.h

// "CL_OUT_OF_RESOURCES (-5)".
std::string ClErrorName(cl_int err);

// Throws sy_sdk::Error naming `what` and the error when err != CL_SUCCESS: out of memory
// or resources becomes SY_ERROR_RESOURCE_EXHAUSTED, anything else SY_ERROR_INTERNAL.
void CheckCl(cl_int err, std::string_view what);

// An owned OpenCL object, released on destruction (clRelease*).
template <typename T, cl_int (*Release)(T)>
class ClHandle {
 public:
  ClHandle() = default;
  explicit ClHandle(T handle) : handle_(handle) {}
  ~ClHandle() { reset(); }
  ClHandle(ClHandle&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  ClHandle& operator=(ClHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.handle_;
      other.handle_ = nullptr;
    }
    return *this;
  }
  ClHandle(const ClHandle&) = delete;
  ClHandle& operator=(const ClHandle&) = delete;

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  // Gives up ownership.
  T release() {
    T handle = handle_;
    handle_ = nullptr;
    return handle;
  }
  void reset(T handle = nullptr) {
    if (handle_ != nullptr) Release(handle_);
    handle_ = handle;
  }

 private:
  T handle_ = nullptr;
};

using UniqueContext = ClHandle<cl_context, clReleaseContext>;
using UniqueQueue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using UniqueMem = ClHandle<cl_mem, clReleaseMemObject>;
using UniqueProgram = ClHandle<cl_program, clReleaseProgram>;
using UniqueKernel = ClHandle<cl_kernel, clReleaseKernel>;

// One OpenCL device with its own context and in-order queue (for copies; executables
// make queues of their own). Strings live as long as the plugin's context.
struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  UniqueContext context;
  UniqueQueue queue;

  std::string name;              // CL_DEVICE_NAME
  std::string vendor;            // CL_DEVICE_VENDOR
  std::string driver_version;    // CL_DRIVER_VERSION
  std::string device_version;    // CL_DEVICE_VERSION
  std::string platform_name;     // CL_PLATFORM_NAME
  std::string platform_version;  // CL_PLATFORM_VERSION
  uint32_t kind = 0;             // sy_device_kind
  uint64_t memory_bytes = 0;     // CL_DEVICE_GLOBAL_MEM_SIZE
  uint64_t max_alloc_bytes = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  size_t max_work_group_size = 1;
  uint64_t local_mem_bytes = 0;
  bool fp16 = false;                        // cl_khr_fp16
  bool fp64 = false;                        // cl_khr_fp64
  bool correctly_rounded_div_sqrt = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT

  // Compiled programs of this device's context, in memory and on disk.
  std::unique_ptr<ProgramCache> programs;

  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // What the program cache keys on besides source and options.
  std::string Identity() const;
};

// Every device of every platform. A machine without a platform (no ICD installed, or
// the loader finds none) gives no devices and a status saying why; devices whose
// context or queue cannot be created are skipped, and the status mentions them.
struct Discovery {
  std::vector<std::unique_ptr<Device>> devices;
  std::string status;  // "" when there are devices and nothing was skipped
};
Discovery DiscoverDevices();

// Creates a Device for `id` (context, queue, properties, program cache). Throws on
// failure. `cache_dir` as for ProgramCache (empty: the default location).
std::unique_ptr<Device> OpenDevice(cl_platform_id platform, cl_device_id id,
                                   const std::string& cache_dir = "");

// Device memory: a cl_mem and a byte range of it. A buffer_view shares its parent's
// cl_mem (retained) at an offset, so views work at any offset; kernels receive (mem,
// byte offset) pairs. Not host addressable: host_pointer() is null.
class ClBuffer : public sy_buffer {
 public:
  // Allocates `bytes` on `device` (0 bytes holds no cl_mem).
  ClBuffer(Device& device, uint64_t bytes);
  // A view of [offset, offset + bytes) of `mem`.
  ClBuffer(Device& device, cl_mem mem, uint64_t offset, uint64_t bytes);
  ~ClBuffer() override;

  uint64_t size() const override { return size_; }
  void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) override;
  void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const override;
  std::unique_ptr<sy_buffer> View(uint64_t offset, uint64_t bytes) override;

  Device& device() const { return *device_; }
  cl_mem mem() const { return mem_; }
  uint64_t offset() const { return offset_; }

 private:
  Device* device_;
  cl_mem mem_ = nullptr;  // retained by this buffer; null when empty
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

// Copies between two buffers of this plugin: clEnqueueCopyBuffer within one context,
// staged through host memory across contexts (and for overlapping ranges of one
// cl_mem, which clEnqueueCopyBuffer refuses).
void CopyBetween(ClBuffer& dst, uint64_t dst_offset, const ClBuffer& src, uint64_t src_offset,
                 uint64_t bytes);

}  // namespace sy::opencl
