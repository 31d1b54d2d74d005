#include "import_context.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
#include "switchyard/op_schema.h"
#include "switchyard/shape.h"
#include "symbolic_sizes.h"

namespace sy::onnx_import {

// ---- ImportState

const KnownValue* ImportState::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

KnownValue* ImportState::FindMutable(const std::string& name) {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

void ImportState::SetConstant(const std::string& name, Tensor value) {
  KnownValue known;
  known.type = value.type();
  known.constant = std::move(value);
  values_[name] = std::move(known);
}

void ImportState::SetValue(const std::string& name, ValueId id) {
  KnownValue known;
  known.id = id;
  known.type = graph_.values[id].type;
  values_[name] = std::move(known);
}

void ImportState::AddGraphInput(const std::string& name, const TensorType& type) {
  const ValueId id = AddValue(name, type);
  graph_.inputs.push_back(id);
  KnownValue known;
  known.id = id;
  known.type = type;
  known.is_graph_input = true;
  values_[name] = std::move(known);
}

std::string ImportState::UniqueName(std::string_view hint) {
  std::string base(hint.empty() ? "v" : hint);
  int& count = used_names_[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  ++count;
  // A generated "x_1" may collide with a later ONNX name "x_1"; keep probing.
  while (count > 1 && used_names_.count(name) != 0 && used_names_[name] > 0) {
    name = base + "_" + std::to_string(count++);
  }
  if (name != base) used_names_[name] = 1;
  return name;
}

ValueId ImportState::AddValue(std::string_view name, const TensorType& type) {
  graph_.values.push_back(Value{UniqueName(name), type});
  return static_cast<ValueId>(graph_.values.size() - 1);
}

ValueId ImportState::AddConstant(const Tensor& value, std::string_view hint) {
  const ValueId id = AddValue(hint, value.type());
  Constant constant;
  constant.value = id;
  constant.data = value;
  // Small finite constants stay inline in the JSON; the rest go to the safetensors file
  // (JSON cannot hold NaN or infinity, and large inline arrays bloat the graph).
  bool inline_ok = value.element_count() <= 16;
  if (inline_ok && IsFloat(value.dtype())) {
    for (double v : ToDoubles(value)) inline_ok = inline_ok && std::isfinite(v);
  }
  if (!inline_ok) constant.tensor_name = graph_.values[id].name;
  graph_.constants.push_back(std::move(constant));
  return id;
}

// Example sizes the import traces symbols at, unless ImportOptions::dim_examples names one:
// small, distinct primes, so that two symbols rarely share a size by accident.
constexpr int64_t kDefaultExamples[] = {3, 5, 7, 11, 13, 17, 19, 23};

// A dim_param as a symbol name: characters outside [A-Za-z0-9_.] become '_'.
std::string SymbolName(const std::string& dim_param) {
  std::string name;
  for (char c : dim_param.substr(0, 100)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    name += ok ? c : '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "_" + name;
  if (!IsSymbolName(name)) name += "_";  // dim, min and max are function names
  return name;
}

int64_t ImportState::ExampleSize(const std::string& name) const {
  const size_t index = symbols_.size();
  auto given = options_.dim_examples.find(name);
  int64_t example = given != options_.dim_examples.end()
                        ? given->second
                        : kDefaultExamples[index % std::size(kDefaultExamples)];
  // Odd increments flip every size's parity (an auto_pad SAME with stride 2 differs
  // between odd and even sizes), and differ between symbols.
  if (second_trace) example += 1 + 2 * static_cast<int64_t>(index);
  return example;
}

std::string ImportState::DeclareDataSymbol(const std::string& hint, ValueId count) {
  std::string name = SymbolName(hint);
  for (int k = 2;; ++k) {
    bool taken = false;
    for (const DimSymbol& s : symbols_) taken = taken || s.name == name;
    if (!taken) break;
    name = SymbolName(hint) + "_" + std::to_string(k);
  }
  symbols_.push_back({name, ExampleSize(name), count});
  return name;
}

int64_t ImportState::DeclareSymbol(const std::string& name, int64_t example) {
  for (const DimSymbol& s : symbols_) {
    if (s.name == name) return s.example;
  }
  symbols_.push_back({name, example});
  return example;
}

std::vector<DimExpr> ImportState::DimsOf(const std::string& name) const {
  const KnownValue* known = Find(name);
  std::vector<DimExpr> dims;
  if (known == nullptr) return dims;
  for (int64_t d : known->type.shape) dims.emplace_back(d);
  if (!symbolic() || known->constant) return dims;
  if (auto it = input_dims_.find(known->id); it != input_dims_.end()) return it->second;
  // A value computed at run time: its sizes are read when the graph is specialised.
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = DimExpr::DimOf(known->id, d);
  return dims;
}

std::vector<DimExpr> ImportState::DimsOfValue(ValueId id) const {
  std::vector<DimExpr> dims;
  for (int64_t d : graph_.values[id].type.shape) dims.emplace_back(d);
  if (!symbolic()) return dims;
  if (auto it = input_dims_.find(id); it != input_dims_.end()) return it->second;
  for (const Constant& c : graph_.constants) {
    if (c.value == id) return dims;
  }
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = DimExpr::DimOf(id, d);
  return dims;
}

void ImportState::SetSymbolicConstant(const std::string& name, Tensor value,
                                      std::vector<DimExpr> dims, bool sized_at_run_time) {
  SetConstant(name, std::move(value));
  KnownValue& known = values_[name];
  known.dims = std::move(dims);
  known.sized_at_run_time = sized_at_run_time;
}

Expected<ValueId> ImportState::Materialize(const std::string& name) {
  KnownValue* known = FindMutable(name);
  if (known == nullptr) return NotFound("value '" + name + "' is not defined before it is read");
  if (known->id >= 0) return known->id;
  if (!known->dims.empty() && !known->sized_at_run_time) {
    SY_ASSIGN_OR_RETURN(known->id, MaterializeSizes(*this, name, *known->constant, known->dims));
    return known->id;
  }
  if (known->symbolic()) {
    return Status(StatusCode::kUnsupported,
                  "value '" + name +
                      "' is computed from sizes known only at run time, and the importer "
                      "cannot make it a run-time tensor yet; import with --input-shape for a "
                      "static model");
  }
  known->id = AddConstant(*known->constant, name);
  return known->id;
}

bool ImportState::Freeze(const std::string& name) {
  KnownValue* known = FindMutable(name);
  auto given = options_.input_values.find(name);
  if (known == nullptr || !known->is_graph_input || given == options_.input_values.end()) {
    return false;
  }
  // The input's graph value becomes a constant holding the given value.
  Constant constant;
  constant.value = known->id;
  constant.data = given->second;
  bool inline_ok = given->second.element_count() <= 16;
  if (inline_ok && IsFloat(given->second.dtype())) {
    for (double v : ToDoubles(given->second)) inline_ok = inline_ok && std::isfinite(v);
  }
  if (!inline_ok) constant.tensor_name = graph_.values[known->id].name;
  graph_.constants.push_back(std::move(constant));
  std::erase(graph_.inputs, known->id);
  known->constant = given->second;
  known->is_graph_input = false;
  frozen_.push_back(name);
  return true;
}

void ImportState::FreezeUpFront(const std::string& name, const Tensor& value) {
  SetConstant(name, value);
  frozen_.push_back(name);
}

const std::set<std::string>& ImportState::Dependencies(const std::string& name) const {
  static const std::set<std::string> kNone;
  auto it = dependencies_.find(name);
  return it == dependencies_.end() ? kNone : it->second;
}

// ---- NodeContext

std::string NodeContext::Describe() const {
  std::string text = node_.op_type() + " node " + std::to_string(index_);
  if (!node_.name().empty()) text += " \"" + node_.name() + "\"";
  return text + origin_;
}

Status NodeContext::Fail(ImportProblem problem, std::string message) {
  if (problem_ == ImportProblem::kNone) problem_ = problem;
  return Status(problem == ImportProblem::kUnsupportedOp ||
                        problem == ImportProblem::kUnsupportedType ||
                        problem == ImportProblem::kTrainingOnly
                    ? StatusCode::kUnsupported
                    : StatusCode::kInvalidModel,
                std::move(message));
}

bool NodeContext::HasInput(size_t i) const {
  return i < num_inputs() && !node_.input(static_cast<int>(i)).empty();
}

const TensorType& NodeContext::InputType(size_t i) const {
  return state_.Find(node_.input(static_cast<int>(i)))->type;
}

bool NodeContext::IsConstant(size_t i) const { return ConstantInput(i) != nullptr; }

const Tensor* NodeContext::ConstantInput(size_t i) const {
  if (!HasInput(i)) return nullptr;
  const KnownValue* known = state_.Find(node_.input(static_cast<int>(i)));
  return known != nullptr && known->constant ? &*known->constant : nullptr;
}

Expected<ValueId> NodeContext::Input(size_t i) {
  if (!HasInput(i)) return Internal(Describe() + ": input " + std::to_string(i) + " is absent");
  return state_.Materialize(node_.input(static_cast<int>(i)));
}

bool NodeContext::InputSymbolic(size_t i) const {
  if (!HasInput(i)) return false;
  const KnownValue* known = state_.Find(node_.input(static_cast<int>(i)));
  return known != nullptr && known->symbolic();
}

std::vector<DimExpr> NodeContext::SymbolicInts(size_t i) {
  if (!InputSymbolic(i)) return {};
  const KnownValue* known = state_.Find(node_.input(static_cast<int>(i)));
  if (known->sized_at_run_time) return {};  // StaticInput refuses it
  symbolic_ok_.insert(i);
  return known->dims;
}

void NodeContext::AttachAttrExpr(const std::string& name, std::vector<DimExpr> items,
                                 bool is_list) {
  Node& node = state_.graph().nodes.back();
  node.attrs.Erase(name);
  node.attr_exprs[name] = AttrExpr{is_list, std::move(items)};
}

Expected<Tensor> NodeContext::StaticInput(size_t i, std::string_view what) {
  if (!HasInput(i)) {
    return Fail(ImportProblem::kInvalidModel, "input '" + std::string(what) + "' is absent");
  }
  const std::string& name = node_.input(static_cast<int>(i));
  if (InputSymbolic(i) && symbolic_ok_.count(i) == 0) {
    const KnownValue* known = state_.Find(name);
    std::string how;
    if (!known->sized_at_run_time) {
      for (const DimExpr& e : known->dims) how += (how.empty() ? "" : ", ") + e.ToString();
      how = " ([" + how + "])";
    }
    return Fail(ImportProblem::kNeedsValue,
                "input '" + std::string(what) + "' (value '" + name + "'" + how +
                    ") depends on sizes known only at run time, and this op cannot take it "
                    "as a size expression; import with --input-shape for a static model");
  }
  if (const Tensor* constant = ConstantInput(i)) return *constant;
  if (state_.Freeze(name)) return *ConstantInput(i);
  const KnownValue* known = state_.Find(name);
  if (known != nullptr && known->is_graph_input) {
    return Fail(ImportProblem::kNeedsValue,
                "input '" + std::string(what) + "' comes from graph input '" + name +
                    "', whose value the importer needs (rml-graph v1 takes it as a static "
                    "attribute); pass it with --input-value " +
                    name + "=FILE.npy");
  }
  const std::set<std::string>& inputs = state_.Dependencies(name);
  state_.needed_inputs = inputs;
  std::string hint;
  for (const std::string& input : inputs) {
    hint += (hint.empty() ? "" : ", ") + ("--input-value " + input + "=FILE.npy");
  }
  return Fail(ImportProblem::kNeedsValue,
              "input '" + std::string(what) + "' (value '" + name +
                  "') is computed at run time, but the catalogue op takes it as a static "
                  "attribute and the importer could not fold it to a constant" +
                  (hint.empty() ? std::string()
                                : "; it depends on graph inputs whose values would make it "
                                  "foldable: pass " +
                                      hint) +
                  (state_.symbolic() ? "; or, if it is computed from the inputs' sizes, fix "
                                       "them with --input-shape for a static model"
                                     : ""));
}

Expected<std::vector<int64_t>> NodeContext::StaticInts(size_t i, std::string_view what) {
  SY_ASSIGN_OR_RETURN(Tensor t, StaticInput(i, what));
  if (!IsInteger(t.dtype())) {
    return Invalid("input '" + std::string(what) + "' must be an integer tensor, not " +
                   std::string(DTypeName(t.dtype())));
  }
  return ToInt64s(t);
}

Expected<double> NodeContext::StaticScalar(size_t i, std::string_view what) {
  SY_ASSIGN_OR_RETURN(Tensor t, StaticInput(i, what));
  if (t.element_count() != 1) {
    return Invalid("input '" + std::string(what) + "' must hold one element, not " +
                   std::to_string(t.element_count()));
  }
  return ToDoubles(t)[0];
}

bool NodeContext::OutputWanted(size_t i) const {
  return i < num_outputs() && !node_.output(static_cast<int>(i)).empty();
}

void NodeContext::SetOutput(size_t i, ValueId id) {
  if (OutputWanted(i)) state_.SetValue(node_.output(static_cast<int>(i)), id);
}

void NodeContext::SetOutputConstant(size_t i, Tensor value) {
  if (OutputWanted(i)) state_.SetConstant(node_.output(static_cast<int>(i)), std::move(value));
}

const onnx::AttributeProto* NodeContext::Attr(std::string_view name) const {
  for (const auto& attr : node_.attribute()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

int64_t NodeContext::AttrInt(std::string_view name, int64_t fallback) const {
  const auto* a = Attr(name);
  return a != nullptr && a->has_i() ? a->i() : fallback;
}

double NodeContext::AttrFloat(std::string_view name, double fallback) const {
  const auto* a = Attr(name);
  return a != nullptr && a->has_f() ? a->f() : fallback;
}

std::string NodeContext::AttrString(std::string_view name, std::string_view fallback) const {
  const auto* a = Attr(name);
  return a != nullptr && a->has_s() ? a->s() : std::string(fallback);
}

std::optional<std::vector<int64_t>> NodeContext::AttrInts(std::string_view name) const {
  const auto* a = Attr(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<double>> NodeContext::AttrFloats(std::string_view name) const {
  const auto* a = Attr(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

const TensorType& NodeContext::TypeOf(ValueId id) const { return state_.graph().values[id].type; }

Expected<std::vector<ValueId>> NodeContext::Emit(std::string_view op, std::vector<ValueId> inputs,
                                                 Attrs attrs, int num_outputs) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr)
    return Internal("the importer emitted unknown op '" + std::string(op) + "'");
  std::vector<TensorType> types;
  for (ValueId id : inputs) types.push_back(TypeOf(id));
  // A dtype outside the op's type set is a limit of the catalogue, not a bug: say so.
  for (size_t i = 0; i < types.size() && !schema->inputs.empty(); ++i) {
    const InputSpec& spec = schema->inputs[std::min(i, schema->inputs.size() - 1)];
    const TypeVar& var = schema->type_vars[static_cast<size_t>(spec.type_var)];
    if (!var.allowed.contains(types[i].dtype)) {
      return Fail(ImportProblem::kUnsupportedType, "catalogue op " + std::string(op) + " takes " +
                                                       var.allowed.ToString() + " for input " +
                                                       std::string(spec.name) + ", not " +
                                                       std::string(DTypeName(types[i].dtype)));
    }
  }
  Expected<std::vector<TensorType>> out = InferOutputTypes(*schema, types, attrs, num_outputs);
  if (!out.ok()) {
    return Fail(ImportProblem::kInvalidModel, "mapped to catalogue op " + std::string(op) +
                                                  ", which rejects it: " + out.status().message());
  }
  Node node;
  node.op = std::string(op);
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  node.name = node_.name().empty() ? node_.op_type() + "_" + std::to_string(index_) : node_.name();
  std::vector<ValueId> outputs;
  for (size_t i = 0; i < out.value().size(); ++i) {
    outputs.push_back(state_.AddValue(node.name + "/" + std::string(op), out.value()[i]));
  }
  node.outputs = outputs;
  state_.graph().nodes.push_back(std::move(node));
  return outputs;
}

Expected<ValueId> NodeContext::Emit1(std::string_view op, std::vector<ValueId> inputs,
                                     Attrs attrs) {
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> out, Emit(op, std::move(inputs), std::move(attrs), 1));
  return out[0];
}

void ImportState::Declare(const onnx::ValueInfoProto& info) {
  if (info.type().has_tensor_type() && info.type().tensor_type().has_shape()) {
    declared_[info.name()] = &info.type().tensor_type().shape();
  }
}

const onnx::TensorShapeProto* ImportState::DeclaredShape(const std::string& name) const {
  auto it = declared_.find(name);
  return it == declared_.end() ? nullptr : it->second;
}

Expected<ValueId> NodeContext::Scalar(DType dtype, double value, Shape shape) {
  SY_ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(shape));
  std::vector<double> values(static_cast<size_t>(count), value);
  SY_ASSIGN_OR_RETURN(Tensor t, FromDoubles(dtype, shape, values));
  return state_.AddConstant(t, (node_.name().empty() ? node_.op_type() : node_.name()) + "/const");
}

}  // namespace sy::onnx_import
