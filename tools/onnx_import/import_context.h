// The state of one import and what an op mapping sees of it.
//
// The importer walks the ONNX graph in order. Each ONNX value is known either as a host
// constant (an initializer, a folded result, a frozen input) or as a value of the graph
// being built, or both once a constant has been materialised for a runtime op. A mapping
// reads its node's inputs and attributes through NodeContext and emits catalogue nodes;
// the output types come from the catalogue's own schemas (InferOutputTypes), so the
// importer never computes a shape the runtime would disagree with.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_functions.h"
#include "onnx_proto.h"

#include "switchyard/graph.h"
#include "switchyard/onnx_import.h"
#include "switchyard/status.h"
#include "switchyard/tensor.h"

namespace sy::onnx_import {

// A dim_param or value name as a size symbol: characters outside [A-Za-z0-9_.] become '_'.
std::string SymbolName(const std::string& text);

// One ONNX value as the importer knows it.
struct KnownValue {
  std::optional<Tensor> constant;  // set when the value is known at import time
  ValueId id = -1;                 // the graph value, once there is one
  TensorType type;                 // always set; for a graph with run-time sizes, at the
                                   // import's example sizes (docs/dynamic-shapes.md)
  bool is_graph_input = false;     // an ONNX graph input not (yet) frozen
  // A constant computed from sizes that are known only at run time (a Shape, and the
  // arithmetic on it): each element as an expression in the size symbols. Empty when
  // the constant does not depend on them.
  std::vector<DimExpr> dims;
  // A constant that depends on run-time sizes in a way `dims` cannot say (a float
  // computed from a size, a large folded tensor): no op may take it as static.
  bool sized_at_run_time = false;
  bool symbolic() const { return !dims.empty() || sized_at_run_time; }
};

class ImportState {
 public:
  ImportState(const ImportOptions& options, std::filesystem::path base_dir)
      : options_(options), base_dir_(std::move(base_dir)) {}

  Graph& graph() { return graph_; }
  const ImportOptions& options() const { return options_; }
  const std::filesystem::path& base_dir() const { return base_dir_; }
  int64_t opset = 0;

  const KnownValue* Find(const std::string& name) const;
  KnownValue* FindMutable(const std::string& name);
  void SetConstant(const std::string& name, Tensor value);
  // Binds `name` to graph value `id` (the type is the graph value's).
  void SetValue(const std::string& name, ValueId id);
  // Adds a graph input named `name`.
  void AddGraphInput(const std::string& name, const TensorType& type);

  // The graph value for `name`, materialising a constant when needed.
  Expected<ValueId> Materialize(const std::string& name);
  // A new graph constant holding `value` (named after `hint`).
  ValueId AddConstant(const Tensor& value, std::string_view hint);
  // A fresh graph value name derived from `hint`, unique in the graph.
  std::string UniqueName(std::string_view hint);
  // Adds a value of `type` named `name` (made unique).
  ValueId AddValue(std::string_view name, const TensorType& type);

  // Graphs with run-time sizes: the symbols the inputs declare, with the sizes this
  // import traces them at, and each symbolic graph input's dims.
  bool symbolic() const { return !symbols_.empty(); }
  const std::vector<DimSymbol>& symbols() const { return symbols_; }
  // The size a symbol traces at (declaring it on first use).
  int64_t DeclareSymbol(const std::string& name, int64_t example);
  // The size the next symbol declared traces at: ImportOptions::dim_examples, else small
  // distinct primes in order of declaration; other sizes, different for each symbol, in
  // the second trace (symbolic_sizes.h).
  int64_t ExampleSize(const std::string& name) const;
  // A data symbol (DimSymbol::value): the size in graph value `count`, named after `hint`
  // (made unique). Returns its name.
  std::string DeclareDataSymbol(const std::string& hint, ValueId count);
  bool second_trace = false;
  void SetInputDims(ValueId id, std::vector<DimExpr> dims) { input_dims_[id] = std::move(dims); }
  // A value's dims as expressions: a graph input's symbols, `dim(id, axis)` for a value
  // computed at run time, constants for a constant (or any value of a static import).
  std::vector<DimExpr> DimsOf(const std::string& name) const;
  // The same for graph value `id` (a value a mapping made itself, or a constant's).
  std::vector<DimExpr> DimsOfValue(ValueId id) const;
  void SetSymbolicConstant(const std::string& name, Tensor value, std::vector<DimExpr> dims,
                           bool sized_at_run_time);

