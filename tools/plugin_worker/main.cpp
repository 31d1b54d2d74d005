// switchyard-plugin-worker [--threads N] PLUGIN.so: runs one plugin for a host that isolates
// it (core/src/plugin/isolation/isolated_plugin.h, docs/plugin-isolation.md). Loads the
// plugin as the host would, then answers the host's requests on file descriptor 3 (a Unix
// socket) until the host asks it to shut down or goes away. A crash or a hang of the
// plugin ends or stalls this process only; the host sees it and carries on.
//
// Ownership: every buffer and executable the host creates through this worker lives in
// the tables below, under an id the host refers to; shared-memory regions stay mapped as
// long as a buffer (or view) made from them exists.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugin/isolation/channel.h"
#include "plugin/isolation/isolated_plugin.h"
#include "plugin/isolation/wire.h"
#include "switchyard/dtype.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace {

using sy::isolation::Channel;
using sy::isolation::MessageReader;
using sy::isolation::MessageWriter;
using sy::isolation::Op;
using sy::isolation::SharedRegion;

// The largest request accepted: partitions travel here (their constants do not).
constexpr size_t kMaxRequest = size_t{1} << 30;

struct Reply {
  uint32_t code = 0;
  std::string message;
  MessageWriter payload;
};

Reply Failure(uint32_t code, std::string message) {
  Reply r;
  r.code = code;
  r.message = std::move(message);
  return r;
}

class Worker {
 public:
  Worker(std::unique_ptr<sy::PluginHost> host, std::string load_error)
      : host_(std::move(host)), load_error_(std::move(load_error)) {
    if (host_ != nullptr && !host_->plugins().empty()) {
      plugin_ = host_->plugins().front().get();
      api_ = plugin_->api();
      context_ = plugin_->context();
    }
  }

  // Handles one request; sets *stop after a shutdown.
  Reply Handle(Op op, MessageReader& r, std::vector<int>& fds, bool* stop) {
    if (op == Op::kHello) return Hello();
    if (op == Op::kShutdown) {
      *stop = true;
      return {};
    }
    if (plugin_ == nullptr) return Failure(SY_ERROR_INTERNAL, "the plugin is not loaded");
    switch (op) {
      case Op::kSupports:
        return Supports(r);
      case Op::kAlloc: {
        const uint32_t device = r.Get<uint32_t>();
        const uint64_t bytes = r.Get<uint64_t>();
        if (!r.done()) return Malformed();
        sy_buffer* buffer = nullptr;
        if (Reply e = Take(api_->buffer_alloc(context_, device, bytes, &buffer)); e.code != 0) {
          return e;
        }
        return NewBuffer(buffer, nullptr);
      }
      case Op::kShare:
        return Share(r, fds);
      case Op::kView: {
        const uint64_t parent = r.Get<uint64_t>(), offset = r.Get<uint64_t>(),
                       bytes = r.Get<uint64_t>();
        auto it = buffers_.find(parent);
        if (!r.done() || it == buffers_.end()) return Malformed();
        if (api_->buffer_view == nullptr) {
          return Failure(SY_ERROR_UNSUPPORTED, "the plugin has no buffer_view");
        }
        sy_buffer* view = nullptr;
        if (Reply e = Take(api_->buffer_view(it->second.handle, offset, bytes, &view));
            e.code != 0) {
          return e;
        }
        return NewBuffer(view, it->second.region);
      }
      case Op::kFree: {
        const uint64_t id = r.Get<uint64_t>();
        auto it = buffers_.find(id);
        if (!r.done() || it == buffers_.end()) return Malformed();
        api_->buffer_free(it->second.handle);
        buffers_.erase(it);
        return {};
      }
      case Op::kStaging: {
        const uint64_t size = r.Get<uint64_t>();
        if (!r.done() || fds.size() != 1) return Malformed();
        auto region = std::make_unique<SharedRegion>();
        std::string error;
        const int fd = fds[0];
        fds.clear();
        if (!region->Adopt(fd, static_cast<size_t>(size), &error)) {
          return Failure(SY_ERROR_RESOURCE_EXHAUSTED, error);
        }
        staging_ = std::move(region);
        return {};
      }
      case Op::kCopyIn:
      case Op::kCopyOut:
        return CopyStaged(op, r);
      case Op::kCopyWithin: {
        const uint64_t dst = r.Get<uint64_t>(), dst_offset = r.Get<uint64_t>(),
                       src = r.Get<uint64_t>(), src_offset = r.Get<uint64_t>(),
                       bytes = r.Get<uint64_t>();
        auto d = buffers_.find(dst), s = buffers_.find(src);
        if (!r.done() || d == buffers_.end() || s == buffers_.end()) return Malformed();
        if (api_->copy_device_to_device == nullptr) {
          return Failure(SY_ERROR_UNSUPPORTED, "the plugin has no copy_device_to_device");
        }
        return Take(api_->copy_device_to_device(d->second.handle, dst_offset, s->second.handle,
                                                src_offset, bytes));
      }
      case Op::kPrepare:
        return Prepare(r, fds);
      case Op::kExecute: {
        // num_times 0: a plain execute; else execute_profiled where the plugin has it.
        const uint64_t id = r.Get<uint64_t>();
        const uint32_t count = r.GetCount(sizeof(uint64_t));
        std::vector<sy_buffer*> bound(count);
        for (sy_buffer*& b : bound) {
          auto it = buffers_.find(r.Get<uint64_t>());
          if (it == buffers_.end()) return Malformed();
          b = it->second.handle;
        }
        const uint32_t num_times = r.Get<uint32_t>();
        auto e = executables_.find(id);
        if (!r.done() || e == executables_.end() || num_times > (1u << 24)) return Malformed();
        std::vector<sy_node_time> times(num_times, sy_node_time{0, 0});
        Reply reply = num_times > 0 && api_->execute_profiled != nullptr
                          ? Take(api_->execute_profiled(e->second, count, bound.data(),
                                                        times.data(), num_times))
                          : Take(api_->execute(e->second, count, bound.data()));
        if (reply.code != 0) return reply;
        reply.payload.Put(num_times);
        for (const sy_node_time& t : times) reply.payload.Put(t.start_ns).Put(t.end_ns);
        return reply;
      }
      case Op::kRelease: {
        const uint64_t id = r.Get<uint64_t>();
        auto it = executables_.find(id);
        if (!r.done() || it == executables_.end()) return Malformed();
        api_->release(it->second);
        executables_.erase(it);
        return {};
      }
      default:
        return Failure(SY_ERROR_INVALID_ARGUMENT,
                       "unknown request " + std::to_string(static_cast<uint32_t>(op)));
    }
  }

