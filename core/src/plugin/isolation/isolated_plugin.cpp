#include "plugin/isolation/isolated_plugin.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>

#include "plugin/child_process.h"
#include "plugin/install_layout.h"
#include "plugin/isolation/channel.h"
#include "plugin/isolation/wire.h"
#include "switchyard/dtype.h"

namespace sy::isolation {
namespace {

namespace fs = std::filesystem;

// The largest reply the host accepts from a worker: replies carry names, reasons and
// device descriptions, never tensor data.
constexpr size_t kMaxReply = size_t{16} << 20;
// Copies to and from devices whose memory the host cannot map go through a staging
// region of at most this size, in pieces.
constexpr size_t kMaxStaging = size_t{8} << 20;
// How long a worker gets to exit after it was asked to.
constexpr double kShutdownSeconds = 5;

// ---- errors the proxy creates (sy_error is opaque to the host; these are its own) ----

struct ProxyError {
  uint32_t code;
  std::string message;
};

// Returned when even an error cannot be allocated: never null (null means success),
// never deleted.
ProxyError kOutOfMemory{SY_ERROR_RESOURCE_EXHAUSTED, "out of memory in the isolation proxy"};

sy_error* MakeError(uint32_t code, std::string message) {
  ProxyError* e = nullptr;
  try {
    e = new ProxyError{code == 0 ? static_cast<uint32_t>(SY_ERROR_INTERNAL) : code,
                       std::move(message)};
  } catch (const std::bad_alloc&) {
    e = &kOutOfMemory;
  }
  return reinterpret_cast<sy_error*>(e);
}

const char* ErrorMessage(const sy_error* error) {
  return reinterpret_cast<const ProxyError*>(error)->message.c_str();
}
uint32_t ErrorCode(const sy_error* error) {
  return reinterpret_cast<const ProxyError*>(error)->code;
}
void ErrorDestroy(sy_error* error) {
  auto* e = reinterpret_cast<ProxyError*>(error);
  if (e != &kOutOfMemory) delete e;
}

std::string SignalText(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* text = strsignal(sig);
  return std::string("SIG") + (name ? name : std::to_string(sig)) + ": " + (text ? text : "");
}

// ---- the connection to one worker ---------------------------------------------------------

class Connection {
 public:
  // `pid` leads a process group of its own (SpawnInOwnGroup): ending the worker ends
  // whatever its plugin forked too.
  Connection(int fd, pid_t pid, std::string plugin, double call_timeout)
      : process_(pid), channel_(fd), plugin_(std::move(plugin)), call_timeout_(call_timeout) {
    // A wait for a reply also ends when the worker exits: a process the plugin forked may
    // hold the worker's end of the socket open, and no end of file would come.
    channel_.WatchPeer(&process_);
  }
  ~Connection() { Stop(); }

  struct Reply {
    sy_error* error = nullptr;  // set: the call failed (the worker's error or ours)
    std::string payload;
  };

  // One request and its reply. `what` says, for messages, what the call was doing.
  Reply Call(Op op, const MessageWriter& args, std::span<const int> fds, const std::string& what,
             double timeout_seconds) {
    std::lock_guard lock(mutex_);
    Reply reply;
    if (!dead_reason_.empty()) {
      reply.error = MakeError(SY_ERROR_INTERNAL, what + ": " + dead_reason_);
      return reply;
    }
    MessageWriter request;
    request.Put(static_cast<uint32_t>(op));
    std::string body = request.bytes() + args.bytes();
    std::string error;
    Channel::Result r = channel_.Send(body, fds, timeout_seconds, &error);
    std::vector<int> received;
    std::string frame;
    if (r == Channel::Result::kOk) {
      r = channel_.Receive(&frame, &received, timeout_seconds, kMaxReply, &error);
    }
    for (int fd : received) ::close(fd);  // replies carry none
    if (r != Channel::Result::kOk) {
      Fail(r, what, timeout_seconds, error);
      reply.error = MakeError(SY_ERROR_INTERNAL, what + ": " + dead_reason_);
      return reply;
    }
    MessageReader reader(frame);
    const uint32_t code = reader.Get<uint32_t>();
    std::string message = reader.GetString();
    if (!reader.ok()) {
      Fail(Channel::Result::kError, what, timeout_seconds, "a malformed reply");
      reply.error = MakeError(SY_ERROR_INTERNAL, what + ": " + dead_reason_);
      return reply;
    }
    if (code != 0) {
      reply.error = MakeError(code, std::move(message));
      return reply;
    }
    reply.payload = std::string(reader.rest());
    return reply;
  }

