// switchyard compare: a differential run (docs/profiling.md, "Finding the node that
// diverges"). The model runs on the device as `run` would (the optimization pass's
// graph, placed and partitioned alike), with every intermediate value kept; then each
// node runs alone on the reference device (cpu-ref unless --reference says otherwise)
// with the very inputs the device gave it, so each node's own error is measured, not
// what it inherited. Each output is compared under its op's conformance tolerance
// (tools/switchyard/conformance/tolerance.cpp); the first node out of it is named, and
// with --out its inputs are written as .npy files for a bug report.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "cli.h"
#include "conformance/compare.h"
#include "conformance/op_cases.h"
#include "model_setup.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/optimize.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

struct OutputDiff {
  std::string name;
  std::string type;
  double max_abs = 0, max_rel = 0;
  std::string problem;  // "" within tolerance, else what the comparison found
};

struct NodeDiff {
  size_t index = 0;
  std::string op, name, device;
  std::vector<OutputDiff> outputs;
  std::string error;  // the reference could not run the node
  bool ok() const {
    if (!error.empty()) return false;
    for (const OutputDiff& o : outputs) {
      if (!o.problem.empty()) return false;
    }
    return true;
  }
};

// Largest |got - want| and that over the largest |want| (NaN where exactly one is NaN
// counts as infinite).
void Distances(const Tensor& got, const Tensor& want, OutputDiff& diff) {
  double max_abs = 0, max_want = 0;
  for (int64_t i = 0; i < want.element_count() && i < got.element_count(); ++i) {
    const double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::isinf(g) && g == w) continue;
    const double d = std::fabs(g - w);
    max_abs = std::max(max_abs, std::isnan(d) ? INFINITY : d);
    if (std::isfinite(w)) max_want = std::max(max_want, std::fabs(w));
  }
  diff.max_abs = max_abs;
  diff.max_rel = max_want > 0 ? max_abs / max_want : (max_abs > 0 ? INFINITY : 0);
}

// A graph of node `n` alone: its inputs (constants stay constants), its outputs.
Graph OneNode(const Graph& graph, size_t n, const std::map<ValueId, const Constant*>& constants) {
  const Node& node = graph.nodes[n];
  Graph g;
  std::map<ValueId, ValueId> local;
  const auto value = [&](ValueId v) {
    auto [it, added] = local.emplace(v, static_cast<ValueId>(g.values.size()));
    if (added) g.values.push_back(graph.values[v]);
    return it->second;
  };
  Node copy = node;
  copy.backend.clear();
  for (ValueId& v : copy.inputs) {
    const bool seen = local.count(v) > 0;
    const ValueId id = value(v);
    if (!seen) {
      if (auto c = constants.find(v); c != constants.end()) {
        g.constants.push_back({id, c->second->tensor_name, c->second->data});
      } else {
        g.inputs.push_back(id);
      }
    }
    v = id;
  }
  for (ValueId& v : copy.outputs) {
    v = value(v);
    g.outputs.push_back(v);
  }
  g.nodes.push_back(std::move(copy));
  return g;
}

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

