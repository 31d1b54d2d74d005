// Decoder: the autoregressive loop over a session with decoding state (docs/decoding.md).
//
// A model that keeps its key and value caches as state takes `input_ids` (the tokens each
// run adds), optionally `attention_mask` and `position_ids` (which the decoder fills), and
// gives `logits` [..., V]. Prefill runs the prompt once and picks the first new token from
// the last row of the logits; Step appends one token and picks the next. Tokens are picked
// by the catalogue's `sample` op (docs/ops.md, "Sampling") in a one-node session of its
// own, with one number per token from a splitmix64 generator seeded by
// SamplerOptions::seed, so a seed names one sequence of tokens on every platform.
//
// Lifetime: the decoder borrows the model's session (which must outlive it and must not be
// run by anyone else meanwhile) and owns its sampler session, which is built on
// `sampler_device` and so must be destroyed before that device's PluginHost. One thread at
// a time.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace sy {

struct SamplerOptions {
  // greedy, temperature, top_k, top_p or min_p (`top-k` style spellings are accepted).
  std::string method = "greedy";
  double temperature = 1.0;  // every method but greedy; > 0
  int64_t top_k = 0;         // method top_k: >= 1
  double top_p = 1.0;        // method top_p: (0, 1]
  double min_p = 0.0;        // method min_p: [0, 1]
  uint64_t seed = 0;         // the generator's seed; Reset() starts it again
};

// Checks `options` as the sampler's schema does (docs/ops.md, "Sampling"): an
// InvalidArgument naming the attribute, e.g. a temperature of 0 or a top_p above 1.
Status CheckSamplerOptions(const SamplerOptions& options);

class Decoder {
 public:
  // Checks that `session` keeps decoding state, takes only input_ids, attention_mask and
  // position_ids, and gives `logits` whose last dim (the vocabulary) is fixed; builds the
  // sampler (an invalid option is an InvalidArgument naming it).
  static Expected<std::unique_ptr<Decoder>> Create(Session& session, const Device& sampler_device,
                                                   const SamplerOptions& options = {});
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Runs `prompt` (at least one id, each in [0, vocab())) after what the state holds and
  // returns the token picked from its last position. An error before the model runs (an
  // id outside the vocabulary, positions past the capacity) or in the model's run changes
  // nothing; a sampler error after a successful run (a NaN in the logits) leaves the
  // positions the run added in the state (length() says so) and the generator unmoved.
  Expected<int64_t> Prefill(std::span<const int64_t> prompt);
  // Appends `token` and returns the next one.
  Expected<int64_t> Step(int64_t token);
  // Prefill, then Step until `max_new_tokens` tokens are picked or, with `stop_at_end`,
  // an end token is (the model's state.end_tokens: its EOS ids; the end token is the last
  // one returned); returns them. Checks first that the state can hold the prompt and
  // every token but the last of the budget.
  Expected<std::vector<int64_t>> Generate(std::span<const int64_t> prompt, int64_t max_new_tokens,
                                          bool stop_at_end = true);
  // Whether `token` is one of the model's end tokens (state.end_tokens).
  bool IsEndToken(int64_t token) const;
  // Several sequences at once, one per row of a model whose state holds batch() of them
  // (`import --decoder-batch`): the prompts (1 to batch() of them, of any lengths) are
  // padded on the left to the longest (attention_mask 0 there, position_ids counting
  // from each prompt's own first token), then every row appends one token per run until
  // each has `max_new_tokens` or, with `stop_at_end`, has picked an end token; a
  // finished row is fed its last token again and its picks dropped while the others go
  // on. Rows past the prompts repeat the first prompt. Returns each prompt's new tokens.
  // Prefill and Step take one sequence and need batch() 1. Runs on the state as it is:
  // Reset() first for a new batch. Needs a model that takes attention_mask when the
  // prompts differ in length (else the padding would be attended to).
  Expected<std::vector<std::vector<int64_t>>> GenerateBatch(
      std::span<const std::vector<int64_t>> prompts, int64_t max_new_tokens,
      bool stop_at_end = true);
  // The sequences the model's state holds (input_ids' fixed dim 0).
  int64_t batch() const { return batch_; }
  // Whether the state can hold a prompt of `prompt_size` tokens and every one of
  // `max_new_tokens` but the last (which is picked, never run), after what it holds;
  // Generate's first check, for callers that run Prefill and Step themselves.
  Status CheckRoom(int64_t prompt_size, int64_t max_new_tokens) const;
  // A new sequence: empties the state and starts the generator again from the seed.
  Status Reset();

  int64_t vocab() const { return vocab_; }
  int64_t length() const { return session_.state_length(); }
  int64_t capacity() const { return session_.state_capacity(); }
  const SamplerOptions& options() const { return options_; }
  Session& session() { return session_; }

 private:
  Decoder(Session& session, SamplerOptions options, int64_t vocab,
          std::unique_ptr<Session> sampler);
  // One run of the model with `ids` appended; the token from its last logits row. `what`
  // names the ids in errors ("prompt token").
  Expected<int64_t> Run(std::span<const int64_t> ids, std::string_view what);
  // One run of every row: `ids` holds pads.size() rows of `seq` ids, row r's first
  // pads[r] left padding; the token picked from each row's last logits row.
  Expected<std::vector<int64_t>> RunRows(std::span<const int64_t> ids, int64_t seq,
                                         std::span<const int64_t> pads, std::string_view what);

  Session& session_;
  SamplerOptions options_;
  int64_t vocab_;
  std::unique_ptr<Session> sampler_;
  uint64_t generator_;  // splitmix64 state
  int64_t batch_ = 1;
  std::string ids_name_ = "input_ids";  // the state's advance input
  struct Buffers;                       // the sampler's input tensors, reused every token
  std::unique_ptr<Buffers> buffers_;
};

}  // namespace sy