  // Freezes an ONNX graph input into a constant from ImportOptions::input_values.
  // Returns false when no value was given for it.
  bool Freeze(const std::string& name);
  // Binds graph input `name` to the value ImportOptions gives for it, as a constant from
  // the start (it never becomes a graph input).
  void FreezeUpFront(const std::string& name, const Tensor& value);
  const std::vector<std::string>& frozen_inputs() const { return frozen_; }

  // The graph inputs each value depends on, so that a value needed at import time but
  // computed at run time can name the inputs whose values would make it foldable.
  void SetDependencies(const std::string& name, std::set<std::string> inputs) {
    dependencies_[name] = std::move(inputs);
  }
  const std::set<std::string>& Dependencies(const std::string& name) const;
  // Set by a failed StaticInput on a computed value: the graph inputs it depends on.
  std::set<std::string> needed_inputs;

  // The shapes the model declares for its outputs and value_info entries (each dim a
  // size, a dim_param name or unknown), for a mapping that must tell forms of an op
  // apart by what the model says its results are. Null when the model declares none.
  // The model outlives the import.
  void Declare(const onnx::ValueInfoProto& info);
  const onnx::TensorShapeProto* DeclaredShape(const std::string& name) const;

  // Binds `name` to what another value is (a body's input to the value given for it).
  void Bind(const std::string& name, KnownValue value) { values_[name] = std::move(value); }

  // Control-flow bodies (map_control_flow.cpp). The driver sets `import_body`, which
  // imports one instance of a body: its inputs bound to `inputs`, the names its outputs
  // are known by (in this state) returned in `outputs`; `origin` says where the body is,
  // for messages. The model outlives the import; `current_opsets` are those of the node
  // being imported.
  const onnx::ModelProto* model = nullptr;
  std::shared_ptr<const OpsetMap> current_opsets;
  std::function<Status(const onnx::GraphProto& body, const std::string& origin,
                       const std::vector<KnownValue>& inputs, std::vector<std::string>& outputs)>
      import_body;
  int body_depth = 0;         // bodies being imported, one inside another
  size_t body_instances = 0;  // bodies imported so far (each gets its own names)
  size_t body_nodes = 0;      // nodes imported from bodies so far

 private:
  const ImportOptions& options_;
  std::filesystem::path base_dir_;
  Graph graph_;
  std::map<std::string, KnownValue> values_;
  std::map<std::string, int> used_names_;
  std::vector<std::string> frozen_;
  std::map<std::string, std::set<std::string>> dependencies_;
  std::vector<DimSymbol> symbols_;
  std::map<ValueId, std::vector<DimExpr>> input_dims_;
  std::map<std::string, const onnx::TensorShapeProto*> declared_;
};

// What an op mapping sees: its node, its inputs and attributes, and how to emit nodes.
class NodeContext {
 public:
  // `since_version`: the version of the node's op in effect at `opset`, the version of
  // the node's domain it binds against (the model's, or a function body's own).
  // `origin` says where an expanded function's node came from (onnx_functions.h).
  NodeContext(ImportState& state, const onnx::NodeProto& node, size_t index,
              int64_t since_version = 0, int64_t opset = 0, std::string origin = "")
      : state_(state),
        node_(node),
        index_(index),
        since_version_(since_version),
        opset_(opset == 0 ? state.opset : opset),
        origin_(std::move(origin)) {}

  const onnx::NodeProto& node() const { return node_; }
  // The opset of the node's domain that the node binds against.
  int64_t opset() const { return opset_; }
  // The version of the node's op schema in effect (its since_version): what a mapping
  // reads to tell ONNX's versions of an op apart.
  int64_t since_version() const { return since_version_; }
  ImportState& state() { return state_; }
  // `Conv node 3 "conv1"`: how messages name the ONNX node.
  std::string Describe() const;

