// What `run` and `bench` share: loading a model, choosing its device from --device,
// preparing a session, and gathering its inputs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>

#include "switchyard/graph.h"
#include "switchyard/plan.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace sy::cli {

// Adds --device, --strict, --memory-limit, --no-island-pass.
void AddDeviceOptions(boost::program_options::options_description& options);
// Adds the device options, --input, --input-shape and --seed.
void AddModelOptions(boost::program_options::options_description& options);

// The plan options the device options ask for. kInvalidArgument errors are command-line
// mistakes (an unknown device, a malformed limit).
Expected<PlanOptions> PlanOptionsFromArgs(const PluginHost& host,
                                          const boost::program_options::variables_map& vm);

// "partial:0 (partial-accel), cpu:0 (cpu)": the devices a plan runs on, in first-use order.
std::string DevicesUsed(const Plan& plan);

// One line for stderr: "220 nodes: 212 on opencl:0, 8 on cpu:0 (8 as fallback), 3 copies,
// 1.2 MiB moved per run".
std::string PlacementSummary(const Plan& plan);

// "NAME=1,3,224,224" as --input-shape takes it (an empty list, "NAME=", is a scalar).
Expected<std::pair<std::string, Shape>> ParseShapeArg(const std::string& item);

// For commands that plan without running (plan, check --input-shape): a graph with
// run-time sizes specialised at --input-shape NAME=D0,... (inputs not named: their
// symbols' examples); a static graph as it is, unless --input-shape disagrees with it.
Expected<Graph> SpecializeForArgs(const Graph& graph,
                                  const boost::program_options::variables_map& vm);

// The type of input k to make random data for: a dynamic session's input at its last
// specialisation (the symbols' examples before any run); an error when its sizes are
// not known.
// `shapes` (from --input-shape) gives an input's shape for random data; the dtype is the
// model's, and a static input's shape must agree.
Expected<TensorType> ConcreteInputType(const Session& session, size_t k,
                                       const std::map<std::string, Shape>& shapes = {});

// Declared so that the session is destroyed before the host that loaded its plugin.
struct PreparedModel {
  std::unique_ptr<PluginHost> host;
  Graph graph;
  std::unique_ptr<Session> session;
  std::map<std::string, Tensor> inputs;
  // --input-shape NAME=D0,...: the shape of NAME's random data (models with run-time
  // sizes; docs/dynamic-shapes.md).
  std::map<std::string, Shape> random_shapes;
  // The options the session was planned with (without its progress callback), for the
  // plan a dynamic model gets at the shapes of random inputs before they are made.
  PlanOptions options;
  ~PreparedModel() { session.reset(); }
  PreparedModel() = default;
  PreparedModel(PreparedModel&&) = default;
};

// Loads `model`, loads plugins, plans and prepares the session as the device options
// say (switchyard/plan.h), and reads inputs: --input NAME=FILE.npy or NAME=random, then
// <model folder>/inputs/<name>.npy. kInvalidArgument errors are command-line mistakes.
// Deterministic random data: floats uniform in [-1, 1), integers in [0, 8), bools 0/1.
// Fails (never aborts) when the tensor cannot be allocated.
Expected<Tensor> RandomTensor(const TensorType& type, uint64_t seed);

Expected<PreparedModel> PrepareModel(const std::string& model,
                                     const boost::program_options::variables_map& vm);

// PrepareModel's last step, for a session made another way: `out.inputs` from --input
// and <model folder>/inputs/<name>.npy, by out.session's input names.
Status GatherInputs(const std::string& model, const boost::program_options::variables_map& vm,
                    PreparedModel& out);

// Seeded random data (RandomTensor) for every input of the session that has no value
// yet, as ONNX Runtime's perf_test does; says so on stderr, as "switchyard COMMAND: note".
// Fails when such an input cannot be allocated.
Status FillMissingInputs(PreparedModel& prepared, uint64_t seed, std::string_view command);

// --seed: 0 to 2^64 - 1, checked when parsed ("-1" is refused, not wrapped).
uint64_t SeedOption(const boost::program_options::variables_map& vm);

}  // namespace sy::cli
