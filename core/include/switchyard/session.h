// Sessions: a validated graph planned once (switchyard/plan.h), prepared once, then run
// many times.
//
// Creating a session builds the plan, uploads each constant once to every device that
// needs it (host-memory devices read them in place where their plugin wraps host memory:
// the session keeps the graph's constant storage alive), allocates one arena per device (sliced
// with buffer_view, as the memory plan says) and prepares every partition with its plugin. Each Run
// copies the named inputs to the devices that read them, runs the partitions in order with the
// planned copies between devices, and copies the outputs back. Nothing is allocated on a device
// after creation. A run with an IoBinding (switchyard/io_binding.h) reads and writes the
// caller's DeviceTensors where they are instead of copying through host memory.
//
// A graph with run-time sizes (docs/dynamic-shapes.md) makes a dynamic session: Create
// checks and keeps the graph, and each Run with a set of input shapes not seen before
// specialises it (switchyard/specialize.h) and builds a static session for those shapes
// as above; the last PlanOptions::max_specializations of them are kept, least recently
// used first out, so that a run with a seen set of shapes allocates nothing. plan(),
// graph(), optimize_report() and device() then describe the specialisation of the last
// successful run (and, before any, the graph as given with an empty plan).
//
// Lifetime: a session holds buffers and executables of its devices' plugins, so it must
// be destroyed before the PluginHost that loaded them. One session runs on one thread
// at a time; independent sessions may run concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/device_tensor.h"
#include "switchyard/graph.h"
#include "switchyard/io_binding.h"
#include "switchyard/optimize.h"
#include "switchyard/plan.h"
#include "switchyard/plugin_host.h"
#include "switchyard/profile.h"
#include "switchyard/tensor.h"

namespace sy {

class NodeDescriptors;  // the plugin host's encoding of a graph (internal to core)
class PartitionDescriptor;
class ExecutableShelf;  // executables a dynamic session's specialisations share
class StateStore;       // a session's decoding state (docs/decoding.md)

class Session {
 public:
  // `graph` must have passed LoadModel's validation (or ValidateGraphTypes); it may be
  // destroyed after Create. Fails when planning fails (plan.h) or a plugin cannot
  // allocate or prepare.
  static Expected<std::unique_ptr<Session>> Create(const Graph& graph, const PluginHost& host,
                                                   const PlanOptions& options);
  // The whole graph on one device: no hints, no fallback (an error names a node the
  // device declines and the plugin's reason), optimized at `optimize_level`.
  static Expected<std::unique_ptr<Session>> Create(const Graph& graph, const Device& device,
                                                   int optimize_level = 1);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs with inputs by graph input name; returns every graph output by name. Errors
  // (an unknown or missing input, a wrong dtype or shape, a data error in a kernel)
  // leave the session usable.
  Expected<std::map<std::string, Tensor>> Run(const std::map<std::string, Tensor>& inputs);
  // Runs with the inputs and outputs `binding` holds (switchyard/io_binding.h): device
  // tensors are read and written where they are, without a copy through host memory when
  // they are on the devices that read or produce them. The results go into the binding.
  // Errors as Run's, and an output bound to a device tensor of another type, an unknown
  // output name, or a bound output sharing storage with a bound input or another output.
  Status Run(IoBinding& binding);

  // The plan of graph(): the graph as the optimization pass left it (PlanOptions::
  // optimize_level), whose node indices the plan's refer to.
  const Plan& plan() const { return shown().plan_; }
  const Graph& graph() const { return shown().graph_; }
  // What the optimization pass did (level 0: nothing).
  const OptimizeReport& optimize_report() const { return shown().optimize_report_; }
  // The device of the first partition (the only one for single-device plans).
  const Device& device() const;
  // For a dynamic session, the types as recorded: dims that are symbols are -1 here, and
  // symbolic_graph() says what they are.
  // The inputs a caller passes: every graph input but the decoding state's and its position
  // (which the session fills).
  const std::vector<TensorType>& input_types() const { return caller_input_types_; }
  const std::vector<std::string>& input_names() const { return caller_input_names_; }
  // The outputs a run returns, in the graph's order: every graph output but the decoding
  // state's next contents. Types as input_types() gives them.
  const std::vector<std::string>& output_names() const { return caller_output_names_; }
  const std::vector<TensorType>& output_types() const { return caller_output_types_; }