  // Asks the worker to shut its plugin down and exit; kills it if it does not, and kills
  // what is left of its process group either way.
  void Stop() {
    std::lock_guard lock(mutex_);
    if (process_.ended()) return;
    if (dead_reason_.empty()) {
      MessageWriter request;
      request.Put(static_cast<uint32_t>(Op::kShutdown));
      std::string error, frame;
      std::vector<int> fds;
      if (channel_.Send(request.bytes(), {}, kShutdownSeconds, &error) == Channel::Result::kOk) {
        channel_.Receive(&frame, &fds, kShutdownSeconds, kMaxReply, &error);
        for (int fd : fds) ::close(fd);
      }
    }
    process_.End(kShutdownSeconds);
  }

  double call_timeout() const { return call_timeout_; }
  const std::string& plugin() const { return plugin_; }
  void set_plugin(std::string name) { plugin_ = std::move(name); }
  pid_t pid() const { return process_.pid(); }

 private:
  // Marks the worker dead with the reason, killing it if it still runs.
  void Fail(Channel::Result r, const std::string& what, double timeout_seconds,
            const std::string& error) {
    std::ostringstream reason;
    reason << "its worker process (pid " << process_.pid() << ")";
    if (r == Channel::Result::kTimedOut) {
      process_.End(0);
      reason << " did not answer within " << timeout_seconds << " s (--timeout) and was killed";
    } else {
      // Closed or kPeerExited: it is gone or going; a worker that closed its socket but
      // lingers gets a second before it is killed.
      const int status = process_.End(1.0);
      if (status >= 0 && WIFSIGNALED(status)) {
        reason << " crashed (" << SignalText(WTERMSIG(status)) << ")";
      } else if (status >= 0 && WIFEXITED(status)) {
        reason << " exited with status " << WEXITSTATUS(status);
      } else {
        reason << " stopped answering (" << (error.empty() ? "connection closed" : error)
               << ") and was killed";
      }
    }
    (void)what;
    reason << "; the host is unaffected, but plugin " << plugin_
           << "'s devices cannot be used any more in this process";
    dead_reason_ = reason.str();
  }

  std::mutex mutex_;      // one request and its reply at a time
  ChildProcess process_;  // before channel_, which watches it
  Channel channel_;
  std::string plugin_;
  double call_timeout_;
  std::string dead_reason_;  // "" while the worker is usable
};

// ---- the proxy's handles -------------------------------------------------------------------

struct ProxyContext {
  std::unique_ptr<Connection> connection;
  std::string status;
  std::vector<IsolatedDevice> devices;
  std::vector<bool> shares;  // per device: buffers are shared memory
  std::mutex staging_mutex;
  std::unique_ptr<SharedRegion> staging;  // created on first use; guarded by staging_mutex

