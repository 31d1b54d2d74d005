#include "cuda_runtime.h"

#include <dlfcn.h>

#include <strings.h>
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

namespace sy::cuda {

// ---- errors ------------------------------------------------------------------------------

std::string CudaErrorText(cudaError_t err) {
  const char* name = cudaGetErrorName(err);
  const char* text = cudaGetErrorString(err);
  return std::string(name != nullptr ? name : "cudaError") + " (" +
         std::to_string(static_cast<int>(err)) + "): " + (text != nullptr ? text : "unknown");
}

void CheckCuda(cudaError_t err, std::string_view what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // clears the error unless it is sticky (a kernel fault)
  const bool exhausted = err == cudaErrorMemoryAllocation;
  throw sy_sdk::Error(exhausted ? SY_ERROR_RESOURCE_EXHAUSTED : SY_ERROR_INTERNAL,
                      std::string(what) + " failed: " + CudaErrorText(err));
}

bool EnvEnabled(const char* name, bool fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  for (const char* off : {"0", "off", "false", "no"}) {
    if (strcasecmp(value, off) == 0) return false;
  }
  return true;
}

void UseDevice(int ordinal) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == ordinal) return;
  CheckCuda(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
}

// ---- discovery ---------------------------------------------------------------------------

namespace {

// The CUDA runtime keeps global state (and, with a driver, threads and device contexts)
// that must outlive this plugin: unloading it while the process goes on and loading it
// again later is not something it supports well. Marking it RTLD_NODELETE keeps it mapped
// when the host unloads the plugin (as the OpenCL plugin does with its ICD loader).
// cuBLAS, loaded on first use (cublas_lazy.cpp), is opened RTLD_NODELETE already.
void PinCudaRuntime() {
  static const bool pinned = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) == 0 ||
        info.dli_fname == nullptr) {
      return false;  // linked statically: nothing to pin
    }
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  }();
  (void)pinned;
}

// The oldest compute capability (major * 10 + minor) this build has kernels for, from
// CMAKE_CUDA_ARCHITECTURES (0 when it is not a list of numbers, e.g. "native").
#ifndef SY_CUDA_MIN_ARCH
#define SY_CUDA_MIN_ARCH 0
#endif
#ifndef SY_CUDA_ARCHITECTURES
#define SY_CUDA_ARCHITECTURES "unknown"
#endif

std::string Version(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::string NoDeviceStatus(cudaError_t err) {
  const char* text = cudaGetErrorString(err);
  const char* name = cudaGetErrorName(err);
  std::string status = std::string("no CUDA device: ") + (text != nullptr ? text : "error") + " (" +
                       (name != nullptr ? name : "cudaError") + " from cudaGetDeviceCount";
  int runtime = 0, driver = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&driver);
  if (err == cudaErrorInsufficientDriver) {
    if (driver == 0) {
      status += "; no NVIDIA driver is installed or loaded (libcuda.so.1 was not found)";
    } else {
      status += "; the driver supports CUDA " + Version(driver) + ", this plugin's runtime is " +
                Version(runtime) + ": update the NVIDIA driver";
    }
  } else if (err == cudaErrorNoDevice) {
    status +=
        "; the driver sees no GPU (check CUDA_VISIBLE_DEVICES and that the GPU is "
        "visible in this container)";
  }
  return status + ")";
}

