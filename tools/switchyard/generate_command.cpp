// `switchyard generate MODEL --prompt IDS`: autoregressive decoding with a model that keeps
// its key and value caches as decoding state (docs/decoding.md): the prompt in one run,
// then one run per new token, each token chosen from the last row of the logits by the
// catalogue's `sample` op with numbers from a seeded generator.
#include <chrono>
#include <iostream>
#include <sstream>

#include <boost/json.hpp>

#include "cli.h"
#include "model_setup.h"
#include "switchyard/decoder.h"
#include "switchyard/model_io.h"
#include "switchyard/session.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

}  // namespace

namespace {

// Several sequences at once (Decoder::GenerateBatch): one line of ids per prompt at the
// end, or with --json {"sequences": [[...], ...], ...}.
int GenerateRows(Decoder& decoder, Session& session,
                 const std::vector<std::vector<int64_t>>& prompts, int max_new, bool stop_at_end,
                 bool json) {
  const Clock::time_point start = Clock::now();
  Expected<std::vector<std::vector<int64_t>>> rows =
      decoder.GenerateBatch(prompts, max_new, stop_at_end);
  if (!rows.ok()) {
    PrintError("generate", rows.status().message());
    return kExitFailure;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  size_t total = 0;
  for (const auto& row : *rows) total += row.size();
  if (json) {
    boost::json::array sequences;
    for (const auto& row : *rows)
      sequences.emplace_back(boost::json::array(row.begin(), row.end()));
    std::cout << boost::json::serialize(boost::json::object{
                     {"sequences", std::move(sequences)},
                     {"device", session.device().Spec()},
                     {"seconds", seconds},
                     {"tokens_per_second", seconds > 0 ? static_cast<double>(total) / seconds : 0}})
              << "\n";
    return kExitOk;
  }
  for (const auto& row : *rows) {
    std::string line;
    for (int64_t t : row) line += (line.empty() ? "" : ",") + std::to_string(t);
    std::cout << line << "\n";
  }
  std::cerr << "switchyard generate: " << prompts.size() << " sequences, " << total << " tokens on "
            << session.device().Spec() << " in " << seconds << " s\n";
  return kExitOk;
}

}  // namespace

int RunGenerate(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard generate MODEL --prompt IDS [--max-new-tokens N] [--device SPEC]\n"
      "                           [--sample greedy|temperature|top-k|top-p|min-p]\n"
      "                           [--temperature T] [--top-k K] [--top-p P] [--min-p P]\n"
      "                           [--seed S] [--ignore-eos] [--json]\n\n"
      "Decodes with a model that keeps its key and value caches as decoding state\n"
      "(docs/decoding.md): runs the prompt IDS (comma-separated token ids) once, then one\n"
      "run per new token, each chosen from the last row of the output 'logits' by the\n"
      "catalogue's sample op (docs/ops.md, \"Sampling\"; on the CPU, where the logits\n"
      "arrive) with numbers from a generator seeded by --seed. The model's inputs\n"
      "besides input_ids may be attention_mask and position_ids, which generate fills.\n"
      "Stops after an end token of the model (its EOS ids, which import takes from the\n"
      "ONNX model's generation_config.json or genai_config.json, or --end-tokens) unless\n"
      "--ignore-eos. Prints each new token id as it is picked, then the time to the first\n"
      "token and the prompt and decode rates; --json prints them as one object at the end.\n"
      "Token ids only: text in and out is Python's generate(text=...), through Hugging\n"
      "Face's tokenizers and the model's tokenizer.json (no C++ library for that file is\n"
      "packaged for the platforms built here).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")(
      "prompt", po::value<std::vector<std::string>>()->composing(),
      "the prompt's token ids, comma-separated; repeat it for several sequences at once "
      "(a model imported with --decoder-batch B takes up to B)")(
      "max-new-tokens", po::value<int>()->default_value(16), "how many tokens to generate")(
      "sample", po::value<std::string>()->default_value("greedy"),
      "greedy, temperature, top-k, top-p or min-p")(
      "temperature", po::value<double>()->default_value(1.0), "for every method but greedy")(
      "top-k", po::value<int>()->default_value(0), "for --sample top-k")(
      "top-p", po::value<double>()->default_value(1.0), "for --sample top-p")(
      "min-p", po::value<double>()->default_value(0.0), "for --sample min-p")(
      "ignore-eos", "go on past the model's end tokens, to --max-new-tokens")("json", "print JSON");
  AddPluginOptions(visible);
  AddModelOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("generate", args, visible, "model", vm, exit_code)) return exit_code;
  if (!vm.count("model") || vm["model"].as<std::vector<std::string>>().size() != 1) {
    PrintError("generate", "expected exactly one MODEL (see 'switchyard generate --help')");
    return kExitUsage;
  }
  if (!vm.count("prompt")) {
    PrintError("generate", "--prompt IDS is required (comma-separated token ids)");
    return kExitUsage;
  }
  std::vector<std::vector<int64_t>> prompts;
  for (const std::string& text : vm["prompt"].as<std::vector<std::string>>()) {
    Expected<std::vector<int64_t>> ids = ParseIds(text, "--prompt");
    if (!ids.ok()) {
      PrintError("generate", ids.status().message());
      return kExitUsage;
    }
    prompts.push_back(std::move(*ids));
  }
  const std::vector<int64_t>* prompt = &prompts[0];
  const int max_new = vm["max-new-tokens"].as<int>();
  if (max_new < 1 || max_new > 1000000) {
    PrintError("generate",
               "--max-new-tokens " + std::to_string(max_new) + ": expected 1 to 1000000");
    return kExitUsage;
  }
  const std::string model = vm["model"].as<std::vector<std::string>>()[0];
  Expected<PreparedModel> prepared = PrepareModel(model, vm);
  if (!prepared.ok()) {
    PrintError("generate", prepared.status().message());
    return kExitFailure;
  }
  Session& session = *prepared->session;
  const auto fail = [](const std::string& message) {
    PrintError("generate", message);
    return kExitFailure;
  };
  SamplerOptions options;
  options.method = vm["sample"].as<std::string>();
  options.temperature = vm["temperature"].as<double>();
  options.top_k = vm["top-k"].as<int>();
  options.top_p = vm["top-p"].as<double>();
  options.min_p = vm["min-p"].as<double>();
  options.seed = SeedOption(vm);
  if (Status valid = CheckSamplerOptions(options); !valid.ok()) {
    PrintError("generate", valid.message());
    return kExitUsage;
  }
  if (!session.has_state()) {
    return fail(model +
                " keeps no decoding state (docs/decoding.md): generate needs a model "
                "whose key and value caches the session keeps between runs");
  }
  // The sampler runs on the CPU whatever --device says: the model's session gives its
  // logits to the host, so a GPU sampler would add an upload per token and pick the same
  // token (docs/decoding.md).
  Expected<const Device*> cpu = prepared->host->FindDevice("cpu");
  if (!cpu.ok()) return fail(cpu.status().message());
  Expected<std::unique_ptr<Decoder>> decoder = Decoder::Create(session, **cpu, options);
  if (!decoder.ok()) return fail(decoder.status().message());
  if (prompts.size() > 1 || (*decoder)->batch() > 1) {
    return GenerateRows(**decoder, session, prompts, max_new, vm.count("ignore-eos") == 0,
                        vm.count("json") != 0);
  }
  // The state's room before the clock starts (Prefill checks the ids itself).
  if (Status room = (*decoder)->CheckRoom(static_cast<int64_t>(prompt->size()), max_new);
      !room.ok()) {
    return fail(room.message());
  }

  const bool json = vm.count("json") != 0;
  const bool stop_at_end = vm.count("ignore-eos") == 0;
  // Without --json each token is printed as it comes (a comma before all but the first).
  const auto stream = [&](int64_t token, bool first) {
    if (json) return;
    std::cout << (first ? "" : ",") << token << std::flush;
  };
  std::vector<int64_t> tokens;
  const Clock::time_point start = Clock::now();
  Expected<int64_t> first = (*decoder)->Prefill(*prompt);
  if (!first.ok()) return fail(first.status().message());
  tokens.push_back(*first);
  stream(*first, true);
  const Clock::time_point first_at = Clock::now();
  while (static_cast<int>(tokens.size()) < max_new &&
         !(stop_at_end && (*decoder)->IsEndToken(tokens.back()))) {
    Expected<int64_t> next = (*decoder)->Step(tokens.back());
    if (!next.ok()) {
      if (!json) std::cout << "\n";
      return fail(next.status().message());
    }
    tokens.push_back(*next);
    stream(*next, false);
  }
  const Clock::time_point end = Clock::now();
  const double ttft_ms = std::chrono::duration<double, std::milli>(first_at - start).count();
  const double decode_s = std::chrono::duration<double>(end - first_at).count();
  const double prompt_rate = static_cast<double>(prompt->size()) / (ttft_ms / 1000.0);
  const double decode_rate =
      tokens.size() > 1 && decode_s > 0 ? static_cast<double>(tokens.size() - 1) / decode_s : 0;
  const bool ended = stop_at_end && (*decoder)->IsEndToken(tokens.back());
  if (json) {
    boost::json::array ids(tokens.begin(), tokens.end());
    std::cout << boost::json::serialize(
                     boost::json::object{{"tokens", std::move(ids)},
                                         {"prompt_tokens", prompt->size()},
                                         {"device", session.device().Spec()},
                                         {"time_to_first_token_ms", ttft_ms},
                                         {"prompt_tokens_per_second", prompt_rate},
                                         {"decode_tokens_per_second", decode_rate},
                                         {"stopped", ended ? "end_token" : "max_new_tokens"}})
              << "\n";
  } else {
    std::cout << "\n";
    std::cerr << "switchyard generate: " << tokens.size() << " tokens"
              << (ended ? " (stopped at an end token)" : "") << " on " << session.device().Spec()
              << "; first after " << ttft_ms << " ms (prompt of " << prompt->size() << " at "
              << prompt_rate << " tokens/s), then " << decode_rate << " tokens/s\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
