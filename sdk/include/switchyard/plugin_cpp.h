// Header-only C++ helper for writing a Switchyard plugin as C++ classes (C++17).
//
// A plugin built with it derives its context, buffers and executables from the classes
// below and ends one source file with
//
//     SY_SDK_DEFINE_PLUGIN(kMyPluginInfo, MyCreateContext)
//
// which defines the exported `sy_plugin_query` and the function table. Every call from
// the host goes through a trampoline that catches all exceptions and turns them into
// sy_error objects, so nothing thrown inside the plugin crosses the C boundary. Throw
// sy_sdk::Error(code, message) to report a specific error code.
//
// Only plugin.h crosses the boundary; this header is the plugin's own business, compiled
// into the plugin, so it may change between releases without breaking loaded plugins.
#ifndef SWITCHYARD_PLUGIN_CPP_H_
#define SWITCHYARD_PLUGIN_CPP_H_

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"

// The opaque handles of plugin.h, defined as polymorphic bases. The host only ever holds
// pointers to them.
struct sy_error {
  uint32_t code;
  std::string message;
};

struct sy_buffer {
  virtual ~sy_buffer() = default;
  virtual uint64_t size() const = 0;
  // Host-addressable bytes, or nullptr for device memory.
  virtual void* host_pointer() { return nullptr; }
  // Copies; ranges have been checked against size() by the trampolines.
  virtual void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) = 0;
  virtual void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const = 0;
  // A buffer aliasing [offset, offset + bytes) of this one (range checked by the
  // trampoline); it must not outlive this buffer. The default forwards to this buffer,
  // which suits host memory; a device plugin whose executables need their own buffer
  // type overrides it.
  virtual std::unique_ptr<sy_buffer> View(uint64_t offset, uint64_t bytes);
};

struct sy_executable {
  virtual ~sy_executable() = default;
  // `buffers`: the partition's inputs then outputs (count checked by the trampoline).
  virtual void Execute(sy_buffer* const* buffers, uint32_t count) = 0;
  // Execute, also filling `times` (num_times entries, one per node of the partition, all
  // {0, 0} on entry) with when each node ran, in ns from the call's start. The default
  // measures nothing; an executable that can time its nodes overrides it.
  virtual void ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                            uint32_t num_times) {
    (void)times;
    (void)num_times;
    Execute(buffers, count);
  }
  // Execute at the sizes `partition` gives (execute_resized, for devices that declare
  // SY_DEVICE_FLAG_RESIZABLE): the partition this executable was prepared from, with other
  // dims and the attributes resolved against them. The default declines, and the host
  // prepares anew; throw SY_ERROR_UNSUPPORTED likewise for sizes this executable cannot run.
  virtual void ExecuteResized(const sy_partition& partition, sy_buffer* const* buffers,
                              uint32_t count);
};

struct sy_context {
  virtual ~sy_context() = default;
  virtual uint32_t device_count() const = 0;
  // Fill name, vendor, kind, flags, memory_bytes (the trampoline handles struct_size).
  virtual void DescribeDevice(uint32_t device, sy_device_info& info) const = 0;
  // Returns true, or false with `reason` set.
  virtual bool Supports(uint32_t device, const sy_node& node, std::string& reason) const = 0;
  virtual std::unique_ptr<sy_buffer> Allocate(uint32_t device, uint64_t bytes) = 0;
  virtual std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) = 0;
  // A buffer over caller-owned host memory (buffer_wrap_host). The default declines;
  // host-memory devices return sy_sdk::WrappedHostBuffer.
  virtual std::unique_ptr<sy_buffer> WrapHost(uint32_t device, void* host, uint64_t bytes);
  // Why there are no devices; "" when there are.
  virtual const char* status() const { return ""; }
};

