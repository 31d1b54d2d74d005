// The import driver: reads the ModelProto, binds initializers and graph inputs, walks the
// nodes in order (folding what is known at import time, mapping the rest through the
// table in op_mapping.h), names the outputs, and validates the result against the
// catalogue.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "import_context.h"
#include "model_checks.h"
#include "onnx_tensor.h"
#include "op_mapping.h"
#include "qdq_folding.h"
#include "subgraph_names.h"
#include "switchyard/model_io.h"
#include "switchyard/onnx_import.h"
#include "switchyard/shape.h"
#include "switchyard/specialize.h"
#include "symbolic_sizes.h"

namespace sy::onnx_import {
namespace {

// ONNX files are protobuf, which cannot exceed 2 GiB; larger weights live in external data.
constexpr uint64_t kMaxModelBytes = (uint64_t{2} << 30) - 1;

Expected<std::string> ReadWholeFile(const std::filesystem::path& path, ImportProblem* problem) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    if (problem) *problem = ImportProblem::kBadFile;
    return NotFound(path.string() + ": no such file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    if (problem) *problem = ImportProblem::kBadFile;
    return InvalidArgument(path.string() + ": not a regular file");
  }
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxModelBytes) {
    if (problem) *problem = ImportProblem::kBadFile;
    return InvalidModel(path.string() +
                        ": larger than protobuf's 2 GiB limit (keep large "
                        "weights in ONNX external data)");
  }
  std::ifstream file(path, std::ios::binary);
  std::string bytes(size, '\0');
  if (!file || !file.read(bytes.data(), static_cast<std::streamsize>(size))) {
    if (problem) *problem = ImportProblem::kBadFile;
    return IoError(path.string() + ": cannot read the file");
  }
  return bytes;
}

Expected<onnx::ModelProto> ParseModel(const std::string& bytes, ImportProblem* problem) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes)) {
    if (problem) *problem = ImportProblem::kBadFile;
    // protobuf does not say why; its nesting limit (100 messages deep, which keeps a hostile
    // file from exhausting the stack) is the one cause a well-formed file can meet.
    return InvalidModel(
        "not an ONNX model: the bytes do not parse as an ONNX ModelProto (truncated, not "
        "protobuf, or graphs nested more than 100 deep: subgraphs of If/Loop/Scan within "
        "each other, which the parser refuses)");
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    if (problem) *problem = ImportProblem::kBadFile;
    return InvalidModel("not an ONNX model: it parses as protobuf but has no ir_version or graph");
  }
  return model;
}

// Values whose sizes a data symbol decides (read a sliced count, or read such a value):
// their dims are recorded as "?", since the two traces may agree on them by accident (a
// count clamped to a small capacity).
void MarkDataSizedValues(Graph& g) {
  std::set<std::string> data_symbols;
  for (const DimSymbol& s : g.symbols) {
    if (s.from_data()) data_symbols.insert(s.name);
  }
  if (data_symbols.empty()) return;
  std::vector<bool> sized(g.values.size(), false);
  for (const Node& node : g.nodes) {
    bool by_data = false;
    for (ValueId id : node.inputs) by_data = by_data || sized[id];
    for (const auto& [name, expr] : node.attr_exprs) {
      std::set<std::string> used;
      for (const DimExpr& e : expr.items) e.CollectSymbols(used);
      for (const std::string& u : used) by_data = by_data || data_symbols.count(u) != 0;
    }
    if (!by_data) continue;
    for (ValueId id : node.outputs) {
      sized[id] = true;
      Value& v = g.values[id];
      v.symbolic_shape.assign(v.type.shape.size(), DimExpr::Unknown());
      std::fill(v.type.shape.begin(), v.type.shape.end(), -1);
    }
  }
}