  // Decoding state (docs/decoding.md): a graph with "state" keeps its state values (a
  // decoder's key and value caches) on the device between runs. Each run appends the
  // positions its advance input brings and fills the position input with the positions
  // held before it; a run past the capacity is an error that changes nothing. Reset()
  // empties the state (zeros, length 0): a new sequence. Sessions never share state.
  bool has_state() const { return state_ != nullptr; }
  int64_t state_length() const;    // 0 without state
  int64_t state_capacity() const;  // 0 without state
  // The positions a run with `inputs` would add (its advance input's size along its axis);
  // 0 without state or when that input is missing or too small.
  int64_t StatePositions(const std::map<std::string, Tensor>& inputs) const;
  Status Reset();

  // Dynamic sessions: the graph with its symbols, as given to Create; null for a static
  // session.
  const Graph* symbolic_graph() const;
  bool dynamic() const { return dynamic_ != nullptr; }

  // Device memory operations the session has made, for tests and tools: they all
  // happen in Create.
  struct Stats {
    uint64_t buffer_allocations = 0;  // buffer_alloc calls
    uint64_t buffer_views = 0;        // buffer_view calls
    uint64_t prepares = 0;
    // Graph inputs passed in place (buffer_wrap_host on host-memory devices, or a bound
    // device tensor on the device that reads it) rather than copied, over all runs.
    uint64_t inputs_in_place = 0;
    // Values read in place by a second host-memory device (a shared plan copy), bound
    // once when the session is built.
    uint64_t values_shared = 0;
    // Constants (weights) that host-memory devices read in place from the graph's own
    // storage (buffer_wrap_host), rather than from a copy, counted when a session is built.
    uint64_t weights_in_place = 0;
    // Dynamic sessions: the specialisations built (each adds its allocations, views and
    // prepares above), runs that found theirs in the cache, and those evicted.
    uint64_t specializations = 0;
    uint64_t specialization_hits = 0;
    uint64_t specializations_evicted = 0;
    // Partitions of specialisations that run an executable prepared for other sizes
    // (devices declaring SY_DEVICE_FLAG_RESIZABLE) instead of a prepare of their own.
    uint64_t executables_resized = 0;
    // Bytes of graph inputs and outputs that runs moved through host memory: host inputs
    // copied to a device, outputs copied back to the host, and device-bound ones staged
    // through the host between two plugins. Inputs and outputs read or written in place
    // count nothing. Over all runs.
    uint64_t host_bytes_in = 0;
    uint64_t host_bytes_out = 0;
    // Outputs bound to a device tensor (IoBinding) that their producer wrote in place,
    // rather than into the session's memory and then copied, over all runs.
    uint64_t outputs_in_place = 0;
  };
  const Stats& stats() const { return stats_; }

  // Profiling (docs/profiling.md): while on, every Run appends its events (the run, each
  // partition and copy, and each node where the plugin times them) to profile(). Off by
  // default; off, a run pays one branch per step.
  void set_profiling(bool on) { profiling_ = on; }
  bool profiling() const { return profiling_; }
  Profile& profile() { return profile_; }
  const Profile& profile() const { return profile_; }

