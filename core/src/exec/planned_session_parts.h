// The steps of a PlannedSession, which its source files share (planned_session.cpp builds
// them, planned_session_run.cpp runs them).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "exec/planned_session.h"
#include "exec/shared_executables.h"
#include "plugin/node_descriptors.h"

namespace sy {

// One step of a run: a partition's execution, or a copy before it.
struct PlannedSession::Step {
  // What the step does each run: copy a value between two devices' buffers (`copy`), or
  // run a prepared partition (`executable` on `device`, through `plugin`).
  enum class Kind : uint8_t { kCopy, kExecute };
  explicit Step(Kind k) : kind(k) {}
  const Kind kind;
  bool is_copy() const { return kind == Kind::kCopy; }

  Transfer copy;  // kCopy
  const Plugin* plugin = nullptr;
  const Device* device = nullptr;
  sy_executable* executable = nullptr;  // owner's handle
  // Released when the last session holding it goes: other specialisations of a dynamic
  // session may run the same executable at their sizes (exec/shared_executables.h).
  std::shared_ptr<SharedExecutable> owner;
  // On a device that runs executables at other sizes, in a dynamic session: this
  // specialisation's partition, passed to execute_resized on every run (the executable may
  // have run another specialisation's sizes since), and the structure key it is shelved
  // under. Its sy_nodes point into the session's descriptors_.
  std::unique_ptr<PartitionDescriptor> sized;
  ExecutableShelf* shelf = nullptr;
  std::string shelf_key;
  bool borrowed = false;  // the executable was prepared by another specialisation
  // Names this step's sizes for SharedExecutable::sized_for; unique for the process's life
  // (an address could be reused by a later step).
  uint64_t sizes_id = NextSizesId();
  static uint64_t NextSizesId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  std::vector<sy_buffer*> bound;  // partition inputs, then outputs
  size_t partition = 0;
  // Profiling: when each node of the partition ran (execute_profiled), in its order.
  std::vector<sy_node_time> node_times;
};

}  // namespace sy