  // Frees what the host left behind, then shuts the plugin down and unloads it.
  void Close() {
    for (auto& [id, e] : executables_) api_->release(e);
    executables_.clear();
    for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it) {
      api_->buffer_free(it->second.handle);
    }
    buffers_.clear();
    host_.reset();
  }

 private:
  struct Buffer {
    sy_buffer* handle;
    std::shared_ptr<SharedRegion> region;  // null for the device's own memory
  };

  static Reply Malformed() { return Failure(SY_ERROR_INVALID_ARGUMENT, "malformed request"); }

  // A plugin's error as a reply (and destroyed); an empty reply for success.
  Reply Take(sy_error* error) {
    if (error == nullptr) return {};
    const char* message = api_->error_message(error);
    uint32_t code = api_->error_code(error);
    // An error is never success: a code of 0 is reported as internal (any other code goes
    // on as it is; the host maps codes it does not know to internal too).
    if (code == 0) code = SY_ERROR_INTERNAL;
    Reply r = Failure(
        code, message ? std::string(message, strnlen(message, 4096)) : std::string("(no message)"));
    api_->error_destroy(error);
    return r;
  }

  Reply NewBuffer(sy_buffer* handle, std::shared_ptr<SharedRegion> region) {
    const uint64_t id = next_id_++;
    buffers_[id] = Buffer{handle, std::move(region)};
    Reply r;
    r.payload.Put(id);
    return r;
  }

  Reply Hello() {
    if (plugin_ == nullptr) return Failure(SY_ERROR_UNSUPPORTED, load_error_);
    Reply r;
    r.payload.Put(plugin_->abi_version())
        .PutString(plugin_->name())
        .PutString(plugin_->version())
        .PutString(plugin_->vendor())
        .PutString(plugin_->status());
    r.payload.Put(static_cast<uint32_t>(plugin_->devices().size()));
    for (const sy::Device& d : plugin_->devices()) {
      r.payload.PutString(d.name).PutString(d.vendor).PutString(d.details);
      r.payload.Put(static_cast<uint32_t>(d.kind)).Put(d.flags).Put(d.memory_bytes);
      r.payload.Put(static_cast<uint8_t>(d.wraps_host));
    }
    uint32_t optional = 0;
    if (api_->buffer_view != nullptr) optional |= sy::isolation::kHasBufferView;
    if (api_->copy_device_to_device != nullptr) optional |= sy::isolation::kHasCopyDeviceToDevice;
    if (api_->execute_profiled != nullptr) optional |= sy::isolation::kHasExecuteProfiled;
    r.payload.Put(optional);
    return r;
  }

  Reply Supports(MessageReader& r) {
    const uint32_t device = r.Get<uint32_t>();
    sy::isolation::DecodedNode node;
    if (const sy::Status s = sy::isolation::GetNode(r, false, 0, node); !s.ok() || !r.done()) {
      return Failure(SY_ERROR_INVALID_ARGUMENT, s.ok() ? "malformed request" : s.message());
    }
    uint32_t supported = 0;
    char reason[512] = {};
    if (Reply e = Take(
            api_->supports_node(context_, device, &node.node, &supported, reason, sizeof reason));
        e.code != 0) {
      return e;
    }
    reason[sizeof reason - 1] = '\0';
    Reply out;
    out.payload.Put(supported).PutString(reason);
    return out;
  }

  Reply Share(MessageReader& r, std::vector<int>& fds) {
    const uint32_t device = r.Get<uint32_t>();
    const uint64_t bytes = r.Get<uint64_t>();
    if (!r.done() || fds.size() != 1) return Malformed();
    if (api_->buffer_wrap_host == nullptr) {
      return Failure(SY_ERROR_UNSUPPORTED, "the plugin cannot wrap host memory");
    }
    auto region = std::make_shared<SharedRegion>();
    std::string error;
    const int fd = fds[0];
    fds.clear();
    if (!region->Adopt(fd, static_cast<size_t>(bytes), &error)) {
      return Failure(SY_ERROR_RESOURCE_EXHAUSTED, error);
    }
    sy_buffer* buffer = nullptr;
    if (Reply e = Take(api_->buffer_wrap_host(context_, device, region->data(), bytes, &buffer));
        e.code != 0) {
      return e;
    }
    return NewBuffer(buffer, std::move(region));
  }

  Reply CopyStaged(Op op, MessageReader& r) {
    const uint64_t id = r.Get<uint64_t>(), offset = r.Get<uint64_t>(), bytes = r.Get<uint64_t>();
    auto it = buffers_.find(id);
    if (!r.done() || it == buffers_.end() || staging_ == nullptr || bytes > staging_->size()) {
      return Malformed();
    }
    if (op == Op::kCopyIn) {
      return Take(api_->copy_host_to_device(it->second.handle, offset, staging_->data(), bytes));
    }
    return Take(api_->copy_device_to_host(it->second.handle, offset, staging_->data(), bytes));
  }

  Reply Prepare(MessageReader& r, std::vector<int>& fds) {
    const uint32_t device = r.Get<uint32_t>();
    const uint64_t total = r.Get<uint64_t>();
    sy::isolation::DecodedPartition p;
    if (const sy::Status s = sy::isolation::GetPartition(r, p); !s.ok()) {
      return Failure(SY_ERROR_INVALID_ARGUMENT, s.message());
    }
    std::vector<uint64_t> offsets(p.inputs.size());
    for (uint64_t& o : offsets) o = r.Get<uint64_t>();
    if (!r.done() || fds.size() != 1) return Malformed();
    // The constants' region lives for this prepare only, as the ABI says of constant_data.
    SharedRegion constants;
    std::string error;
    const int fd = fds[0];
    fds.clear();
    if (!constants.Adopt(fd, static_cast<size_t>(total), &error)) {
      return Failure(SY_ERROR_RESOURCE_EXHAUSTED, error);
    }
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (offsets[i] == UINT64_MAX) continue;
      const sy_tensor_type& t = p.values[p.inputs[i]];
      uint64_t bytes = t.dtype < static_cast<uint32_t>(sy::kNumDTypes)
                           ? sy::DTypeSize(static_cast<sy::DType>(t.dtype))
                           : 0;
      for (uint32_t k = 0; k < t.rank; ++k) {
        if (t.dims[k] < 0 ||
            __builtin_mul_overflow(bytes, static_cast<uint64_t>(t.dims[k]), &bytes)) {
          return Malformed();
        }
      }
      if (offsets[i] > total || bytes > total - offsets[i]) return Malformed();
      p.constant_data[i] = constants.data() + offsets[i];
    }
    sy_executable* executable = nullptr;
    if (Reply e = Take(api_->prepare(context_, device, &p.partition, &executable)); e.code != 0) {
      return e;
    }
    const uint64_t id = next_id_++;
    executables_[id] = executable;
    Reply out;
    out.payload.Put(id);
    return out;
  }

  std::unique_ptr<sy::PluginHost> host_;
  std::string load_error_;
  const sy::Plugin* plugin_ = nullptr;
  const sy_plugin_api* api_ = nullptr;
  sy_context* context_ = nullptr;
  std::map<uint64_t, Buffer> buffers_;  // ordered: views (newer) are freed before parents
  std::map<uint64_t, sy_executable*> executables_;
  std::unique_ptr<SharedRegion> staging_;
  uint64_t next_id_ = 1;
};

