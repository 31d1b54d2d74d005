// A working test plugin for the multi-device scheduler's tests: two discrete GPUs,
// "remote-gpu0" and "remote-gpu1", whose memory the host cannot address. Buffers keep
// their bytes in private heap storage (buffer_host_pointer is NULL), so the host must
// move values with the copy functions; views (buffer_view) are this plugin's own buffer
// type, so executables resolve them like any other buffer. Nodes run on the CPU plugin's
// reference kernels. Configured from the environment:
//
//   SY_TEST_REMOTE_OPS     comma list of ops (default: every op with a reference kernel)
//   SY_TEST_REMOTE_DTYPES  comma list of dtypes (default: all nine)
//   SY_TEST_REMOTE_MEMORY  bytes each device declares and allocates at most (default 1 GiB)
//   SY_TEST_REMOTE_NO_D2D  "1" when the host queries the plugin: its function table has
//                          copy_device_to_device = NULL, so the host must stage copies
//                          between devices through host memory
//
// Like a real device it is strict about what it is given: execute rejects a buffer of
// another plugin (SY_ERROR_INVALID_ARGUMENT) and a buffer of its other device. New
// buffers are filled with 0xff bytes (NaN as f32) so that reading a value nobody wrote
// shows up in results.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "switchyard/plugin_cpp.h"
#include "test_executor.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "remote",
                                  "0.0.1",
                                  "Switchyard tests",
                                  "two GPUs whose memory the host cannot address"};

constexpr uint32_t kDevices = 2;
constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kAlignment = 256;  // what the host aligns view offsets to

const char* DeviceName(uint32_t device) { return device == 0 ? "remote-gpu0" : "remote-gpu1"; }

// A buffer that owns its storage (allocated by buffer_alloc), or a view that borrows its
// parent's (buffer_view). A view holds a plain pointer into the parent's storage and does
// not keep it alive: the ABI says views are freed before their parent, and a host that
// breaks that rule reads freed memory, which ASan reports.
class RemoteBuffer : public sy_buffer {
 public:
  // An owning buffer of `bytes` on `device`; `used` is the device's counter of allocated
  // bytes (owned by the context, which outlives its buffers), already increased.
  RemoteBuffer(uint32_t device, uint64_t bytes, std::atomic<uint64_t>& used)
      : device_(device), size_(bytes), used_(&used) {
    const uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < bytes || rounded > SIZE_MAX) throw std::bad_alloc();
    storage_ =
        static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment));
    if (storage_ == nullptr) throw std::bad_alloc();
    std::memset(storage_, 0xff, rounded);
    data_ = storage_;
  }
  // A view of [offset, offset + bytes) of `parent` (range checked by the trampoline).
  RemoteBuffer(const RemoteBuffer& parent, uint64_t offset, uint64_t bytes)
      : device_(parent.device_), size_(bytes), data_(parent.data_ + offset) {}
  ~RemoteBuffer() override {
    if (storage_ != nullptr) {
      std::free(storage_);
      *used_ -= size_;
    }
  }
  RemoteBuffer(const RemoteBuffer&) = delete;
  RemoteBuffer& operator=(const RemoteBuffer&) = delete;

  uint32_t device() const { return device_; }
  std::byte* data() const { return data_; }  // the private bytes, for executables and copies

  uint64_t size() const override { return size_; }
  void* host_pointer() override { return nullptr; }  // not host addressable, by design
  void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) override {
    if (bytes) std::memcpy(data_ + offset, src, bytes);
  }
  void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const override {
    if (bytes) std::memcpy(dst, data_ + offset, bytes);
  }
  std::unique_ptr<sy_buffer> View(uint64_t offset, uint64_t bytes) override {
    return std::make_unique<RemoteBuffer>(*this, offset, bytes);
  }

 private:
  uint32_t device_;
  uint64_t size_;
  std::byte* storage_ = nullptr;           // owned (freed here) unless this is a view
  std::byte* data_ = nullptr;              // storage_, or a pointer into the parent's storage
  std::atomic<uint64_t>* used_ = nullptr;  // set for owning buffers only
};

// The buffer as one of ours, or an sy_sdk::Error naming `what`.
const RemoteBuffer& Own(const sy_buffer& buffer, const std::string& what) {
  const auto* remote = dynamic_cast<const RemoteBuffer*>(&buffer);
  if (remote == nullptr) {
    throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, what + " is not a buffer of the remote plugin");
  }
  return *remote;
}

