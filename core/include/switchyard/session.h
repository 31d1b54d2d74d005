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

class SessionKind;  // what runs: core/src/exec/session_kind.h
class StateStore;   // a session's decoding state (docs/decoding.md)

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
  const Plan& plan() const;
  const Graph& graph() const;
  // What the optimization pass did (level 0: nothing).
  const OptimizeReport& optimize_report() const;
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
  bool dynamic() const { return symbolic_graph() != nullptr; }

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
  const Stats& stats() const;

  // Profiling (docs/profiling.md): while on, every Run appends its events (the run, each
  // partition and copy, and each node where the plugin times them) to profile(). Off by
  // default; off, a run pays one branch per step.
  void set_profiling(bool on);
  bool profiling() const;
  Profile& profile();
  const Profile& profile() const;

 private:
  // The kind of session behind this one (core/src/exec/session_kind.h: a PlannedSession,
  // a DynamicSession, or either wrapped in a StatefulSession), and the decoding state it
  // binds, which this session owns.
  Session(std::unique_ptr<SessionKind> kind, std::shared_ptr<StateStore> state);
  static Expected<std::unique_ptr<Session>> Make(const Graph& graph, const PluginHost* host,
                                                 const PlanOptions& options);

  std::shared_ptr<StateStore> state_;  // null without state
  std::unique_ptr<SessionKind> kind_;  // destroyed first: its plans bind the state's buffers
  std::vector<std::string> caller_input_names_;
  std::vector<TensorType> caller_input_types_;
  std::vector<std::string> caller_output_names_;
  std::vector<TensorType> caller_output_types_;
};

}  // namespace sy