 private:
  Session();  // defined where Buffer and Step are complete
  // One run's inputs by name, in host memory and (from an IoBinding) on devices, and where
  // its outputs go: `binding` null sends them all to the host; else the outputs it binds
  // to devices go into its device_outputs_, reusing `previous` (the last run's) where
  // nobody else holds them.
  struct RunIo {
    const std::map<std::string, Tensor>* host = nullptr;
    const std::map<std::string, DeviceTensor>* device = nullptr;  // may be null
    IoBinding* binding = nullptr;
    std::map<std::string, DeviceTensor>* previous = nullptr;
    const Tensor* FindHost(const std::string& name) const;
    const DeviceTensor* FindDevice(const std::string& name) const;
    // The type of input `name` wherever it is; null when it is not given.
    const TensorType* FindType(const std::string& name) const;
  };
  struct Specializations;  // a dynamic session's graph, options and cache
  // The dynamic path of Create and Run (specializing_session.cpp).
  static Expected<std::unique_ptr<Session>> CreateDynamic(const Graph& graph,
                                                          const PluginHost* host,
                                                          const PlanOptions& options,
                                                          const std::shared_ptr<StateStore>& state);
  Expected<std::map<std::string, Tensor>> RunDynamic(const RunIo& io);
  // The specialisation of stage `stage` for the shapes and data sizes in dynamic_'s
  // scratch, from the cache or built (with `inputs`' sizes of the graph's own symbols).
  Expected<Session*> SpecializationFor(size_t stage,
                                       const std::map<std::string, int64_t, std::less<>>* inputs);
  Expected<std::map<std::string, Tensor>> RunSpecialization(Session& active, const RunIo& io);
  // Input `name` in host memory: the host tensor, or a device tensor's copy (a data
  // symbol's size is read on the host).
  Expected<Tensor> HostValue(const RunIo& io, const std::string& name);
  // The session whose plan and graph the accessors show: the last specialisation used.
  const Session& shown() const { return shown_ != nullptr ? *shown_ : *this; }
  // `shelf` (may be null): the dynamic session's executables that devices declaring
  // SY_DEVICE_FLAG_RESIZABLE run at other sizes (exec/shared_executables.h).
  // `state` (may be null): the decoding state the session's plan binds.
  static Expected<std::unique_ptr<Session>> Build(const Graph& graph, const PluginHost* host,
                                                  const PlanOptions& options,
                                                  ExecutableShelf* shelf,
                                                  const std::shared_ptr<StateStore>& state);
  // Create's last step: the state the caller's session owns, and the inputs it takes.
  static void Finish(Session& session, std::shared_ptr<StateStore> state);
  // Run of a session that owns decoding state (stateful_session.cpp): checks the inputs,
  // the capacity, fills the position, then runs as RunUnstated; the length grows on
  // success only.
  Expected<std::map<std::string, Tensor>> RunStateful(const RunIo& io);
  Expected<std::map<std::string, Tensor>> RunUnstated(const RunIo& io);
  // RunUnstated's parts (session_run.cpp): the inputs bound or copied where the steps read
  // them, and the outputs' device targets (written in place where the plan allows).
  Status BindRunInputs(const RunIo& io);
  Status BindRunOutputs(const RunIo& io);
  // Output `name` of `type` in this run: the device tensor it goes into, or an invalid one
  // when it comes back to the host.
  static Expected<DeviceTensor> OutputTarget(const RunIo& io, const std::string& name,
                                             const TensorType& type);
  // Output `name` given as a host tensor or a device tensor (one of the two) delivered where
  // io sends it: into results, or into the binding's device outputs.
  Status DeliverOutput(const RunIo& io, const std::string& name, const TensorType& type,
                       const Tensor* host, const DeviceTensor* on_device,
                       std::map<std::string, Tensor>& results);
  // Copies `bytes` between two device buffers of any plugins (through staging_ when
  // neither has host memory), counting host traffic into `host_bytes`.
  Status CopyBuffers(const Device& from, sy_buffer* from_buffer, const Device& to,
                     sy_buffer* to_buffer, uint64_t bytes, std::string what, uint64_t& host_bytes);
  struct Buffer;
  struct Transfer;
  struct Step;
  struct Residency;
  // Session::Build's three builders, in order. PlaceValues: arenas and their slices,
  // weights, shared copies' wrapped buffers. PrepareSteps: the copies and each
  // partition's prepare. BindInputsAndOutputs: where each run puts the graph inputs and
  // reads the outputs.
  Status PlaceValues(Residency& where);
  using PrepareCallback = std::function<void(size_t, size_t, const Device&)>;
  Status PrepareSteps(const NodeDescriptors& descriptors, const Residency& where,
                      const PrepareCallback& on_prepare, ExecutableShelf* shelf);
  // Prepares `descriptor` on `device` into `step` (counted in stats_.prepares); `before`
  // (may be empty) runs first. `what` leads an error's message.
  Status PrepareStep(Step& step, const Device& device, const PartitionDescriptor& descriptor,
                     const std::string& what, const std::function<void()>& before);
  void BindInputsAndOutputs(const Residency& where);
  // A buffer of `device` over `bytes` of host memory the session owns (an arena slice of
  // another device), owned by buffers_; null when the plugin declines.
  const Buffer* WrapHost(const Device& device, void* host, uint64_t bytes);
  // A buffer of `bytes` on `device`, owned by buffers_.
  Expected<const Buffer*> Allocate(const Device& device, uint64_t bytes, std::string_view what);
  // A slice of `arena` (or, when the plugin has no buffer_view, a buffer of its own).
  Expected<const Buffer*> Slice(const Buffer& arena, uint64_t offset, uint64_t bytes,
                                std::string_view what);
  Status Copy(const Transfer& transfer);
  // A copy between two buffers by the cheapest path their plugins offer; a staged one
  // raises `staging_bytes` to its size.
  static Transfer Route(const Buffer* from, const Buffer* to, uint64_t bytes, std::string what,
                        uint64_t& staging_bytes);
  // Profiling: the events of one step that ran from `start` to `end`.
  void RecordStep(const Step& step, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point end, bool nodes_timed);