int RunCompare(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard compare MODEL [--device SPEC] [--reference SPEC] [--input ...]\n"
      "                          [--optimize 0|1|2] [--out DIR] [--json]\n\n"
      "Runs MODEL on the device as 'switchyard run' would, keeping every intermediate\n"
      "value, then runs each node alone on the reference device (default cpu-ref) with the\n"
      "inputs the device gave it, and compares each output under its op's conformance\n"
      "tolerance: max |difference|, the same relative to the largest reference value, and\n"
      "the first node out of tolerance. --out DIR writes that node's inputs as .npy files\n"
      "for a bug report. Exit 1 when a node is out of tolerance. An input given neither by\n"
      "--input nor in <model>/inputs gets seeded random data (said on stderr).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")(
      "reference", po::value<std::string>()->default_value("cpu-ref"),
      "the device each node is checked against")("out", po::value<std::string>(),
                                                 "write the first diverging node's inputs to DIR")(
      "json", "print JSON");
  AddPluginOptions(visible);
  AddModelOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("compare", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("compare", "expected exactly one MODEL (see 'switchyard compare --help')");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  const auto fail = [](const Status& status, int code = kExitFailure) {
    PrintError("compare", status.message());
    return code;
  };
  PreparedModel prepared;
  Expected<Graph> loaded = LoadModel(model);
  if (!loaded.ok()) return fail(loaded.status());
  // Run-time sizes: compared at --input-shape (the symbols' examples for inputs not named).
  if (loaded->IsSymbolic()) {
    Expected<Graph> specialised = SpecializeForArgs(*loaded, vm);
    if (!specialised.ok()) return fail(specialised.status());
    loaded = std::move(specialised);
  }
  // Decoding state (docs/decoding.md) is compared as ordinary inputs: each node's result
  // is checked for whatever the cache holds (random data unless given).
  if (!loaded->state.empty()) {
    std::cerr << "switchyard compare: note: decoding state and its position are compared as "
                 "ordinary inputs\n";
    loaded->state = DecodingState{};
  }
  Expected<std::unique_ptr<PluginHost>> host = LoadPlugins(vm);
  if (!host.ok()) return fail(host.status());
  prepared.host = std::move(*host);
  Expected<PlanOptions> options = PlanOptionsFromArgs(*prepared.host, vm);
  if (!options.ok()) return fail(options.status(), kExitUsage);
  Expected<const Device*> reference = prepared.host->FindDevice(vm["reference"].as<std::string>());
  if (!reference.ok()) {
    return fail(InvalidArgument("--reference: " + reference.status().message()), kExitUsage);
  }
  // The graph the device runs, with every value a node produces made an output so that
  // the session keeps it; planned without a second optimization pass.
  Expected<OptimizedGraph> optimized =
      OptimizeGraph(*loaded, prepared.host.get(), *options, options->optimize_level);
  if (!optimized.ok()) return fail(optimized.status());
  prepared.graph = optimized->graph;
  Graph& graph = prepared.graph;
  std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
  for (const Node& node : graph.nodes) {
    for (ValueId v : node.outputs) {
      if (outputs.insert(v).second) graph.outputs.push_back(v);
    }
  }
  PlanOptions exposed = *options;
  exposed.optimize_level = 0;
  Expected<std::unique_ptr<Session>> session = Session::Create(graph, *prepared.host, exposed);
  if (!session.ok()) return fail(session.status());
  prepared.session = std::move(*session);
  if (Status gathered = GatherInputs(model, vm, prepared); !gathered.ok()) return fail(gathered);
  if (Status filled = FillMissingInputs(prepared, SeedOption(vm), "compare"); !filled.ok()) {
    return fail(filled);
  }
  Expected<std::map<std::string, Tensor>> ran = prepared.session->Run(prepared.inputs);
  if (!ran.ok()) return fail(ran.status());
  // Every value by id: graph inputs, constants, and what the device computed.
  std::map<ValueId, const Constant*> constants;
  for (const Constant& c : graph.constants) constants[c.value] = &c;
  std::map<ValueId, Tensor> values;
  for (ValueId v : graph.inputs) values[v] = prepared.inputs.at(graph.values[v].name);
  for (ValueId v : graph.outputs) {
    if (auto it = ran->find(graph.values[v].name); it != ran->end()) values[v] = it->second;
  }
  const Plan& plan = prepared.session->plan();
  std::vector<NodeDiff> diffs;
  int64_t first_bad = -1;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    NodeDiff diff;
    diff.index = n;
    diff.op = node.op;
    diff.name = node.name;
    diff.device = plan.devices[plan.nodes[n].device]->Spec();
    Graph alone = OneNode(graph, n, constants);
    std::map<std::string, Tensor> feeds;
    for (ValueId v : node.inputs) {
      if (!constants.count(v)) feeds[graph.values[v].name] = values.at(v);
    }
    Expected<std::map<std::string, Tensor>> want =
        [&]() -> Expected<std::map<std::string, Tensor>> {
      SY_RETURN_IF_ERROR(ValidateGraphTypes(alone));
      SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(alone, **reference, 0));
      return s->Run(feeds);
    }();
    if (!want.ok()) {
      diff.error = want.status().message();
    } else {
      for (ValueId v : node.outputs) {
        const Value& value = graph.values[v];
        OutputDiff out;
        out.name = value.name;
        out.type = value.type.ToString();
        const Tensor& got = values.at(v);
        const Tensor& expected = want->at(value.name);
        Distances(got, expected, out);
        out.problem = conformance::Compare(got, expected,
                                           conformance::ToleranceFor(node.op, value.type.dtype));
        diff.outputs.push_back(std::move(out));
      }
    }
    if (first_bad < 0 && !diff.ok()) first_bad = static_cast<int64_t>(n);
    diffs.push_back(std::move(diff));
  }
  // The first diverging node's inputs, for a bug report.
  std::string written;
  if (first_bad >= 0 && vm.count("out")) {
    const std::filesystem::path dir = vm["out"].as<std::string>();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    for (ValueId v : graph.nodes[first_bad].inputs) {
      const Tensor& t = constants.count(v) ? constants.at(v)->data : values.at(v);
      const std::filesystem::path file = dir / ValueFileName(graph.values[v].name);
      if (Status s = WriteNpy(file, t); !s.ok()) return fail(s);
    }
    written = dir.string();
  }
  const std::string device_text = DevicesUsed(plan);
  const std::string reference_text = (*reference)->Spec() + " (" + (*reference)->name + ")";
  if (vm.count("json")) {
    boost::json::array nodes;
    for (const NodeDiff& d : diffs) {
      boost::json::array outs;
      for (const OutputDiff& o : d.outputs) {
        outs.push_back(boost::json::object{
            {"name", o.name},
            {"type", o.type},
            {"max_abs",
             std::isfinite(o.max_abs) ? boost::json::value(o.max_abs) : boost::json::value("inf")},
            {"max_rel",
             std::isfinite(o.max_rel) ? boost::json::value(o.max_rel) : boost::json::value("inf")},
            {"within_tolerance", o.problem.empty()},
            {"problem", o.problem}});
      }
      boost::json::object o{{"index", d.index},   {"op", d.op},      {"name", d.name},
                            {"device", d.device}, {"outputs", outs}, {"within_tolerance", d.ok()}};
      if (!d.error.empty()) o["error"] = d.error;
      nodes.push_back(std::move(o));
    }
    boost::json::object out{
        {"model", ResolveModelPaths(model).file().string()},
        {"devices", device_text},
        {"reference", reference_text},
        {"nodes", std::move(nodes)},
        {"first_out_of_tolerance",
         first_bad >= 0 ? boost::json::value(first_bad) : boost::json::value(nullptr)}};
    if (!written.empty()) out["inputs_written_to"] = written;
    std::cout << boost::json::serialize(out) << "\n";
    return first_bad >= 0 ? kExitFailure : kExitOk;
  }
  std::cout << ResolveModelPaths(model).file().string() << " on " << device_text
            << ", each node checked alone on " << reference_text << " with the device's inputs:\n";
  for (const NodeDiff& d : diffs) {
    std::cout << "  " << graph.DescribeNode(d.index) << " on " << d.device << ":";
    if (!d.error.empty()) {
      std::cout << " the reference could not run it: " << d.error << "\n";
      continue;
    }
    for (const OutputDiff& o : d.outputs) {
      std::cout << " " << PrintableName(o.name) << " " << o.type << " max abs " << Num(o.max_abs)
                << ", rel " << Num(o.max_rel)
                << (o.problem.empty() ? "  ok" : "  OUT OF TOLERANCE");
    }
    std::cout << "\n";
  }
  if (first_bad < 0) {
    std::cout << "all " << diffs.size() << " nodes within their ops' conformance tolerances\n";
    return kExitOk;
  }
  const NodeDiff& bad = diffs[first_bad];
  std::cout << "first node out of tolerance: " << graph.DescribeNode(bad.index) << " on "
            << bad.device << ": ";
  if (!bad.error.empty()) {
    std::cout << bad.error;
  } else {
    for (const OutputDiff& o : bad.outputs) {
      if (!o.problem.empty()) std::cout << PrintableName(o.name) << ": " << o.problem << " ";
    }
  }
  std::cout << "\n"
            << (written.empty() ? "(--out DIR writes its inputs as .npy files)"
                                : "its inputs were written to " + written)
            << "\n";
  return kExitFailure;
}

}  // namespace sy::cli
