// What a Session with profiling on records of its runs (docs/profiling.md): an event per
// run, per partition executed, per node inside a partition (where the plugin times its
// nodes: sy_plugin_api.execute_profiled) and per copy between devices, on one timeline.
// Written as a Chrome trace-event file (Perfetto and chrome://tracing open it), and
// summed by op type as ONNX Runtime's profiler and OpenVINO's performance counters do.
//
// Ownership: the Session owns its Profile; events are plain values, copied freely.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sy {

struct ProfileEvent {
  enum class Kind : uint8_t { kRun, kPartition, kNode, kCopy };
  Kind kind = Kind::kNode;
  std::string name;    // the node's name ("node 3" without one), "partition 0", "run 2"
  std::string op;      // nodes: the op; partitions: "partition"; copies: "copy"
  std::string device;  // "cpu:0 (cpu)"; copies: "from -> to"
  std::string detail;  // nodes: "f32 [1, 8], f32 [8] -> f32 [1, 8]"; copies: the bytes
  int64_t run = 0;     // which profiled run (0, 1, ...)
  int64_t start_ns = 0, end_ns = 0;  // from the first profiled run's start
  // Partitions: whether the plugin timed the nodes inside (else only the partition).
  bool nodes_timed = false;
};

class PlannedSession;  // core/src/exec/planned_session.h: records a run's events

class Profile {
 public:
  const std::vector<ProfileEvent>& events() const { return events_; }
  void Clear() {
    events_.clear();
    runs_ = 0;
  }
  int64_t runs() const { return runs_; }

  // The trace as Chrome trace-event JSON: one track per device for its partitions and
  // nodes, one for copies, one for runs.
  std::string ToChromeTrace() const;

  // Time by op type over every profiled run: nodes by their op; a partition whose plugin
  // did not time its nodes as "(partition on DEVICE, nodes not timed)". Largest first.
  struct OpTotal {
    std::string op;
    int64_t count = 0;     // node executions
    int64_t total_ns = 0;  // summed over them
  };
  std::vector<OpTotal> ByOp() const;
  // ByOp as a table for people: op, share of the time, count per run, total, mean.
  std::string SummaryText() const;

 private:
  friend class PlannedSession;  // records events; drops those of a run that failed
  std::vector<ProfileEvent> events_;
  int64_t runs_ = 0;
  std::chrono::steady_clock::time_point origin_;
};

}  // namespace sy