// Ends this process and, when it leads its process group (the host starts it so:
// core/src/plugin/child_process.h), every process the plugin forked, which would
// otherwise outlive a host that is gone. Run by hand in a shell's group, it ends itself
// only.
[[noreturn]] void EndGroup(int status) {
  if (::getpgrp() == ::getpid()) ::kill(0, SIGKILL);
  ::_exit(status);
}

}  // namespace

int main(int argc, char** argv) {
  // The worker never outlives its host, even while the plugin is stuck in a call: a
  // watchdog ends it once its parent is gone. (PR_SET_PDEATHSIG would fire when the host
  // *thread* that started the worker exits, which a host's thread pool may do at will.)
  // (A host may itself be process 1, a container's init: the parent is whatever it is
  // now; a host that is already gone closed the socket, and the first read ends us.)
  const pid_t parent = ::getppid();
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EndGroup(1);
  }).detach();
  uint32_t threads = 0;
  const char* plugin = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (plugin == nullptr && argv[i][0] != '-') {
      plugin = argv[i];
    } else {
      plugin = nullptr;
      break;
    }
  }
  if (plugin == nullptr || ::fcntl(sy::isolation::kWorkerSocketFd, F_GETFD) < 0) {
    std::fprintf(stderr,
                 "usage: switchyard-plugin-worker [--threads N] PLUGIN.so (run by the host, "
                 "with its socket as descriptor 3)\n");
    return 2;
  }
  Channel channel(sy::isolation::kWorkerSocketFd);
  sy::DiscoveryOptions options;
  options.scan_default_paths = false;
  options.probe_plugins = false;  // the host probed it already
  options.explicit_plugins = {plugin};
  options.num_threads = threads;
  sy::Expected<std::unique_ptr<sy::PluginHost>> host = sy::PluginHost::Create(options);
  // The host names the plugin's path itself: the reason alone, without the "plugin PATH: "
  // an explicit plugin's error starts with.
  std::string load_error = host.ok() ? std::string() : host.status().message();
  const std::string prefix = std::string("plugin ") + plugin + ": ";
  if (load_error.rfind(prefix, 0) == 0) load_error.erase(0, prefix.size());
  Worker worker(host.ok() ? std::move(*host) : nullptr, std::move(load_error));
  std::string frame, error;
  std::vector<int> fds;
  bool stop = false;
  bool host_gone = false;
  while (!stop) {
    const Channel::Result got = channel.Receive(&frame, &fds, 0, kMaxRequest, &error);
    if (got != Channel::Result::kOk) {
      host_gone = true;  // or unable to speak: nobody is left to end our group
      break;
    }
    MessageReader reader(frame);
    const Op op = static_cast<Op>(reader.Get<uint32_t>());
    Reply reply = reader.ok() ? worker.Handle(op, reader, fds, &stop)
                              : Failure(SY_ERROR_INVALID_ARGUMENT, "empty request");
    for (int fd : fds) ::close(fd);  // descriptors a request did not use
    MessageWriter out;
    out.Put(reply.code).PutString(reply.message);
    if (channel.Send(out.bytes() + reply.payload.bytes(), {}, 0, &error) != Channel::Result::kOk) {
      host_gone = true;
      break;
    }
  }
  worker.Close();
  // After a shutdown the host ends the group itself, once it has this exit status.
  if (host_gone) EndGroup(0);
  return 0;
}