// The type of a graph input: its ONNX type, with dims from the options; a dim the model
// leaves symbolic becomes a size symbol (`dims` says which) traced at an example size.
// `dim_exprs`: symbols that are expressions of other input dims' symbols (ImportOptions::
// dim_exprs and, for decoders with past, the attention mask's length), parsed.
Expected<TensorType> InputType(const onnx::ValueInfoProto& info, const ImportOptions& options,
                               const std::map<std::string, DimExpr>& dim_exprs, ImportState& state,
                               std::vector<DimExpr>& dims, ImportProblem& problem) {
  const std::string where = "graph input '" + info.name() + "'";
  if (!info.type().has_tensor_type()) {
    problem = ImportProblem::kUnsupportedType;
    const auto& t = info.type();
    const char* kind = t.has_sequence_type()        ? "a sequence"
                       : t.has_optional_type()      ? "an optional"
                       : t.has_map_type()           ? "a map"
                       : t.has_sparse_tensor_type() ? "a sparse tensor"
                                                    : "not a tensor";
    return Unsupported(where + " is " + kind + ", which rml-graph v1 has no type for");
  }
  const auto& tensor = info.type().tensor_type();
  const std::optional<DType> dtype = DTypeFromOnnx(tensor.elem_type());
  if (!dtype) {
    problem = ImportProblem::kUnsupportedType;
    return Unsupported(where + " has element type " + OnnxTypeName(tensor.elem_type()) +
                       NoDTypeReason(tensor.elem_type()));
  }
  TensorType type;
  type.dtype = *dtype;
  if (auto it = options.input_shapes.find(info.name()); it != options.input_shapes.end()) {
    type.shape = it->second;
    return type;
  }
  if (auto it = options.input_values.find(info.name());
      it != options.input_values.end() &&
      (options.values_give_shapes || !info.type().tensor_type().has_shape())) {
    if (it->second.dtype() != *dtype) {
      problem = ImportProblem::kInvalidModel;
      return InvalidArgument("the value given for " + where + " is " +
                             std::string(DTypeName(it->second.dtype())) + " but the input is " +
                             std::string(DTypeName(*dtype)));
    }
    type.shape = it->second.shape();
    return type;
  }
  if (!tensor.has_shape()) {
    problem = ImportProblem::kNeedsValue;
    return InvalidArgument(where + " has no shape in the model; give it one with --input-shape " +
                           info.name() + "=D0,D1,...");
  }
  for (int d = 0; d < tensor.shape().dim_size(); ++d) {
    const auto& dim = tensor.shape().dim(d);
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      type.shape.push_back(dim.dim_value());
      dims.emplace_back(dim.dim_value());
      continue;
    }
    // A size known only at run time (docs/dynamic-shapes.md): named after the model's
    // dim_param, or after the input and axis when the model gives no name. The import
    // traces it at an example size.
    const std::string symbol = SymbolName(dim.has_dim_param() && !dim.dim_param().empty()
                                              ? dim.dim_param()
                                              : info.name() + "_" + std::to_string(d));
    if (auto expr = dim_exprs.find(symbol); expr != dim_exprs.end()) {
      // Traced at the value its symbols' examples give it; each run checks it.
      std::set<std::string> used;
      expr->second.CollectSymbols(used);
      SymbolBinding examples;
      for (const std::string& name : used) {
        examples[name] = state.DeclareSymbol(name, state.ExampleSize(name));
      }
      Expected<int64_t> example = expr->second.Evaluate({&examples, nullptr});
      if (!example.ok() || *example < 0) {
        problem = ImportProblem::kInvalidModel;
        return InvalidArgument(where + " dim " + std::to_string(d) + " (" + symbol + " = " +
                               expr->second.ToString() + "): " +
                               (example.ok()
                                    ? "negative at the example sizes " + BindingToString(examples)
                                    : example.status().message()));
      }
      type.shape.push_back(*example);
      dims.push_back(expr->second);
      continue;
    }
    type.shape.push_back(state.DeclareSymbol(symbol, state.ExampleSize(symbol)));
    dims.push_back(DimExpr::Symbol(symbol));
  }
  return type;
}

// The symbol an input dim is named by (as InputType names it), or "" for a fixed dim.
std::string InputDimSymbol(const onnx::ValueInfoProto& info, int d) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return "";
  const auto& shape = info.type().tensor_type().shape();
  if (d < 0 || d >= shape.dim_size()) return "";
  const auto& dim = shape.dim(d);
  if (dim.has_dim_value() && dim.dim_value() >= 0) return "";
  return SymbolName(dim.has_dim_param() && !dim.dim_param().empty()
                        ? dim.dim_param()
                        : info.name() + "_" + std::to_string(d));
}

