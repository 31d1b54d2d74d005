// `switchyard generate MODEL --prompt IDS`: autoregressive decoding with a model that keeps
// its key and value caches as decoding state (docs/decoding.md): the prompt in one run,
// then one run per new token, each token chosen from the last row of the logits by the
// catalogue's `sample` op with numbers from a seeded generator.
#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>

#include <boost/json.hpp>

#include "cli.h"
#include "model_setup.h"
#include "switchyard/model_io.h"
#include "switchyard/session.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

// splitmix64: a small generator whose stream is the same on every platform, so that a
// seed names one sequence of tokens. Numbers in [0, 1) with 53 random bits.
class Uniforms {
 public:
  explicit Uniforms(uint64_t seed) : state_(seed) {}
  double Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t state_;
};

Expected<std::vector<int64_t>> ParseIds(const std::string& text) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != item.size()) {
      return InvalidArgument("--prompt: \"" + item.substr(0, 40) +
                             "\" is not a token id (expected comma-separated integers)");
    }
    ids.push_back(v);
  }
  if (ids.empty()) return InvalidArgument("--prompt is empty (expected token ids: 1,2,3)");
  return ids;
}

// The sampler: one `sample` node over logits f32 [1, V] and uniform f64 [1], on the CPU.
// The op's schema checks the options (a temperature of 0, a top_p above 1, ...).
Expected<std::unique_ptr<Session>> MakeSampler(const Device& cpu, int64_t vocab,
                                               const po::variables_map& vm) {
  std::string method = vm["sample"].as<std::string>();
  for (char& c : method) c = c == '-' ? '_' : c;  // top-k -> top_k
  Graph g;
  g.values = {{"logits", {DType::kF32, {1, vocab}}, {}},
              {"uniform", {DType::kF64, {1}}, {}},
              {"token", {DType::kI64, {1}}, {}}};
  g.inputs = {0, 1};
  g.outputs = {2};
  Node node;
  node.op = "sample";
  node.inputs = {0, 1};
  node.outputs = {2};
  node.attrs.Set("method", method);
  if (method != "greedy") node.attrs.Set("temperature", vm["temperature"].as<double>());
  if (method == "top_k") node.attrs.Set("top_k", int64_t{vm["top-k"].as<int>()});
  if (method == "top_p") node.attrs.Set("top_p", vm["top-p"].as<double>());
  if (method == "min_p") node.attrs.Set("min_p", vm["min-p"].as<double>());
  g.nodes.push_back(std::move(node));
  Status valid = ValidateGraphTypes(g);
  if (!valid.ok()) return InvalidArgument("the sampler's options: " + valid.message());
  return Session::Create(g, cpu);
}

// `type` filled for a run that adds `seq` positions after `held`: position ids count on
// from `held`; an attention mask is 1 over the positions held and added, 0 past them (its
// last dim is the capacity, or held + seq for a model that reads only what is held).
Expected<Tensor> FillInput(const std::string& name, const TensorType& type, int64_t held,
                           int64_t seq) {
  Shape shape = type.shape;
  if (shape.size() != 2) {
    return InvalidArgument("input \"" + name + "\" is " + type.ToString() +
                           " (generate fills [1, n] inputs)");
  }
  shape[0] = 1;
  const bool positions = name == "position_ids";
  if (positions) shape[1] = seq;
  if (!positions && shape[1] < 0) shape[1] = held + seq;
  SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type.dtype, shape));
  for (int64_t i = 0; i < shape[1]; ++i) {
    const int64_t v = positions ? held + i : (i < held + seq ? 1 : 0);
    switch (type.dtype) {
      case DType::kI64:
        t.mutable_values<int64_t>()[i] = v;
        break;
      case DType::kI32:
        t.mutable_values<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::kF32:
        t.mutable_values<float>()[i] = static_cast<float>(v);
        break;
      default:
        return InvalidArgument("input \"" + name + "\" is " + type.ToString() +
                               " (generate fills i64, i32 or f32)");
    }
  }
  return t;
}

Expected<Tensor> Ids(const std::vector<int64_t>& ids) {
  SY_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(DType::kI64, {1, static_cast<int64_t>(ids.size())}));
  std::copy(ids.begin(), ids.end(), t.mutable_values<int64_t>().begin());
  return t;
}

}  // namespace

