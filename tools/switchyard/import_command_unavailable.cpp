// `switchyard import` in a build without the ONNX importer (libprotobuf-dev and
// protobuf-compiler were not found when it was configured).
#include "cli.h"

namespace sy::cli {

int RunImport(const std::vector<std::string>& /*args*/) {
  PrintError(
      "import",
      "this build has no ONNX importer: libprotobuf-dev and protobuf-compiler were not found "
      "when it was configured (install them, e.g. with tools/install-deps.sh, and "
      "rebuild)");
  return kExitFailure;
}

}  // namespace sy::cli
