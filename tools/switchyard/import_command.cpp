// `switchyard import MODEL.onnx -o STEM`: convert an ONNX model to rml-graph v1
// (STEM.json + STEM.safetensors) with static shapes.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "cli.h"
#include "host_options.h"
#include "model_setup.h"
#include "progress_line.h"
#include "switchyard/decoder_config.h"
#include "switchyard/decoder_state.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/onnx_import.h"
#include "switchyard/plan.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

}  // namespace

int RunImport(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard import MODEL.onnx -o STEM [--input-shape NAME=D0,D1,...]...\n"
      "                         [--input-value NAME=FILE.npy]... [--dim-example SYM=SIZE]...\n"
      "                         [--dim-expr NAME=EXPR]... [--decoder-state CAPACITY]\n"
      "                         [--decoder-batch B] [--end-tokens IDS]\n\n"
      "Converts an ONNX model (opset 7 and later) to rml-graph v1: STEM.json and, when it\n"
      "has weights, STEM.safetensors. Shape computations are folded; every other ONNX op\n"
      "maps onto catalogue ops (docs/onnx-import.md). Inputs with symbolic dims keep them:\n"
      "the model runs at any size, its size computations kept as expressions and computed\n"
      "for each new input shape (docs/dynamic-shapes.md). The import traces such a model\n"
      "at example sizes (--dim-example); --input-shape fixes an input's shape instead.\n"
      "An input that an op needs at import\n"
      "time (a Reshape's shape, a TopK's k) needs --input-value; it becomes a constant.\n"
      "Exits 0 on success, 1 when the model cannot be imported (the message lists every\n"
      "ONNX op that has no mapping), 2 on a command-line mistake.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                    "STEM of the files to write (required)")(
      "input-shape", po::value<std::vector<std::string>>()->composing(),
      "NAME=D0,D1,... static shape for a graph input (repeatable)")(
      "input-value", po::value<std::vector<std::string>>()->composing(),
      "NAME=FILE.npy value for a graph input needed at import time (repeatable)")(
      "decoder-state", po::value<int64_t>(),
      "CAPACITY: a decoder-with-past export keeps its key/value caches as decoding state of "
      "CAPACITY positions (docs/decoding.md), for switchyard generate; the model's folder's "
      "generation_config.json and genai_config.json give its end tokens (EOS) and, for "
      "onnxruntime-genai models, the past inputs' head size")(
      "decoder-batch", po::value<int64_t>()->default_value(1),
      "B: with --decoder-state, the state holds B sequences decoded at once (a symbolic "
      "batch becomes B; switchyard generate with B prompts)")(
      "end-tokens", po::value<std::string>(),
      "IDS: with --decoder-state, the token ids that end a sequence (comma-separated), "
      "instead of what the model's folder says")(
      "dim-expr", po::value<std::vector<std::string>>()->composing(),
      "NAME=EXPR: the input dims the model names NAME are EXPR of other dims' names, e.g. "
      "total=past+seq, checked at each run (with --decoder-state an attention_mask's own "
      "length is taken as past + seq) (repeatable)")(
      "dim-example", po::value<std::vector<std::string>>()->composing(),
      "SYM=SIZE: trace the symbolic dim SYM at this size (default: small primes 3, 5, 7, "
      "...; give one the model accepts, e.g. an image size for a CNN) (repeatable)")(
      "max-fold-bytes", po::value<std::string>()->default_value("1GiB"),
      "the largest constant folding may compute (BYTES: 1048576, 64MiB, 2GB)")(
      "json", "print a JSON summary");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("import", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("import", "expected exactly one MODEL.onnx (see 'switchyard import --help')");
    return kExitUsage;
  }
  if (!vm.count("output")) {
    PrintError("import", "expected -o STEM: where to write STEM.json and STEM.safetensors");
    return kExitUsage;
  }
  onnx_import::ImportOptions options;
  {
    Expected<uint64_t> bytes = ParseByteSize(vm["max-fold-bytes"].as<std::string>());
    if (!bytes.ok()) {
      PrintError("import", "--max-fold-bytes: " + bytes.status().message());
      return kExitUsage;
    }
    options.max_fold_bytes = *bytes;
  }
  if (vm.count("input-shape")) {
    for (const std::string& item : vm["input-shape"].as<std::vector<std::string>>()) {
      Expected<std::pair<std::string, Shape>> parsed = ParseShapeArg(item);
      if (!parsed.ok()) {
        PrintError("import", parsed.status().message());
        return kExitUsage;
      }
      options.input_shapes[parsed->first] = parsed->second;
    }
  }
  if (vm.count("dim-example")) {
    for (const std::string& item : vm["dim-example"].as<std::vector<std::string>>()) {
      Expected<std::pair<std::string, Shape>> parsed = ParseShapeArg(item);
      if (!parsed.ok() || parsed->second.size() != 1 || parsed->second[0] < 1) {
        PrintError("import",
                   "--dim-example " + item + ": expected SYM=SIZE with a size of 1 or more");
        return kExitUsage;
      }
      options.dim_examples[parsed->first] = parsed->second[0];
    }
  }
  if (vm.count("dim-expr")) {
    for (const std::string& item : vm["dim-expr"].as<std::vector<std::string>>()) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        PrintError("import", "--dim-expr " + item + ": expected NAME=EXPR (total=past+seq)");
        return kExitUsage;
      }
      options.dim_exprs[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  options.decoder_with_past = vm.count("decoder-state") != 0;
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  // What the model's folder says about decoding (decoder_config.h).
  std::vector<int64_t> end_tokens;
  std::string end_tokens_from;
  if (!vm["decoder-batch"].defaulted() && !options.decoder_with_past) {
    PrintError("import", "--decoder-batch needs --decoder-state");
    return kExitUsage;
  }
  if (vm.count("end-tokens")) {
    if (!options.decoder_with_past) {
      PrintError("import", "--end-tokens needs --decoder-state");
      return kExitUsage;
    }
    Expected<std::vector<int64_t>> ids =
        ParseIds(vm["end-tokens"].as<std::string>(), "--end-tokens");
    if (!ids.ok() || std::any_of(ids->begin(), ids->end(), [](int64_t id) { return id < 0; })) {
      PrintError("import", ids.ok() ? "--end-tokens: token ids are >= 0" : ids.status().message());
      return kExitUsage;
    }
    end_tokens = *ids;
    end_tokens_from = "--end-tokens";
  }
  if (options.decoder_with_past) {
    Expected<onnx_import::DecoderFolderConfig> folder =
        onnx_import::ReadDecoderFolderConfig(std::filesystem::path(model).parent_path());
    if (!folder.ok()) {
      PrintError("import", folder.status().message());
      return kExitFailure;
    }
    options.past_head_size = folder->head_size;
    if (end_tokens_from.empty() && !folder->end_tokens.empty()) {
      end_tokens = folder->end_tokens;
      for (const std::string& file : folder->files) {
        end_tokens_from += (end_tokens_from.empty() ? "" : ", ") + file;
      }
    }
  }
  if (vm.count("input-value")) {
    for (const std::string& item : vm["input-value"].as<std::vector<std::string>>()) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        PrintError("import", "--input-value " + item + ": expected NAME=FILE.npy");
        return kExitUsage;
      }
      Expected<Tensor> value = ReadNpy(item.substr(eq + 1));
      if (!value.ok()) {
        PrintError("import", "--input-value " + item + ": " + value.status().message());
        return kExitFailure;
      }
      options.input_values[item.substr(0, eq)] = std::move(value).value();
    }
  }
  Expected<onnx_import::ImportResult> result = [&] {
    // Large models take a while (folding, weights): on a terminal, which node.
    ProgressLine progress("switchyard import");
    options.on_node = [&progress](size_t node, size_t nodes, const std::string& op) {
      progress.Update(node + 1, nodes, "nodes (" + op + ")");
    };
    return onnx_import::ImportOnnxFile(model, options);
  }();
  if (!result.ok()) {
    std::string message = result.status().message();
    if (message.find("do not broadcast") != std::string::npos && options.dim_exprs.empty()) {
      // The usual cause in decoders: a mask over past + seq whose length has a name of its
      // own, traced at a size of its own.
      message +=
          " (if an input dim is a sum of other input dims, e.g. an attention mask over past + "
          "seq, say so with --dim-expr NAME=EXPR)";
    }
    PrintError("import", message);
    return kExitFailure;
  }
  if (vm.count("decoder-state")) {
    DecoderStateOptions state_options;
    state_options.capacity = vm["decoder-state"].as<int64_t>();
    state_options.batch = vm["decoder-batch"].as<int64_t>();
    if (Status converted = AddDecoderState(result->graph, state_options); !converted.ok()) {
      PrintError("import", converted.message());
      return kExitFailure;
    }
    if (Status ends = onnx_import::SetEndTokens(result->graph, end_tokens, end_tokens_from);
        !ends.ok()) {
      PrintError("import", ends.message());
      return kExitFailure;
    }
  }
  Expected<std::filesystem::path> saved =
      host_options::SaveModelAt(result->graph, vm["output"].as<std::string>());
  if (!saved.ok()) {
    PrintError("import", saved.status().message());
    return kExitFailure;
  }
  const std::filesystem::path model_file = *saved;
  // STEM.json or STEM.symodel: the tokenizer goes beside it as STEM.tokenizer.json.
  const std::filesystem::path stem = std::filesystem::path(model_file).replace_extension();
  // The tokenizer of a decoder's folder, for Python's generate(text=...).
  std::filesystem::path tokenizer;
  if (options.decoder_with_past) {
    Expected<std::filesystem::path> copied =
        onnx_import::CopyTokenizer(std::filesystem::path(model).parent_path(), stem);
    if (!copied.ok()) {
      PrintError("import", copied.status().message());
      return kExitFailure;
    }
    tokenizer = *copied;
  }
  const Graph& graph = result->graph;
  if (vm.count("json")) {
    boost::json::array inputs, outputs, frozen;
    for (ValueId id : graph.inputs) {
      inputs.push_back(TypeToJson(graph.values[id].name, graph.values[id].type));
    }
    for (ValueId id : graph.outputs) {
      outputs.push_back(TypeToJson(graph.values[id].name, graph.values[id].type));
    }
    for (const std::string& name : result->frozen_inputs)
      frozen.push_back(boost::json::value(name));
    std::cout << boost::json::serialize(boost::json::object{{"model", model_file.string()},
                                                            {"opset", result->opset},
                                                            {"onnx_nodes", result->onnx_nodes},
                                                            {"folded_nodes", result->folded_nodes},
                                                            {"nodes", graph.nodes.size()},
                                                            {"constants", graph.constants.size()},
                                                            {"weight_bytes", graph.ConstantBytes()},
                                                            {"inputs", inputs},
                                                            {"outputs", outputs},
                                                            {"frozen_inputs", frozen}})
              << "\n";
  } else {
    std::cout << model_file.string() << ": imported " << model << " (opset " << result->opset
              << "): " << result->onnx_nodes << " ONNX nodes, " << result->folded_nodes
              << " folded at import time, " << graph.nodes.size() << " catalogue nodes, "
              << graph.constants.size() << " constants (" << graph.ConstantBytes() << " bytes)\n";
    for (const std::string& name : result->frozen_inputs) {
      std::cout << "  input " << name << " frozen into a constant (--input-value)\n";
    }
    if (!graph.state.end_tokens.empty()) {
      std::string ids;
      for (int64_t id : graph.state.end_tokens)
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
      std::cout << "  end tokens " << ids << " (from " << end_tokens_from << ")\n";
    }
    if (!tokenizer.empty()) {
      std::cout << "  tokenizer " << tokenizer.string() << " (the model folder's tokenizer.json)\n";
    }
  }
  return kExitOk;
}

}  // namespace sy::cli