// ImportOptions::dim_exprs parsed, plus, for a decoder with past, its attention mask's
// sizes (the inputs named by decoder_mask_input and decoder_ids_input): an
// `attention_mask` [B, L] whose L names no other input's dim spans the past
// and the new tokens, L = past + seq (the past inputs' length and input_ids' dim 1), and
// a B of its own is input_ids' batch.
Expected<std::map<std::string, DimExpr>> InputDimExprs(
    const onnx::GraphProto& graph, const std::set<std::string>& initializer_names,
    const ImportOptions& options) {
  std::map<std::string, int> uses;  // symbol -> input dims named by it
  const onnx::ValueInfoProto* mask = nullptr;
  std::string seq, past, batch;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (input.name() == options.decoder_ids_input) batch = InputDimSymbol(input, 0);
  }
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initializer_names.count(input.name()) != 0) continue;
    if (options.input_shapes.count(input.name()) != 0) continue;  // fixed by the caller
    const int rank = input.type().has_tensor_type() && input.type().tensor_type().has_shape()
                         ? input.type().tensor_type().shape().dim_size()
                         : 0;
    for (int d = 0; d < rank; ++d) {
      if (std::string s = InputDimSymbol(input, d); !s.empty()) ++uses[s];
    }
    if (input.name() == options.decoder_mask_input && rank == 2) mask = &input;
    if (input.name() == options.decoder_ids_input && rank == 2) seq = InputDimSymbol(input, 1);
    // transformers' and optimum's names: past_key_values.<i>.key, past_key_<i>, ...
    // [batch, heads, past, head_dim]: the batch where input_ids has it.
    if (past.empty() && rank == 4 && input.name().find("past") != std::string::npos &&
        InputDimSymbol(input, 0) == batch) {
      past = InputDimSymbol(input, 2);
    }
  }
  std::map<std::string, DimExpr> exprs;
  for (const auto& [name, text] : options.dim_exprs) {
    const std::string what = "--dim-expr " + name + "=" + text;
    Expected<DimExpr> expr = DimExpr::Parse(text);
    if (!expr.ok()) return InvalidArgument(what + ": " + expr.status().message());
    std::set<int32_t> reads;
    expr->CollectValues(reads);
    std::set<std::string> used;
    expr->CollectSymbols(used);
    if (!reads.empty() || expr->is_unknown() || used.count(SymbolName(name)) != 0) {
      return InvalidArgument(what + ": expected an expression of other dims' names");
    }
    if (uses.count(SymbolName(name)) == 0) {
      return InvalidArgument(what + ": no input dim of the model is named " + name);
    }
    for (const std::string& symbol : used) {
      if (uses.count(symbol) == 0 || options.dim_exprs.count(symbol) != 0) {
        return InvalidArgument(what + ": no input dim is named " + symbol +
                               " (expected names of input dims the model leaves symbolic)");
      }
    }
    exprs.emplace(SymbolName(name), *expr);
  }
  if (!options.decoder_with_past) return exprs;
  // The past inputs' head_dim where it is a symbol of its own and the caller knows it.
  if (options.past_head_size > 0) {
    for (const onnx::ValueInfoProto& input : graph.input()) {
      const int rank = input.type().has_tensor_type() && input.type().tensor_type().has_shape()
                           ? input.type().tensor_type().shape().dim_size()
                           : 0;
      if (rank != 4 || input.name().find("past") == std::string::npos) continue;
      const std::string head = InputDimSymbol(input, 3);
      if (!head.empty() && head != batch && head != seq && head != past && exprs.count(head) == 0) {
        exprs.emplace(head, DimExpr(options.past_head_size));
      }
    }
  }
  if (mask == nullptr || seq.empty() || past.empty() || seq == past) return exprs;
  // The mask's batch is input_ids' batch, when the exporter named it apart (the dynamo
  // exporter names every input dim on its own).
  const std::string mask_batch = InputDimSymbol(*mask, 0);
  if (!batch.empty() && !mask_batch.empty() && mask_batch != batch && mask_batch != seq &&
      mask_batch != past && uses[mask_batch] == 1 && exprs.count(mask_batch) == 0) {
    exprs.emplace(mask_batch, DimExpr::Symbol(batch));
  }
  const std::string length = InputDimSymbol(*mask, 1);
  if (length.empty() || length == seq || length == past || uses[length] != 1 ||
      exprs.count(length) != 0) {
    return exprs;
  }
  exprs.emplace(length, DimExpr::Symbol(past) + DimExpr::Symbol(seq));
  return exprs;
}