  std::string Where(uint32_t device) const {
    return "device " + connection->plugin() + ":" + std::to_string(device);
  }
};

struct ProxyBuffer {
  ProxyContext* context;
  uint32_t device;
  uint64_t remote;
  uint64_t bytes;
  std::shared_ptr<SharedRegion> region;  // null for memory of the worker's device
  std::byte* host = nullptr;             // into `region`, or null
};

struct ProxyExecutable {
  ProxyContext* context;
  uint32_t device;
  uint64_t remote;
};

ProxyContext* Ctx(const sy_context* c) {
  return reinterpret_cast<ProxyContext*>(const_cast<sy_context*>(c));
}
ProxyBuffer* Buf(const sy_buffer* b) {
  return reinterpret_cast<ProxyBuffer*>(const_cast<sy_buffer*>(b));
}

sy_error* BadArgument(const std::string& message) {
  return MakeError(SY_ERROR_INVALID_ARGUMENT, message);
}

// ---- the table's functions ------------------------------------------------------------------

sy_error* Initialize(const sy_init_options*, sy_context**) {
  return MakeError(SY_ERROR_INTERNAL, "an isolated plugin is initialised by its worker");
}

void Shutdown(sy_context* context) { delete Ctx(context); }

const char* ContextStatus(const sy_context* context) { return Ctx(context)->status.c_str(); }

uint32_t DeviceCount(const sy_context* context) {
  return static_cast<uint32_t>(Ctx(context)->devices.size());
}

sy_error* DeviceInfo(const sy_context* context, uint32_t device, sy_device_info* info) {
  const ProxyContext* c = Ctx(context);
  if (info == nullptr || device >= c->devices.size()) return BadArgument("no such device");
  const IsolatedDevice& d = c->devices[device];
  info->name = d.name.c_str();
  info->vendor = d.vendor.c_str();
  info->kind = d.kind;
  info->flags = d.flags;
  info->memory_bytes = d.memory_bytes;
  if (info->struct_size >= offsetof(sy_device_info, details) + sizeof(info->details)) {
    info->details = d.details.c_str();
  }
  return nullptr;
}

sy_error* SupportsNode(const sy_context* context, uint32_t device, const sy_node* node,
                       uint32_t* supported, char* reason, size_t reason_capacity) {
  ProxyContext* c = Ctx(context);
  if (node == nullptr || supported == nullptr) return BadArgument("null node");
  MessageWriter args;
  args.Put(device);
  PutNode(args, *node, false);
  Connection::Reply reply = c->connection->Call(
      Op::kSupports, args, {}, c->Where(device) + ", supports_node", c->connection->call_timeout());
  if (reply.error != nullptr) return reply.error;
  MessageReader r(reply.payload);
  *supported = r.Get<uint32_t>() != 0 ? 1 : 0;
  const std::string why = r.GetString();
  if (reason != nullptr && reason_capacity > 0) {
    const size_t n = std::min(why.size(), reason_capacity - 1);
    std::memcpy(reason, why.data(), n);
    reason[n] = '\0';
  }
  return nullptr;
}

// Reads the 8-byte id a successful reply carries.
sy_error* TakeId(Connection::Reply& reply, uint64_t* id) {
  if (reply.error != nullptr) return reply.error;
  MessageReader r(reply.payload);
  *id = r.Get<uint64_t>();
  if (!r.ok()) return MakeError(SY_ERROR_INTERNAL, "a malformed reply from the worker");
  return nullptr;
}

sy_error* BufferAlloc(sy_context* context, uint32_t device, uint64_t bytes, sy_buffer** out) {
  ProxyContext* c = Ctx(context);
  if (out == nullptr || device >= c->devices.size()) return BadArgument("no such device");
  auto buffer = std::make_unique<ProxyBuffer>(ProxyBuffer{c, device, 0, bytes, nullptr, nullptr});
  MessageWriter args;
  args.Put(device).Put(bytes);
  Connection::Reply reply;
  if (c->shares[device]) {
    auto region = std::make_shared<SharedRegion>();
    std::string error;
    if (!region->Create("switchyard-buffer", static_cast<size_t>(bytes), &error)) {
      return MakeError(SY_ERROR_RESOURCE_EXHAUSTED, c->Where(device) + ": " + error);
    }
    const int fd = region->fd();
    reply = c->connection->Call(Op::kShare, args, std::span<const int>(&fd, 1),
                                c->Where(device) + ", buffer_alloc", c->connection->call_timeout());
    buffer->host = region->data();
    buffer->region = std::move(region);
  } else {
    reply = c->connection->Call(Op::kAlloc, args, {}, c->Where(device) + ", buffer_alloc",
                                c->connection->call_timeout());
  }
  if (sy_error* e = TakeId(reply, &buffer->remote)) return e;
  *out = reinterpret_cast<sy_buffer*>(buffer.release());
  return nullptr;
}

void BufferFree(sy_buffer* buffer) {
  if (buffer == nullptr) return;
  std::unique_ptr<ProxyBuffer> b(Buf(buffer));
  MessageWriter args;
  args.Put(b->remote);
  Connection::Reply reply = b->context->connection->Call(Op::kFree, args, {}, "buffer_free",
                                                         b->context->connection->call_timeout());
  if (reply.error != nullptr) ErrorDestroy(reply.error);  // nothing to tell anyone
}

void* BufferHostPointer(sy_buffer* buffer) { return buffer ? Buf(buffer)->host : nullptr; }

sy_error* BufferView(sy_buffer* parent, uint64_t offset, uint64_t bytes, sy_buffer** out) {
  ProxyBuffer* p = Buf(parent);
  if (p == nullptr || out == nullptr || offset > p->bytes || bytes > p->bytes - offset) {
    return BadArgument("buffer_view: the view does not lie inside its parent");
  }
  auto view = std::make_unique<ProxyBuffer>(ProxyBuffer{p->context, p->device, 0, bytes, p->region,
                                                        p->host ? p->host + offset : nullptr});
  MessageWriter args;
  args.Put(p->remote).Put(offset).Put(bytes);
  Connection::Reply reply = p->context->connection->Call(
      Op::kView, args, {}, p->context->Where(p->device) + ", buffer_view",
      p->context->connection->call_timeout());
  if (sy_error* e = TakeId(reply, &view->remote)) return e;
  *out = reinterpret_cast<sy_buffer*>(view.release());
  return nullptr;
}

bool Inside(const ProxyBuffer* b, uint64_t offset, uint64_t bytes) {
  return b != nullptr && offset <= b->bytes && bytes <= b->bytes - offset;
}

// The staging region, at least `bytes` long (up to kMaxStaging), sent to the worker when
// it is new. Called with staging_mutex held.
sy_error* EnsureStaging(ProxyContext* c, size_t bytes) {
  bytes = std::min(bytes, kMaxStaging);
  if (c->staging != nullptr && c->staging->size() >= bytes) return nullptr;
  auto region = std::make_unique<SharedRegion>();
  std::string error;
  if (!region->Create("switchyard-staging", std::max(bytes, size_t{1} << 20), &error)) {
    return MakeError(SY_ERROR_RESOURCE_EXHAUSTED, error);
  }
  MessageWriter args;
  args.Put(static_cast<uint64_t>(region->size()));
  const int fd = region->fd();
  Connection::Reply reply = c->connection->Call(Op::kStaging, args, std::span<const int>(&fd, 1),
                                                "staging", c->connection->call_timeout());
  if (reply.error != nullptr) return reply.error;
  c->staging = std::move(region);
  return nullptr;
}

sy_error* CopyHostToDevice(sy_buffer* dst, uint64_t dst_offset, const void* src, uint64_t bytes) {
  ProxyBuffer* d = Buf(dst);
  if (!Inside(d, dst_offset, bytes) || (src == nullptr && bytes > 0)) {
    return BadArgument("copy_host_to_device: range outside the buffer");
  }
  if (d->host != nullptr) {
    if (bytes > 0) std::memcpy(d->host + dst_offset, src, static_cast<size_t>(bytes));
    return nullptr;
  }
  ProxyContext* c = d->context;
  std::lock_guard lock(c->staging_mutex);
  if (sy_error* e = EnsureStaging(c, static_cast<size_t>(bytes))) return e;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, c->staging->size());
    std::memcpy(c->staging->data(), static_cast<const std::byte*>(src) + done,
                static_cast<size_t>(n));
    MessageWriter args;
    args.Put(d->remote).Put(dst_offset + done).Put(n);
    Connection::Reply reply =
        c->connection->Call(Op::kCopyIn, args, {}, c->Where(d->device) + ", copy_host_to_device",
                            c->connection->call_timeout());
    if (reply.error != nullptr) return reply.error;
    done += n;
  }
  return nullptr;
}