namespace sy_sdk {

// Throw to return a specific error code to the host.
class Error : public std::runtime_error {
 public:
  Error(sy_error_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  sy_error_code code() const { return code_; }

 private:
  sy_error_code code_;
};

// Returned when even allocating an error fails; never deleted.
inline sy_error* StaticOutOfMemoryError() noexcept {
  static sy_error error{SY_ERROR_RESOURCE_EXHAUSTED, "out of memory"};
  return &error;
}

inline sy_error* MakeError(uint32_t code, std::string message) noexcept {
  try {
    return new sy_error{code, std::move(message)};
  } catch (...) {
    return StaticOutOfMemoryError();
  }
}

// What makes a node malformed (docs/plugin-abi.md, "Malformed nodes"), or nullptr when
// it is well formed: a struct_size below ABI 1's, a NULL op, an array NULL where its count
// is not 0, a tensor type with a dtype outside sy_dtype, rank > 0 with NULL dims or a
// negative dim, an attribute with a NULL name, a kind outside sy_attr_kind, or a NULL
// string or list where its kind and count need one. Reads nothing through a pointer the
// checks have not cleared. The trampolines refuse such nodes in supports_node.
inline const char* MalformedNodeReason(const sy_node& node) noexcept {
  if (node.struct_size < sizeof(sy_node) - 16) return "struct_size too small";
  if (node.op == nullptr) return "op is NULL";
  if (node.num_inputs != 0 && node.inputs == nullptr) return "inputs is NULL";
  if (node.num_outputs != 0 && node.outputs == nullptr) return "outputs is NULL";
  if (node.num_attrs != 0 && node.attrs == nullptr) return "attrs is NULL";
  auto bad_type = [](const sy_tensor_type& t) -> const char* {
    if (t.dtype > SY_DTYPE_U32) return "a tensor type's dtype is not an sy_dtype";
    if (t.rank > 0 && t.dims == nullptr) return "a tensor type has rank > 0 and NULL dims";
    for (uint32_t d = 0; d < t.rank; ++d) {
      if (t.dims[d] < 0) return "a tensor type has a negative dim";
    }
    return nullptr;
  };
  for (uint32_t i = 0; i < node.num_inputs; ++i) {
    if (const char* why = bad_type(node.inputs[i])) return why;
  }
  for (uint32_t i = 0; i < node.num_outputs; ++i) {
    if (const char* why = bad_type(node.outputs[i])) return why;
  }
  for (uint32_t i = 0; i < node.num_attrs; ++i) {
    const sy_attr& a = node.attrs[i];
    if (a.name == nullptr) return "an attribute's name is NULL";
    switch (a.kind) {
      case SY_ATTR_INT:
      case SY_ATTR_FLOAT:
        break;
      case SY_ATTR_STRING:
        if (a.s == nullptr) return "a string attribute is NULL";
        break;
      case SY_ATTR_INTS:
        if (a.count != 0 && a.ints == nullptr) return "an ints attribute's array is NULL";
        break;
      case SY_ATTR_FLOATS:
        if (a.count != 0 && a.floats == nullptr) return "a floats attribute's array is NULL";
        break;
      case SY_ATTR_STRINGS:
        if (a.count != 0 && a.strings == nullptr) return "a strings attribute's array is NULL";
        for (uint32_t k = 0; k < a.count; ++k) {
          if (a.strings[k] == nullptr) return "a strings attribute holds NULL";
        }
        break;
      default:
        return "an attribute's kind is not an sy_attr_kind";
    }
  }
  return nullptr;
}

// Runs `body` (returning void); converts any exception into an sy_error.
template <typename Body>
sy_error* Guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return MakeError(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return MakeError(SY_ERROR_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception& e) {
    return MakeError(SY_ERROR_INTERNAL, e.what());
  } catch (...) {
    return MakeError(SY_ERROR_INTERNAL, "unknown exception in plugin");
  }
}

// Looks up an attribute of a node by name; nullptr when absent.
inline const sy_attr* FindAttr(const sy_node& node, std::string_view name) {
  for (uint32_t i = 0; i < node.num_attrs; ++i) {
    if (node.attrs[i].name != nullptr && name == node.attrs[i].name) return &node.attrs[i];
  }
  return nullptr;
}

// Host memory used in place, owned by someone else: the caller of buffer_wrap_host
// (sy_context::WrapHost), or a HostBuffer. Copies are memcpy.
class WrappedHostBuffer : public sy_buffer {
 public:
  WrappedHostBuffer(void* host, uint64_t bytes)
      : data_(static_cast<unsigned char*>(host)), size_(bytes) {}
  uint64_t size() const override { return size_; }
  void* host_pointer() override { return data_; }
  void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) override {
    if (bytes) std::memcpy(data_ + offset, src, bytes);
  }
  void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const override {
    if (bytes) std::memcpy(dst, data_ + offset, bytes);
  }