// A graph checked by specialising it at its symbols' examples (as the importer traced
// it) and nothing more.
Status ValidateAtExamples(const Graph& graph) {
  Expected<SymbolBinding> examples = ExampleBinding(graph);
  if (!examples.ok()) return Status::Ok();  // each specialisation checks its own sizes
  return Specialize(graph, *examples).status();
}

// Imports one node (of the graph, of an expanded function body or of a control-flow
// body): checks its reads, then folds it or maps it. Failures set `problem`.
Status ImportNode(ImportState& state, const FlatNode& flat_node, ImportResult& result,
                  ImportProblem& problem) {
  const onnx::NodeProto& node = flat_node.node;
  state.current_opsets = flat_node.opsets;
  const OnnxSchema* schema = SchemaOf(flat_node);
  NodeContext ctx(state, node, static_cast<size_t>(flat_node.index), schema->since_version,
                  OpsetOf(flat_node, node.domain()), flat_node.origin);
  for (const std::string& in : node.input()) {
    if (!in.empty() && state.Find(in) == nullptr) {
      return Fail(problem, ImportProblem::kInvalidModel,
                  InvalidModel(ctx.Describe() + ": reads value '" + in +
                               "', which no "
                               "initializer, graph input or earlier node defines (nodes must "
                               "be in topological order)"));
    }
  }
  // CheckAllOpsKnown made sure that the op has a schema and a mapping of its version.
  const OpMapping& mapping =
      *Mappings().Find(MappingKey(node.domain(), node.op_type()), schema->since_version);
  bool all_constant = true;
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    if (ctx.HasInput(k) && !ctx.IsConstant(k)) all_constant = false;
  }
  Status status;
  bool handled = false;
  if (state.symbolic()) {
    // Sizes known only at run time (symbolic_sizes.h); a node with a run-time size as
    // input that ImportSizeNode leaves is mapped to run-time ops, never folded.
    Expected<bool> sized = ImportSizeNode(ctx, mapping);
    if (!sized.ok()) status = sized.status();
    handled = sized.ok() && *sized;
    for (size_t k = 0; k < ctx.num_inputs(); ++k) {
      if (ctx.InputSymbolic(k)) all_constant = false;
    }
  }
  if (handled || !status.ok()) {
    // done, or failed
  } else if (mapping.fold && (!mapping.fold_needs_values || all_constant)) {
    status = mapping.fold(ctx);
    if (status.ok()) ++result.folded_nodes;
  } else if (mapping.map) {
    status = mapping.map(ctx);
  } else {
    // A fold-only op (ConstantOfShape) on graph inputs: every input must be static.
    for (size_t k = 0; k < ctx.num_inputs() && status.ok(); ++k) {
      if (ctx.HasInput(k)) status = ctx.StaticInput(k, "input " + std::to_string(k)).status();
    }
    if (status.ok()) status = mapping.fold(ctx);
    if (status.ok()) ++result.folded_nodes;
  }
  if (!status.ok()) {
    // A failure inside a control-flow body has set `problem` already.
    ImportProblem p = ctx.problem() != ImportProblem::kNone    ? ctx.problem()
                      : problem != ImportProblem::kNone        ? problem
                      : status.code() == StatusCode::kInternal ? ImportProblem::kInternal
                                                               : ImportProblem::kInvalidModel;
    return Fail(problem, p, status.WithContext(ctx.Describe()));
  }
  std::set<std::string> dependencies;
  for (const std::string& in : node.input()) {
    if (!in.empty()) {
      const std::set<std::string>& d = state.Dependencies(in);
      dependencies.insert(d.begin(), d.end());
    }
  }
  for (int k = 0; k < node.output_size(); ++k) {
    if (!node.output(k).empty()) state.SetDependencies(node.output(k), dependencies);
    if (!node.output(k).empty() && state.Find(node.output(k)) == nullptr) {
      return Fail(problem, ImportProblem::kInternal,
                  Internal(ctx.Describe() + ": the mapping did not produce output '" +
                           node.output(k) + "'"));
    }
  }
  return Status::Ok();
}

