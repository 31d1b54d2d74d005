// Running a PlannedSession: one run's inputs bound or copied where the steps read them,
// the steps in order, and the outputs delivered to the host or to the device tensors an
// IoBinding names (docs/host-api.md, "Device-resident inputs and outputs").
#include <algorithm>

#include "exec/planned_session_parts.h"
#include "switchyard/value_names.h"

namespace sy {

Status PlannedSession::BindRunInputs(const RunIo& io) {
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
                                       stats_.host_bytes_in, staging_));
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

Status PlannedSession::BindRunOutputs(const RunIo& io) {
  if (!io.bound()) return Status::Ok();
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

Expected<std::map<std::string, Tensor>> PlannedSession::Run(const RunIo& io) {
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
    PlannedSession& s;
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
      SY_RETURN_IF_ERROR(RunTransfer(step->copy, staging_));
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
                                       host == nullptr ? io.FindDevice(input) : nullptr, results,
                                       stats_, staging_));
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
                                       stats_.host_bytes_out, staging_));
      }
      io.device_outputs->insert_or_assign(out.name, target);
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

}  // namespace sy