Discovery DiscoverDevices() {
  PinCudaRuntime();
  Discovery result;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    result.status = NoDeviceStatus(err);
    return result;
  }
  if (count <= 0) {
    result.status = "no CUDA device: cudaGetDeviceCount found none";
    return result;
  }
  std::string skipped;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp props{};
    const cudaError_t perr = cudaGetDeviceProperties(&props, i);
    if (perr != cudaSuccess) {
      (void)cudaGetLastError();
      skipped += "; device " + std::to_string(i) +
                 ": cudaGetDeviceProperties failed: " + CudaErrorText(perr);
      continue;
    }
    const int arch = props.major * 10 + props.minor;
    if (arch < SY_CUDA_MIN_ARCH) {
      skipped += "; device " + std::to_string(i) + " (" + props.name + ", compute capability " +
                 std::to_string(props.major) + "." + std::to_string(props.minor) +
                 ") is older than this build's kernels (CMAKE_CUDA_ARCHITECTURES " +
                 SY_CUDA_ARCHITECTURES + ")";
      continue;
    }
    auto device = std::make_unique<Device>();
    device->ordinal = i;
    device->name = props.name;
    device->memory_bytes = props.totalGlobalMem;
    device->compute_major = props.major;
    device->compute_minor = props.minor;
    device->multiprocessors = props.multiProcessorCount;
    device->integrated = props.integrated != 0;
    device->pool = std::make_unique<BufferPool>(i);
    device->staging = std::make_unique<PinnedStaging>(i);
    result.devices.push_back(std::move(device));
  }
  if (result.devices.empty()) {
    result.status = "no CUDA device: " + std::to_string(count) + " found but none usable" + skipped;
  } else if (!skipped.empty()) {
    result.status = "some CUDA devices were skipped" + skipped;
  }
  return result;
}

Device::Device() = default;

Device::~Device() {
  staging.reset();
  pool.reset();
  if (copy_stream_ != nullptr) {
    if (cudaSetDevice(ordinal) == cudaSuccess) (void)cudaStreamDestroy(copy_stream_);
    (void)cudaGetLastError();
  }
}

DeviceCaps Device::caps() const {
  DeviceCaps caps;
  caps.compute_major = compute_major;
  caps.compute_minor = compute_minor;
  caps.bf16 = compute_major >= 8;
  return caps;
}

cudaStream_t Device::copy_stream() {
  std::lock_guard<std::mutex> lock(stream_mutex_);
  if (copy_stream_ == nullptr) {
    UseDevice(ordinal);
    CheckCuda(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags (copies)");
  }
  return copy_stream_;
}

// ---- the pool ----------------------------------------------------------------------------

BufferPool::BufferPool(int ordinal)
    : ordinal_(ordinal), caching_(EnvEnabled("SWITCHYARD_CUDA_POOL")) {}

BufferPool::~BufferPool() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return;
  if (cudaSetDevice(ordinal_) != cudaSuccess) {
    (void)cudaGetLastError();
    return;  // the runtime is gone (process exit): nothing left to free
  }
  TrimLocked();
}

uint64_t BufferPool::SizeClass(uint64_t bytes) {
  if (bytes == 0) return 0;
  if (bytes <= 512) return 512;
  if (bytes > (uint64_t{1} << 62)) return bytes;  // fails to allocate anyway
  constexpr uint64_t kLarge = uint64_t{64} << 20;
  if (bytes >= kLarge) {
    // Large blocks (arenas): multiples of 2 MiB, cudaMalloc's own granularity.
    constexpr uint64_t kGranule = uint64_t{2} << 20;
    return (bytes + kGranule - 1) / kGranule * kGranule;
  }
  // Four classes per power of two: (bytes - 1) >> shift lies in [4, 7].
  const int shift = static_cast<int>(std::bit_width(bytes - 1)) - 3;
  return (((bytes - 1) >> shift) + 1) << shift;
}