sy_error* CopyDeviceToHost(const sy_buffer* src, uint64_t src_offset, void* dst, uint64_t bytes) {
  const ProxyBuffer* s = Buf(src);
  if (!Inside(s, src_offset, bytes) || (dst == nullptr && bytes > 0)) {
    return BadArgument("copy_device_to_host: range outside the buffer");
  }
  if (s->host != nullptr) {
    if (bytes > 0) std::memcpy(dst, s->host + src_offset, static_cast<size_t>(bytes));
    return nullptr;
  }
  ProxyContext* c = s->context;
  std::lock_guard lock(c->staging_mutex);
  if (sy_error* e = EnsureStaging(c, static_cast<size_t>(bytes))) return e;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, c->staging->size());
    MessageWriter args;
    args.Put(s->remote).Put(src_offset + done).Put(n);
    Connection::Reply reply =
        c->connection->Call(Op::kCopyOut, args, {}, c->Where(s->device) + ", copy_device_to_host",
                            c->connection->call_timeout());
    if (reply.error != nullptr) return reply.error;
    std::memcpy(static_cast<std::byte*>(dst) + done, c->staging->data(), static_cast<size_t>(n));
    done += n;
  }
  return nullptr;
}

sy_error* CopyDeviceToDevice(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src,
                             uint64_t src_offset, uint64_t bytes) {
  ProxyBuffer* d = Buf(dst);
  const ProxyBuffer* s = Buf(src);
  if (!Inside(d, dst_offset, bytes) || !Inside(s, src_offset, bytes)) {
    return BadArgument("copy_device_to_device: range outside a buffer");
  }
  if (d->host != nullptr && s->host != nullptr) {
    if (bytes > 0) {
      std::memmove(d->host + dst_offset, s->host + src_offset, static_cast<size_t>(bytes));
    }
    return nullptr;
  }
  MessageWriter args;
  args.Put(d->remote).Put(dst_offset).Put(s->remote).Put(src_offset).Put(bytes);
  Connection::Reply reply = d->context->connection->Call(
      Op::kCopyWithin, args, {}, d->context->Where(d->device) + ", copy_device_to_device",
      d->context->connection->call_timeout());
  return reply.error;
}

