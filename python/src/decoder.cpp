// switchyard._native.generate: `switchyard generate` for Python, on the core's Decoder
// (switchyard/decoder.h) as the CLI's generate_command.cpp uses it: the same checks in the
// same order, the same messages, the same tokens for a seed. It runs with the GIL released
// and the session's mutex held (the decoder borrows the session for the call only).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "session.h"
#include "switchyard/decoder.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

using Clock = std::chrono::steady_clock;

struct Generated {
  std::vector<int64_t> tokens;
  std::string device;
  double ttft_ms = 0, decode_s = 0;
  bool ended = false;  // stopped at an end token
};

Expected<Generated> Generate(Session& session, const PluginHost& host, const std::string& model,
                             const std::vector<int64_t>& prompt, int64_t max_new,
                             const SamplerOptions& options, bool stop_at_end) {
  SY_RETURN_IF_ERROR(CheckSamplerOptions(options));
  if (!session.has_state()) {
    return InvalidArgument(model +
                           " keeps no decoding state (docs/decoding.md): generate needs a model "
                           "whose key and value caches the session keeps between runs");
  }
  // The sampler on the CPU whatever the model's device, as the CLI's: the logits arrive on
  // the host.
  SY_ASSIGN_OR_RETURN(const Device* cpu, host.FindDevice("cpu"));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Decoder> decoder, Decoder::Create(session, *cpu, options));
  for (int64_t id : prompt) {
    if (id < 0 || id >= decoder->vocab()) {
      return InvalidArgument("prompt token " + std::to_string(id) +
                             " is outside the vocabulary (0 to " +
                             std::to_string(decoder->vocab() - 1) + ")");
    }
  }
  const int64_t needed = static_cast<int64_t>(prompt.size()) + max_new - 1;
  if (needed > session.state_capacity()) {
    return InvalidArgument("the prompt's " + std::to_string(prompt.size()) + " tokens and " +
                           std::to_string(max_new) + " new ones need " + std::to_string(needed) +
                           " positions, but the model's state holds " +
                           std::to_string(session.state_capacity()));
  }
  // A new sequence each call (the CLI's session starts empty).
  SY_RETURN_IF_ERROR(decoder->Reset());
  Generated out;
  const Clock::time_point start = Clock::now();
  SY_ASSIGN_OR_RETURN(int64_t first, decoder->Prefill(prompt));
  out.tokens.push_back(first);
  const Clock::time_point first_at = Clock::now();
  while (static_cast<int64_t>(out.tokens.size()) < max_new &&
         !(stop_at_end && decoder->IsEndToken(out.tokens.back()))) {
    SY_ASSIGN_OR_RETURN(int64_t next, decoder->Step(out.tokens.back()));
    out.tokens.push_back(next);
  }
  out.ended = stop_at_end && decoder->IsEndToken(out.tokens.back());
  out.ttft_ms = std::chrono::duration<double, std::milli>(first_at - start).count();
  out.decode_s = std::chrono::duration<double>(Clock::now() - first_at).count();
  out.device = session.device().Spec();
  return out;
}

SamplerOptions MakeOptions(const std::string& method, double temperature, int64_t top_k,
                           double top_p, double min_p, uint64_t seed) {
  SamplerOptions options;
  options.method = method;
  options.temperature = temperature;
  options.top_k = top_k;
  options.top_p = top_p;
  options.min_p = min_p;
  options.seed = seed;
  return options;
}

nb::tuple GenerateForPython(PySession& s, const std::vector<int64_t>& prompt, int64_t max_new,
                            const std::string& method, double temperature, int64_t top_k,
                            double top_p, double min_p, uint64_t seed, bool ignore_eos) {
  if (prompt.empty()) Throw(InvalidArgument("prompt is empty (expected token ids: [1, 2, 3])"));
  if (max_new < 1 || max_new > 1000000) {
    Throw(InvalidArgument("max_new_tokens " + std::to_string(max_new) + ": expected 1 to 1000000"));
  }
  const SamplerOptions options = MakeOptions(method, temperature, top_k, top_p, min_p, seed);
  const PluginHost& host = s.host();  // with the GIL: it reads a Python object
  Expected<Generated> done = s.Locked([&](Session& session) {
    return Generate(session, host, s.model(), prompt, max_new, options, !ignore_eos);
  });
  if (!done.ok()) Throw(done.status());
  nb::dict stats;
  const double prompt_rate = static_cast<double>(prompt.size()) / (done->ttft_ms / 1000.0);
  const size_t n = done->tokens.size();
  stats["tokens"] = done->tokens;
  stats["prompt_tokens"] = prompt.size();
  stats["device"] = done->device;
  stats["time_to_first_token_ms"] = done->ttft_ms;
  stats["prompt_tokens_per_second"] = prompt_rate;
  stats["decode_tokens_per_second"] =
      n > 1 && done->decode_s > 0 ? static_cast<double>(n - 1) / done->decode_s : 0.0;
  stats["stopped"] = done->ended ? "end_token" : "max_new_tokens";
  return nb::make_tuple(done->tokens, stats);
}

