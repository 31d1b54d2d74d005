// Running a static session: one run's inputs bound or copied where the steps read them,
// the steps in order, and the outputs delivered to the host or to the device tensors an
// IoBinding names (docs/host-api.md, "Device-resident inputs and outputs").
#include <algorithm>

#include "exec/session_parts.h"
#include "exec/specializations.h"
#include "switchyard/value_names.h"

namespace sy {

const Tensor* Session::RunIo::FindHost(const std::string& name) const {
  auto it = host->find(name);
  return it == host->end() ? nullptr : &it->second;
}

const DeviceTensor* Session::RunIo::FindDevice(const std::string& name) const {
  if (device == nullptr) return nullptr;
  auto it = device->find(name);
  return it == device->end() ? nullptr : &it->second;
}

const TensorType* Session::RunIo::FindType(const std::string& name) const {
  if (const Tensor* t = FindHost(name)) return &t->type();
  if (const DeviceTensor* t = FindDevice(name)) return &t->type();
  return nullptr;
}

Expected<std::map<std::string, Tensor>> Session::Run(const std::map<std::string, Tensor>& inputs) {
  RunIo io;
  io.host = &inputs;
  if (owns_state_) return RunStateful(io);
  return RunUnstated(io);
}

Status Session::Run(IoBinding& binding) {
  // The last run's device outputs, reused where nobody else holds them; results of a failed
  // run are empty.
  std::map<std::string, DeviceTensor> previous;
  std::swap(previous, binding.device_outputs_);
  binding.host_outputs_.clear();
  // Names, empties and shared storage refused before anything runs.
  const std::vector<std::string>& outputs = caller_output_names_;
  auto known = [&](const std::string& name) -> Status {
    if (std::find(outputs.begin(), outputs.end(), name) != outputs.end()) return Status::Ok();
    std::string list;
    for (const std::string& n : outputs) list += (list.empty() ? "" : ", ") + PrintableName(n);
    return InvalidArgument("output \"" + PrintableName(name) +
                           "\" is bound but the model has no such output " +
                           "(its outputs are: " + (list.empty() ? "none" : list) + ")");
  };
  for (const auto& [name, tensor] : binding.device_inputs_) {
    if (!tensor.valid()) {
      return InvalidArgument("input \"" + PrintableName(name) +
                             "\" is bound to an empty DeviceTensor");
    }
  }
  for (const auto& [name, tensor] : binding.output_into_) {
    SY_RETURN_IF_ERROR(known(name));
    if (!tensor.valid()) {
      return InvalidArgument("output \"" + PrintableName(name) +
                             "\" is bound to an empty DeviceTensor");
    }
    for (const auto& [input, bound] : binding.device_inputs_) {
      if (tensor.SharesStorageWith(bound)) {
        return InvalidArgument(
            "output \"" + PrintableName(name) + "\" is bound to the device tensor of input \"" +
            PrintableName(input) + "\": a run may not write what it reads (bind another)");
      }
    }
    for (const auto& [other, bound] : binding.output_into_) {
      if (other < name && tensor.SharesStorageWith(bound)) {
        return InvalidArgument("outputs \"" + PrintableName(other) + "\" and \"" +
                               PrintableName(name) + "\" are bound to the same device tensor");
      }
    }
  }
  for (const auto& [name, device] : binding.output_on_) SY_RETURN_IF_ERROR(known(name));
  RunIo io;
  io.host = &binding.host_inputs_;
  io.device = &binding.device_inputs_;
  io.binding = &binding;
  io.previous = &previous;
  Expected<std::map<std::string, Tensor>> ran = owns_state_ ? RunStateful(io) : RunUnstated(io);
  if (!ran.ok()) {
    binding.device_outputs_.clear();
    return ran.status();
  }
  binding.host_outputs_ = std::move(*ran);
  return Status::Ok();
}

Expected<DeviceTensor> Session::OutputTarget(const RunIo& io, const std::string& name,
                                             const TensorType& type) {
  if (io.binding == nullptr) return DeviceTensor();
  if (auto into = io.binding->output_into_.find(name); into != io.binding->output_into_.end()) {
    const DeviceTensor& t = into->second;
    if (t.type() != type) {
      return InvalidArgument("output \"" + PrintableName(name) + "\" is " + type.ToString() +
                             " but the device tensor bound for it on " + t.device().Spec() +
                             " is " + t.type().ToString());
    }
    return t;
  }
  auto on = io.binding->output_on_.find(name);
  if (on == io.binding->output_on_.end()) return DeviceTensor();
  if (io.previous != nullptr) {
    auto last = io.previous->find(name);
    if (last != io.previous->end() && last->second.use_count() == 1 &&
        last->second.type() == type && &last->second.device() == on->second) {
      return last->second;
    }
  }
  return DeviceTensor::Allocate(*on->second, type);
}

Status Session::CopyBuffers(const Device& from, sy_buffer* from_buffer, const Device& to,
                            sy_buffer* to_buffer, uint64_t bytes, std::string what,
                            uint64_t& host_bytes) {
  if (bytes == 0) return Status::Ok();
  // Borrowed handles: these Buffers free nothing.
  const auto borrowed = [bytes](const Device& device, sy_buffer* handle) {
    return Buffer{&device, handle, bytes, device.plugin->api()->buffer_host_pointer(handle),
                  /*owned=*/false};
  };
  const Buffer source = borrowed(from, from_buffer);
  const Buffer destination = borrowed(to, to_buffer);
  uint64_t staging = 0;
  const Transfer t = Route(&source, &destination, bytes, std::move(what), staging);
  if (t.path == Transfer::Path::kStaged) {
    host_bytes += bytes;
    // Host memory for the first such copy of this size; reused by later runs.
    if (staging_.size() < staging) staging_.resize(staging);
  }
  return Copy(t);
}

Status Session::BindRunInputs(const RunIo& io) {
  auto check_name = [&](const std::string& name) -> Status {
    if (std::find(input_names_.begin(), input_names_.end(), name) != input_names_.end()) {
      return Status::Ok();
    }
    std::string list;
    for (const std::string& n : input_names_) {
      list += (list.empty() ? "" : ", ") + PrintableName(n);
    }
    return InvalidArgument("unknown input \"" + PrintableName(name) +
                           "\" (the model's inputs are: " + (list.empty() ? "none" : list) + ")");
  };
  for (const auto& entry : *io.host) SY_RETURN_IF_ERROR(check_name(entry.first));
  if (io.device != nullptr) {
    for (const auto& entry : *io.device) SY_RETURN_IF_ERROR(check_name(entry.first));
  }
  for (size_t k = 0; k < input_names_.size(); ++k) {
    const std::string& name = input_names_[k];
    const Tensor* host = io.FindHost(name);
    const DeviceTensor* on_device = host == nullptr ? io.FindDevice(name) : nullptr;
    if (host == nullptr && on_device == nullptr) {
      return InvalidArgument("missing input \"" + PrintableName(name) + "\" (" +
                             input_types_[k].ToString() + ")");
    }
    const TensorType& type = host != nullptr ? host->type() : on_device->type();
    if (type != input_types_[k]) {
      return InvalidArgument("input \"" + PrintableName(name) + "\" is " + type.ToString() +
                             (on_device != nullptr ? " on " + on_device->device().Spec() : "") +
                             " but the model expects " + input_types_[k].ToString());
    }
    const uint64_t bytes = host != nullptr ? host->byte_size() : on_device->byte_size();
    for (InputTarget& target : input_targets_[k]) {
      const Device& device = *target.buffer->device;
      const sy_plugin_api* api = device.plugin->api();
      if (on_device != nullptr && &on_device->device() == &device) {
        // The caller's device tensor, read where it is, for this run only.
        for (const auto& [step, index] : target.uses) {
          steps_[step]->bound[index] = on_device->buffer();
        }
        ++stats_.inputs_in_place;
        continue;
      }
      void* host_bytes =
          host != nullptr ? const_cast<std::byte*>(host->data()) : on_device->host_data();
      if (target.in_place && host_bytes != nullptr) {
        // The caller's host memory, bound where the planned buffer was, for this run only.
        sy_buffer* wrapped = nullptr;
        sy_error* error = api->buffer_wrap_host(device.plugin->context(), device.index, host_bytes,
                                                bytes, &wrapped);
        if (error == nullptr && wrapped != nullptr) {
          wrapped_.push_back({wrapped, api});
          for (const auto& [step, index] : target.uses) steps_[step]->bound[index] = wrapped;
          ++stats_.inputs_in_place;
          continue;
        }
        // Declined: copy from now on.
        if (error != nullptr) api->error_destroy(error);
        target.in_place = false;
      }
      if (on_device != nullptr) {
        SY_RETURN_IF_ERROR(CopyBuffers(on_device->device(), on_device->buffer(), device,
                                       target.buffer->handle, bytes,
                                       "copying input \"" + PrintableName(name) + "\" from " +
                                           on_device->device().Spec() + " to " + device.Spec(),
                                       stats_.host_bytes_in));
        continue;
      }
      SY_RETURN_IF_ERROR(device.plugin->TakeError(
          api->copy_host_to_device(target.buffer->handle, 0, host->data(), bytes),
          "copying input \"" + PrintableName(name) + "\" to " + device.Spec()));
      stats_.host_bytes_in += bytes;
    }
  }
  return Status::Ok();
}

Status Session::BindRunOutputs(const RunIo& io) {
  if (io.binding == nullptr) return Status::Ok();
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Output& out = outputs_[i];
    SY_ASSIGN_OR_RETURN(output_targets_[i], OutputTarget(io, out.name, out.type));
    const DeviceTensor& target = output_targets_[i];
    if (!target.valid() || !out.redirectable || &target.device() != out.source->device) continue;
    // The producer writes straight into the caller's tensor, for this run only.
    for (const auto& [step, index] : out.uses) steps_[step]->bound[index] = target.buffer();
    output_in_place_[i] = true;
  }
  return Status::Ok();
}