// Bytes of a partition value's tensor, or false when they do not fit in 64 bits.
bool ValueBytes(const sy_tensor_type& t, uint64_t* bytes) {
  if (t.dtype >= static_cast<uint32_t>(kNumDTypes)) return false;
  uint64_t n = DTypeSize(static_cast<DType>(t.dtype));
  for (uint32_t i = 0; i < t.rank; ++i) {
    if (t.dims[i] < 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(t.dims[i]), &n)) {
      return false;
    }
  }
  *bytes = n;
  return true;
}

sy_error* Prepare(sy_context* context, uint32_t device, const sy_partition* partition,
                  sy_executable** out) {
  ProxyContext* c = Ctx(context);
  if (partition == nullptr || out == nullptr) return BadArgument("null partition");
  // The constants' bytes go into one shared region, each at a 64-byte aligned offset.
  const bool has_constants =
      partition->struct_size >= offsetof(sy_partition, constant_data) + sizeof(void*) &&
      partition->constant_data != nullptr;
  std::vector<uint64_t> offsets(partition->num_inputs, UINT64_MAX);
  uint64_t total = 0;
  for (uint32_t i = 0; has_constants && i < partition->num_inputs; ++i) {
    if (partition->constant_data[i] == nullptr) continue;
    uint64_t bytes = 0;
    if (partition->inputs[i] >= partition->num_values ||
        !ValueBytes(partition->values[partition->inputs[i]], &bytes)) {
      return BadArgument("prepare: a constant of no valid size");
    }
    total = (total + 63) / 64 * 64;
    offsets[i] = total;
    total += bytes;
  }
  SharedRegion constants;
  std::string error;
  if (!constants.Create("switchyard-constants", static_cast<size_t>(total), &error)) {
    return MakeError(SY_ERROR_RESOURCE_EXHAUSTED, c->Where(device) + ": prepare: " + error);
  }
  for (uint32_t i = 0; i < partition->num_inputs; ++i) {
    if (offsets[i] == UINT64_MAX) continue;
    uint64_t bytes = 0;
    ValueBytes(partition->values[partition->inputs[i]], &bytes);
    if (bytes > 0) {
      std::memcpy(constants.data() + offsets[i], partition->constant_data[i],
                  static_cast<size_t>(bytes));
    }
  }
  MessageWriter args;
  args.Put(device).Put(static_cast<uint64_t>(total));
  PutPartition(args, *partition);
  for (uint64_t offset : offsets) args.Put(offset);
  const int fd = constants.fd();
  Connection::Reply reply =
      c->connection->Call(Op::kPrepare, args, std::span<const int>(&fd, 1),
                          c->Where(device) + ", prepare", c->connection->call_timeout());
  auto executable = std::make_unique<ProxyExecutable>(ProxyExecutable{c, device, 0});
  if (sy_error* e = TakeId(reply, &executable->remote)) return e;
  *out = reinterpret_cast<sy_executable*>(executable.release());
  return nullptr;
}