// Several prompts at once on a model imported with --decoder-batch (Decoder::GenerateBatch,
// as the CLI's repeated --prompt): (each prompt's tokens, stats).
nb::tuple GenerateBatchForPython(PySession& s, const std::vector<std::vector<int64_t>>& prompts,
                                 int64_t max_new, const std::string& method, double temperature,
                                 int64_t top_k, double top_p, double min_p, uint64_t seed,
                                 bool ignore_eos) {
  if (max_new < 1 || max_new > 1000000) {
    Throw(InvalidArgument("max_new_tokens " + std::to_string(max_new) + ": expected 1 to 1000000"));
  }
  const SamplerOptions options = MakeOptions(method, temperature, top_k, top_p, min_p, seed);
  const PluginHost& host = s.host();
  std::string device;
  double seconds = 0;
  Expected<std::vector<std::vector<int64_t>>> rows = s.Locked([&](Session& session) {
    return [&]() -> Expected<std::vector<std::vector<int64_t>>> {
      SY_RETURN_IF_ERROR(CheckSamplerOptions(options));
      if (!session.has_state()) {
        return InvalidArgument(s.model() + " keeps no decoding state (docs/decoding.md)");
      }
      SY_ASSIGN_OR_RETURN(const Device* cpu, host.FindDevice("cpu"));
      SY_ASSIGN_OR_RETURN(std::unique_ptr<Decoder> decoder,
                          Decoder::Create(session, *cpu, options));
      SY_RETURN_IF_ERROR(decoder->Reset());
      const Clock::time_point start = Clock::now();
      auto out = decoder->GenerateBatch(prompts, max_new, !ignore_eos);
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
      device = session.device().Spec();
      return out;
    }();
  });
  if (!rows.ok()) Throw(rows.status());
  nb::dict stats;
  size_t total = 0;
  for (const auto& row : *rows) total += row.size();
  stats["sequences"] = *rows;
  stats["device"] = device;
  stats["seconds"] = seconds;
  stats["tokens_per_second"] = seconds > 0 ? static_cast<double>(total) / seconds : 0.0;
  return nb::make_tuple(*rows, stats);
}

// Session.stream: one token per call to next(), as `switchyard generate` prints them. The
// decoder borrows the session between calls (each call holds its mutex); the stream keeps
// the Python session alive.
class TokenStream {
 public:
  TokenStream(nb::object session, std::vector<int64_t> prompt, int64_t max_new,
              SamplerOptions options, bool ignore_eos)
      : owner_(std::move(session)),
        session_(nb::cast<PySession*>(owner_)),
        prompt_(std::move(prompt)),
        max_new_(max_new),
        options_(std::move(options)),
        stop_at_end_(!ignore_eos) {
    if (prompt_.empty()) Throw(InvalidArgument("prompt is empty (expected token ids: [1, 2, 3])"));
    if (max_new_ < 1 || max_new_ > 1000000) {
      Throw(InvalidArgument("max_new_tokens " + std::to_string(max_new_) +
                            ": expected 1 to 1000000"));
    }
    ThrowIfError(CheckSamplerOptions(options_));
  }

  // The next token, or None once max_new_tokens are out or an end token was (the last).
  nb::object Next() {
    if (done_) return nb::none();
    const PluginHost& host = session_->host();
    Expected<int64_t> token = session_->Locked([&](Session& session) -> Expected<int64_t> {
      if (decoder_ == nullptr) {
        if (!session.has_state()) {
          return InvalidArgument(session_->model() + " keeps no decoding state (docs/decoding.md)");
        }
        SY_ASSIGN_OR_RETURN(const Device* cpu, host.FindDevice("cpu"));
        SY_ASSIGN_OR_RETURN(decoder_, Decoder::Create(session, *cpu, options_));
        SY_RETURN_IF_ERROR(decoder_->Reset());
        SY_RETURN_IF_ERROR(decoder_->CheckRoom(static_cast<int64_t>(prompt_.size()), max_new_));
        return decoder_->Prefill(prompt_);
      }
      return decoder_->Step(last_);
    });
    if (!token.ok()) {
      done_ = true;
      Throw(token.status());
    }
    last_ = *token;
    ++count_;
    done_ = count_ >= max_new_ || (stop_at_end_ && decoder_->IsEndToken(last_));
    return nb::int_(last_);
  }

 private:
  nb::object owner_;
  PySession* session_;
  std::vector<int64_t> prompt_;
  int64_t max_new_;
  SamplerOptions options_;
  bool stop_at_end_;
  std::unique_ptr<Decoder> decoder_;
  int64_t last_ = 0, count_ = 0;
  bool done_ = false;
};

}  // namespace

void BindDecoder(nb::module_& m) {
  nb::class_<TokenStream>(m, "TokenStream")
      .def(
          "__init__",
          [](TokenStream* self, nb::object session, std::vector<int64_t> prompt, int64_t max_new,
             const std::string& method, double temperature, int64_t top_k, double top_p,
             double min_p, uint64_t seed, bool ignore_eos) {
            new (self) TokenStream(std::move(session), std::move(prompt), max_new,
                                   MakeOptions(method, temperature, top_k, top_p, min_p, seed),
                                   ignore_eos);
          },
          nb::arg("session"), nb::arg("prompt"), nb::arg("max_new_tokens"), nb::arg("method"),
          nb::arg("temperature"), nb::arg("top_k"), nb::arg("top_p"), nb::arg("min_p"),
          nb::arg("seed"), nb::arg("ignore_eos"))
      .def("next", &TokenStream::Next, "The next token, or None when the stream has ended.");
  m.def("generate_batch", &GenerateBatchForPython, nb::arg("session"), nb::arg("prompts"),
        nb::arg("max_new_tokens"), nb::arg("method"), nb::arg("temperature"), nb::arg("top_k"),
        nb::arg("top_p"), nb::arg("min_p"), nb::arg("seed"), nb::arg("ignore_eos"),
        "`switchyard generate` with several --prompt: (each prompt's tokens, stats).");
  m.def("generate", &GenerateForPython, nb::arg("session"), nb::arg("prompt"),
        nb::arg("max_new_tokens"), nb::arg("method"), nb::arg("temperature"), nb::arg("top_k"),
        nb::arg("top_p"), nb::arg("min_p"), nb::arg("seed"), nb::arg("ignore_eos"),
        "`switchyard generate` on the session: (tokens, the CLI's --json figures).");
}

}  // namespace sy::python
