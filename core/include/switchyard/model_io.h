// Loading and saving models in rml-graph v1: <stem>.json plus <stem>.safetensors, or one
// <stem>.symodel file holding the binary graph section and the weights (docs/format.md,
// "Single-file models"). Both encodings load into the same Graph through the same checks.
//
// Loading validates in the spec's two passes. Pass 1 (ParseGraphJson) checks structure:
// well-formed JSON, format and version, ids in range, every value defined exactly once
// and before it is read, constants matching their values, attributes well-typed JSON.
// Pass 2 (ValidateGraphTypes) checks every node against its op's schema and requires
// each inferred output type to equal the recorded one. Every error names the file, then
// the node (index, op, name) or value (id, name), then what was expected.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "switchyard/graph.h"
#include "switchyard/safetensors.h"
#include "switchyard/status.h"

namespace sy {

// JSON documents larger than this are refused before parsing.
inline constexpr uint64_t kMaxGraphJsonBytes = 256ull << 20;
// Nesting deeper than this is a parse error (graphs need depth 5).
inline constexpr int kMaxGraphJsonDepth = 32;

// Pass 1. `weights` may be null when the graph has no stored constants; constants that
// name a tensor then fail with a clear error. Errors are not prefixed with a file name.
Expected<Graph> ParseGraphJson(std::string_view json, const SafetensorsFile* weights);

// Pass 2. Normalises each node's attributes (defaults filled in) as a side effect.
Status ValidateGraphTypes(Graph& graph);

// The single-file model's extension.
inline constexpr std::string_view kSingleFileExtension = ".symodel";
// Binary graph sections larger than this are refused (as graph JSON is).
inline constexpr uint64_t kMaxGraphSectionBytes = 256ull << 20;

// Resolves a model argument to its files: "m.symodel" is a single-file model; "m",
// "m.json" or "m.safetensors" the JSON model m.json with m.safetensors, except that "m"
// with no m.json beside an m.symodel is the single file. A folder "dir/m/" holding m.json
// (or else m.symodel) stands for the model dir/m/m.
struct ModelPaths {
  std::filesystem::path json;
  std::filesystem::path safetensors;
  std::filesystem::path single_file;  // set for a single-file model; json is then unused

  bool is_single_file() const { return !single_file.empty(); }
  // The file that names the model in messages: the single file, or the JSON.
  const std::filesystem::path& file() const { return is_single_file() ? single_file : json; }
};
ModelPaths ResolveModelPaths(const std::filesystem::path& model);

// Pass 1 on files, of either encoding; errors start with the JSON or single file's path. The
// safetensors file is opened only when it exists (and is then required to be well-formed). The
// format layer (core/src/format/) knows no op: this is all it does.
Expected<Graph> ReadModel(const std::filesystem::path& model);

// ReadModel, then pass 2; errors start with the model file's path. Defined with pass 2
// (core/src/ops/validate_types.cpp), above the format layer.
Expected<Graph> LoadModel(const std::filesystem::path& model);

// The graph as rml-graph v1 JSON (2-space indented). Constants with a tensor_name are
// written as references; the rest inline (which fails for NaN or infinity, which JSON
// cannot hold: give such a constant a tensor_name).
Expected<std::string> SerializeGraphJson(const Graph& graph);

// Writes <stem>.json and, when any constant has a tensor_name, <stem>.safetensors; or, for
// a stem ending in .symodel, that one file.
Status SaveModel(const Graph& graph, const std::filesystem::path& stem);

// The single-file model: pass 1 on its bytes (constants are views onto `bytes`, which
// `owner` keeps alive; errors name byte offsets), reading one from disk (mapped, so the
// weights are never read or copied), and writing one (atomically, weights streamed from
// where they are). EncodeSingleFileModel gives the bytes WriteSingleFileModel writes.
Expected<Graph> ParseSingleFileModel(std::span<const std::byte> bytes,
                                     std::shared_ptr<const void> owner);
Expected<Graph> ReadSingleFileModel(const std::filesystem::path& path);
Status WriteSingleFileModel(const Graph& graph, const std::filesystem::path& path);
Expected<std::string> EncodeSingleFileModel(const Graph& graph);

}  // namespace sy
