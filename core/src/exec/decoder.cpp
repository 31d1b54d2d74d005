// The autoregressive loop (switchyard/decoder.h): the model's session, the inputs it is
// filled with each run, and the one-node `sample` session that picks each token.
#include "switchyard/decoder.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "switchyard/model_io.h"
#include "switchyard/random_stream.h"
#include "switchyard/value_names.h"

namespace sy {
namespace {

// splitmix64 (switchyard/random_stream.h, the stream of the catalogue's random ops): a
// small generator whose stream is the same on every platform. Numbers in [0, 1) with 53
// random bits; tools/make_toy_decoder.py re-implements it as a reference.
double NextUniform(uint64_t& state) {
  state += kSplitMixGamma;
  return static_cast<double>(SplitMixOutput(state) >> 11) * 0x1.0p-53;
}

// The sampler: one `sample` node over logits f32 [1, V] and uniform f64 [1]. The op's
// schema checks the options (a temperature of 0, a top_p above 1, ...).
Expected<Graph> SamplerGraph(int64_t vocab, const SamplerOptions& options) {
  std::string method = options.method;
  std::replace(method.begin(), method.end(), '-', '_');  // top-k -> top_k
  if (method == "greedy" && options.temperature != 1.0) {
    return InvalidArgument("the sampler's options: temperature is " +
                           std::to_string(options.temperature) +
                           " but method greedy does not read it (the largest logit is the "
                           "largest at every temperature; leave it out)");
  }
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
  // The options the method reads, and any other that differs from its default, which the
  // schema refuses (a top_k given to top_p would do nothing).
  if (method != "greedy") node.attrs.Set("temperature", options.temperature);
  if (method == "top_k" || options.top_k != 0) node.attrs.Set("top_k", options.top_k);
  if (method == "top_p" || options.top_p != 1.0) node.attrs.Set("top_p", options.top_p);
  if (method == "min_p" || options.min_p != 0.0) node.attrs.Set("min_p", options.min_p);
  g.nodes.push_back(std::move(node));
  Status valid = ValidateGraphTypes(g);
  if (!valid.ok()) return InvalidArgument("the sampler's options: " + valid.message());
  return g;
}

// Input `name` of `type` for a run that adds `seq` positions after `held`: position ids
// count on from `held`; an attention mask is 1 over the positions held and added, 0 past
// them (its last dim is the capacity, or held + seq for a model that reads only what is
// held).
// attention_mask or position_ids for `pads.size()` rows that hold `held` positions and
// add `seq`, row b's first pads[b] positions being left padding: the mask is 1 over each
// row's own positions held and added and 0 elsewhere, the positions count from each
// row's first own token.
Expected<Tensor> FillInput(const std::string& name, const TensorType& type, int64_t held,
                           int64_t seq, std::span<const int64_t> pads) {
  Shape shape = type.shape;
  const int64_t rows = static_cast<int64_t>(pads.size());
  if (shape.size() != 2 || (shape[0] >= 0 && shape[0] != rows)) {
    return InvalidArgument("input \"" + PrintableName(name) + "\" is " + type.ToString() +
                           " (the decoder fills [" + std::to_string(rows) + ", n] inputs)");
  }
  shape[0] = rows;
  const bool positions = name == "position_ids";
  if (positions) shape[1] = seq;
  if (!positions && shape[1] < 0) shape[1] = held + seq;
  SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type.dtype, shape));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < shape[1]; ++i) {
      const int64_t v = positions ? std::max<int64_t>(held + i - pads[r], 0)
                                  : (i >= pads[r] && i < held + seq ? 1 : 0);
      const int64_t at = r * shape[1] + i;
      switch (type.dtype) {
        case DType::kI64:
          t.mutable_values<int64_t>()[at] = v;
          break;
        case DType::kI32:
          t.mutable_values<int32_t>()[at] = static_cast<int32_t>(v);
          break;
        case DType::kF32:
          t.mutable_values<float>()[at] = static_cast<float>(v);
          break;
        default:
          return InvalidArgument("input \"" + PrintableName(name) + "\" is " + type.ToString() +
                                 " (the decoder fills i64, i32 or f32)");
      }
    }
  }
  return t;
}

}  // namespace

Status CheckSamplerOptions(const SamplerOptions& options) {
  return SamplerGraph(1, options).status();
}

struct Decoder::Buffers {
  Tensor row;      // f32 [1, V]: the last logits row
  Tensor uniform;  // f64 [1]
};