 protected:
  unsigned char* data_;  // valid until this buffer is freed
  uint64_t size_;
};

// A buffer in host memory that owns its bytes, 64-byte aligned; the usual choice for
// CPU-like devices.
class HostBuffer : public WrappedHostBuffer {
 public:
  explicit HostBuffer(uint64_t bytes) : WrappedHostBuffer(AllocateAligned(bytes), bytes) {}
  ~HostBuffer() override { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

 private:
  static void* AllocateAligned(uint64_t bytes) {
    const uint64_t rounded = (bytes + 63) / 64 * 64;
    if (rounded < bytes || rounded > SIZE_MAX) throw std::bad_alloc();
    void* data = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (data == nullptr) throw std::bad_alloc();
    return data;
  }
};

// The default sy_buffer::View: a window onto another buffer. Owns nothing.
class BufferView : public sy_buffer {
 public:
  BufferView(sy_buffer& parent, uint64_t offset, uint64_t bytes)
      : parent_(parent), offset_(offset), size_(bytes) {}
  uint64_t size() const override { return size_; }
  void* host_pointer() override {
    unsigned char* base = static_cast<unsigned char*>(parent_.host_pointer());
    return base == nullptr ? nullptr : base + offset_;
  }
  void CopyFromHost(uint64_t offset, const void* src, uint64_t bytes) override {
    parent_.CopyFromHost(offset_ + offset, src, bytes);
  }
  void CopyToHost(uint64_t offset, void* dst, uint64_t bytes) const override {
    static_cast<const sy_buffer&>(parent_).CopyToHost(offset_ + offset, dst, bytes);
  }
  std::unique_ptr<sy_buffer> View(uint64_t offset, uint64_t bytes) override {
    return parent_.View(offset_ + offset, bytes);
  }

 private:
  sy_buffer& parent_;  // outlives the view (the ABI's rule)
  uint64_t offset_;
  uint64_t size_;
};

// The function table's trampolines. `Create` makes the plugin's context.
template <const sy_plugin_info* Info, std::unique_ptr<sy_context> (*Create)(const sy_init_options&)>
struct Trampolines {
  static sy_error* Invalid(const char* what) { return MakeError(SY_ERROR_INVALID_ARGUMENT, what); }
  static bool RangeOk(uint64_t size, uint64_t offset, uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  }

  static const char* ErrorMessage(const sy_error* e) { return e ? e->message.c_str() : ""; }
  static uint32_t ErrorCode(const sy_error* e) { return e ? e->code : 0; }
  static void ErrorDestroy(sy_error* e) {
    if (e != StaticOutOfMemoryError()) delete e;
  }

  static sy_error* Initialize(const sy_init_options* options, sy_context** out) {
    if (out == nullptr) return Invalid("initialize: out_context is null");
    *out = nullptr;
    sy_init_options effective{sizeof(sy_init_options), SY_PLUGIN_ABI_VERSION, 0, 0};
    if (options != nullptr) {
      if (options->struct_size < 8) return Invalid("initialize: options.struct_size too small");
      std::memcpy(
          &effective, options,
          options->struct_size < sizeof effective ? options->struct_size : sizeof effective);
    }
    return Guard([&] { *out = Create(effective).release(); });
  }
  static void Shutdown(sy_context* c) { delete c; }
  static const char* ContextStatus(const sy_context* c) { return c ? c->status() : ""; }
  static uint32_t DeviceCount(const sy_context* c) { return c ? c->device_count() : 0; }

  static sy_error* DeviceInfo(const sy_context* c, uint32_t device, sy_device_info* info) {
    if (c == nullptr || info == nullptr) return Invalid("device_info: null argument");
    if (device >= c->device_count())
      return MakeError(SY_ERROR_NOT_FOUND, "device_info: no such device");
    if (info->struct_size < 8) return Invalid("device_info: info.struct_size too small");
    return Guard([&] {
      sy_device_info full{};
      c->DescribeDevice(device, full);
      const uint32_t size = info->struct_size;
      const size_t n = size < sizeof full ? size : sizeof full;
      std::memcpy(reinterpret_cast<char*>(info) + 8, reinterpret_cast<char*>(&full) + 8, n - 8);
    });
  }