  Graph graph_;  // as planned; shares constant storage with the caller's graph
  // graph_'s node descriptions, kept only while a step runs an executable prepared for
  // other sizes (Step::resized points into them).
  std::unique_ptr<NodeDescriptors> descriptors_;
  OptimizeReport optimize_report_;
  Plan plan_;
  Stats stats_;
  // Every device buffer (arenas, views, weights), freed in reverse order of creation so
  // that views go before their arenas.
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<std::unique_ptr<Step>> steps_;  // partitions and copies, in order
  std::vector<std::byte> staging_;            // host memory for copies between two device memories
  std::vector<std::string> input_names_;
  std::vector<TensorType> input_types_;
  // Where each graph input goes: a planned buffer on every device that reads it, and
  // for host-memory devices that can wrap host memory, the places in the steps' bound
  // lists to point at the caller's tensor instead (no copy).
  struct InputTarget {
    const Buffer* buffer = nullptr;
    std::vector<std::pair<size_t, size_t>> uses;  // (step, index into its bound list)
    bool in_place = false;                        // the device wraps host memory (buffer_wrap_host)
  };
  std::vector<std::vector<InputTarget>> input_targets_;               // per graph input
  std::vector<std::pair<sy_buffer*, const sy_plugin_api*>> wrapped_;  // this run's
  struct Output {
    std::string name;
    TensorType type;
    const Buffer* source = nullptr;  // the producing device's buffer, or null when
    Tensor fixed;                    // a constant,
    int64_t from_input = -1;         // or a graph input
    // Where the plan lets a bound device tensor take source's place for a run (nothing
    // else shares source's bytes: no alias, no copy of the value), the places in the
    // steps' bound lists that hold source.
    bool redirectable = false;
    std::vector<std::pair<size_t, size_t>> uses;
  };
  std::vector<Output> outputs_;
  // Per output, this run's device target (invalid: to the host) and whether its producer
  // writes it in place; scratch of RunUnstated.
  std::vector<DeviceTensor> output_targets_;
  std::vector<bool> output_in_place_;
  bool profiling_ = false;
  Profile profile_;
  std::vector<std::string> node_shapes_;      // per graph node, for profiles; built on first use
  std::unique_ptr<Specializations> dynamic_;  // dynamic sessions only
  // Decoding state: shared by a dynamic session and its specialisations, owned (run through
  // RunStateful) by the session Create returned.
  std::shared_ptr<StateStore> state_;
  bool owns_state_ = false;
  std::vector<std::string> caller_input_names_;
  std::vector<TensorType> caller_input_types_;
  std::vector<std::string> caller_output_names_;
  std::vector<TensorType> caller_output_types_;
  const Session* shown_ = nullptr;  // owned by dynamic_'s cache
};

}  // namespace sy