  // ---- inputs. An input is present when its name is non-empty.
  size_t num_inputs() const { return static_cast<size_t>(node_.input_size()); }
  bool HasInput(size_t i) const;
  const TensorType& InputType(size_t i) const;  // requires HasInput(i)
  bool IsConstant(size_t i) const;
  const Tensor* ConstantInput(size_t i) const;  // null unless constant
  // The graph value of input i (materialising a constant).
  Expected<ValueId> Input(size_t i);
  // The value of input i at import time; freezes a graph input when ImportOptions holds
  // its value. `what` names the input in the error ("shape", "k").
  Expected<Tensor> StaticInput(size_t i, std::string_view what);
  // A static integer list / scalar input (any integer dtype).
  Expected<std::vector<int64_t>> StaticInts(size_t i, std::string_view what);
  Expected<double> StaticScalar(size_t i, std::string_view what);
  // Graphs with run-time sizes: input i's elements as size expressions when they depend
  // on run-time sizes (else empty), and leave to read it statically (its example values)
  // for a mapping that then attaches the expressions with AttachAttrExpr.
  std::vector<DimExpr> SymbolicInts(size_t i);
  bool InputSymbolic(size_t i) const;
  // Lets a fold read every input at its example values (size arithmetic, whose result
  // then gets its expressions from symbolic_sizes.cpp).
  void AllowExampleValues() {
    for (size_t i = 0; i < num_inputs(); ++i) symbolic_ok_.insert(i);
  }
  // Makes attribute `name` of the node just emitted an expression (docs/dynamic-shapes.md):
  // its value is computed when the graph is specialised.
  void AttachAttrExpr(const std::string& name, std::vector<DimExpr> items, bool is_list = true);

  // ---- outputs. An output is wanted when its name is non-empty.
  size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
  bool OutputWanted(size_t i) const;
  void SetOutput(size_t i, ValueId id);
  void SetOutputConstant(size_t i, Tensor value);

  // ---- attributes.
  const onnx::AttributeProto* Attr(std::string_view name) const;
  int64_t AttrInt(std::string_view name, int64_t fallback) const;
  double AttrFloat(std::string_view name, double fallback) const;
  std::string AttrString(std::string_view name, std::string_view fallback) const;
  std::optional<std::vector<int64_t>> AttrInts(std::string_view name) const;
  std::optional<std::vector<double>> AttrFloats(std::string_view name) const;

  // ---- emitting catalogue nodes. Output types come from the op's schema. The nodes are
  // named after the ONNX node. Errors say which catalogue op rejected what.
  Expected<std::vector<ValueId>> Emit(std::string_view op, std::vector<ValueId> inputs,
                                      Attrs attrs = {}, int num_outputs = 1);
  Expected<ValueId> Emit1(std::string_view op, std::vector<ValueId> inputs, Attrs attrs = {});
  // A scalar (or shape `shape`) constant of `dtype` filled with `value`.
  Expected<ValueId> Scalar(DType dtype, double value, Shape shape = {});
  const TensorType& TypeOf(ValueId id) const;

  // Failures: record the kind of problem and return the Status. The driver prefixes
  // messages with Describe().
  Status Fail(ImportProblem problem, std::string message);
  Status UnsupportedOp(std::string message) {
    return Fail(ImportProblem::kUnsupportedOp, std::move(message));
  }
  Status Invalid(std::string message) {
    return Fail(ImportProblem::kInvalidModel, std::move(message));
  }
  // The kind of the first failure recorded (kNone when none was).
  ImportProblem problem() const { return problem_; }

 private:
  ImportState& state_;
  const onnx::NodeProto& node_;
  size_t index_;
  int64_t since_version_;
  int64_t opset_;
  std::string origin_;
  ImportProblem problem_ = ImportProblem::kNone;
  std::set<size_t> symbolic_ok_;  // inputs a mapping reads with SymbolicInts
};

// Maps one node: emits catalogue nodes and binds every wanted output.
using OpMapper = Status (*)(NodeContext& ctx);

}  // namespace sy::onnx_import