// Imports one instance of a control-flow body (map_control_flow.cpp): binds its inputs
// to `inputs` under names of their own (ScopedBody), expands and checks its nodes as the
// graph's are, imports them and reads its outputs. The body's nodes bind against the
// opsets of the node that holds it.
Status ImportBody(ImportState& state, const onnx::GraphProto& body, const std::string& origin,
                  const std::vector<KnownValue>& inputs, std::vector<std::string>& outputs,
                  ImportResult& result, ImportProblem& problem) {
  constexpr int kMaxBodyDepth = 16;
  constexpr size_t kMaxBodyNodes = 1'000'000;  // summed over every instance
  if (state.body_depth >= kMaxBodyDepth) {
    return InvalidModel("control-flow bodies nest deeper than " + std::to_string(kMaxBodyDepth) +
                        origin);
  }
  if (body.input_size() != static_cast<int>(inputs.size())) {
    return InvalidModel("the body" + origin + " takes " + std::to_string(body.input_size()) +
                        " inputs, but " + std::to_string(inputs.size()) + " are given to it");
  }
  const std::shared_ptr<const OpsetMap> opsets = state.current_opsets;
  const onnx::GraphProto scoped =
      ScopedBody(body, "body" + std::to_string(state.body_instances++) + "/");
  onnx::ModelProto holder;  // the body as a model, for the checks the graph gets
  holder.set_ir_version(state.model->ir_version());
  for (const auto& [domain, version] : *opsets) {
    auto* o = holder.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }
  *holder.mutable_functions() = state.model->functions();
  *holder.mutable_graph() = scoped;
  Expected<FlatGraph> flat = FlattenAndCheck(holder, problem);
  if (!flat.ok()) return flat.status().WithContext("in the body" + origin);
  state.body_nodes += flat->nodes.size();
  if (state.body_nodes > kMaxBodyNodes) {
    problem = ImportProblem::kUnsupportedOp;
    return Unsupported("control-flow bodies" + origin + " unroll to more than " +
                       std::to_string(kMaxBodyNodes) + " nodes");
  }
  for (int k = 0; k < scoped.input_size(); ++k) {
    state.Bind(scoped.input(k).name(), inputs[static_cast<size_t>(k)]);
  }
  for (const onnx::TensorProto& init : scoped.initializer()) {
    Expected<Tensor> t = TensorFromProto(init, state.base_dir());
    if (!t.ok()) return t.status().WithContext("initializer of the body" + origin);
    state.SetConstant(init.name(), std::move(t).value());
  }
  ++state.body_depth;
  Status status;
  for (FlatNode& node : flat->nodes) {
    node.origin += origin;
    status = ImportNode(state, node, result, problem);
    if (!status.ok()) break;
  }
  --state.body_depth;
  state.current_opsets = opsets;
  SY_RETURN_IF_ERROR(status);
  outputs.clear();
  for (const onnx::ValueInfoProto& out : scoped.output()) {
    if (state.Find(out.name()) == nullptr) {
      problem = ImportProblem::kInvalidModel;
      return InvalidModel("the body" + origin + " never produces its output '" + out.name() + "'");
    }
    outputs.push_back(out.name());
  }
  return Status::Ok();
}

// One import attempt. Graph inputs in `freeze_up_front` are constants from the start.