  static sy_error* SupportsNode(const sy_context* c, uint32_t device, const sy_node* node,
                                uint32_t* supported, char* reason, size_t capacity) {
    if (c == nullptr || node == nullptr || supported == nullptr) {
      return Invalid("supports_node: null argument");
    }
    if (device >= c->device_count())
      return MakeError(SY_ERROR_NOT_FOUND, "supports_node: no such device");
    if (const char* why = MalformedNodeReason(*node)) {
      return MakeError(SY_ERROR_INVALID_ARGUMENT,
                       std::string("supports_node: malformed node: ") + why);
    }
    return Guard([&] {
      std::string why;
      *supported = c->Supports(device, *node, why) ? 1u : 0u;
      if (reason != nullptr && capacity > 0) {
        const size_t n = why.size() < capacity - 1 ? why.size() : capacity - 1;
        std::memcpy(reason, why.data(), n);
        reason[n] = '\0';
      }
    });
  }

  static sy_error* BufferAlloc(sy_context* c, uint32_t device, uint64_t bytes, sy_buffer** out) {
    if (c == nullptr || out == nullptr) return Invalid("buffer_alloc: null argument");
    *out = nullptr;
    if (device >= c->device_count())
      return MakeError(SY_ERROR_NOT_FOUND, "buffer_alloc: no such device");
    return Guard([&] { *out = c->Allocate(device, bytes).release(); });
  }
  static void BufferFree(sy_buffer* b) { delete b; }
  static void* BufferHostPointer(sy_buffer* b) { return b ? b->host_pointer() : nullptr; }

  static sy_error* CopyHostToDevice(sy_buffer* dst, uint64_t off, const void* src, uint64_t n) {
    if (dst == nullptr || (src == nullptr && n))
      return Invalid("copy_host_to_device: null argument");
    if (!RangeOk(dst->size(), off, n)) {
      return Invalid("copy_host_to_device: range past the end of the buffer");
    }
    return Guard([&] { dst->CopyFromHost(off, src, n); });
  }
  static sy_error* CopyDeviceToHost(const sy_buffer* src, uint64_t off, void* dst, uint64_t n) {
    if (src == nullptr || (dst == nullptr && n))
      return Invalid("copy_device_to_host: null argument");
    if (!RangeOk(src->size(), off, n)) {
      return Invalid("copy_device_to_host: range past the end of the buffer");
    }
    return Guard([&] { src->CopyToHost(off, dst, n); });
  }
  static sy_error* CopyDeviceToDevice(sy_buffer* dst, uint64_t doff, const sy_buffer* src,
                                      uint64_t soff, uint64_t n) {
    if (dst == nullptr || src == nullptr) return Invalid("copy_device_to_device: null argument");
    if (!RangeOk(dst->size(), doff, n) || !RangeOk(src->size(), soff, n)) {
      return Invalid("copy_device_to_device: range past the end of a buffer");
    }
    return Guard([&] {
      // Staged through host memory: correct for any buffer type; plugins with a direct
      // path override by providing their own table entry.
      std::vector<unsigned char> staging(static_cast<size_t>(n));
      src->CopyToHost(soff, staging.data(), n);
      dst->CopyFromHost(doff, staging.data(), n);
    });
  }

  static sy_error* Prepare(sy_context* c, uint32_t device, const sy_partition* p,
                           sy_executable** out) {
    if (c == nullptr || p == nullptr || out == nullptr) return Invalid("prepare: null argument");
    *out = nullptr;
    if (device >= c->device_count())
      return MakeError(SY_ERROR_NOT_FOUND, "prepare: no such device");
    if (p->struct_size < SY_PARTITION_V1_SIZE)
      return Invalid("prepare: partition.struct_size too small");
    return Guard([&] { *out = c->Prepare(device, *p).release(); });
  }
  static sy_error* Execute(sy_executable* e, uint32_t count, sy_buffer* const* buffers) {
    if (e == nullptr || (count && buffers == nullptr)) return Invalid("execute: null argument");
    for (uint32_t i = 0; i < count; ++i) {
      if (buffers[i] == nullptr) return Invalid("execute: a buffer is null");
    }
    return Guard([&] { e->Execute(buffers, count); });
  }

