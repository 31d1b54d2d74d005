// ReadDecoderFolderConfig (switchyard/decoder_config.h).
#include "switchyard/decoder_config.h"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>

namespace sy::onnx_import {
namespace {

namespace bj = boost::json;

constexpr uintmax_t kMaxConfigBytes = uintmax_t{1} << 20;

// The parsed file, or null when it does not exist.
Expected<std::optional<bj::value>> ReadJsonFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<bj::value>();
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || !std::filesystem::is_regular_file(path, ec)) {
    return IoError(path.string() + ": not a readable regular file");
  }
  if (size > kMaxConfigBytes) {
    return InvalidArgument(path.string() + ": " + std::to_string(size) +
                           " bytes (expected a configuration of at most 1 MiB)");
  }
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) return IoError(path.string() + ": cannot read it");
  bj::error_code parse_error;
  bj::value value = bj::parse(text.str(), parse_error);
  if (parse_error) {
    return InvalidArgument(path.string() + ": not JSON (" + parse_error.message() + ")");
  }
  return std::optional<bj::value>(std::move(value));
}

// An eos_token_id: an id, a list of ids, or null.
Status AddEndTokens(const bj::value& eos, const std::string& where, std::vector<int64_t>& out) {
  const auto add = [&](const bj::value& id) -> Status {
    if (!id.is_int64() || id.as_int64() < 0) {
      return InvalidArgument(where + " is " + bj::serialize(eos) +
                             " (expected a token id >= 0 or a list of them)");
    }
    if (std::find(out.begin(), out.end(), id.as_int64()) == out.end()) {
      out.push_back(id.as_int64());
    }
    return Status::Ok();
  };
  if (eos.is_null()) return Status::Ok();
  if (const bj::array* ids = eos.if_array()) {
    if (ids->size() > 1024) return InvalidArgument(where + " lists more than 1024 ids");
    for (const bj::value& id : *ids) SY_RETURN_IF_ERROR(add(id));
    return Status::Ok();
  }
  return add(eos);
}

const bj::value* Member(const bj::value& v, std::string_view key) {
  const bj::object* object = v.if_object();
  return object == nullptr ? nullptr : object->if_contains(key);
}

}  // namespace

Expected<DecoderFolderConfig> ReadDecoderFolderConfig(const std::filesystem::path& folder) {
  DecoderFolderConfig config;
  const std::filesystem::path dir = folder.empty() ? std::filesystem::path(".") : folder;
  SY_ASSIGN_OR_RETURN(std::optional<bj::value> generation,
                      ReadJsonFile(dir / "generation_config.json"));
  if (generation) {
    config.files.push_back("generation_config.json");
    if (const bj::value* eos = Member(*generation, "eos_token_id")) {
      SY_RETURN_IF_ERROR(AddEndTokens(
          *eos, (dir / "generation_config.json").string() + ": eos_token_id", config.end_tokens));
    }
  }
  SY_ASSIGN_OR_RETURN(std::optional<bj::value> genai, ReadJsonFile(dir / "genai_config.json"));
  if (genai) {
    config.files.push_back("genai_config.json");
    const std::string where = (dir / "genai_config.json").string() + ": model.";
    const bj::value* model = Member(*genai, "model");
    if (const bj::value* eos = model ? Member(*model, "eos_token_id") : nullptr) {
      SY_RETURN_IF_ERROR(AddEndTokens(*eos, where + "eos_token_id", config.end_tokens));
    }
    const bj::value* decoder = model ? Member(*model, "decoder") : nullptr;
    if (const bj::value* head = decoder ? Member(*decoder, "head_size") : nullptr) {
      if (!head->is_int64() || head->as_int64() < 1 || head->as_int64() > 65536) {
        return InvalidArgument(where + "decoder.head_size is " + bj::serialize(*head) +
                               " (expected a size of 1 to 65536)");
      }
      config.head_size = head->as_int64();
    }
  }
  return config;
}

Status SetEndTokens(Graph& graph, const std::vector<int64_t>& ids, const std::string& from) {
  for (ValueId id : graph.outputs) {
    const Value& v = graph.values[id];
    if (v.name != "logits" || v.type.shape.empty() || v.type.shape.back() < 1) continue;
    const int64_t vocab = v.type.shape.back();
    for (int64_t token : ids) {
      if (token >= vocab) {
        return InvalidArgument("end token " + std::to_string(token) + " (from " + from +
                               ") is outside the model's vocabulary of " + std::to_string(vocab) +
                               " (the last dim of logits); give the right ones with --end-tokens");
      }
    }
  }
  graph.state.end_tokens = ids;
  return Status::Ok();
}

Expected<std::filesystem::path> CopyTokenizer(const std::filesystem::path& folder,
                                              const std::filesystem::path& stem) {
  const std::filesystem::path from =
      (folder.empty() ? std::filesystem::path(".") : folder) / "tokenizer.json";
  std::error_code ec;
  if (!std::filesystem::exists(from, ec)) return std::filesystem::path();
  if (!std::filesystem::is_regular_file(from, ec) ||
      std::filesystem::file_size(from, ec) > (uintmax_t{256} << 20) || ec) {
    return InvalidArgument(from.string() + ": not a regular file of at most 256 MiB");
  }
  std::filesystem::path to = stem;
  to += ".tokenizer.json";
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec)
    return IoError("cannot copy " + from.string() + " to " + to.string() + ": " + ec.message());
  return to;
}

}  // namespace sy::onnx_import