Expected<ImportResult> ImportOnce(const onnx::ModelProto& model,
                                  const std::filesystem::path& base_dir,
                                  const ImportOptions& options,
                                  const std::set<std::string>& freeze_up_front, bool second_trace,
                                  std::set<std::string>& needed_inputs, ImportProblem& problem) {
  const auto fail = [&](ImportProblem p, Status s) -> Status {
    problem = p;
    return s;
  };
  ImportState state(options, base_dir);
  state.second_trace = second_trace;
  for (const auto& opset : model.opset_import()) {
    if (IsDefaultDomain(opset.domain())) state.opset = opset.version();
  }
  const onnx::GraphProto& graph = model.graph();
  for (const onnx::ValueInfoProto& info : graph.output()) state.Declare(info);
  for (const onnx::ValueInfoProto& info : graph.value_info()) state.Declare(info);
  Expected<FlatGraph> flat = FlattenAndCheck(model, problem);
  if (!flat.ok()) return flat.status();
  if (graph.sparse_initializer_size() > 0) {
    return fail(ImportProblem::kUnsupportedType,
                Unsupported("the model has sparse initializers, which the importer does not read"));
  }

  state.graph().producer =
      "switchyard import (ONNX " +
      (model.producer_name().empty() ? std::string("model") : model.producer_name()) + ", opset " +
      std::to_string(state.opset) + ")";
  std::set<std::string> initializer_names;
  for (const onnx::TensorProto& init : graph.initializer()) {
    Expected<Tensor> t = TensorFromProto(init, base_dir);
    if (!t.ok()) {
      return fail(t.status().code() == StatusCode::kUnsupported ? ImportProblem::kUnsupportedType
                  : t.status().code() == StatusCode::kIoError   ? ImportProblem::kBadFile
                                                                : ImportProblem::kInvalidModel,
                  t.status().WithContext("initializer '" + init.name() + "'"));
    }
    state.SetConstant(init.name(), std::move(t).value());
    initializer_names.insert(init.name());
  }
  Expected<std::map<std::string, DimExpr>> dim_exprs =
      InputDimExprs(graph, initializer_names, options);
  if (!dim_exprs.ok()) return fail(ImportProblem::kInvalidModel, dim_exprs.status());
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initializer_names.count(input.name()) != 0) continue;  // IR < 4 lists weights as inputs
    ImportProblem p = ImportProblem::kInvalidModel;
    std::vector<DimExpr> dims;
    Expected<TensorType> type = InputType(input, options, *dim_exprs, state, dims, p);
    if (!type.ok()) return fail(p, type.status());
    if (freeze_up_front.count(input.name()) != 0) {
      state.FreezeUpFront(input.name(), options.input_values.at(input.name()));
      continue;
    }
    state.AddGraphInput(input.name(), *type);
    state.SetInputDims(state.Find(input.name())->id, std::move(dims));
    state.SetDependencies(input.name(), {input.name()});
  }

  ImportResult result;
  result.opset = state.opset;
  {
    std::set<std::string> outputs;
    for (const onnx::ValueInfoProto& output : graph.output()) outputs.insert(output.name());
    result.qdq_folded_convs =
        FoldQdqConvs(flat->nodes, outputs, [&](const std::string& name) -> const Tensor* {
          if (initializer_names.count(name) == 0) return nullptr;
          const KnownValue* known = state.Find(name);
          return known != nullptr && known->constant ? &*known->constant : nullptr;
        });
  }
  result.onnx_nodes = flat->nodes.size();
  result.expanded_function_calls = flat->local_calls;
  result.expanded_op_bodies = flat->schema_bodies;
  const size_t total = flat->nodes.size();
  state.model = &model;
  state.import_body = [&](const onnx::GraphProto& body, const std::string& origin,
                          const std::vector<KnownValue>& inputs,
                          std::vector<std::string>& outputs) -> Status {
    return ImportBody(state, body, origin, inputs, outputs, result, problem);
  };
  for (size_t i = 0; i < total; ++i) {
    const FlatNode& flat_node = flat->nodes[i];
    if (options.on_node) {
      options.on_node(i, total, flat_node.node.op_type());
    }
    Status status = ImportNode(state, flat_node, result, problem);
    if (!status.ok()) {
      needed_inputs = state.needed_inputs;
      return status;
    }
  }

  // Outputs, named as in the ONNX graph. A value that is a graph input or already another
  // output is copied through a same-shape reshape so that each output has its own name.
  Graph& g = state.graph();
  std::set<ValueId> taken;
  for (const onnx::ValueInfoProto& output : graph.output()) {
    const KnownValue* known = state.Find(output.name());
    if (known == nullptr) {
      return fail(ImportProblem::kInvalidModel,
                  InvalidModel("graph output '" + output.name() + "' is never produced"));
    }
    Expected<ValueId> id = state.Materialize(output.name());
    if (!id.ok()) return fail(ImportProblem::kInvalidModel, id.status());
    ValueId out = *id;
    const bool is_input = std::find(g.inputs.begin(), g.inputs.end(), out) != g.inputs.end();
    if (is_input || taken.count(out) != 0) {
      Node copy;
      copy.op = "reshape";
      copy.inputs = {out};
      const Shape& shape = g.values[out].type.shape;
      // With run-time sizes, 0s: each dim copied from the input, whatever its size.
      copy.attrs.Set("shape", state.symbolic() ? std::vector<int64_t>(shape.size(), 0)
                                               : std::vector<int64_t>(shape.begin(), shape.end()));
      copy.name = output.name() + "/copy";
      const ValueId fresh = state.AddValue(output.name() + "/copy", g.values[out].type);
      copy.outputs = {fresh};
      g.nodes.push_back(std::move(copy));
      out = fresh;
    }
    taken.insert(out);
    // Give the output its ONNX name, moving aside a value that holds it already.
    for (Value& v : g.values) {
      if (v.name == output.name() && &v != &g.values[out]) v.name = state.UniqueName(output.name());
    }
    g.values[out].name = output.name();
    g.outputs.push_back(out);
  }
  result.frozen_inputs = state.frozen_inputs();
  if (state.symbolic()) {
    g.symbols = state.symbols();
    for (ValueId id : g.inputs) {
      Value& value = g.values[id];
      value.symbolic_shape = state.DimsOf(value.name);
      for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
        if (!value.symbolic_shape[d].is_const()) value.type.shape[d] = -1;
      }
      bool any = false;
      for (const DimExpr& e : value.symbolic_shape) any |= !e.is_const();
      if (!any) value.symbolic_shape.clear();
    }
    MarkDataSizedValues(g);
  }
  // A trace with run-time sizes records its values' dims at the traced sizes (MergeTraces
  // decides what they are at other sizes), so it is checked at those sizes only; the
  // merged graph is checked as a whole (Import).
  const bool trace = state.symbolic() && g.IsSymbolic();
  if (Status s = trace ? ValidateAtExamples(g) : ValidateGraphTypes(g); !s.ok()) {
    return fail(
        ImportProblem::kInternal,
        Internal("the imported graph does not validate (a bug in the importer): " + s.message()));
  }
  result.graph = std::move(g);
  return result;
}