  static sy_error* ExecuteProfiled(sy_executable* e, uint32_t count, sy_buffer* const* buffers,
                                   sy_node_time* times, uint32_t num_times) {
    if (e == nullptr || (count && buffers == nullptr) || (num_times && times == nullptr)) {
      return Invalid("execute_profiled: null argument");
    }
    for (uint32_t i = 0; i < count; ++i) {
      if (buffers[i] == nullptr) return Invalid("execute_profiled: a buffer is null");
    }
    for (uint32_t i = 0; i < num_times; ++i) times[i] = sy_node_time{0, 0};
    return Guard([&] { e->ExecuteTimed(buffers, count, times, num_times); });
  }
  static sy_error* ExecuteResized(sy_executable* e, const sy_partition* p, uint32_t count,
                                  sy_buffer* const* buffers) {
    if (e == nullptr || p == nullptr || (count && buffers == nullptr)) {
      return Invalid("execute_resized: null argument");
    }
    if (p->struct_size < SY_PARTITION_V1_SIZE) {
      return Invalid("execute_resized: partition.struct_size too small");
    }
    for (uint32_t i = 0; i < count; ++i) {
      if (buffers[i] == nullptr) return Invalid("execute_resized: a buffer is null");
    }
    return Guard([&] { e->ExecuteResized(*p, buffers, count); });
  }
  static void Release(sy_executable* e) { delete e; }
  static sy_error* BufferWrapHost(sy_context* c, uint32_t device, void* host, uint64_t bytes,
                                  sy_buffer** out) {
    if (c == nullptr || out == nullptr || (host == nullptr && bytes)) {
      return Invalid("buffer_wrap_host: null argument");
    }
    *out = nullptr;
    if (device >= c->device_count()) {
      return MakeError(SY_ERROR_NOT_FOUND, "buffer_wrap_host: no such device");
    }
    return Guard([&] { *out = c->WrapHost(device, host, bytes).release(); });
  }
  static sy_error* BufferViewOf(sy_buffer* parent, uint64_t offset, uint64_t bytes,
                                sy_buffer** out) {
    if (parent == nullptr || out == nullptr) return Invalid("buffer_view: null argument");
    *out = nullptr;
    if (!RangeOk(parent->size(), offset, bytes)) {
      return Invalid("buffer_view: range past the end of the buffer");
    }
    return Guard([&] { *out = parent->View(offset, bytes).release(); });
  }

  static const sy_plugin_api* Api() {
    static const sy_plugin_api api = {sizeof(sy_plugin_api),
                                      SY_PLUGIN_ABI_VERSION,
                                      Info,
                                      ErrorMessage,
                                      ErrorCode,
                                      ErrorDestroy,
                                      Initialize,
                                      Shutdown,
                                      ContextStatus,
                                      DeviceCount,
                                      DeviceInfo,
                                      SupportsNode,
                                      BufferAlloc,
                                      BufferFree,
                                      BufferHostPointer,
                                      CopyHostToDevice,
                                      CopyDeviceToHost,
                                      CopyDeviceToDevice,
                                      Prepare,
                                      Execute,
                                      Release,
                                      BufferViewOf,
                                      BufferWrapHost,
                                      ExecuteProfiled,
                                      ExecuteResized};
    return &api;
  }
};

}  // namespace sy_sdk

inline std::unique_ptr<sy_buffer> sy_buffer::View(uint64_t offset, uint64_t bytes) {
  return std::make_unique<sy_sdk::BufferView>(*this, offset, bytes);
}

inline void sy_executable::ExecuteResized(const sy_partition&, sy_buffer* const*, uint32_t) {
  throw sy_sdk::Error(SY_ERROR_UNSUPPORTED, "this executable runs only at its prepared sizes");
}

inline std::unique_ptr<sy_buffer> sy_context::WrapHost(uint32_t, void*, uint64_t) {
  throw sy_sdk::Error(SY_ERROR_UNSUPPORTED, "this device cannot use host memory in place");
}

// Defines the plugin's one exported symbol. `info` is a `static const sy_plugin_info`
// object; `create` is `std::unique_ptr<sy_context> create(const sy_init_options&)`.
#define SY_SDK_DEFINE_PLUGIN(info, create)                                              \
  extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max) { \
    if (host_max < SY_PLUGIN_ABI_MIN_VERSION) return nullptr;                           \
    return ::sy_sdk::Trampolines<&info, create>::Api();                                 \
  }

#endif  // SWITCHYARD_PLUGIN_CPP_H_
