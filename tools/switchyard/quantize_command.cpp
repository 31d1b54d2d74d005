// `switchyard quantize MODEL -o OUT [--weights int4|int8] [--block N] [--symmetric]`:
// weight-only round-to-nearest quantization of a model's matmul and gemm weights onto quant_matmul
// (switchyard/quantize.h), printing each layer's error and what was left as it was.
#include <iostream>

#include <boost/program_options.hpp>

#include "cli.h"
#include "host_options.h"
#include "switchyard/model_io.h"
#include "switchyard/quantize.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

std::string Megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

}  // namespace

int RunQuantize(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard quantize MODEL -o OUT [--weights int4|int8] [--block N]\n"
      "                           [--symmetric] [--json]\n\n"
      "Quantizes MODEL's matmul and gemm weights and writes the model to OUT (OUT.json\n"
      "and OUT.safetensors). Each matmul or gemm whose b is an f32, f16 or bf16 constant\n"
      "[K, N] (a gemm's may be [N, K] with trans_b; its alpha is folded in, its c added\n"
      "after) read by that node alone becomes a quant_matmul (docs/ops.md) in blocks along\n"
      "K, its scales in b's dtype, rounded to nearest: asymmetric by default (the\n"
      "block's range, widened to hold 0, over the codes, with a zero point per block),\n"
      "or --symmetric (max |w| over 2^(bits-1) - 1, no zero points). Activations keep\n"
      "their dtype. Prints each layer's relative RMS error\n"
      "||w - w'|| / ||w|| and largest |w - w'|, the matmuls left as they were and why,\n"
      "and the weights' bytes before and after. Exits 0 on success, 1 when the model\n"
      "cannot be read or written, 2 on bad options.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("output,o", po::value<std::string>(),
                                                    "the quantized model's stem (required)")(
      "weights", po::value<std::string>()->default_value("int4"), "int4 or int8")(
      "block", po::value<int64_t>()->default_value(32),
      "codes per block along K: a power of two from 16 to 256")(
      "symmetric", "symmetric blocks without zero points")("json", "print JSON");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("quantize", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("quantize", "expected one MODEL (see 'switchyard quantize --help')");
    return kExitUsage;
  }
  if (!vm.count("output")) {
    PrintError("quantize", "expected -o OUT, the quantized model's stem");
    return kExitUsage;
  }
  QuantizeOptions options;
  const std::string weights = vm["weights"].as<std::string>();
  if (weights == "int4") {
    options.bits = 4;
  } else if (weights == "int8") {
    options.bits = 8;
  } else {
    PrintError("quantize", "--weights " + weights + ": expected int4 or int8");
    return kExitUsage;
  }
  options.block_size = vm["block"].as<int64_t>();
  options.symmetric = vm.count("symmetric") > 0;
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<Graph> graph = LoadModel(model);
  if (!graph.ok()) {
    PrintError("quantize", graph.status().message());
    return kExitFailure;
  }
  Expected<QuantizeReport> report = QuantizeMatmulWeights(*graph, options);
  if (!report.ok()) {
    PrintError("quantize", report.status().message());
    return kExitUsage;
  }
  if (Status valid = ValidateGraphTypes(*graph); !valid.ok()) {
    PrintError("quantize", "the quantized graph is not valid: " + valid.message());
    return kExitFailure;
  }
  // OUT's folder is made as import and `run --out` make theirs; OUT.json names the stem too.
  Expected<std::filesystem::path> saved =
      host_options::SaveModelAt(*graph, vm["output"].as<std::string>());
  if (!saved.ok()) {
    PrintError("quantize", saved.status().message());
    return kExitFailure;
  }
  const std::string out = saved->string();
  uint64_t before = 0, after = 0;
  boost::json::array layers, skipped;
  for (const QuantizedLayer& l : report->quantized) {
    before += l.bytes_before;
    after += l.bytes_after;
    layers.push_back({{"node", graph->DescribeNode(l.node)},
                      {"k", l.k},
                      {"n", l.n},
                      {"relative_rms_error", l.relative_rms},
                      {"max_abs_error", l.max_abs_error}});
    if (!vm.count("json")) {
      std::cout << graph->DescribeNode(l.node) << ": [" << l.k << ", " << l.n
                << "] relative RMS error " << l.relative_rms << ", max |error| " << l.max_abs_error
                << "\n";
    }
  }
  for (const SkippedLayer& s : report->skipped) {
    skipped.push_back({{"node", graph->DescribeNode(s.node)}, {"reason", s.reason}});
    if (!vm.count("json"))
      std::cout << graph->DescribeNode(s.node) << ": left as f32: " << s.reason << "\n";
  }
  const std::string scheme = std::to_string(options.bits) + "-bit blocks of " +
                             std::to_string(options.block_size) +
                             (options.symmetric ? ", symmetric" : ", zero points");
  if (vm.count("json")) {
    boost::json::object o{{"output", out},
                          {"bits", options.bits},
                          {"block_size", options.block_size},
                          {"symmetric", options.symmetric},
                          {"quantized", layers},
                          {"skipped", skipped},
                          {"bytes_before", before},
                          {"bytes_after", after}};
    std::cout << boost::json::serialize(o) << "\n";
  } else {
    std::cout << out << ": " << report->quantized.size() << " of "
              << report->quantized.size() + report->skipped.size() << " matmuls quantized ("
              << scheme << "); their weights " << Megabytes(before) << " -> " << Megabytes(after)
              << "\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