Decoder::Decoder(Session& session, SamplerOptions options, int64_t vocab,
                 std::unique_ptr<Session> sampler)
    : session_(session),
      options_(std::move(options)),
      vocab_(vocab),
      sampler_(std::move(sampler)),
      generator_(options_.seed) {}

Decoder::~Decoder() = default;

Expected<std::unique_ptr<Decoder>> Decoder::Create(Session& session, const Device& sampler_device,
                                                   const SamplerOptions& options) {
  if (!session.has_state()) {
    return InvalidArgument(
        "the model keeps no decoding state (docs/decoding.md): decoding needs a model whose "
        "key and value caches the session keeps between runs");
  }
  // The token ids are the state's advance input (input_ids in the exporters' convention).
  const Graph& state_graph =
      session.symbolic_graph() != nullptr ? *session.symbolic_graph() : session.graph();
  const std::string ids_name =
      state_graph.state.advance_input >= 0 &&
              static_cast<size_t>(state_graph.state.advance_input) < state_graph.values.size()
          ? state_graph.values[state_graph.state.advance_input].name
          : std::string("input_ids");
  const std::vector<std::string>& names = session.input_names();
  for (const std::string& name : names) {
    if (name != ids_name && name != "attention_mask" && name != "position_ids") {
      return InvalidArgument("the model takes input \"" + PrintableName(name) +
                             "\"; the decoder fills only " + PrintableName(ids_name) +
                             ", attention_mask and position_ids");
    }
  }
  const auto ids = std::find(names.begin(), names.end(), ids_name);
  if (ids == names.end()) {
    return InvalidArgument("the model has no input \"" + PrintableName(ids_name) +
                           "\" (the token ids each run adds)");
  }
  const TensorType& ids_type = session.input_types()[static_cast<size_t>(ids - names.begin())];
  if (ids_type.dtype != DType::kI64 || ids_type.rank() != 2 || ids_type.shape[0] < 1) {
    return InvalidArgument("the model's " + PrintableName(ids_name) + " is " + ids_type.ToString() +
                           " (the decoder passes i64 [B, n] token ids, B the fixed number of "
                           "sequences the state holds)");
  }
  const Graph& graph =
      session.symbolic_graph() != nullptr ? *session.symbolic_graph() : session.graph();
  int64_t vocab = -1;
  for (ValueId id : graph.outputs) {
    const Value& v = graph.values[id];
    if (v.name == "logits" && !v.type.shape.empty()) vocab = v.type.shape.back();
  }
  if (vocab <= 0) {
    return InvalidArgument(
        "the model has no output \"logits\" whose last dim (the vocabulary) is fixed");
  }
  const std::vector<int64_t>& ends = session.graph().state.end_tokens;
  for (int64_t id : ends) {
    if (id >= vocab) {
      return InvalidArgument("the model's end token " + std::to_string(id) +
                             " (state.end_tokens) is outside its vocabulary of " +
                             std::to_string(vocab) + " (the last dim of logits)");
    }
  }
  SY_ASSIGN_OR_RETURN(Graph sampler_graph, SamplerGraph(vocab, options));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> sampler,
                      Session::Create(sampler_graph, sampler_device));
  std::unique_ptr<Decoder> decoder(new Decoder(session, options, vocab, std::move(sampler)));
  decoder->batch_ = ids_type.shape[0];
  decoder->ids_name_ = ids_name;
  decoder->buffers_ = std::make_unique<Buffers>();
  SY_ASSIGN_OR_RETURN(decoder->buffers_->row, Tensor::Allocate(DType::kF32, {1, vocab}));
  SY_ASSIGN_OR_RETURN(decoder->buffers_->uniform, Tensor::Allocate(DType::kF64, {1}));
  return decoder;
}

Expected<int64_t> Decoder::Run(std::span<const int64_t> ids, std::string_view what) {
  if (batch_ != 1) {
    return InvalidArgument("the model decodes " + std::to_string(batch_) +
                           " sequences at once (import --decoder-batch): pass one prompt per "
                           "sequence (GenerateBatch)");
  }
  const int64_t pad = 0;
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> picked,
                      RunRows(ids, static_cast<int64_t>(ids.size()), {&pad, 1}, what));
  return picked[0];
}