class RemoteContext : public sy_context {
 public:
  RemoteContext()
      : filter_("SY_TEST_REMOTE_OPS", "", "SY_TEST_REMOTE_DTYPES",
                "f32,f16,bf16,f64,i8,u8,i32,i64,bool"),
        memory_(sy_test_plugin::EnvBytes("SY_TEST_REMOTE_MEMORY", kGiB)) {}

  uint32_t device_count() const override { return kDevices; }

  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    info.name = DeviceName(device);
    info.vendor = "Switchyard tests";
    info.kind = SY_DEVICE_DISCRETE_GPU;
    info.flags = (filter_.has_dtype(sy::DType::kF16) ? SY_DEVICE_FLAG_F16 : 0u) |
                 (filter_.has_dtype(sy::DType::kF64) ? SY_DEVICE_FLAG_F64 : 0u);
    info.memory_bytes = memory_;
  }

  bool Supports(uint32_t, const sy_node& node, std::string& reason) const override {
    return filter_.Supports(node, reason);
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t device, uint64_t bytes) override {
    std::atomic<uint64_t>& used = used_[device];
    const uint64_t before = used.fetch_add(bytes);
    if (before + bytes < before || before + bytes > memory_) {
      used -= bytes;
      throw sy_sdk::Error(SY_ERROR_RESOURCE_EXHAUSTED,
                          std::string(DeviceName(device)) + ": out of device memory: " +
                              std::to_string(bytes) + " bytes asked, " + std::to_string(before) +
                              " of " + std::to_string(memory_) + " in use");
    }
    try {
      return std::make_unique<RemoteBuffer>(device, bytes, used);
    } catch (...) {
      used -= bytes;
      throw;
    }
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    auto resolve = [device](sy_buffer& buffer, uint32_t index) {
      const std::string what = "execute: buffer " + std::to_string(index);
      const RemoteBuffer& remote = Own(buffer, what);
      if (remote.device() != device) {
        throw sy_sdk::Error(
            SY_ERROR_INVALID_ARGUMENT,
            what + " lives on " + DeviceName(remote.device()) + ", not " + DeviceName(device));
      }
      return remote.data();
    };
    return std::make_unique<sy_test_plugin::RefExecutable>(
        p, resolve, [this](const sy_node& node, std::string& reason) {
          return filter_.Supports(node, reason);
        });
  }

 private:
  sy_test_plugin::OpFilter filter_;
  uint64_t memory_;
  std::atomic<uint64_t> used_[kDevices] = {};
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options&) {
  return std::make_unique<RemoteContext>();
}

using Trampolines = sy_sdk::Trampolines<&kInfo, CreateContext>;

// The direct copy between two of our buffers (either device), replacing the SDK's entry,
// which stages through host memory. memmove: a view and its parent may overlap.
sy_error* CopyDeviceToDevice(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src,
                             uint64_t src_offset, uint64_t bytes) {
  if (dst == nullptr || src == nullptr) {
    return sy_sdk::MakeError(SY_ERROR_INVALID_ARGUMENT, "copy_device_to_device: null argument");
  }
  if (!Trampolines::RangeOk(dst->size(), dst_offset, bytes) ||
      !Trampolines::RangeOk(src->size(), src_offset, bytes)) {
    return sy_sdk::MakeError(SY_ERROR_INVALID_ARGUMENT,
                             "copy_device_to_device: range past the end of a buffer");
  }
  return sy_sdk::Guard([&] {
    const RemoteBuffer& to = Own(*dst, "copy_device_to_device: the destination");
    const RemoteBuffer& from = Own(*src, "copy_device_to_device: the source");
    if (bytes) std::memmove(to.data() + dst_offset, from.data() + src_offset, bytes);
  });
}

}  // namespace

// Our own query instead of SY_SDK_DEFINE_PLUGIN: the SDK's table with copy_device_to_device
// replaced by the direct copy, or removed when SY_TEST_REMOTE_NO_D2D=1. The table is
// static (it must outlive the call) and rebuilt on every query, so each load sees the
// environment of its own time; the host copies it at load, and queries are never
// concurrent (plugin.h's threading rules).
extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max) {
  if (host_max < SY_PLUGIN_ABI_MIN_VERSION) return nullptr;
  static sy_plugin_api table;
  table = *Trampolines::Api();
  const char* no_d2d = std::getenv("SY_TEST_REMOTE_NO_D2D");
  const bool staged = no_d2d != nullptr && std::strcmp(no_d2d, "1") == 0;
  table.copy_device_to_device = staged ? nullptr : CopyDeviceToDevice;
  return &table;
}
