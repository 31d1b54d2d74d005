// ONNX import: converts an ONNX model (opset 7 and later) to an rml-graph v1 graph with
// static shapes.
//
// Initializers become constants. Shape computations (Shape, Constant, ConstantOfShape,
// Gather/Slice/Concat/arithmetic on shapes, Squeeze, Unsqueeze, Flatten, Identity,
// Dropout in inference, ...) are folded to constants on the host, so that every op the
// catalogue takes attributes for (Reshape's shape, Slice's starts, TopK's k, ...) gets
// them statically. Every other ONNX op maps onto catalogue ops, decomposed where the
// catalogue has no single op for it (docs/onnx-import.md lists each mapping).
//
// Nothing here throws; every failure is a Status whose message names the ONNX node (op
// type and name) or value at fault. A model with ops the importer cannot map fails with
// one message listing all of them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"
#include "switchyard/tensor.h"

namespace sy::onnx_import {

struct ImportOptions {
  // Static shapes for graph inputs whose ONNX type has symbolic or missing dims
  // (`--input-shape batch_input=1,3,224,224`). Overrides the model's own dims.
  // Inputs not named keep their symbolic dims: the graph gets run-time sizes
  // (docs/dynamic-shapes.md).
  std::map<std::string, Shape> input_shapes;
  // The size each symbol is traced at during import, and recorded as its example
  // (`--dim-example seq=128`); symbols not named take small distinct primes. Choose sizes
  // the model accepts (a convolution needs an image at least as large as its kernel).
  std::map<std::string, int64_t> dim_examples;
  // Input dims named NAME whose size is an expression of other input dims' names
  // (`--dim-expr total=past+seq`): recorded as that expression, which each run checks,
  // instead of a symbol of their own. An attention mask spanning the past and the new
  // tokens is one.
  std::map<std::string, std::string> dim_exprs;
  // The model is a decoder with past (`import --decoder-state`): an attention_mask
  // [batch, L] whose L names no other input's dim is taken as L = past + seq, the past
  // inputs' length plus input_ids' dim 1 (optimum's and transformers' exports name it
  // on its own).
  bool decoder_with_past = false;
  // The decoder's inputs by name (optimum's and transformers' convention): the token ids
  // [batch, seq] and the attention mask [batch, past + seq].
  std::string decoder_ids_input = "input_ids";
  std::string decoder_mask_input = "attention_mask";
  // With decoder_with_past: the size of the past inputs' last dim (head_dim) where the
  // model leaves it a symbol of its own (onnxruntime-genai's builder names it
  // `kv_cache_dim`; genai_config.json's head_size, decoder_config.h); 0: left symbolic.
  int64_t past_head_size = 0;
  // Known values of graph inputs. An input listed here takes its shape from the value
  // (unless input_shapes names it too); when an op needs the input at import time (the
  // `shape` of a Reshape, the `k` of a TopK) the value is frozen into a constant and the
  // input leaves the graph's inputs. Inputs not needed that way stay inputs.
  std::map<std::string, Tensor> input_values;
  // False: a value in input_values does not fix its input's shape; symbolic dims stay
  // run-time sizes unless the value is needed at import time and frozen (how the ONNX
  // node tests exercise run-time sizes: onnx_node_tests --dynamic).
  bool values_give_shapes = true;
  // The largest constant the importer computes by folding a node (a ConstantOfShape or
  // Expand of constant inputs); a fold past it fails naming the node and the size, before
  // anything is allocated (`switchyard import --max-fold-bytes`).
  uint64_t max_fold_bytes = uint64_t{1} << 30;
  // Called before each ONNX node is imported (its index, the node count, its op type),
  // so that a tool can show progress on large models.
  std::function<void(size_t node, size_t nodes, const std::string& op)> on_node;
};

// Why an import failed, for tools that sort failures (the ONNX node test runner).
enum class ImportProblem {
  kNone,
  kBadFile,          // not readable, not protobuf, truncated, missing external data
  kInvalidModel,     // well-formed protobuf whose graph is inconsistent
  kUnsupportedOp,    // an ONNX op (or a variant of one) with no mapping onto the catalogue
  kUnsupportedType,  // a dtype rml-graph v1 lacks (string, u16, complex, ...), sequences, optionals
  kTrainingOnly,     // training-mode ops (ai.onnx.preview.training, Dropout in training)
  kNeedsValue,       // an op needs a value at import time that is only known at run time
  kInternal,         // the mapping produced a graph that does not validate: a bug here
};
std::string_view ImportProblemName(ImportProblem problem);

struct ImportResult {
  Graph graph;        // validated (ValidateGraphTypes has passed)
  int64_t opset = 0;  // of the default ONNX domain
  // ONNX graph inputs frozen into constants from ImportOptions::input_values.
  std::vector<std::string> frozen_inputs;
  size_t onnx_nodes = 0;               // nodes in the ONNX graph, after expanding functions
  size_t expanded_function_calls = 0;  // calls to the model's own functions expanded
  size_t expanded_op_bodies = 0;       // ops expanded from the function body ONNX defines
  size_t folded_nodes = 0;             // of them, evaluated at import time
  // QDQ units (DequantizeLinear -> Conv -> QuantizeLinear) imported as one qlinear_conv
  // (docs/onnx-import.md, "QDQ folding").
  size_t qdq_folded_convs = 0;
};

// Imports the model at `path` (external data is resolved relative to its folder). On
// failure `problem` (when not null) says which kind of failure it was.
Expected<ImportResult> ImportOnnxFile(const std::filesystem::path& path,
                                      const ImportOptions& options = {},
                                      ImportProblem* problem = nullptr);

// Imports a serialized ModelProto held in memory; external data is resolved relative to
// `base_dir`.
Expected<ImportResult> ImportOnnxBytes(const std::string& bytes,
                                       const std::filesystem::path& base_dir,
                                       const ImportOptions& options = {},
                                       ImportProblem* problem = nullptr);

// Reads a serialized TensorProto file (the ONNX test data's input_0.pb, output_0.pb).
// `name` receives the tensor's name when not null. ONNX's test data up to 1.13 stores
// bfloat16 tensors as UINT16 bit patterns; `uint16_holds_bf16` reads them as bf16.
Expected<Tensor> ReadTensorProtoFile(const std::filesystem::path& path, std::string* name = nullptr,
                                     bool uint16_holds_bf16 = false);

// The names of the graph inputs of an ONNX model (initializers excluded) and of its
// outputs, in order: how test data sets (input_N.pb, output_N.pb) line up with them.
struct OnnxSignature {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  // Whether each declares BFLOAT16: what a UINT16 test data file then holds (ONNX's test
  // data up to 1.13 stores bfloat16 as UINT16 bit patterns).
  std::vector<bool> input_is_bf16;
  std::vector<bool> output_is_bf16;
};
Expected<OnnxSignature> ReadOnnxSignature(const std::filesystem::path& path);

}  // namespace sy::onnx_import
