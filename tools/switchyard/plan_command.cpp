// `switchyard plan MODEL`: where every node would run and why, the partitions, the
// copies and the memory per device, without preparing or running anything.
#include <iostream>

#include "cli.h"
#include "model_setup.h"
#include "plan_dot.h"
#include "switchyard/model_io.h"
#include "switchyard/optimize.h"
#include "switchyard/plan.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

boost::json::object PlanToJson(const Graph& graph, const Plan& plan) {
  boost::json::array devices;
  for (size_t d = 0; d < plan.devices.size(); ++d) {
    const Device& device = *plan.devices[d];
    const DeviceMemory& m = plan.memory[d];
    devices.push_back(boost::json::object{{"device", device.Spec()},
                                          {"name", device.name},
                                          {"kind", DeviceKindName(device.kind)},
                                          {"arena_bytes", m.arena_bytes},
                                          {"weight_bytes", m.weight_bytes},
                                          {"output_bytes", m.output_bytes},
                                          {"peak_bytes", m.peak_bytes},
                                          {"unshared_bytes", m.unshared_bytes},
                                          {"reshape_in_place_bytes", m.reshape_in_place_bytes},
                                          {"limit_bytes", m.limit_bytes},
                                          {"user_limit", m.user_limit}});
  }
  boost::json::array nodes;
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    const NodePlacement& p = plan.nodes[n];
    nodes.push_back(boost::json::object{{"index", n},
                                        {"op", graph.nodes[n].op},
                                        {"name", graph.nodes[n].name},
                                        {"hint", graph.nodes[n].backend},
                                        {"device", plan.devices[p.device]->Spec()},
                                        {"reason", PlacementReasonName(p.reason)},
                                        {"detail", p.detail}});
  }
  boost::json::array partitions;
  for (const PlanPartition& p : plan.partitions) {
    boost::json::array node_indices;
    for (size_t n : p.nodes) node_indices.push_back(n);
    partitions.push_back(boost::json::object{{"device", plan.devices[p.device]->Spec()},
                                             {"nodes", std::move(node_indices)}});
  }
  boost::json::array copies;
  for (const PlanCopy& c : plan.copies) {
    copies.push_back(boost::json::object{{"value", graph.values[c.value].name},
                                         {"from", plan.devices[c.from_device]->Spec()},
                                         {"to", plan.devices[c.to_device]->Spec()},
                                         {"bytes", c.bytes},
                                         {"before_partition", c.before_partition},
                                         {"staged", c.staged},
                                         {"shared", c.shared}});
  }
  return boost::json::object{
      {"devices", std::move(devices)},       {"nodes", std::move(nodes)},
      {"partitions", std::move(partitions)}, {"copies", std::move(copies)},
      {"copy_count", plan.copies.size()},    {"copy_bytes", plan.CopyBytes()}};
}

boost::json::object OptimizationToJson(const OptimizeReport& report) {
  boost::json::array rewrites;
  for (const RewriteRecord& r : report.records) {
    boost::json::array replaced;
    for (const std::string& node : r.replaced) replaced.push_back(boost::json::string(node));
    rewrites.push_back(boost::json::object{{"rule", r.rule},
                                           {"applied", r.applied},
                                           {"device", r.device},
                                           {"replaced", std::move(replaced)},
                                           {"result", r.result},
                                           {"reason", r.reason}});
  }
  return boost::json::object{{"level", report.level},
                             {"nodes_before", report.nodes_before},
                             {"nodes_after", report.nodes_after},
                             {"applied", report.Applied()},
                             {"rewrites", std::move(rewrites)}};
}

}  // namespace