// Imports; when a value needed at import time is computed at run time from graph inputs
// whose values the options hold, imports again with those inputs frozen up front, so
// that the computation folds.
Expected<ImportResult> Import(const onnx::ModelProto& model, const std::filesystem::path& base_dir,
                              const ImportOptions& options, ImportProblem& problem) {
  std::set<std::string> freeze;
  for (int attempt = 0;; ++attempt) {
    std::set<std::string> needed;
    Expected<ImportResult> result =
        ImportOnce(model, base_dir, options, freeze, false, needed, problem);
    if (result.ok() && !result->graph.symbols.empty()) {
      // Run-time sizes: trace again at other sizes, and keep the first trace only when
      // the second is the same graph at those sizes (symbolic_sizes.h).
      std::set<std::string> unused;
      Expected<ImportResult> second =
          ImportOnce(model, base_dir, options, freeze, true, unused, problem);
      if (!second.ok()) {
        return second.status().WithContext(
            "traced a second time at other sizes, to check what depends on them");
      }
      Status merged = MergeTraces(result->graph, second->graph);
      if (!merged.ok()) {
        problem = ImportProblem::kNeedsValue;
        return merged;
      }
      if (Status s = ValidateGraphTypes(result->graph); !s.ok()) {
        problem = ImportProblem::kInternal;
        return Internal("the imported graph does not validate (a bug in the importer): " +
                        s.message());
      }
      return result;
    }
    if (result.ok() || problem != ImportProblem::kNeedsValue || needed.empty() || attempt >= 8) {
      return result;
    }
    const size_t before = freeze.size();
    for (const std::string& name : needed) {
      if (options.input_values.count(name) == 0) return result;
      freeze.insert(name);
    }
    if (freeze.size() == before) return result;
  }
}

}  // namespace