Expected<std::map<std::string, Tensor>> Session::RunUnstated(const RunIo& io) {
  if (dynamic_ != nullptr) return RunDynamic(io);
  using Clock = std::chrono::steady_clock;
  const bool profiling = profiling_;
  const Clock::time_point run_start = profiling ? Clock::now() : Clock::time_point();
  if (profiling && profile_.runs_ == 0) profile_.origin_ = run_start;
  // A run that fails leaves no events: the next one records in their place.
  struct DropEventsOnFailure {
    Profile& profile;
    size_t keep;
    bool done = false;
    ~DropEventsOnFailure() {
      if (!done) profile.events_.resize(std::min(keep, profile.events_.size()));
    }
  } drop{profile_, profile_.events_.size()};
  // The planned buffers go back into the steps' bound lists when the run ends, however it
  // ends; wrapped inputs are freed and this run's output targets let go.
  struct Unbind {
    Session& s;
    ~Unbind() {
      for (auto& target_list : s.input_targets_) {
        for (InputTarget& target : target_list) {
          for (const auto& [step, index] : target.uses) {
            s.steps_[step]->bound[index] = target.buffer->handle;
          }
        }
      }
      for (size_t i = 0; i < s.outputs_.size(); ++i) {
        if (s.output_in_place_[i]) {
          for (const auto& [step, index] : s.outputs_[i].uses) {
            s.steps_[step]->bound[index] = s.outputs_[i].source->handle;
          }
          s.output_in_place_[i] = false;
        }
        s.output_targets_[i] = DeviceTensor();
      }
      for (const auto& [buffer, api] : s.wrapped_) api->buffer_free(buffer);
      s.wrapped_.clear();
    }
  } unbind{*this};
  SY_RETURN_IF_ERROR(BindRunInputs(io));
  SY_RETURN_IF_ERROR(BindRunOutputs(io));
  for (const auto& step : steps_) {
    const Clock::time_point start = profiling ? Clock::now() : Clock::time_point();
    if (step->is_copy()) {
      SY_RETURN_IF_ERROR(Copy(step->copy));
      if (profiling) RecordStep(*step, start, Clock::now(), false);
      continue;
    }
    const sy_plugin_api* api = step->plugin->api();
    const auto count = static_cast<uint32_t>(step->bound.size());
    const auto context = [&] {
      return plan_.partitions.size() == 1
                 ? std::string("execute")
                 : "execute of partition " + std::to_string(step->partition);
    };
    if (step->sized != nullptr && step->owner->sized_for != step->sizes_id) {
      // An executable that ran another specialisation's sizes last: runs at this one's,
      // unless the plugin declines, when this specialisation prepares its own. Its node
      // times are not measured in this run (execute_resized has none). Until the run
      // succeeds nobody knows which sizes it holds (a plugin may take the new sizes and
      // then fail in a kernel), so every step resizes it next time: a failed run must not
      // leave its former specialisation executing it at these sizes.
      step->owner->sized_for = 0;
      Status ran = step->plugin->TakeError(
          api->execute_resized(step->executable, &step->sized->get(), count, step->bound.data()),
          context());
      if (ran.code() == StatusCode::kUnsupported) {
        step->shelf->Decline(step->shelf_key);
        if (step->borrowed) --stats_.executables_resized;
        SY_RETURN_IF_ERROR(PrepareStep(*step, *step->device, *step->sized,
                                       "prepare of partition " + std::to_string(step->partition) +
                                           " on " + step->device->Spec() +
                                           " (its executable for other sizes declined these)",
                                       nullptr));
        step->borrowed = false;
        step->sized.reset();
        ran = step->plugin->TakeError(api->execute(step->executable, count, step->bound.data()),
                                      context());
      }
      SY_RETURN_IF_ERROR(ran);
      step->owner->sized_for = step->sizes_id;
      if (profiling) RecordStep(*step, start, Clock::now(), false);
      continue;
    }
    const bool timed = profiling && api->execute_profiled != nullptr;
    if (timed) std::fill(step->node_times.begin(), step->node_times.end(), sy_node_time{0, 0});
    SY_RETURN_IF_ERROR(step->plugin->TakeError(
        timed ? api->execute_profiled(step->executable, count, step->bound.data(),
                                      step->node_times.data(),
                                      static_cast<uint32_t>(step->node_times.size()))
              : api->execute(step->executable, count, step->bound.data()),
        context()));
    if (profiling) RecordStep(*step, start, Clock::now(), timed);
  }
  std::map<std::string, Tensor> results;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Output& out = outputs_[i];
    DeviceTensor& target = output_targets_[i];
    if (out.from_input >= 0 || out.source == nullptr) {
      // A graph input or a constant: handed on as it is.
      const std::string& input = out.from_input >= 0 ? input_names_[out.from_input] : "";
      const Tensor* host = out.from_input >= 0 ? io.FindHost(input) : &out.fixed;
      SY_RETURN_IF_ERROR(DeliverOutput(io, out.name, out.type, host,
                                       host == nullptr ? io.FindDevice(input) : nullptr, results));
      continue;
    }
    if (target.valid()) {
      if (output_in_place_[i]) {
        ++stats_.outputs_in_place;
      } else {
        SY_RETURN_IF_ERROR(CopyBuffers(*out.source->device, out.source->handle, target.device(),
                                       target.buffer(), target.byte_size(),
                                       "copying output \"" + PrintableName(out.name) + "\" from " +
                                           out.source->device->Spec() + " to " +
                                           target.device().Spec(),
                                       stats_.host_bytes_out));
      }
      io.binding->device_outputs_.insert_or_assign(out.name, target);
      continue;
    }
    SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(out.type.dtype, out.type.shape));
    const Plugin& plugin = *out.source->device->plugin;
    SY_RETURN_IF_ERROR(
        plugin.TakeError(plugin.api()->copy_device_to_host(
                             out.source->handle, 0, tensor.mutable_data(), tensor.byte_size()),
                         "copying output \"" + PrintableName(out.name) + "\""));
    stats_.host_bytes_out += tensor.byte_size();
    results[out.name] = std::move(tensor);
  }
  if (profiling) {
    ProfileEvent run;
    run.kind = ProfileEvent::Kind::kRun;
    run.run = profile_.runs_;
    run.name = "run " + std::to_string(run.run);
    run.op = "run";
    run.start_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(run_start - profile_.origin_).count();
    run.end_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - profile_.origin_)
            .count();
    profile_.events_.push_back(std::move(run));
    ++profile_.runs_;
  }
  drop.done = true;
  return results;
}

