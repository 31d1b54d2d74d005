// What a decoder's model folder says about decoding, beside its ONNX file: Hugging Face's
// generation_config.json (`eos_token_id`) and onnxruntime-genai's genai_config.json
// (`model.eos_token_id`, `model.decoder.head_size`). `switchyard import --decoder-state`
// reads them (docs/decoding.md, "What the model folder says").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy::onnx_import {

struct DecoderFolderConfig {
  // The end-of-sequence ids (either file's eos_token_id: an id or a list), in order, once
  // each; empty when neither file gives one.
  std::vector<int64_t> end_tokens;
  // genai_config.json's model.decoder.head_size: the size of the past inputs' last dim,
  // which its builder names `kv_cache_dim`; 0 when absent.
  int64_t head_size = 0;
  // The files read, for messages ("generation_config.json, genai_config.json").
  std::vector<std::string> files;
};

// Reads the two files where they exist in `folder` (neither is an error). A file that is
// not JSON, larger than 1 MiB, or whose fields have another type (an eos_token_id that
// is not a non-negative integer or a list of them) is an error naming the file and field.
Expected<DecoderFolderConfig> ReadDecoderFolderConfig(const std::filesystem::path& folder);

// Makes `ids` the end tokens of `graph` (a decoder with state) after checking them
// against its vocabulary (output "logits"' last dim, where fixed): an id outside it is an
// InvalidArgument naming `from` (where the ids came from), since a decoder could never
// pick it, and `graph` is left as it was.
Status SetEndTokens(Graph& graph, const std::vector<int64_t>& ids, const std::string& from);

// Copies `folder`/tokenizer.json (Hugging Face tokenizers' file, which Python's
// generate(text=...) reads) to `stem`.tokenizer.json beside an imported model, where it
// is a regular file of at most 256 MiB; returns the copy's path, or an empty path when
// the folder has none.
Expected<std::filesystem::path> CopyTokenizer(const std::filesystem::path& folder,
                                              const std::filesystem::path& stem);

}  // namespace sy::onnx_import
