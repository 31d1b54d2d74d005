// switchyard._native.convert: `switchyard convert` for Python (docs/format.md, "Single-file
// models"): loads a model in either encoding with both passes and writes it as OUTPUT
// (OUTPUT.symodel: one file; otherwise OUTPUT.json + OUTPUT.safetensors).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "errors.h"
#include "host_options.h"
#include "switchyard/model_io.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

std::string Convert(const std::string& model, const std::string& output) {
  Graph graph = ValueOrThrow(LoadModel(model));
  return ValueOrThrow(host_options::SaveModelAt(graph, output)).string();
}

}  // namespace

void BindConvert(nb::module_& m) {
  m.def("convert", &Convert, nb::arg("model"), nb::arg("output"));
}

}  // namespace sy::python