// execute and execute_profiled: one request, which carries how many node times to
// return (0: a plain execute).
sy_error* ExecuteProfiled(sy_executable* executable, uint32_t num_buffers,
                          sy_buffer* const* buffers, sy_node_time* times, uint32_t num_times) {
  auto* e = reinterpret_cast<ProxyExecutable*>(executable);
  if (e == nullptr || (buffers == nullptr && num_buffers > 0) ||
      (times == nullptr && num_times > 0)) {
    return BadArgument("null handle");
  }
  MessageWriter args;
  args.Put(e->remote).Put(num_buffers);
  for (uint32_t i = 0; i < num_buffers; ++i) {
    if (buffers[i] == nullptr) return BadArgument("execute: a buffer is null");
    args.Put(Buf(buffers[i])->remote);
  }
  args.Put(num_times);
  Connection::Reply reply = e->context->connection->Call(Op::kExecute, args, {},
                                                         e->context->Where(e->device) + ", execute",
                                                         e->context->connection->call_timeout());
  if (reply.error != nullptr || num_times == 0) return reply.error;
  // The worker's clock: times from the start of its call, which is what the ABI asks.
  MessageReader r(reply.payload);
  const uint32_t count = r.GetCount(2 * sizeof(uint64_t));
  for (uint32_t i = 0; i < num_times; ++i) {
    times[i] = sy_node_time{0, 0};
    if (i < count) {
      times[i].start_ns = r.Get<uint64_t>();
      times[i].end_ns = r.Get<uint64_t>();
    }
  }
  if (!r.ok()) return MakeError(SY_ERROR_INTERNAL, "a malformed reply from the worker");
  return nullptr;
}

sy_error* Execute(sy_executable* executable, uint32_t num_buffers, sy_buffer* const* buffers) {
  return ExecuteProfiled(executable, num_buffers, buffers, nullptr, 0);
}

void Release(sy_executable* executable) {
  if (executable == nullptr) return;
  std::unique_ptr<ProxyExecutable> e(reinterpret_cast<ProxyExecutable*>(executable));
  MessageWriter args;
  args.Put(e->remote);
  Connection::Reply reply = e->context->connection->Call(Op::kRelease, args, {}, "release",
                                                         e->context->connection->call_timeout());
  if (reply.error != nullptr) ErrorDestroy(reply.error);
}

constexpr sy_plugin_info kProxyInfo = {
    sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,         "isolated", "",
    "Switchyard",           "a plugin in a worker process"};