std::string_view ImportProblemName(ImportProblem problem) {
  switch (problem) {
    case ImportProblem::kNone:
      return "none";
    case ImportProblem::kBadFile:
      return "bad file";
    case ImportProblem::kInvalidModel:
      return "invalid model";
    case ImportProblem::kUnsupportedOp:
      return "op outside the catalogue";
    case ImportProblem::kUnsupportedType:
      return "unsupported type";
    case ImportProblem::kTrainingOnly:
      return "training-only";
    case ImportProblem::kNeedsValue:
      return "needs a value at import time";
    case ImportProblem::kInternal:
      return "importer bug";
  }
  return "unknown";
}

Expected<ImportResult> ImportOnnxBytes(const std::string& bytes,
                                       const std::filesystem::path& base_dir,
                                       const ImportOptions& options, ImportProblem* problem) {
  ImportProblem p = ImportProblem::kNone;
  Expected<onnx::ModelProto> model = ParseModel(bytes, &p);
  Expected<ImportResult> result =
      model.ok() ? Import(*model, base_dir, options, p) : Expected<ImportResult>(model.status());
  if (problem) *problem = result.ok() ? ImportProblem::kNone : p;
  return result;
}

Expected<ImportResult> ImportOnnxFile(const std::filesystem::path& path,
                                      const ImportOptions& options, ImportProblem* problem) {
  ImportProblem p = ImportProblem::kNone;
  Expected<std::string> bytes = ReadWholeFile(path, &p);
  if (!bytes.ok()) {
    if (problem) *problem = p;
    return bytes.status();
  }
  Expected<ImportResult> result = ImportOnnxBytes(*bytes, path.parent_path(), options, problem);
  if (!result.ok()) return result.status().WithContext(path.string());
  return result;
}

Expected<Tensor> ReadTensorProtoFile(const std::filesystem::path& path, std::string* name,
                                     bool uint16_holds_bf16) {
  SY_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path, nullptr));
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return InvalidModel(path.string() + ": does not parse as an ONNX TensorProto");
  }
  if (name) *name = proto.name();
  if (uint16_holds_bf16 && proto.data_type() == onnx::TensorProto::UINT16) {
    proto.set_data_type(onnx::TensorProto::BFLOAT16);
  }
  Expected<Tensor> t = TensorFromProto(proto, path.parent_path());
  if (!t.ok()) return t.status().WithContext(path.string());
  return t;
}

Expected<OnnxSignature> ReadOnnxSignature(const std::filesystem::path& path) {
  SY_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path, nullptr));
  Expected<onnx::ModelProto> model = ParseModel(bytes, nullptr);
  if (!model.ok()) return model.status().WithContext(path.string());
  OnnxSignature sig;
  std::set<std::string> inits;
  for (const auto& init : model->graph().initializer()) inits.insert(init.name());
  const auto is_bf16 = [](const onnx::ValueInfoProto& v) {
    return v.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16;
  };
  for (const auto& in : model->graph().input()) {
    if (inits.count(in.name()) != 0) continue;
    sig.inputs.push_back(in.name());
    sig.input_is_bf16.push_back(is_bf16(in));
  }
  for (const auto& out : model->graph().output()) {
    sig.outputs.push_back(out.name());
    sig.output_is_bf16.push_back(is_bf16(out));
  }
  return sig;
}

}  // namespace sy::onnx_import
