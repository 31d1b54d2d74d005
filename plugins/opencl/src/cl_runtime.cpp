#include "cl_runtime.h"

#include <dlfcn.h>

#include <cstring>
#include <vector>

#include "program_cache.h"

namespace sy::opencl {
namespace {

// CL_PLATFORM_NOT_FOUND_KHR (cl_khr_icd): what the ICD loader returns without platforms.
constexpr cl_int kPlatformNotFoundKhr = -1001;

const char* ErrorSymbol(cl_int err) {
  switch (err) {
#define SY_CL_ERROR(e) \
  case e:              \
    return #e;
    SY_CL_ERROR(CL_SUCCESS)
    SY_CL_ERROR(CL_DEVICE_NOT_FOUND)
    SY_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    SY_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    SY_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    SY_CL_ERROR(CL_OUT_OF_RESOURCES)
    SY_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    SY_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    SY_CL_ERROR(CL_MEM_COPY_OVERLAP)
    SY_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    SY_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    SY_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    SY_CL_ERROR(CL_MAP_FAILURE)
    SY_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    SY_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    SY_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    SY_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    SY_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    SY_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    SY_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    SY_CL_ERROR(CL_INVALID_VALUE)
    SY_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    SY_CL_ERROR(CL_INVALID_PLATFORM)
    SY_CL_ERROR(CL_INVALID_DEVICE)
    SY_CL_ERROR(CL_INVALID_CONTEXT)
    SY_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    SY_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    SY_CL_ERROR(CL_INVALID_HOST_PTR)
    SY_CL_ERROR(CL_INVALID_MEM_OBJECT)
    SY_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    SY_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    SY_CL_ERROR(CL_INVALID_SAMPLER)
    SY_CL_ERROR(CL_INVALID_BINARY)
    SY_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    SY_CL_ERROR(CL_INVALID_PROGRAM)
    SY_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    SY_CL_ERROR(CL_INVALID_KERNEL_NAME)
    SY_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    SY_CL_ERROR(CL_INVALID_KERNEL)
    SY_CL_ERROR(CL_INVALID_ARG_INDEX)
    SY_CL_ERROR(CL_INVALID_ARG_VALUE)
    SY_CL_ERROR(CL_INVALID_ARG_SIZE)
    SY_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    SY_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    SY_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    SY_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    SY_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    SY_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    SY_CL_ERROR(CL_INVALID_EVENT)
    SY_CL_ERROR(CL_INVALID_OPERATION)
    SY_CL_ERROR(CL_INVALID_GL_OBJECT)
    SY_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    SY_CL_ERROR(CL_INVALID_MIP_LEVEL)
    SY_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    SY_CL_ERROR(CL_INVALID_PROPERTY)
    SY_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    SY_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    SY_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    SY_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef SY_CL_ERROR
    case kPlatformNotFoundKhr:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

std::string PlatformString(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetPlatformInfo(platform, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetDeviceInfo(device, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

template <typename T>
T DeviceValue(cl_device_id device, cl_device_info what, T fallback = T{}) {
  T value{};
  if (clGetDeviceInfo(device, what, sizeof value, &value, nullptr) != CL_SUCCESS) return fallback;
  return value;
}

bool HasExtension(const std::string& extensions, std::string_view name) {
  size_t pos = 0;
  while ((pos = extensions.find(name, pos)) != std::string::npos) {
    const size_t end = pos + name.size();
    const bool starts = pos == 0 || extensions[pos - 1] == ' ';
    const bool ends = end == extensions.size() || extensions[end] == ' ';
    if (starts && ends) return true;
    pos = end;
  }
  return false;
}

}  // namespace

std::string ClErrorName(cl_int err) {
  return std::string(ErrorSymbol(err)) + " (" + std::to_string(err) + ")";
}

void CheckCl(cl_int err, std::string_view what) {
  if (err == CL_SUCCESS) return;
  const bool exhausted = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                         err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
  throw sy_sdk::Error(exhausted ? SY_ERROR_RESOURCE_EXHAUSTED : SY_ERROR_INTERNAL,
                      std::string(what) + " failed: " + ClErrorName(err));
}

Device::Device() = default;
Device::~Device() {
  programs.reset();  // its programs belong to the context, released before it
  queue.reset();
  context.reset();
}

std::string Device::Identity() const {
  return "device=" + name + "\nvendor=" + vendor + "\ndriver=" + driver_version +
         "\ndevice_version=" + device_version + "\nplatform=" + platform_name +
         "\nplatform_version=" + platform_version;
}

std::unique_ptr<Device> OpenDevice(cl_platform_id platform, cl_device_id id,
                                   const std::string& cache_dir) {
  auto device = std::make_unique<Device>();
  device->platform = platform;
  device->id = id;
  device->name = DeviceString(id, CL_DEVICE_NAME);
  device->vendor = DeviceString(id, CL_DEVICE_VENDOR);
  device->driver_version = DeviceString(id, CL_DRIVER_VERSION);
  device->device_version = DeviceString(id, CL_DEVICE_VERSION);
  device->platform_name = PlatformString(platform, CL_PLATFORM_NAME);
  device->platform_version = PlatformString(platform, CL_PLATFORM_VERSION);
  if (device->name.empty()) device->name = "opencl device";

  const auto type = DeviceValue<cl_device_type>(id, CL_DEVICE_TYPE);
  if ((type & CL_DEVICE_TYPE_GPU) != 0) {
    device->kind = DeviceValue<cl_bool>(id, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE
                       ? SY_DEVICE_INTEGRATED_GPU
                       : SY_DEVICE_DISCRETE_GPU;
  } else if ((type & CL_DEVICE_TYPE_CPU) != 0) {
    device->kind = SY_DEVICE_CPU;
  } else {
    device->kind = SY_DEVICE_ACCELERATOR;  // CL_DEVICE_TYPE_ACCELERATOR and CUSTOM
  }
  device->memory_bytes = DeviceValue<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  device->max_alloc_bytes = DeviceValue<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  device->max_work_group_size = DeviceValue<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
  device->local_mem_bytes = DeviceValue<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  const std::string extensions = DeviceString(id, CL_DEVICE_EXTENSIONS);
  device->fp16 = HasExtension(extensions, "cl_khr_fp16");
  device->fp64 = HasExtension(extensions, "cl_khr_fp64");
  const auto fp_config = DeviceValue<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG);
  device->correctly_rounded_div_sqrt = (fp_config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;

  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(platform), 0};
  device->context.reset(clCreateContext(props, 1, &id, nullptr, nullptr, &err));
  CheckCl(err, "clCreateContext");
  device->queue.reset(clCreateCommandQueue(device->context.get(), id, 0, &err));
  CheckCl(err, "clCreateCommandQueue");
  device->programs =
      std::make_unique<ProgramCache>(device->context.get(), id, device->Identity(), cache_dir);
  return device;
}

namespace {

// OpenCL drivers are not unload-safe: the ICD loader and the vendor libraries it opens
// keep global state (and threads, in PoCL's case) that must outlive this plugin. Marking
// the loader RTLD_NODELETE keeps it, and through it the drivers, mapped when the host
// unloads this plugin, so a later load finds them initialised and their allocations
// stay reachable (no spurious leak reports under LeakSanitizer).
void PinOpenClLibraries() {
  static const bool pinned = [] {
    for (const char* name : {"libOpenCL.so.1", "libOpenCL.so"}) {
      if (dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr) return true;
    }
    return false;
  }();
  (void)pinned;
}

}  // namespace

Discovery DiscoverDevices() {
  PinOpenClLibraries();
  Discovery result;
  cl_uint num_platforms = 0;
  const cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
  if (err == kPlatformNotFoundKhr || (err == CL_SUCCESS && num_platforms == 0)) {
    result.status =
        "no OpenCL platform found (no ICD is installed or none loads; on Debian install "
        "pocl-opencl-icd for the CPU, or a GPU vendor's ICD)";
    return result;
  }
  if (err != CL_SUCCESS) {
    result.status = "clGetPlatformIDs failed: " + ClErrorName(err);
    return result;
  }
  std::vector<cl_platform_id> platforms(num_platforms);
  if (clGetPlatformIDs(num_platforms, platforms.data(), nullptr) != CL_SUCCESS) {
    result.status = "clGetPlatformIDs failed";
    return result;
  }
  std::string skipped;
  for (cl_platform_id platform : platforms) {
    cl_uint num_devices = 0;
    const cl_int derr = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &num_devices);
    if (derr == CL_DEVICE_NOT_FOUND || num_devices == 0) continue;
    if (derr != CL_SUCCESS) {
      skipped += "; platform " + PlatformString(platform, CL_PLATFORM_NAME) +
                 ": clGetDeviceIDs failed: " + ClErrorName(derr);
      continue;
    }
    std::vector<cl_device_id> ids(num_devices);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, num_devices, ids.data(), nullptr) !=
        CL_SUCCESS) {
      continue;
    }
    for (cl_device_id id : ids) {
      if (DeviceValue<cl_bool>(id, CL_DEVICE_AVAILABLE, CL_TRUE) != CL_TRUE ||
          DeviceValue<cl_bool>(id, CL_DEVICE_COMPILER_AVAILABLE, CL_TRUE) != CL_TRUE) {
        skipped +=
            "; device " + DeviceString(id, CL_DEVICE_NAME) + " is unavailable or has no compiler";
        continue;
      }
      try {
        result.devices.push_back(OpenDevice(platform, id));
      } catch (const std::exception& e) {
        skipped += "; device " + DeviceString(id, CL_DEVICE_NAME) + ": " + e.what();
      }
    }
  }
  if (result.devices.empty()) {
    result.status = std::to_string(num_platforms) + " OpenCL platform(s) but no usable device" +
                    skipped +
                    " (PoCL reports CL_DEVICE_NOT_FOUND when its cache directory, "
                    "POCL_CACHE_DIR, is not writable)";
  } else if (!skipped.empty()) {
    result.status = "some OpenCL devices were skipped" + skipped;
  }
  return result;
}

// ---- buffers -------------------------------------------------------------------------

ClBuffer::ClBuffer(Device& device, uint64_t bytes) : device_(&device), size_(bytes) {
  if (bytes == 0) return;
  if (device.max_alloc_bytes != 0 && bytes > device.max_alloc_bytes) {
    throw sy_sdk::Error(SY_ERROR_RESOURCE_EXHAUSTED,
                        "buffer of " + std::to_string(bytes) + " bytes exceeds the device's " +
                            "largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                            std::to_string(device.max_alloc_bytes) + ")");
  }
  cl_int err = CL_SUCCESS;
  mem_ = clCreateBuffer(device.context.get(), CL_MEM_READ_WRITE, static_cast<size_t>(bytes),
                        nullptr, &err);
  CheckCl(err, "clCreateBuffer");
}

ClBuffer::ClBuffer(Device& device, cl_mem mem, uint64_t offset, uint64_t bytes)
    : device_(&device), mem_(mem), offset_(offset), size_(bytes) {
  if (mem_ != nullptr) CheckCl(clRetainMemObject(mem_), "clRetainMemObject");
}

ClBuffer::~ClBuffer() {
  if (mem_ != nullptr) clReleaseMemObject(mem_);
}

void ClBuffer::CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  CheckCl(clEnqueueWriteBuffer(device_->queue.get(), mem_, CL_TRUE, offset_ + offset, bytes, src, 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer");
}

void ClBuffer::CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const {
  if (bytes == 0) return;
  CheckCl(clEnqueueReadBuffer(device_->queue.get(), mem_, CL_TRUE, offset_ + offset, bytes, dst, 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer");
}

std::unique_ptr<sy_buffer> ClBuffer::View(uint64_t offset, uint64_t bytes) {
  return std::make_unique<ClBuffer>(*device_, mem_, offset_ + offset, bytes);
}

void CopyBetween(ClBuffer& dst, uint64_t dst_offset, const ClBuffer& src, uint64_t src_offset,
                 uint64_t bytes) {
  if (bytes == 0) return;
  const uint64_t d = dst.offset() + dst_offset;
  const uint64_t s = src.offset() + src_offset;
  const bool same_context = dst.device().context.get() == src.device().context.get();
  const bool overlap = dst.mem() == src.mem() && d < s + bytes && s < d + bytes;
  if (same_context && !overlap) {
    cl_command_queue queue = dst.device().queue.get();
    CheckCl(clEnqueueCopyBuffer(queue, src.mem(), dst.mem(), s, d, bytes, 0, nullptr, nullptr),
            "clEnqueueCopyBuffer");
    CheckCl(clFinish(queue), "clFinish");
    return;
  }
  std::vector<unsigned char> staging(static_cast<size_t>(bytes));
  src.CopyToHost(src_offset, staging.data(), bytes);
  dst.CopyFromHost(dst_offset, staging.data(), bytes);
}

}  // namespace sy::opencl