// buffer_wrap_host is absent: the caller's memory is not shared with the worker, so
// sessions copy inputs into buffers (shared memory: a memcpy on the host's side).
// execute_resized is not forwarded (yet): a plugin in a worker is prepared once per set
// of sizes, whatever its devices declare.
constexpr sy_plugin_api kProxyTable = {sizeof(sy_plugin_api),
                                       SY_PLUGIN_ABI_VERSION,
                                       &kProxyInfo,
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
                                       BufferView,
                                       nullptr,
                                       ExecuteProfiled,
                                       nullptr};

}  // namespace

Expected<fs::path> FindWorkerProgram(const fs::path& prefix) {
  if (const char* env = std::getenv("SWITCHYARD_PLUGIN_WORKER"); env != nullptr && *env != '\0') {
    if (::access(env, X_OK) != 0) {
      return NotFound(std::string("cannot start ") + env +
                      " (SWITCHYARD_PLUGIN_WORKER): " + std::strerror(errno));
    }
    return fs::path(env);
  }
  std::string looked;
  for (const fs::path& dir : InstallDirsFor(prefix).programs) {
    const fs::path candidate = dir / kWorkerProgram;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  return NotFound(std::string("no ") + kWorkerProgram + " in " +
                  (looked.empty() ? std::string("(this program's location is unknown)") : looked) +
                  " (set SWITCHYARD_PLUGIN_WORKER to its path)");
}

Expected<IsolatedPlugin> StartIsolated(const fs::path& plugin, const StartOptions& options) {
  SY_ASSIGN_OR_RETURN(const fs::path program, FindWorkerProgram(options.prefix));
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Internal(std::string("socketpair: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], kWorkerSocketFd);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // What the plugin prints goes to the host's stderr, never into its stdout (which may be
  // JSON a program reads).
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::vector<std::string> args = {program.string(), "--threads",
                                   std::to_string(options.num_threads), plugin.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = SpawnInOwnGroup(&pid, program.c_str(), &actions, argv.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    return Unsupported("cannot start " + program.string() + ": " + std::strerror(spawned));
  }
  auto connection = std::make_unique<Connection>(fds[0], pid, plugin.filename().string(),
                                                 options.call_timeout_seconds);
  // The worker speaks first: its hello says whether the plugin loaded.
  Connection::Reply hello =
      connection->Call(Op::kHello, MessageWriter(), {}, "loading", options.start_timeout_seconds);
  if (hello.error != nullptr) {
    std::string message = ErrorMessage(hello.error);
    ErrorDestroy(hello.error);
    return Unsupported(std::move(message));
  }
  MessageReader r(hello.payload);
  IsolatedPlugin out;
  out.abi_version = r.Get<uint32_t>();
  out.name = r.GetString();
  out.version = r.GetString();
  out.vendor = r.GetString();
  out.status = r.GetString();
  const uint32_t count = r.GetCount(8);
  auto context = std::make_unique<ProxyContext>();
  for (uint32_t i = 0; i < count && r.ok(); ++i) {
    IsolatedDevice d;
    d.name = r.GetString();
    d.vendor = r.GetString();
    d.details = r.GetString();
    d.kind = r.Get<uint32_t>();
    d.flags = r.Get<uint32_t>();
    d.memory_bytes = r.Get<uint64_t>();
    const bool wraps_host = r.Get<uint8_t>() != 0;
    // Host memory the host can use only where the worker wraps the shared pages.
    const bool shares = (d.flags & SY_DEVICE_FLAG_HOST_MEMORY) != 0 && wraps_host;
    if (!shares) d.flags &= ~SY_DEVICE_FLAG_HOST_MEMORY;
    context->shares.push_back(shares);
    out.devices.push_back(d);
  }
  out.optional_functions = r.Get<uint32_t>();
  if (!r.done() || out.name.empty()) {
    return Unsupported("its worker process sent a malformed report");
  }
  out.pid = pid;
  connection->set_plugin(out.name);
  context->status = out.status;
  context->devices = out.devices;
  context->connection = std::move(connection);
  out.api = &kProxyTable;
  out.context = reinterpret_cast<sy_context*>(context.release());
  return out;
}

}  // namespace sy::isolation
