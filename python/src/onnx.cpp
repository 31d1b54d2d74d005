// switchyard._native.import_onnx: `switchyard import` for Python, where the importer is
// built (libprotobuf-dev, protobuf-compiler); elsewhere it raises UnsupportedError saying so.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arrays.h"
#include "errors.h"

#ifdef SY_PYTHON_ONNX_IMPORT
#include "host_options.h"
#include "switchyard/decoder_config.h"
#include "switchyard/decoder_state.h"
#include "switchyard/onnx_import.h"
#include "switchyard/plan.h"
#endif

namespace sy::python {
namespace nb = nanobind;
namespace {

nb::dict ImportOnnx(const std::string& path, const std::string& stem,
                    const std::map<std::string, std::vector<int64_t>>& input_shapes,
                    const std::map<std::string, int64_t>& dim_examples,
                    const std::map<std::string, std::string>& dim_exprs,
                    const std::map<std::string, nb::object>& input_values, int64_t decoder_state,
                    int64_t decoder_batch, const std::string& max_fold_bytes) {
#ifndef SY_PYTHON_ONNX_IMPORT
  (void)path, (void)stem, (void)input_shapes, (void)dim_examples, (void)dim_exprs;
  (void)input_values;
  (void)decoder_state, (void)decoder_batch, (void)max_fold_bytes;
  Throw(
      Unsupported("this build has no ONNX importer (it needs libprotobuf-dev and "
                  "protobuf-compiler; tools/install-deps.sh)"));
#else
  onnx_import::ImportOptions options;
  Expected<uint64_t> bytes = ParseByteSize(max_fold_bytes);
  if (!bytes.ok()) Throw(InvalidArgument("max_fold_bytes: " + bytes.status().message()));
  options.max_fold_bytes = *bytes;
  for (const auto& [name, dims] : input_shapes) {
    for (int64_t d : dims) {
      if (d < 0) Throw(InvalidArgument("input_shapes " + name + ": dims must be non-negative"));
    }
    options.input_shapes[name] = Shape(dims.begin(), dims.end());
  }
  for (const auto& [symbol, size] : dim_examples) {
    if (size < 1)
      Throw(InvalidArgument("dim_examples " + symbol + ": expected a size of 1 or more"));
    options.dim_examples[symbol] = size;
  }
  options.dim_exprs = dim_exprs;
  for (const auto& [name, value] : input_values) {
    // Copied: the importer may keep the value as a constant of the saved model.
    Tensor view = TensorFromPython(value, name, std::nullopt).tensor;
    options.input_values[name] = ValueOrThrow(view.Clone());
  }
  if (decoder_state < 0) Throw(InvalidArgument("decoder_state must be a capacity above 0"));
  // As `switchyard import --decoder-state`: the mask's length is past + seq, and the
  // model's folder gives its end tokens and (genai models) the past inputs' head size.
  options.decoder_with_past = decoder_state > 0;
  std::vector<int64_t> end_tokens;
  if (options.decoder_with_past) {
    onnx_import::DecoderFolderConfig folder = ValueOrThrow(
        onnx_import::ReadDecoderFolderConfig(std::filesystem::path(path).parent_path()));
    options.past_head_size = folder.head_size;
    end_tokens = folder.end_tokens;
  }
  Status failed;
  onnx_import::ImportResult result;
  std::string saved;
  {
    nb::gil_scoped_release released;
    Expected<onnx_import::ImportResult> imported = onnx_import::ImportOnnxFile(path, options);
    if (!imported.ok()) {
      failed = imported.status();
    } else {
      result = std::move(*imported);
      if (decoder_state > 0) {
        DecoderStateOptions state_options;
        state_options.capacity = decoder_state;
        state_options.batch = decoder_batch;
        failed = AddDecoderState(result.graph, state_options);
      }
      if (decoder_state > 0 && failed.ok()) {
        failed = onnx_import::SetEndTokens(result.graph, end_tokens, "the model folder");
      }
      if (failed.ok()) {
        Expected<std::filesystem::path> model_file = host_options::SaveModelAt(result.graph, stem);
        if (model_file.ok() && decoder_state > 0) {
          Expected<std::filesystem::path> copied =
              onnx_import::CopyTokenizer(std::filesystem::path(path).parent_path(),
                                         std::filesystem::path(*model_file).replace_extension());
          if (!copied.ok()) failed = copied.status();
        }
        if (model_file.ok()) {
          saved = model_file->string();
        } else {
          failed = model_file.status();
        }
      }
    }
  }
  ThrowIfError(failed);
  // The summary `switchyard import --json` prints.
  const Graph& graph = result.graph;
  const auto types = [&graph](const std::vector<ValueId>& ids) {
    nb::list out;
    for (ValueId id : ids) {
      nb::list shape;
      for (int64_t d : graph.values[id].type.shape) shape.append(d);
      nb::dict t;
      t["name"] = graph.values[id].name;
      t["dtype"] = std::string(DTypeName(graph.values[id].type.dtype));
      t["shape"] = shape;
      out.append(t);
    }
    return out;
  };
  nb::dict summary;
  summary["model"] = saved;
  summary["opset"] = result.opset;
  summary["onnx_nodes"] = result.onnx_nodes;
  summary["folded_nodes"] = result.folded_nodes;
  summary["nodes"] = graph.nodes.size();
  summary["constants"] = graph.constants.size();
  summary["weight_bytes"] = graph.ConstantBytes();
  summary["inputs"] = types(graph.inputs);
  summary["outputs"] = types(graph.outputs);
  summary["frozen_inputs"] = result.frozen_inputs;
  return summary;
#endif
}

}  // namespace

void BindOnnx(nb::module_& m) {
  m.def("import_onnx", &ImportOnnx, nb::arg("path"), nb::arg("stem"), nb::arg("input_shapes"),
        nb::arg("dim_examples"), nb::arg("dim_exprs"), nb::arg("input_values"),
        nb::arg("decoder_state"), nb::arg("decoder_batch"), nb::arg("max_fold_bytes"));
}

}  // namespace sy::python
