// Internal: the three kinds of session behind the public Session (switchyard/session.h),
// each a type of its own:
//   PlannedSession   one graph with static shapes, planned, prepared and run as planned
//                    (exec/planned_session.h);
//   DynamicSession   a graph with run-time sizes: a PlannedSession per set of input shapes
//                    (and per stage, where data decide sizes), kept in a small cache
//                    (exec/dynamic_session.h);
//   StatefulSession  either of those around decoding state kept between runs: checks each
//                    run against the state and fills its position (exec/stateful_session.h).
// The public Session owns one kind and adds the caller's view: the inputs and outputs the
// caller passes and receives, IoBinding's checks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "exec/run_io.h"
#include "switchyard/session.h"

namespace sy {

class SessionKind {
 public:
  virtual ~SessionKind() = default;

  virtual Expected<std::map<std::string, Tensor>> Run(const RunIo& io) = 0;

  // What Session::plan(), graph(), optimize_report() and device() show: for a dynamic
  // session, its last specialisation's (before any, the graph as given, an empty plan).
  virtual const Plan& plan() const = 0;
  virtual const Graph& graph() const = 0;
  virtual const OptimizeReport& optimize_report() const = 0;
  virtual const Device& device() const = 0;
  // The graph inputs the session binds from a run's inputs, with their types as recorded,
  // and the graph as Create was given it (whose outputs a run returns).
  virtual const std::vector<std::string>& input_names() const = 0;
  virtual const std::vector<TensorType>& input_types() const = 0;
  virtual const Graph& source_graph() const = 0;
  // Dynamic sessions: the graph with its symbols; null otherwise.
  virtual const Graph* symbolic_graph() const = 0;

  virtual Session::Stats& stats() = 0;
  virtual Profile& profile() = 0;
  virtual bool profiling() const = 0;
  virtual void set_profiling(bool on) = 0;
};

}  // namespace sy
