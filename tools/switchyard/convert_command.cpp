// `switchyard convert MODEL -o OUT`: rewrites a model in the other encoding (or the same):
// JSON plus safetensors to the single file OUT.symodel, or a single file back to
// OUT.json + OUT.safetensors (docs/format.md). The model goes through both validation
// passes first, so only valid models are written; the graph, every attribute and every
// weight's bytes carry over unchanged, and converting back gives the same bytes.
#include <chrono>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli.h"
#include "host_options.h"
#include "switchyard/model_io.h"

namespace sy::cli {

namespace po = boost::program_options;

int RunConvert(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard convert MODEL -o OUT [--json]\n\n"
      "Writes MODEL (a stem, STEM.json or STEM.symodel) as OUT: OUT.symodel is the\n"
      "single-file model (a binary graph section and the weights, mapped when loaded);\n"
      "OUT or OUT.json is graph JSON with its weights in OUT.safetensors. MODEL is\n"
      "validated with both passes first. Graph, attributes and weights carry over\n"
      "bit for bit, so converting back writes the bytes converted from. Every command\n"
      "that takes a model takes either encoding. Exits 0 on success, 1 when the model\n"
      "cannot be read or written, 2 on bad options.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")(
      "output,o", po::value<std::string>(), "OUT.symodel, or the JSON model's stem (required)")(
      "json", "print a JSON summary");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("convert", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("convert", "expected one MODEL (see 'switchyard convert --help')");
    return kExitUsage;
  }
  if (!vm.count("output")) {
    PrintError("convert", "expected -o OUT: OUT.symodel, or the JSON model's stem");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  const auto start = std::chrono::steady_clock::now();
  Expected<Graph> graph = LoadModel(model);
  if (!graph.ok()) {
    PrintError("convert", graph.status().message());
    return kExitFailure;
  }
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Expected<std::filesystem::path> saved =
      host_options::SaveModelAt(*graph, vm["output"].as<std::string>());
  if (!saved.ok()) {
    PrintError("convert", saved.status().message());
    return kExitFailure;
  }
  const std::string from = ResolveModelPaths(model).file().string();
  if (vm.count("json")) {
    std::cout << boost::json::serialize(
                     boost::json::object{{"model", from},
                                         {"output", saved->string()},
                                         {"nodes", graph->nodes.size()},
                                         {"constants", graph->constants.size()},
                                         {"weight_bytes", graph->ConstantBytes()},
                                         {"load_ms", load_ms}})
              << "\n";
  } else {
    std::cout << saved->string() << ": converted " << from << " (" << graph->nodes.size()
              << " nodes, " << graph->constants.size() << " constants, " << graph->ConstantBytes()
              << " weight bytes; loaded in " << load_ms << " ms)\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
