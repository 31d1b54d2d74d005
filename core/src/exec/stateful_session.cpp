// Sessions that keep decoding state between runs (exec/stateful_session.h): the checks and
// bookkeeping around each run; the state's buffers themselves are bound by the plans
// (PlannedSession::PlaceValues) and live in the StateStore.
#include <algorithm>

#include "exec/stateful_session.h"
#include "switchyard/value_names.h"

namespace sy {

Expected<std::map<std::string, Tensor>> StatefulSession::Run(const RunIo& io) {
  StateStore& state = *state_;
  auto refuse_state = [&](const std::string& name) -> Status {
    if (state.IsStateInput(name)) {
      return InvalidArgument("input \"" + PrintableName(name) +
                             "\" is decoding state: the session keeps it between runs on the "
                             "device (Reset() starts a new sequence); do not pass it");
    }
    if (!state.position_name.empty() && name == state.position_name) {
      return InvalidArgument("input \"" + PrintableName(name) +
                             "\" is the state's position: the session fills it with the "
                             "positions the state holds (" +
                             std::to_string(state.length) + ")");
    }
    return Status::Ok();
  };
  for (const auto& entry : *io.host) SY_RETURN_IF_ERROR(refuse_state(entry.first));
  if (io.device != nullptr) {
    for (const auto& entry : *io.device) SY_RETURN_IF_ERROR(refuse_state(entry.first));
  }
  const TensorType* advance = io.FindType(state.advance_name);
  if (advance == nullptr) {
    return InvalidArgument("missing input \"" + PrintableName(state.advance_name) +
                           "\" (its size along axis " + std::to_string(state.advance_axis) +
                           " is the number of positions a run adds to the state)");
  }
  if (advance->rank() <= state.advance_axis) {
    return InvalidArgument("input \"" + PrintableName(state.advance_name) + "\" is " +
                           advance->ToString() + " but the state advances by its axis " +
                           std::to_string(state.advance_axis));
  }
  const int64_t adds = advance->shape[state.advance_axis];
  for (const StateStore::Entry& e : state.entries()) {
    const int64_t capacity = e.type.shape[e.axis];
    if (adds > capacity - state.length) {
      return InvalidArgument("this run adds " + std::to_string(adds) + " positions to the " +
                             std::to_string(state.length) +
                             " the state holds, past its capacity of " + std::to_string(capacity) +
                             " (state '" + PrintableName(e.name) + "' " + e.type.ToString() +
                             ", axis " + std::to_string(e.axis) +
                             "); Reset() starts a new sequence");
    }
  }
  std::map<std::string, Tensor> with_position;
  RunIo run = io;
  if (!state.position_name.empty()) {
    with_position = *io.host;
    SY_ASSIGN_OR_RETURN(Tensor position,
                        Tensor::Allocate(state.position_type.dtype, state.position_type.shape));
    if (state.position_type.dtype == DType::kI32) {
      position.mutable_values<int32_t>()[0] = static_cast<int32_t>(state.length);
    } else {
      position.mutable_values<int64_t>()[0] = state.length;
    }
    with_position[state.position_name] = std::move(position);
    run.host = &with_position;
  }
  Expected<std::map<std::string, Tensor>> outputs = inner_->Run(run);
  if (outputs.ok()) state.length += adds;
  return outputs;
}

}  // namespace sy