int RunGenerate(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard generate MODEL --prompt IDS [--max-new-tokens N] [--device SPEC]\n"
      "                           [--sample greedy|temperature|top-k|top-p|min-p]\n"
      "                           [--temperature T] [--top-k K] [--top-p P] [--min-p P]\n"
      "                           [--seed S] [--json]\n\n"
      "Decodes with a model that keeps its key and value caches as decoding state\n"
      "(docs/decoding.md): runs the prompt IDS (comma-separated token ids) once, then one\n"
      "run per new token, each chosen from the last row of the output 'logits' by the\n"
      "catalogue's sample op (docs/ops.md, \"Sampling\") with numbers from a generator\n"
      "seeded by --seed. The model's inputs besides input_ids may be attention_mask and\n"
      "position_ids, which generate fills. Prints the new token ids, the time to the first\n"
      "token and the prompt and decode rates; --json prints them as an object.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("prompt", po::value<std::string>(),
                                                    "the prompt's token ids, comma-separated")(
      "max-new-tokens", po::value<int>()->default_value(16), "how many tokens to generate")(
      "sample", po::value<std::string>()->default_value("greedy"),
      "greedy, temperature, top-k, top-p or min-p")(
      "temperature", po::value<double>()->default_value(1.0), "for every method but greedy")(
      "top-k", po::value<int>()->default_value(0), "for --sample top-k")(
      "top-p", po::value<double>()->default_value(1.0), "for --sample top-p")(
      "min-p", po::value<double>()->default_value(0.0), "for --sample min-p")("json", "print JSON");
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
  Expected<std::vector<int64_t>> prompt = ParseIds(vm["prompt"].as<std::string>());
  if (!prompt.ok()) {
    PrintError("generate", prompt.status().message());
    return kExitUsage;
  }
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
  if (!session.has_state()) {
    return fail(model +
                " keeps no decoding state (docs/decoding.md): generate needs a model "
                "whose key and value caches the session keeps between runs");
  }
  // What the model takes and gives: input_ids (what each run adds), and logits.
  const std::vector<std::string>& names = session.input_names();
  for (const std::string& name : names) {
    if (name != "input_ids" && name != "attention_mask" && name != "position_ids") {
      return fail("the model takes input \"" + name +
                  "\"; generate fills only input_ids, attention_mask and position_ids");
    }
  }
  if (std::find(names.begin(), names.end(), "input_ids") == names.end()) {
    return fail("the model has no input \"input_ids\" (the token ids each run adds)");
  }
  const Graph& graph =
      session.symbolic_graph() != nullptr ? *session.symbolic_graph() : prepared->graph;
  int64_t vocab = -1;
  for (ValueId id : graph.outputs) {
    const Value& v = graph.values[id];
    if (v.name == "logits" && !v.type.shape.empty()) vocab = v.type.shape.back();
  }
  if (vocab <= 0) {
    return fail("the model has no output \"logits\" whose last dim (the vocabulary) is fixed");
  }
  for (int64_t id : *prompt) {
    if (id < 0 || id >= vocab) {
      return fail("prompt token " + std::to_string(id) + " is outside the vocabulary (0 to " +
                  std::to_string(vocab - 1) + ")");
    }
  }
  const int64_t needed = static_cast<int64_t>(prompt->size()) + max_new - 1;
  if (needed > session.state_capacity()) {
    return fail("the prompt's " + std::to_string(prompt->size()) + " tokens and " +
                std::to_string(max_new) + " new ones need " + std::to_string(needed) +
                " positions, but the model's state holds " +
                std::to_string(session.state_capacity()));
  }
  Expected<const Device*> cpu = prepared->host->FindDevice("cpu");
  if (!cpu.ok()) return fail(cpu.status().message());
  Expected<std::unique_ptr<Session>> sampler = MakeSampler(**cpu, vocab, vm);
  if (!sampler.ok()) {
    PrintError("generate", sampler.status().message());
    return kExitUsage;
  }
  Uniforms uniforms(vm["seed"].as<uint32_t>());
  Tensor row = *Tensor::Allocate(DType::kF32, {1, vocab});
  Tensor u = *Tensor::Allocate(DType::kF64, {1});

  // One run: `ids` appended; returns the token sampled from the last row of the logits.
  const auto step = [&](const std::vector<int64_t>& ids) -> Expected<int64_t> {
    std::map<std::string, Tensor> inputs;
    SY_ASSIGN_OR_RETURN(inputs["input_ids"], Ids(ids));
    const std::vector<TensorType>& types = session.input_types();
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] == "input_ids") continue;
      SY_ASSIGN_OR_RETURN(inputs[names[k]], FillInput(names[k], types[k], session.state_length(),
                                                      static_cast<int64_t>(ids.size())));
    }
    SY_ASSIGN_OR_RETURN(auto outputs, session.Run(inputs));
    const Tensor& logits = outputs.at("logits");
    const int64_t last = logits.element_count() - vocab;
    for (int64_t i = 0; i < vocab; ++i) {
      row.mutable_values<float>()[i] = static_cast<float>(ElementAsDouble(logits, last + i));
    }
    u.mutable_values<double>()[0] = uniforms.Next();
    SY_ASSIGN_OR_RETURN(auto picked, (*sampler)->Run({{"logits", row}, {"uniform", u}}));
    return picked.at("token").values<int64_t>()[0];
  };

  std::vector<int64_t> tokens;
  const Clock::time_point start = Clock::now();
  Expected<int64_t> first = step(*prompt);
  if (!first.ok()) return fail(first.status().message());
  tokens.push_back(*first);
  const Clock::time_point first_at = Clock::now();
  while (static_cast<int>(tokens.size()) < max_new) {
    Expected<int64_t> next = step({tokens.back()});
    if (!next.ok()) return fail(next.status().message());
    tokens.push_back(*next);
  }
  const Clock::time_point end = Clock::now();
  const double ttft_ms = std::chrono::duration<double, std::milli>(first_at - start).count();
  const double decode_s = std::chrono::duration<double>(end - first_at).count();
  const double prompt_rate = static_cast<double>(prompt->size()) / (ttft_ms / 1000.0);
  const double decode_rate =
      tokens.size() > 1 && decode_s > 0 ? static_cast<double>(tokens.size() - 1) / decode_s : 0;
  if (vm.count("json")) {
    boost::json::array ids(tokens.begin(), tokens.end());
    std::cout << boost::json::serialize(
                     boost::json::object{{"tokens", std::move(ids)},
                                         {"prompt_tokens", prompt->size()},
                                         {"device", session.device().Spec()},
                                         {"time_to_first_token_ms", ttft_ms},
                                         {"prompt_tokens_per_second", prompt_rate},
                                         {"decode_tokens_per_second", decode_rate}})
              << "\n";
  } else {
    std::string list;
    for (int64_t t : tokens) list += (list.empty() ? "" : ",") + std::to_string(t);
    std::cout << list << "\n";
    std::cerr << "switchyard generate: " << tokens.size() << " tokens on "
              << session.device().Spec() << "; first after " << ttft_ms << " ms (prompt of "
              << prompt->size() << " at " << prompt_rate << " tokens/s), then " << decode_rate
              << " tokens/s\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