Expected<std::vector<int64_t>> Decoder::RunRows(std::span<const int64_t> ids, int64_t seq,
                                                std::span<const int64_t> pads,
                                                std::string_view what) {
  if (seq < 1) return InvalidArgument("no token ids to run (expected at least one)");
  const int64_t rows = static_cast<int64_t>(pads.size());
  for (int64_t id : ids) {
    if (id < 0 || id >= vocab_) {
      return InvalidArgument(std::string(what) + " " + std::to_string(id) +
                             " is outside the vocabulary (0 to " + std::to_string(vocab_ - 1) +
                             ")");
    }
  }
  std::map<std::string, Tensor> inputs;
  SY_ASSIGN_OR_RETURN(Tensor id_tensor, Tensor::Allocate(DType::kI64, {rows, seq}));
  std::copy(ids.begin(), ids.end(), id_tensor.mutable_values<int64_t>().begin());
  inputs[ids_name_] = std::move(id_tensor);
  const std::vector<std::string>& names = session_.input_names();
  const std::vector<TensorType>& types = session_.input_types();
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k] == ids_name_) continue;
    SY_ASSIGN_OR_RETURN(inputs[names[k]],
                        FillInput(names[k], types[k], session_.state_length(), seq, pads));
  }
  SY_ASSIGN_OR_RETURN(auto outputs, session_.Run(inputs));
  const Tensor& logits = outputs.at("logits");
  // Each row's last position: logits [rows, ..., V] hold rows equal blocks.
  const int64_t per_row = logits.element_count() / rows;
  if (logits.element_count() % rows != 0 || per_row < vocab_) {
    return Internal("the model's logits hold " + std::to_string(logits.element_count()) +
                    " numbers, not " + std::to_string(rows) + " rows of at least the " +
                    "vocabulary's " + std::to_string(vocab_));
  }
  // The generator advances only once every row is picked, so a failed run (past the
  // capacity, say) or pick leaves the sequence of numbers where it was.
  uint64_t next_state = generator_;
  std::vector<int64_t> picked;
  float* row = buffers_->row.mutable_values<float>().data();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t last = (r + 1) * per_row - vocab_;
    if (logits.dtype() == DType::kF32) {
      std::memcpy(row, logits.values<float>().data() + last, static_cast<size_t>(vocab_) * 4);
    } else {
      for (int64_t i = 0; i < vocab_; ++i) {
        row[i] = static_cast<float>(ElementAsDouble(logits, last + i));
      }
    }
    buffers_->uniform.mutable_values<double>()[0] = NextUniform(next_state);
    SY_ASSIGN_OR_RETURN(auto token,
                        sampler_->Run({{"logits", buffers_->row}, {"uniform", buffers_->uniform}}));
    picked.push_back(token.at("token").values<int64_t>()[0]);
  }
  generator_ = next_state;
  return picked;
}

Expected<std::vector<std::vector<int64_t>>> Decoder::GenerateBatch(
    std::span<const std::vector<int64_t>> prompts, int64_t max_new_tokens, bool stop_at_end) {
  const int64_t n = static_cast<int64_t>(prompts.size());
  if (n < 1 || n > batch_) {
    return InvalidArgument(std::to_string(n) + " prompts, but the model decodes " +
                           std::to_string(batch_) + " sequences at once (expected 1 to " +
                           std::to_string(batch_) + "; import --decoder-batch sets it)");
  }
  if (max_new_tokens < 1) {
    return InvalidArgument("max_new_tokens is " + std::to_string(max_new_tokens) +
                           " (expected at least 1)");
  }
  int64_t longest = 0;
  bool same_length = true;
  for (size_t p = 0; p < prompts.size(); ++p) {
    if (prompts[p].empty()) {
      return InvalidArgument("prompt " + std::to_string(p) + " is empty (expected token ids)");
    }
    longest = std::max<int64_t>(longest, static_cast<int64_t>(prompts[p].size()));
    same_length = same_length && prompts[p].size() == prompts[0].size();
  }
  const std::vector<std::string>& names = session_.input_names();
  if (!same_length && std::find(names.begin(), names.end(), "attention_mask") == names.end()) {
    return InvalidArgument(
        "prompts of different lengths need a model that takes attention_mask (it hides "
        "the left padding of the shorter ones); this one does not: give prompts of one "
        "length");
  }
  SY_RETURN_IF_ERROR(CheckRoom(longest, max_new_tokens));
  // Rows past the prompts repeat the first one (their picks are dropped): a row of
  // padding only would attend to nothing. Padding takes an end token's id (or 0): the
  // mask hides it whatever it is.
  const std::vector<int64_t>& ends = session_.graph().state.end_tokens;
  const int64_t pad_id = ends.empty() ? 0 : ends.front();
  std::vector<int64_t> pads(static_cast<size_t>(batch_)), ids;
  for (int64_t r = 0; r < batch_; ++r) {
    const std::vector<int64_t>& prompt = prompts[static_cast<size_t>(r < n ? r : 0)];
    pads[r] = longest - static_cast<int64_t>(prompt.size());
    ids.insert(ids.end(), static_cast<size_t>(pads[r]), pad_id);
    ids.insert(ids.end(), prompt.begin(), prompt.end());
  }
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> picked, RunRows(ids, longest, pads, "prompt token"));
  std::vector<std::vector<int64_t>> tokens(static_cast<size_t>(n));
  std::vector<bool> done(static_cast<size_t>(n), false);
  const auto take = [&](const std::vector<int64_t>& row_picks) {
    bool all_done = true;
    for (int64_t r = 0; r < n; ++r) {
      if (done[r]) continue;
      tokens[r].push_back(row_picks[r]);
      done[r] = static_cast<int64_t>(tokens[r].size()) >= max_new_tokens ||
                (stop_at_end && IsEndToken(row_picks[r]));
      all_done = all_done && done[r];
    }
    return all_done;
  };
  if (take(picked)) return tokens;
  while (true) {
    // Every row appends its last pick (a finished row its last token again: its picks
    // are dropped), so the rows stay one length.
    for (int64_t r = 0; r < batch_; ++r) {
      const size_t row = static_cast<size_t>(r < n ? r : 0);
      ids[r] = tokens[row].back();
    }
    SY_ASSIGN_OR_RETURN(picked,
                        RunRows({ids.data(), static_cast<size_t>(batch_)}, 1, pads, "token"));
    if (take(picked)) return tokens;
  }
}