int RunPlan(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard plan MODEL [--device SPEC] [--strict] [--memory-limit DEVICE=BYTES]...\n"
      "                       [--no-island-pass] [--optimize 0|1|2] [--isolate PLUGIN|all]...\n"
      "                       [--timeout S] [--input-shape NAME=D0,D1,...]...\n"
      "                       [--json | --dot] [--svg FILE]\n\n"
      "Plans MODEL as 'switchyard run' would and explains it, without running: every node\n"
      "with its device and the reason (hint honoured, device order, fallback because a\n"
      "device declined and why, moved by the island pass), the partitions, the copies\n"
      "between devices (count and bytes) and the peak memory per device. Fails, as run\n"
      "would, when a node has no device, when --strict meets a fallback, or when a device\n"
      "cannot hold the memory plan. First, what the optimization pass folded and fused\n"
      "(and what it left alone and why); the plan is of the optimized graph.\n\n"
      "A model with run-time sizes (docs/dynamic-shapes.md) is planned for one set of\n"
      "input shapes: --input-shape gives an input's, and inputs not given take their\n"
      "symbols' example sizes.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("json", "print JSON")(
      "dot",
      "print the plan as a Graphviz graph instead: nodes coloured by device, a cluster "
      "per partition, copies as red dashed edges with their bytes")(
      "svg", po::value<std::string>(),
      "also render that graph to FILE as SVG (needs Graphviz's dot)")(
      "input-shape", po::value<std::vector<std::string>>()->composing(),
      "NAME=D0,D1,...: plan for this input shape (repeatable)");
  AddPluginOptions(visible);
  AddDeviceOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("plan", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("plan", "expected exactly one MODEL (see 'switchyard plan --help')");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<Graph> graph = LoadModel(model);
  if (!graph.ok()) {
    PrintError("plan", graph.status().message());
    return kExitFailure;
  }
  Expected<std::unique_ptr<PluginHost>> host = LoadPlugins(vm);
  if (!host.ok()) {
    PrintError("plan", host.status().message());
    return kExitFailure;
  }
  Expected<PlanOptions> options = PlanOptionsFromArgs(**host, vm);
  if (!options.ok()) {
    PrintError("plan", options.status().message());
    return kExitUsage;
  }
  Expected<Graph> specialised = SpecializeForArgs(*graph, vm);
  if (!specialised.ok()) {
    PrintError("plan", specialised.status().message());
    return specialised.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  Expected<OptimizedGraph> optimized =
      OptimizeGraph(*specialised, host->get(), *options, options->optimize_level);
  if (!optimized.ok()) {
    PrintError("plan", optimized.status().message());
    return kExitFailure;
  }
  const Graph& planned = optimized->graph;
  Expected<Plan> plan = Plan::Build(planned, host->get(), *options);
  if (!plan.ok()) {
    PrintError("plan", plan.status().message());
    return kExitFailure;
  }
  if (vm.count("dot") || vm.count("svg")) {
    const std::string dot = PlanToDot(planned, *plan, optimized->report);
    if (vm.count("svg")) {
      const Status rendered = RenderSvg(dot, vm["svg"].as<std::string>());
      if (!rendered.ok()) {
        PrintError("plan", rendered.message());
        return kExitFailure;
      }
    }
    if (vm.count("dot")) std::cout << dot;
    if (vm.count("svg")) {
      std::cerr << "switchyard plan: wrote " << vm["svg"].as<std::string>() << "\n";
    }
    return kExitOk;
  }
  if (vm.count("json")) {
    boost::json::object json = PlanToJson(planned, *plan);
    json["model"] = ResolveModelPaths(model).file().string();
    if (graph->IsSymbolic()) {
      boost::json::array inputs;
      for (ValueId id : specialised->inputs) {
        inputs.push_back(TypeToJson(specialised->values[id].name, specialised->values[id].type));
      }
      json["specialized_for"] = std::move(inputs);
    }
    json["optimization"] = OptimizationToJson(optimized->report);
    std::cout << boost::json::serialize(json) << "\n";
  } else {
    std::cout << ResolveModelPaths(model).file().string() << ": " << planned.nodes.size()
              << " nodes on " << DevicesUsed(*plan) << "\n";
    if (graph->IsSymbolic()) {
      // Which specialisation this is (docs/dynamic-shapes.md).
      std::string inputs;
      for (ValueId id : specialised->inputs) {
        inputs += (inputs.empty() ? "" : ", ") + PrintableName(specialised->values[id].name) + " " +
                  specialised->values[id].type.ToString();
      }
      std::cout << "run-time sizes: planned for inputs " << inputs << "\n";
    }
    std::cout << optimized->report.Explain() << plan->Explain(planned);
  }
  return kExitOk;
}

}  // namespace sy::cli