void* BufferPool::Allocate(uint64_t bytes) {
  if (bytes == 0) return nullptr;
  const uint64_t cls = SizeClass(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  if (caching_) {
    auto it = free_.find(cls);
    if (it != free_.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      stats_.cached_bytes -= cls;
      stats_.allocated_bytes += cls;
      ++stats_.reuses;
      return block;
    }
  }
  UseDevice(ordinal_);
  void* block = nullptr;
  cudaError_t err = cudaMalloc(&block, cls);
  if (err == cudaErrorMemoryAllocation && stats_.cached_bytes > 0) {
    (void)cudaGetLastError();
    TrimLocked();
    err = cudaMalloc(&block, cls);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    std::string memory;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      memory = "; the device has " + std::to_string(free_bytes >> 20) + " MiB free of " +
               std::to_string(total_bytes >> 20) + " MiB";
    }
    (void)cudaGetLastError();
    throw sy_sdk::Error(
        err == cudaErrorMemoryAllocation ? SY_ERROR_RESOURCE_EXHAUSTED : SY_ERROR_INTERNAL,
        "cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + CudaErrorText(err) + memory);
  }
  stats_.allocated_bytes += cls;
  ++stats_.mallocs;
  return block;
}

void BufferPool::Release(void* block, uint64_t bytes) {
  if (block == nullptr) return;
  const uint64_t cls = SizeClass(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocated_bytes -= std::min(stats_.allocated_bytes, cls);
  if (caching_) {
    free_[cls].push_back(block);
    stats_.cached_bytes += cls;
    return;
  }
  if (cudaSetDevice(ordinal_) == cudaSuccess) (void)cudaFree(block);
  (void)cudaGetLastError();
}

void BufferPool::Trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  UseDevice(ordinal_);
  TrimLocked();
}

void BufferPool::TrimLocked() {
  for (auto& [cls, blocks] : free_) {
    for (void* block : blocks) (void)cudaFree(block);
  }
  (void)cudaGetLastError();
  free_.clear();
  stats_.cached_bytes = 0;
}

BufferPool::Stats BufferPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

// ---- pinned staging ----------------------------------------------------------------------

PinnedStaging::~PinnedStaging() {
  if (host_ == nullptr) return;
  if (cudaSetDevice(ordinal_) == cudaSuccess) {
    for (cudaEvent_t e : done_) {
      if (e != nullptr) (void)cudaEventDestroy(e);
    }
    (void)cudaFreeHost(host_);
  }
  (void)cudaGetLastError();
}

void PinnedStaging::EnsureAllocated() {
  if (host_ != nullptr) return;
  void* host = nullptr;
  CheckCuda(cudaMallocHost(&host, 2 * kChunkBytes), "cudaMallocHost (staging)");
  for (cudaEvent_t& e : done_) {
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      for (cudaEvent_t& made : done_) {
        if (made != nullptr) (void)cudaEventDestroy(made);
        made = nullptr;
      }
      (void)cudaFreeHost(host);
      CheckCuda(err, "cudaEventCreate (staging)");
    }
  }
  host_ = static_cast<unsigned char*>(host);
}