Expected<int64_t> Decoder::Prefill(std::span<const int64_t> prompt) {
  if (prompt.empty()) return InvalidArgument("the prompt is empty (expected token ids)");
  return Run(prompt, "prompt token");
}

Expected<int64_t> Decoder::Step(int64_t token) {
  return Run(std::span<const int64_t>(&token, 1), "token");
}

bool Decoder::IsEndToken(int64_t token) const {
  const std::vector<int64_t>& ends = session_.graph().state.end_tokens;
  return std::find(ends.begin(), ends.end(), token) != ends.end();
}

Expected<std::vector<int64_t>> Decoder::Generate(std::span<const int64_t> prompt,
                                                 int64_t max_new_tokens, bool stop_at_end) {
  if (max_new_tokens < 1) {
    return InvalidArgument("max_new_tokens is " + std::to_string(max_new_tokens) +
                           " (expected at least 1)");
  }
  if (prompt.empty()) return InvalidArgument("the prompt is empty (expected token ids)");
  if (batch_ != 1) {  // one sequence on a model of several: its first row
    const std::vector<int64_t> one(prompt.begin(), prompt.end());
    SY_ASSIGN_OR_RETURN(auto rows, GenerateBatch({&one, 1}, max_new_tokens, stop_at_end));
    return std::move(rows[0]);
  }
  SY_RETURN_IF_ERROR(CheckRoom(static_cast<int64_t>(prompt.size()), max_new_tokens));
  std::vector<int64_t> tokens;
  tokens.reserve(static_cast<size_t>(max_new_tokens));
  SY_ASSIGN_OR_RETURN(int64_t first, Prefill(prompt));
  tokens.push_back(first);
  while (static_cast<int64_t>(tokens.size()) < max_new_tokens &&
         !(stop_at_end && IsEndToken(tokens.back()))) {
    SY_ASSIGN_OR_RETURN(int64_t next, Step(tokens.back()));
    tokens.push_back(next);
  }
  return tokens;
}

Status Decoder::CheckRoom(int64_t prompt_size, int64_t max_new_tokens) const {
  // The last token is picked, never run: the state holds the prompt and the others.
  const int64_t free = capacity() - length();
  if (max_new_tokens - 1 > free - prompt_size) {
    std::string room = "the model's state holds " + std::to_string(capacity());
    if (length() > 0) room += " and has " + std::to_string(free) + " of them free";
    const double needed =
        static_cast<double>(prompt_size) + static_cast<double>(max_new_tokens) - 1;
    return InvalidArgument(
        "the prompt's " + std::to_string(prompt_size) + " tokens and " +
        std::to_string(max_new_tokens) + " new ones need " +
        // max_new_tokens may be near INT64_MAX: the sum in double
        (needed < 9e15 ? std::to_string(static_cast<int64_t>(needed)) : std::string("more")) +
        " positions, but " + room);
  }
  return Status::Ok();
}

Status Decoder::Reset() {
  generator_ = options_.seed;
  return session_.Reset();
}

}  // namespace sy
