// switchyard._native.quantize: `switchyard quantize` for Python (switchyard/quantize.h,
// docs/quantize.md): loads a model, quantizes its matmul and gemm weights, validates and
// saves the result, and returns what it did as a dict.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "errors.h"
#include "host_options.h"
#include "switchyard/model_io.h"
#include "switchyard/quantize.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

nb::dict Quantize(const std::string& model, const std::string& output, const std::string& weights,
                  int64_t block, bool symmetric) {
  QuantizeOptions options;
  if (weights == "int4") {
    options.bits = 4;
  } else if (weights == "int8") {
    options.bits = 8;
  } else {
    Throw(InvalidArgument("weights=" + weights + ": expected 'int4' or 'int8'"));
  }
  options.block_size = block;
  options.symmetric = symmetric;
  Graph graph = ValueOrThrow(LoadModel(model));
  const QuantizeReport report = ValueOrThrow(QuantizeMatmulWeights(graph, options));
  if (Status valid = ValidateGraphTypes(graph); !valid.ok()) {
    Throw(Internal("the quantized graph is not valid: " + valid.message()));
  }
  // OUTPUT.json (or OUTPUT.symodel), as import_onnx reports its model.
  const std::string saved = ValueOrThrow(host_options::SaveModelAt(graph, output)).string();
  nb::list layers, skipped;
  uint64_t before = 0, after = 0;
  for (const QuantizedLayer& l : report.quantized) {
    nb::dict d;
    d["node"] = graph.DescribeNode(l.node);
    d["k"] = l.k;
    d["n"] = l.n;
    d["relative_rms_error"] = l.relative_rms;
    d["max_abs_error"] = l.max_abs_error;
    layers.append(d);
    before += l.bytes_before;
    after += l.bytes_after;
  }
  for (const SkippedLayer& s : report.skipped) {
    nb::dict d;
    d["node"] = graph.DescribeNode(s.node);
    d["reason"] = s.reason;
    skipped.append(d);
  }
  nb::dict summary;
  summary["model"] = saved;
  summary["bits"] = options.bits;
  summary["block_size"] = options.block_size;
  summary["symmetric"] = options.symmetric;
  summary["quantized"] = layers;
  summary["skipped"] = skipped;
  summary["bytes_before"] = before;
  summary["bytes_after"] = after;
  return summary;
}

}  // namespace

void BindQuantize(nb::module_& m) {
  m.def("quantize", &Quantize, nb::arg("model"), nb::arg("output"), nb::arg("weights"),
        nb::arg("block"), nb::arg("symmetric"));
}

}  // namespace sy::python
