// libFuzzer target: arbitrary bytes as an ONNX model (protobuf), imported.
//
// ImportOnnxBytes must either reject the input with an error (and a problem class) or
// return a graph that validates; never crash, read outside the input, or allocate without
// bound (import-time folds are held to 1 MiB here, and libFuzzer's -rss_limit_mb catches
// the rest). External data is looked up in an empty folder.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "switchyard/graph.h"
#include "switchyard/model_io.h"
#include "switchyard/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path empty_dir = [] {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "sy_fuzz_onnx_empty";
    std::filesystem::create_directories(dir);
    return dir;
  }();
  sy::onnx_import::ImportOptions options;
  options.max_fold_bytes = 1 << 20;
  sy::onnx_import::ImportProblem problem = sy::onnx_import::ImportProblem::kNone;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  sy::Expected<sy::onnx_import::ImportResult> result =
      sy::onnx_import::ImportOnnxBytes(bytes, empty_dir, options, &problem);
  if (result.ok() == (problem != sy::onnx_import::ImportProblem::kNone)) std::abort();
  if (result.ok() && !sy::ValidateGraphTypes(result->graph).ok()) std::abort();
  return 0;
}
