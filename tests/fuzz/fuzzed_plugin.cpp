// A plugin whose every answer comes from the fuzzer's bytes (fuzz_plugin_table.cpp): the
// function table itself (ABI version, struct size, functions missing), identity strings
// that are null, empty, long or without a terminator, initialize failing or returning no
// context, device counts and descriptions of any value, supports_node answers and reasons
// that fill the whole buffer, buffers that are null or have no host pointer, errors with
// null or unterminated messages, and prepare/execute failing or succeeding. It writes
// only memory it owns and what the host hands it (within the bounds the host gives), so
// any sanitizer report is the host's.
//
// Exports sy_plugin_query and sy_fuzz_set_input (the fuzzer's bytes for the next load).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace {

std::unique_ptr<FuzzedDataProvider> input;
std::vector<uint8_t> input_bytes;
std::deque<std::string> strings;  // storage for what the answers point at
// A "string" with no terminator for 8 KiB: the host must stop reading at its bound.
char unterminated[8192];

// True one time in `one_in` (as the bytes say); false once they are used up, so that no
// loop on it runs forever.
bool Chance(int one_in) {
  return input->remaining_bytes() > 0 && input->ConsumeIntegralInRange<int>(1, one_in) == 1;
}

const char* FuzzString() {
  switch (input->ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return nullptr;
    case 1:
      return unterminated;
    case 2:
      return "";
    default:
      return strings.emplace_back(input->ConsumeRandomLengthString(64)).c_str();
  }
}

struct FuzzError {
  uint32_t code;
  const char* message;
};

sy_error* MaybeError() {
  if (!Chance(6)) return nullptr;
  auto* e = new FuzzError{input->ConsumeIntegral<uint32_t>(), FuzzString()};
  return reinterpret_cast<sy_error*>(e);
}

const char* ErrorMessage(const sy_error* e) {
  return reinterpret_cast<const FuzzError*>(e)->message;
}
uint32_t ErrorCode(const sy_error* e) { return reinterpret_cast<const FuzzError*>(e)->code; }
void ErrorDestroy(sy_error* e) { delete reinterpret_cast<FuzzError*>(e); }

struct Context {
  uint32_t devices = 0;
  const char* status = nullptr;
};

struct Buffer {
  std::vector<std::byte> owned;
  std::byte* data = nullptr;  // into owned, a parent's, or host memory wrapped
  uint64_t bytes = 0;
  bool host_pointer = true;
};

struct Executable {
  int unused = 0;
};

sy_error* Initialize(const sy_init_options*, sy_context** out) {
  if (sy_error* e = MaybeError()) return e;
  if (Chance(8)) {
    *out = nullptr;
    return nullptr;
  }
  auto* c = new Context;
  c->devices = Chance(3) ? input->ConsumeIntegral<uint32_t>() : input->ConsumeIntegralInRange(0, 3);
  c->status = FuzzString();
  *out = reinterpret_cast<sy_context*>(c);
  return nullptr;
}

void Shutdown(sy_context* c) { delete reinterpret_cast<Context*>(c); }
const char* ContextStatus(const sy_context* c) {
  return reinterpret_cast<const Context*>(c)->status;
}
uint32_t DeviceCount(const sy_context* c) { return reinterpret_cast<const Context*>(c)->devices; }

sy_error* DeviceInfo(const sy_context*, uint32_t, sy_device_info* info) {
  if (sy_error* e = MaybeError()) return e;
  info->name = FuzzString();
  info->vendor = FuzzString();
  info->kind = Chance(3) ? input->ConsumeIntegral<uint32_t>() : input->ConsumeIntegralInRange(0, 3);
  info->flags = input->ConsumeIntegral<uint32_t>();
  info->memory_bytes = input->ConsumeIntegral<uint64_t>();
  if (info->struct_size >= offsetof(sy_device_info, details) + sizeof(info->details)) {
    info->details = FuzzString();
  }
  return nullptr;
}

sy_error* SupportsNode(const sy_context*, uint32_t, const sy_node*, uint32_t* supported,
                       char* reason, size_t capacity) {
  if (sy_error* e = MaybeError()) return e;
  *supported = Chance(2) ? input->ConsumeIntegral<uint32_t>() : 1;
  if (reason != nullptr && capacity > 0) {
    // Sometimes the whole buffer, with no terminator.
    const size_t n = Chance(3) ? capacity : input->ConsumeIntegralInRange<size_t>(0, capacity - 1);
    std::memset(reason, 'r', n);
    if (n < capacity) reason[n] = '\0';
  }
  return nullptr;
}

sy_error* BufferAlloc(sy_context*, uint32_t, uint64_t bytes, sy_buffer** out) {
  if (sy_error* e = MaybeError()) return e;
  if (Chance(10) || bytes > (uint64_t{1} << 24)) {
    *out = nullptr;
    return nullptr;
  }
  auto* b = new Buffer;
  b->owned.resize(static_cast<size_t>(bytes));
  b->data = b->owned.data();
  b->bytes = bytes;
  b->host_pointer = !Chance(8);
  *out = reinterpret_cast<sy_buffer*>(b);
  return nullptr;
}

void BufferFree(sy_buffer* b) { delete reinterpret_cast<Buffer*>(b); }

