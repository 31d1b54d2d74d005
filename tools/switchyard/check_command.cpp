// `switchyard check MODEL...`: load each model through both validation passes and print a
// one-line summary, or the error. Exit 0 only when every model is valid.
#include <iostream>

#include <boost/program_options.hpp>

#include "cli.h"
#include "switchyard/model_io.h"
#include "switchyard/value_names.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

std::string DescribeValues(const Graph& graph, const std::vector<ValueId>& ids) {
  std::string text;
  for (ValueId id : ids) {
    if (!text.empty()) text += ", ";
    text += PrintableName(graph.values[id].name) + " " + ValueTypeString(graph.values[id]);
  }
  return text.empty() ? "(none)" : text;
}

boost::json::array ValuesToJson(const Graph& graph, const std::vector<ValueId>& ids) {
  boost::json::array out;
  for (ValueId id : ids) {
    const Value& value = graph.values[id];
    boost::json::object o = TypeToJson(value.name, value.type);
    if (value.is_symbolic()) {
      // Run-time sizes as their symbols or expressions (docs/dynamic-shapes.md).
      boost::json::array shape;
      for (const DimExpr& d : value.symbolic_shape) {
        if (d.is_const()) {
          shape.emplace_back(d.value());
        } else {
          shape.emplace_back(boost::json::string(d.ToString()));
        }
      }
      o["shape"] = std::move(shape);
    }
    out.push_back(std::move(o));
  }
  return out;
}

boost::json::array SymbolsToJson(const Graph& graph) {
  boost::json::array out;
  for (const DimSymbol& symbol : graph.symbols) {
    boost::json::object o{{"name", symbol.name}};
    if (symbol.example >= 0) o["example"] = symbol.example;
    if (symbol.from_data()) o["value"] = graph.values[symbol.value].name;
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

int RunCheck(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard check MODEL... [--json]\n\n"
      "Loads each MODEL (stem.json, or the stem) with both validation passes: structure,\n"
      "then every node's types and shapes against the op catalogue. Prints one line per\n"
      "model: counts of values, nodes and constants, the inputs and outputs with their\n"
      "types, and bytes of weights. Exits 0 when every model is valid, 1 otherwise.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")(
      "json", "print one JSON object per model instead of text");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("check", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model")) {
    PrintError("check", "expected at least one MODEL (see 'switchyard check --help')");
    return kExitUsage;
  }
  const bool as_json = vm.count("json") > 0;
  for (const std::string& model : vm["model"].as<std::vector<std::string>>()) {
    Expected<Graph> graph = LoadModel(model);
    const std::string path = ResolveModelPaths(model).file().string();
    if (!graph.ok()) {
      exit_code = kExitFailure;
      std::cerr << graph.status().message() << "\n";
      if (as_json) {
        std::cout << boost::json::serialize(boost::json::object{
                         {"model", path}, {"ok", false}, {"error", graph.status().message()}})
                  << "\n";
      }
      continue;
    }
    if (as_json) {
      boost::json::object json{{"model", path},
                               {"ok", true},
                               {"values", graph->values.size()},
                               {"nodes", graph->nodes.size()},
                               {"constants", graph->constants.size()},
                               {"inputs", ValuesToJson(*graph, graph->inputs)},
                               {"outputs", ValuesToJson(*graph, graph->outputs)},
                               {"weight_bytes", graph->ConstantBytes()}};
      if (!graph->symbols.empty()) json["symbols"] = SymbolsToJson(*graph);
      if (!graph->state.empty()) {
        boost::json::array state;
        for (const StateValue& v : graph->state.values) {
          state.push_back({{"input", graph->values[v.input].name},
                           {"output", graph->values[v.output].name},
                           {"axis", v.axis},
                           {"capacity", graph->values[v.input].type.shape[v.axis]}});
        }
        json["state"] = std::move(state);
      }
      std::cout << boost::json::serialize(json) << "\n";
    } else {
      std::cout << path << ": ok: " << graph->values.size() << " values, " << graph->nodes.size()
                << " nodes, " << graph->constants.size()
                << " constants; inputs: " << DescribeValues(*graph, graph->inputs)
                << "; outputs: " << DescribeValues(*graph, graph->outputs)
                << "; weights: " << graph->ConstantBytes() << " bytes";
      if (!graph->symbols.empty()) {
        std::string symbols;
        for (const DimSymbol& symbol : graph->symbols) {
          symbols += (symbols.empty() ? "" : ", ") + PrintableName(symbol.name);
          if (symbol.example >= 0) symbols += " (e.g. " + std::to_string(symbol.example) + ")";
        }
        std::cout << "; run-time sizes: " << symbols;
      }
      if (!graph->state.empty()) {
        std::string state;
        for (const StateValue& v : graph->state.values) {
          state += (state.empty() ? "" : ", ") + PrintableName(graph->values[v.input].name) +
                   " (capacity " + std::to_string(graph->values[v.input].type.shape[v.axis]) + ")";
        }
        std::cout << "; decoding state: " << state;
      }
      std::cout << "\n";
    }
  }
  return exit_code;
}

}  // namespace sy::cli
