// The CUDA runtime layer of the plugin (docs/cuda.md): errors, device discovery, the
// per-device memory pool, pinned staging for host copies, and buffers.
//
// Note on the name: this header shares its name with the toolkit's <cuda_runtime.h>.
// Files in src/ include it as "cuda_runtime.h" (found next to them) and the toolkit's as
// <cuda_runtime.h>; src/ is therefore never an -I directory (CMakeLists.txt adds it with
// -iquote for C++ only), so that angle-bracket includes always reach the toolkit.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cu_op.h"
#include "switchyard/plugin_cpp.h"

namespace sy::cuda {

// "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA
// runtime version".
std::string CudaErrorText(cudaError_t err);

// Makes `ordinal` the calling thread's current device (cudaSetDevice; every entry point
// that touches a device calls it first, as the runtime's calls act on the current device).
// The previous device is not restored: restoring device 0 would create a context there
// on a machine whose work is all on another GPU.
void UseDevice(int ordinal);

// cudaMalloc'd blocks of one device, kept for reuse: an allocation takes a cached block of
// its size class (sizes rounded up to 4 classes per power of two, at least 512 bytes) or
// cudaMallocs a new one; freeing returns the block to the cache. When cudaMalloc runs out
// of memory the cache is released and the allocation retried once. Everything is freed
// when the pool is destroyed (context shutdown). Thread-safe.
// SWITCHYARD_CUDA_POOL=0 turns caching off (every block is cudaFree'd when returned),
// for memory checkers.
class BufferPool {
 public:
  explicit BufferPool(int ordinal);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The size class `bytes` is rounded up to (0 for 0).
  static uint64_t SizeClass(uint64_t bytes);

  // A block of at least `bytes` (nullptr for 0). Throws SY_ERROR_RESOURCE_EXHAUSTED.
  void* Allocate(uint64_t bytes);
  // Returns a block from Allocate(bytes).
  void Release(void* block, uint64_t bytes);
  // cudaFree's every cached block.
  void Trim();

  struct Stats {
    uint64_t allocated_bytes = 0;  // in blocks handed out (by size class)
    uint64_t cached_bytes = 0;     // in blocks kept for reuse
    uint64_t mallocs = 0;          // cudaMalloc calls that succeeded
    uint64_t reuses = 0;           // allocations served from the cache
  };
  Stats stats() const;

 private:
  void TrimLocked();
  int ordinal_;
  bool caching_ = true;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::vector<void*>> free_;  // size class -> cached blocks
  Stats stats_;
};

// Pinned host memory (cudaMallocHost) through which host <-> device copies go: two halves
// used alternately so that the memcpy into one overlaps the DMA of the other. Allocated on
// first use; one copy at a time per device (the lock).
class PinnedStaging {
 public:
  static constexpr uint64_t kChunkBytes = 8u << 20;  // per half
  explicit PinnedStaging(int ordinal) : ordinal_(ordinal) {}
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Synchronous copies through the staging halves on `stream` (the device is current).
  void ToDevice(cudaStream_t stream, void* device_dst, const void* host_src, uint64_t bytes);
  void ToHost(cudaStream_t stream, void* host_dst, const void* device_src, uint64_t bytes);

 private:
  void EnsureAllocated();
  int ordinal_;
  std::mutex mutex_;
  unsigned char* host_ = nullptr;  // 2 * kChunkBytes
  cudaEvent_t done_[2] = {nullptr, nullptr};
};

// One CUDA device. Strings live as long as the plugin's context.
struct Device {
  int ordinal = 0;
  std::string name;           // cudaDeviceProp::name
  uint64_t memory_bytes = 0;  // totalGlobalMem
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  bool integrated = false;

  std::unique_ptr<BufferPool> pool;
  std::unique_ptr<PinnedStaging> staging;

  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  DeviceCaps caps() const;
  // The device's stream for buffer copies (non-blocking, created on first use; the
  // device is current). Copies wait for it, so it never holds work between calls.
  cudaStream_t copy_stream();

 private:
  std::mutex stream_mutex_;
  cudaStream_t copy_stream_ = nullptr;
};

// Every CUDA device. No driver, no GPU or any other initialisation error gives zero
// devices and a status saying why ("no CUDA device: ..."), never an error; devices
// this build has no kernels for (compute capability below the oldest of
// CMAKE_CUDA_ARCHITECTURES) are skipped and named in the status.
struct Discovery {
  std::vector<std::unique_ptr<Device>> devices;
  std::string status;  // "" when there are devices and nothing was skipped
};
Discovery DiscoverDevices();

// What discovery makes of a cudaGetDeviceCount failure (exposed for tests).
std::string NoDeviceStatus(cudaError_t err);

// A block of a device's pool, returned to it on destruction.
class DeviceBlock {
 public:
  DeviceBlock(Device& device, uint64_t bytes);
  ~DeviceBlock();
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

  void* data() const { return data_; }
  uint64_t size() const { return bytes_; }
  Device& device() const { return *device_; }

 private:
  Device* device_;
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// Device memory: a pool block and a byte range of it. A buffer_view shares its parent's
// block (reference counted) at an offset. Not host addressable: host_pointer() is null,
// the host copies through copy_host_to_device / copy_device_to_host (pinned staging).
class CudaBuffer : public sy_buffer {
 public:
  // Allocates `bytes` on `device` from its pool (0 bytes holds no memory).
  CudaBuffer(Device& device, uint64_t bytes);
  // A view of [offset, offset + bytes) of `block`.
  CudaBuffer(Device& device, std::shared_ptr<DeviceBlock> block, uint64_t offset, uint64_t bytes);

  uint64_t size() const override { return size_; }
  void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) override;
  void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const override;
  std::unique_ptr<sy_buffer> View(uint64_t offset, uint64_t bytes) override;

  Device& device() const { return *device_; }
  // The device address of the buffer's first byte (null when the buffer holds nothing).
  void* data() const;

 private:
  Device* device_;
  std::shared_ptr<DeviceBlock> block_;  // null when empty
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

// Copies between two buffers of this plugin: cudaMemcpyAsync on one device (staged
// through host memory when the ranges overlap), cudaMemcpyPeerAsync across devices.
void CopyBetween(CudaBuffer& dst, uint64_t dst_offset, const CudaBuffer& src, uint64_t src_offset,
                 uint64_t bytes);

// An environment switch: false when `name` is set to 0, off, false or no.
bool EnvEnabled(const char* name, bool fallback = true);

}  // namespace sy::cuda