Status Session::DeliverOutput(const RunIo& io, const std::string& name, const TensorType& type,
                              const Tensor* host, const DeviceTensor* on_device,
                              std::map<std::string, Tensor>& results) {
  SY_ASSIGN_OR_RETURN(DeviceTensor target, OutputTarget(io, name, type));
  if (!target.valid()) {
    if (host != nullptr) {
      results[name] = *host;
      return Status::Ok();
    }
    SY_ASSIGN_OR_RETURN(Tensor copy, on_device->ToHost());
    stats_.host_bytes_out += copy.byte_size();
    results[name] = std::move(copy);
    return Status::Ok();
  }
  if (host != nullptr) {
    SY_RETURN_IF_ERROR(target.CopyFrom(*host));
    stats_.host_bytes_out += host->byte_size();
  } else if (!target.SharesStorageWith(*on_device)) {
    SY_RETURN_IF_ERROR(CopyBuffers(on_device->device(), on_device->buffer(), target.device(),
                                   target.buffer(), target.byte_size(),
                                   "copying output \"" + PrintableName(name) + "\" from " +
                                       on_device->device().Spec() + " to " + target.device().Spec(),
                                   stats_.host_bytes_out));
  }
  io.binding->device_outputs_.insert_or_assign(name, std::move(target));
  return Status::Ok();
}

}  // namespace sy
