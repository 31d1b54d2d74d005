// The execution plan: where every node runs and why, the partitions, the copies between
// devices and the memory plan. Computed once per session (Session::Create builds one)
// and readable by hosts and by `switchyard plan`. docs/scheduling.md explains the rules
// and the cost model.
//
// Placement of node n:
//   1. its `backend` hint, when that plugin is loaded and its device supports n;
//   2. else the first device of the order (PlanOptions::devices, or the platform order:
//      discrete GPUs, accelerators, integrated GPUs, CPUs; reference devices never)
//      that supports n;
//   3. else the fallback device: the first loaded that declares SY_DEVICE_FLAG_FALLBACK
//      (the CPU plugin's cpu);
//   4. else an error naming the node, its op and dtypes, and every device's answer.
// Then a transfer-aware pass moves short runs of nodes ("islands") to a neighbouring
// device when the copies it saves are worth more than the estimated slowdown. Strict
// mode turns every fallback and unhonoured hint into an error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/status.h"

namespace sy {

struct PlanOptions {
  // Devices in order of preference; empty means the platform order.
  std::vector<const Device*> devices;
  // Any fallback (a node not on the first device of the order, or on the fallback device)
  // or unhonoured hint is an error, and the island pass does not move nodes.
  bool strict = false;
  // Bytes each device may use (weights plus the arena); a device without an entry is
  // limited by the memory it declares (none when it declares 0).
  std::map<const Device*, uint64_t> memory_limits;
  // The transfer-aware island pass.
  bool merge_islands = true;
  // Honour `backend` hints and fall back to the fallback device. Off pins every node to the
  // order's devices (Session::Create(graph, device) uses this).
  bool use_hints_and_fallback = true;
  // The graph optimization pass's level (switchyard/optimize.h), for Session::Create,
  // which optimizes before planning; Plan::Build plans the graph it is given.
  int optimize_level = 1;
  // Session::Create calls it before preparing each partition (index, count, device), so
  // that a tool can show progress: a plugin may compile kernels there for seconds.
  std::function<void(size_t partition, size_t partitions, const Device& device)> on_prepare;
  // Dynamic sessions (docs/dynamic-shapes.md): how many specialisations, one per set of
  // input shapes, a session keeps prepared (at least 1).
  size_t max_specializations = 8;
  // Every quant_matmul's accuracy_level (docs/ops.md; ONNX Runtime's levels 0 to 4, 4
  // letting a backend quantize the activations to int8), or -1 to keep each node's own
  // (the model's choice). Session::Create sets it before optimizing, at any level.
  int quant_matmul_accuracy_level = -1;
};

enum class PlacementReason : uint8_t {
  kHint,      // the node's backend hint, honoured
  kOrder,     // the first device of the order
  kFallback,  // a later device or the fallback device, because earlier ones declined
  kIsland,    // moved by the island pass to save copies
};
std::string_view PlacementReasonName(PlacementReason reason);  // "hint", "order", ...

struct NodePlacement {
  int32_t device = -1;  // index into Plan::devices
  PlacementReason reason = PlacementReason::kOrder;
  std::string detail;  // "hint \"cuda\" honoured", "opencl:0 declined: no kernel for op erf"
};

// Consecutive nodes on one device, prepared once by its plugin. Partitions run in
// order; no value flows from a later partition to an earlier one.
struct PlanPartition {
  int32_t device = -1;
  std::vector<size_t> nodes;      // graph node indices, in execution order
  std::vector<ValueId> inputs;    // read here, produced elsewhere (graph inputs, constants,
                                  // earlier partitions), in first-use order
  std::vector<ValueId> produced;  // every value the nodes produce, in node order
};

// A value moved between devices, once, just before the first partition on `to_device`
// that reads it. Graph inputs and outputs move between host and devices on every run
// and are not listed.
struct PlanCopy {
  ValueId value = -1;
  int32_t from_device = -1;
  int32_t to_device = -1;
  uint64_t bytes = 0;
  size_t before_partition = 0;
  bool staged = false;  // through host memory: neither side offers a direct path
  // No bytes move: both devices address host memory and the destination reads the
  // source's bytes in place (Device::wraps_host); the session binds a wrapped pointer.
  bool shared = false;
};

// One value resident on one device for part of a run: a slice of that device's arena.
struct ArenaSlot {
  ValueId value = -1;
  int32_t device = -1;
  uint64_t offset = 0;  // 256-byte aligned
  uint64_t bytes = 0;
  // Lifetime on the plan's timeline (2 * position + 1 for the node at that position of
  // the execution order, 2 * position for copies made before it): [first, last].
  int64_t first = 0, last = 0;
};

// A reshape's output that shares its input's bytes on a device that declares
// SY_DEVICE_FLAG_RESHAPE_IN_PLACE: it has no slot of its own; the session binds it the
// buffer of `source` (the first value of a chain of such reshapes, which has a slot) and
// the source's slot lives as long as either is read.
struct PlanAlias {
  ValueId value = -1;
  int32_t device = -1;
  ValueId source = -1;
};

// A value of the graph's decoding state (docs/decoding.md) as planned: the device whose
// memory keeps it between runs (where its input is read), outside the arena. In place:
// the cache_write that produces its output runs there, is the input's only reader, and
// the device declares SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE, so the output is bound to the
// state's own buffer; otherwise the output has a slot and the session copies it into the
// state's buffer after each run.
struct PlanState {
  size_t index = 0;  // into Graph::state.values
  int32_t device = -1;
  bool in_place = false;
};

struct DeviceMemory {
  uint64_t arena_bytes = 0;   // peak of the arena (intermediates, inputs, outputs, copies)
  uint64_t weight_bytes = 0;  // constants uploaded to this device once per session
  uint64_t state_bytes = 0;   // decoding state kept here between runs (outside the arena)
  // Graph outputs produced here, copied to the caller's tensors at the end of each run:
  // host memory, so part of the need of a device whose memory is the host's (they are
  // held while the arena is).
  uint64_t output_bytes = 0;
  // What the limit is checked against: arena + weights + state (+ output_bytes on a
  // host-memory device).
  uint64_t peak_bytes = 0;
  uint64_t unshared_bytes = 0;          // what the arena would take without reuse
  uint64_t reshape_in_place_bytes = 0;  // reshape outputs that share their input's bytes (no copy)
  uint64_t limit_bytes = 0;             // the limit checked; 0 = none
  bool user_limit = false;              // limit_bytes came from PlanOptions::memory_limits
};

struct Plan {
  // Builds the plan. `host` finds hinted plugins and the fallback device (it may be null
  // when options.use_hints_and_fallback is false). Fails when a node has no device, in
  // strict mode on a fallback, or when a device's memory cannot hold the plan.
  static Expected<Plan> Build(const Graph& graph, const PluginHost* host,
                              const PlanOptions& options);

  std::vector<const Device*> devices;  // every device the plan may use; indices below
  std::vector<NodePlacement> nodes;    // per graph node
  std::vector<PlanPartition> partitions;
  std::vector<PlanCopy> copies;
  std::vector<ArenaSlot> slots;    // every (value, device) residency except weights and aliases
  std::vector<PlanAlias> aliases;  // reshape outputs in their input's bytes
  std::vector<PlanState> states;   // per Graph::state value, in its order
  std::vector<std::vector<ValueId>> weights;  // per device: constants uploaded there
  std::vector<DeviceMemory> memory;           // per device

  // Bytes copied per run (shared copies move none).
  uint64_t CopyBytes() const;
  // The human-readable explanation `switchyard plan` prints.
  std::string Explain(const Graph& graph) const;
};

// "64MiB", "1.5GiB", "1000000", "2GB": bytes, or an error naming the text.
Expected<uint64_t> ParseByteSize(std::string_view text);
// 1536 -> "1.5 KiB".
std::string FormatBytes(uint64_t bytes);

}  // namespace sy
