// Model files on disk: resolving the two paths of a model, loading with both validation
// passes, and saving.
#include "switchyard/model_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace sy {
namespace {

Expected<std::string> ReadTextFile(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return NotFound("cannot open: no such file");
  }
  if (std::filesystem::is_directory(status))
    return InvalidArgument("is a directory, expected a file");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return IoError("cannot read its size: " + ec.message());
  if (size > kMaxGraphJsonBytes) {
    return ResourceExhausted("is " + std::to_string(size) + " bytes, over the limit of " +
                             std::to_string(kMaxGraphJsonBytes) +
                             " for graph JSON (store large constants in safetensors)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(std::string("cannot open: ") + std::strerror(errno));
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size)) return IoError("short read");
  return text;
}

// Writes `bytes` to a temporary file beside `path`, then renames it into place, so that a
// failure never leaves a half-written model.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError(path.string() + ": cannot create: " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return IoError(path.string() + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return IoError(path.string() + ": cannot rename into place: " + ec.message());
  }
  return Status::Ok();
}

}  // namespace

ModelPaths ResolveModelPaths(const std::filesystem::path& model) {
  std::filesystem::path stem = model;
  // A folder named like its model (examples/mlp/ holding mlp.json) stands for that model.
  std::error_code ec;
  if (std::filesystem::is_directory(model, ec)) {
    std::filesystem::path dir = model;
    if (dir.filename().empty()) dir = dir.parent_path();  // "examples/mlp/"
    const std::filesystem::path inner = dir / dir.filename();
    if (!dir.filename().empty() &&
        (std::filesystem::exists(inner.string() + ".json", ec) ||
         std::filesystem::exists(inner.string() + std::string(kSingleFileExtension), ec))) {
      stem = inner;
    }
  }
  ModelPaths paths;
  const std::string ext = stem.extension().string();
  if (ext == kSingleFileExtension) {
    paths.single_file = stem;
    return paths;
  }
  const bool names_json = ext == ".json" || ext == ".safetensors";
  if (names_json) stem.replace_extension();
  paths.json = stem;
  paths.json += ".json";
  paths.safetensors = stem;
  paths.safetensors += ".safetensors";
  if (!names_json) {
    // "m" (or the folder m/) with no m.json: the single file m.symodel, when there is one.
    std::filesystem::path single = stem;
    single += kSingleFileExtension;
    if (!std::filesystem::exists(paths.json, ec) && std::filesystem::is_regular_file(single, ec)) {
      paths.single_file = single;
    }
  }
  return paths;
}

Expected<Graph> ReadModel(const std::filesystem::path& model) {
  const ModelPaths paths = ResolveModelPaths(model);
  if (paths.is_single_file()) return ReadSingleFileModel(paths.single_file);
  const std::string where = paths.json.string();
  Expected<std::string> text = ReadTextFile(paths.json);
  if (!text.ok()) return text.status().WithContext(where);

  std::shared_ptr<const SafetensorsFile> weights;
  std::error_code ec;
  if (std::filesystem::exists(paths.safetensors, ec)) {
    Expected<std::shared_ptr<const SafetensorsFile>> opened =
        SafetensorsFile::Open(paths.safetensors);
    if (!opened.ok()) return opened.status();  // already names the safetensors file
    weights = std::move(*opened);
  }
  Expected<Graph> graph = ParseGraphJson(*text, weights.get());
  if (!graph.ok()) return graph.status().WithContext(where);
  return graph;
}

Status SaveModel(const Graph& graph, const std::filesystem::path& stem) {
  if (stem.extension() == kSingleFileExtension) return WriteSingleFileModel(graph, stem);
  const ModelPaths paths = ResolveModelPaths(stem);
  SY_ASSIGN_OR_RETURN(std::string json, SerializeGraphJson(graph));
  std::vector<std::pair<std::string, Tensor>> stored;
  std::unordered_set<std::string> names;
  for (const Constant& c : graph.constants) {
    if (c.tensor_name.empty()) continue;
    if (!names.insert(c.tensor_name).second) {
      return InvalidArgument("two constants are stored as tensor \"" + c.tensor_name +
                             "\" (expected unique tensor names)");
    }
    stored.emplace_back(c.tensor_name, c.data);
  }
  if (!stored.empty()) {
    std::map<std::string, std::string> metadata{{"format", "rml-graph"}};
    SY_RETURN_IF_ERROR(WriteSafetensors(paths.safetensors, stored, metadata));
  } else {
    // A stale weights file beside the new JSON would be opened (and checked) on load.
    std::error_code ignored;
    std::filesystem::remove(paths.safetensors, ignored);
  }
  return WriteFileAtomically(paths.json, json);
}

}  // namespace sy