void PinnedStaging::ToDevice(cudaStream_t stream, void* device_dst, const void* host_src,
                             uint64_t bytes) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  EnsureAllocated();
  auto* dst = static_cast<unsigned char*>(device_dst);
  const auto* src = static_cast<const unsigned char*>(host_src);
  for (uint64_t offset = 0, k = 0; offset < bytes; offset += kChunkBytes, ++k) {
    const uint64_t n = std::min(kChunkBytes, bytes - offset);
    const int half = static_cast<int>(k & 1);
    unsigned char* stage = host_ + half * kChunkBytes;
    // The DMA that last read this half is done (an event never recorded is complete).
    CheckCuda(cudaEventSynchronize(done_[half]), "cudaEventSynchronize (staging)");
    std::memcpy(stage, src + offset, n);
    CheckCuda(cudaMemcpyAsync(dst + offset, stage, n, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (host to device)");
    CheckCuda(cudaEventRecord(done_[half], stream), "cudaEventRecord (staging)");
  }
  CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (host to device)");
}

void PinnedStaging::ToHost(cudaStream_t stream, void* host_dst, const void* device_src,
                           uint64_t bytes) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  EnsureAllocated();
  auto* dst = static_cast<unsigned char*>(host_dst);
  const auto* src = static_cast<const unsigned char*>(device_src);
  const uint64_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  auto chunk_bytes = [&](uint64_t k) { return std::min(kChunkBytes, bytes - k * kChunkBytes); };
  auto issue = [&](uint64_t k) {
    const int half = static_cast<int>(k & 1);
    CheckCuda(cudaMemcpyAsync(host_ + half * kChunkBytes, src + k * kChunkBytes, chunk_bytes(k),
                              cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (device to host)");
    CheckCuda(cudaEventRecord(done_[half], stream), "cudaEventRecord (staging)");
  };
  issue(0);
  for (uint64_t k = 0; k < chunks; ++k) {
    // The next chunk goes into the other half, whose bytes were copied out already.
    if (k + 1 < chunks) issue(k + 1);
    const int half = static_cast<int>(k & 1);
    CheckCuda(cudaEventSynchronize(done_[half]), "cudaEventSynchronize (device to host)");
    std::memcpy(dst + k * kChunkBytes, host_ + half * kChunkBytes, chunk_bytes(k));
  }
}

// ---- buffers -----------------------------------------------------------------------------

DeviceBlock::DeviceBlock(Device& device, uint64_t bytes) : device_(&device), bytes_(bytes) {
  data_ = device.pool->Allocate(bytes);
}

DeviceBlock::~DeviceBlock() { device_->pool->Release(data_, bytes_); }

CudaBuffer::CudaBuffer(Device& device, uint64_t bytes) : device_(&device), size_(bytes) {
  if (bytes != 0) block_ = std::make_shared<DeviceBlock>(device, bytes);
}

CudaBuffer::CudaBuffer(Device& device, std::shared_ptr<DeviceBlock> block, uint64_t offset,
                       uint64_t bytes)
    : device_(&device), block_(std::move(block)), offset_(offset), size_(bytes) {}

void* CudaBuffer::data() const {
  if (block_ == nullptr) return nullptr;
  return static_cast<unsigned char*>(block_->data()) + offset_;
}

void CudaBuffer::CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  UseDevice(device_->ordinal);
  device_->staging->ToDevice(device_->copy_stream(), static_cast<unsigned char*>(data()) + offset,
                             src, bytes);
}

void CudaBuffer::CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const {
  if (bytes == 0) return;
  UseDevice(device_->ordinal);
  device_->staging->ToHost(device_->copy_stream(), dst,
                           static_cast<const unsigned char*>(data()) + offset, bytes);
}

std::unique_ptr<sy_buffer> CudaBuffer::View(uint64_t offset, uint64_t bytes) {
  // A view of an empty range (or of an empty buffer) holds no memory of its own but
  // keeps the block, so that its data() is still an address inside it.
  return std::make_unique<CudaBuffer>(*device_, block_, offset_ + offset, bytes);
}

void CopyBetween(CudaBuffer& dst, uint64_t dst_offset, const CudaBuffer& src, uint64_t src_offset,
                 uint64_t bytes) {
  if (bytes == 0) return;
  auto* d = static_cast<unsigned char*>(dst.data()) + dst_offset;
  const auto* s = static_cast<const unsigned char*>(src.data()) + src_offset;
  Device& dd = dst.device();
  Device& sd = src.device();
  if (&dd == &sd) {
    if (d < s + bytes && s < d + bytes) {
      if (d == s) return;
      // cudaMemcpy leaves overlapping ranges undefined: go through host memory.
      std::vector<unsigned char> staging(static_cast<size_t>(bytes));
      src.CopyToHost(src_offset, staging.data(), bytes);
      dst.CopyFromHost(dst_offset, staging.data(), bytes);
      return;
    }
    UseDevice(dd.ordinal);
    cudaStream_t stream = dd.copy_stream();
    CheckCuda(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync (device to device)");
    CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (device to device)");
    return;
  }
  // Across devices: the driver copies directly with peer access, staged otherwise.
  UseDevice(dd.ordinal);
  cudaStream_t stream = dd.copy_stream();
  CheckCuda(cudaMemcpyPeerAsync(d, dd.ordinal, s, sd.ordinal, bytes, stream),
            "cudaMemcpyPeerAsync");
  CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (peer copy)");
}

}  // namespace sy::cuda