void* BufferHostPointer(sy_buffer* b) {
  Buffer* buffer = reinterpret_cast<Buffer*>(b);
  return buffer->host_pointer ? buffer->data : nullptr;
}

bool Inside(const Buffer* b, uint64_t offset, uint64_t bytes) {
  return offset <= b->bytes && bytes <= b->bytes - offset;
}

sy_error* CopyIn(sy_buffer* dst, uint64_t offset, const void* src, uint64_t bytes) {
  if (sy_error* e = MaybeError()) return e;
  Buffer* d = reinterpret_cast<Buffer*>(dst);
  if (!Inside(d, offset, bytes)) return reinterpret_cast<sy_error*>(new FuzzError{1, "range"});
  if (bytes > 0) std::memcpy(d->data + offset, src, static_cast<size_t>(bytes));
  return nullptr;
}

sy_error* CopyOut(const sy_buffer* src, uint64_t offset, void* dst, uint64_t bytes) {
  if (sy_error* e = MaybeError()) return e;
  const Buffer* s = reinterpret_cast<const Buffer*>(src);
  if (!Inside(s, offset, bytes)) return reinterpret_cast<sy_error*>(new FuzzError{1, "range"});
  if (bytes > 0) std::memcpy(dst, s->data + offset, static_cast<size_t>(bytes));
  return nullptr;
}

sy_error* CopyWithin(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src, uint64_t src_offset,
                     uint64_t bytes) {
  if (sy_error* e = MaybeError()) return e;
  Buffer* d = reinterpret_cast<Buffer*>(dst);
  const Buffer* s = reinterpret_cast<const Buffer*>(src);
  if (!Inside(d, dst_offset, bytes) || !Inside(s, src_offset, bytes)) {
    return reinterpret_cast<sy_error*>(new FuzzError{1, "range"});
  }
  if (bytes > 0) std::memmove(d->data + dst_offset, s->data + src_offset, bytes);
  return nullptr;
}

sy_error* Prepare(sy_context*, uint32_t, const sy_partition*, sy_executable** out) {
  if (sy_error* e = MaybeError()) return e;
  *out = Chance(10) ? nullptr : reinterpret_cast<sy_executable*>(new Executable);
  return nullptr;
}

sy_error* Execute(sy_executable*, uint32_t, sy_buffer* const*) { return MaybeError(); }
void Release(sy_executable* e) { delete reinterpret_cast<Executable*>(e); }

sy_error* BufferView(sy_buffer* parent, uint64_t offset, uint64_t bytes, sy_buffer** out) {
  if (sy_error* e = MaybeError()) return e;
  Buffer* p = reinterpret_cast<Buffer*>(parent);
  if (!Inside(p, offset, bytes)) return reinterpret_cast<sy_error*>(new FuzzError{1, "range"});
  if (Chance(10)) {
    *out = nullptr;
    return nullptr;
  }
  auto* v = new Buffer;
  v->data = p->data + offset;
  v->bytes = bytes;
  v->host_pointer = p->host_pointer;
  *out = reinterpret_cast<sy_buffer*>(v);
  return nullptr;
}

sy_error* WrapHost(sy_context*, uint32_t, void* host, uint64_t bytes, sy_buffer** out) {
  if (sy_error* e = MaybeError()) return e;
  if (Chance(10)) {
    *out = nullptr;
    return nullptr;
  }
  auto* b = new Buffer;
  b->data = static_cast<std::byte*>(host);
  b->bytes = bytes;
  *out = reinterpret_cast<sy_buffer*>(b);
  return nullptr;
}

sy_plugin_info info;
sy_plugin_api table;

}  // namespace

extern "C" SY_PLUGIN_EXPORT void sy_fuzz_set_input(const uint8_t* data, size_t size) {
  input_bytes.assign(data, data + size);
  input = std::make_unique<FuzzedDataProvider>(input_bytes.data(), input_bytes.size());
  strings.clear();
  std::memset(unterminated, 'u', sizeof unterminated);
}

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) {
  if (Chance(20)) return nullptr;
  info = sy_plugin_info{
      sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION, nullptr, nullptr, nullptr, nullptr};
  info.name = Chance(4) ? FuzzString() : "fuzz";
  info.version = FuzzString();
  info.vendor = FuzzString();
  info.description = FuzzString();
  table = sy_plugin_api{sizeof(sy_plugin_api),
                        SY_PLUGIN_ABI_VERSION,
                        &info,
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
                        CopyIn,
                        CopyOut,
                        CopyWithin,
                        Prepare,
                        Execute,
                        Release,
                        BufferView,
                        WrapHost};
  if (Chance(10)) table.abi_version = input->ConsumeIntegral<uint32_t>();
  if (Chance(10)) {
    table.struct_size = input->ConsumeIntegralInRange<uint32_t>(0, sizeof(sy_plugin_api) + 64);
  }
  if (Chance(10)) table.info = nullptr;
  // Any function may be missing; the host must refuse a table without a required one.
  void (**functions)() = reinterpret_cast<void (**)()>(&table.error_message);
  const size_t count =
      (sizeof(sy_plugin_api) - offsetof(sy_plugin_api, error_message)) / sizeof(void (*)());
  while (Chance(6)) functions[input->ConsumeIntegralInRange<size_t>(0, count - 1)] = nullptr;
  return &table;
}
