// `switchyard`: the command-line front end. Dispatches to one file per subcommand.
#include <cstring>
#include <iostream>

#include "cli.h"

namespace {

constexpr sy::cli::Subcommand kSubcommands[] = {
    {"check", "validate a model (both passes) and print a one-line summary", sy::cli::RunCheck},
    {"ops", "list the op catalogue: inputs, dtypes, outputs, attributes", sy::cli::RunOps},
    {"plugins", "list plugin candidates, loaded or rejected with the reason", sy::cli::RunPlugins},
    {"devices", "list the devices of the loaded plugins", sy::cli::RunDevices},
    {"plan", "explain where each node of a model would run, the copies and memory",
     sy::cli::RunPlan},
    {"run", "run a model on a device and show or save its outputs", sy::cli::RunRun},
    {"conformance", "prove a plugin correct: op cases against cpu-ref, ABI contract cases",
     sy::cli::RunConformance},
    {"import", "convert an ONNX model to rml-graph v1 with static shapes", sy::cli::RunImport},
    {"bench", "time runs of a model: median, min and max latency", sy::cli::RunBench},
    {"generate", "decode tokens with a model that keeps its key/value caches",
     sy::cli::RunGenerate},
    {"compare", "find the first node whose result on a device differs from the reference",
     sy::cli::RunCompare},
    {"quantize", "quantize a model's matmul weights to int4 or int8 blocks (quant_matmul)",
     sy::cli::RunQuantize},
    {"convert", "rewrite a model as one .symodel file or as JSON + safetensors",
     sy::cli::RunConvert},
};

void PrintUsage(std::ostream& out) {
  out << "usage: switchyard <command> [options]\n\n"
         "Switchyard runs rml-graph models on the compute devices of this machine.\n\n"
         "commands:\n";
  for (const auto& cmd : kSubcommands) {
    out << "  " << cmd.name << std::string(12 - cmd.name.size(), ' ') << cmd.summary << "\n";
  }
  out << "\n'switchyard <command> --help' describes a command's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(std::cerr);
    return sy::cli::kExitUsage;
  }
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(std::cout);
    return sy::cli::kExitOk;
  }
  if (command == "--version") {
    std::cout << "switchyard 0.1.0 (rml-graph v1)\n";
    return sy::cli::kExitOk;
  }
  for (const auto& cmd : kSubcommands) {
    if (cmd.name == command) {
      std::vector<std::string> args(argv + 2, argv + argc);
      return cmd.run(args);
    }
  }
  std::cerr << "switchyard: unknown command '" << command << "'\n\n";
  PrintUsage(std::cerr);
  return sy::cli::kExitUsage;
}
