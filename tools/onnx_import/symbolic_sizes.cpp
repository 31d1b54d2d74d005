#include "symbolic_sizes.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"
#include "switchyard/specialize.h"

namespace sy::onnx_import {
namespace {

// Size arithmetic works on constants of at most this many elements (shape vectors).
constexpr int64_t kMaxSizeElements = 64;

// Input i's elements as expressions: its own `dims`, or its values when it is a plain
// integer constant; nullopt when it is neither (a float, a large tensor, a run-time value).
std::optional<std::vector<DimExpr>> Elements(NodeContext& ctx, size_t i) {
  const KnownValue* known = ctx.state().Find(ctx.node().input(static_cast<int>(i)));
  if (known == nullptr || !known->constant || known->sized_at_run_time) return std::nullopt;
  if (known->constant->element_count() > kMaxSizeElements) return std::nullopt;
  if (!known->dims.empty()) return known->dims;
  if (!IsInteger(known->constant->dtype()) && known->constant->dtype() != DType::kBool) {
    return std::nullopt;
  }
  std::vector<DimExpr> out;
  for (int64_t v : ToInt64s(*known->constant)) out.emplace_back(v);
  return out;
}

// Size expressions the importer keeps stay small: a chain of Add nodes on a Shape would
// otherwise grow one level per node, and the recursive walks (printing, evaluation,
// destruction) and the reader's 1024-character limit need them shallow and short.
bool WithinLimits(const std::vector<DimExpr>& items) {
  for (const DimExpr& e : items) {
    if (e.depth() > 32 || e.size() > 64 || e.ToString().size() > 512) return false;
  }
  return true;
}

bool AnyVariable(const std::vector<DimExpr>& items) {
  return std::any_of(items.begin(), items.end(), [](const DimExpr& e) { return !e.is_const(); });
}

// a == b for sizes: known when both are constants, when they are the same expression,
// or when one is never negative and the other is a negative constant (`dim == -1`).
std::optional<bool> SizesEqual(const DimExpr& a, const DimExpr& b) {
  if (a.is_const() && b.is_const()) return a.value() == b.value();
  if (a.SameAs(b)) return true;
  if (a.NonNegative() && b.is_const() && b.value() < 0) return false;
  if (b.NonNegative() && a.is_const() && a.value() < 0) return false;
  return std::nullopt;
}

// The folded output's elements for `op`, or nullopt when they cannot be said in sizes.
std::optional<std::vector<DimExpr>> FoldSizes(NodeContext& ctx, const std::string& op) {
  std::vector<std::vector<DimExpr>> in;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) {
      in.emplace_back();
      continue;
    }
    std::optional<std::vector<DimExpr>> e = Elements(ctx, i);
    if (!e) return std::nullopt;
    in.push_back(std::move(*e));
  }
  if (in.empty()) return std::nullopt;
  const Shape& out_shape = ctx.state().Find(ctx.node().output(0))->type.shape;
  const int64_t out_count = ElementCount(out_shape);
  // Element-preserving ops: the same list in another shape.
  if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Flatten") {
    return in[0];
  }
  if (op == "Cast") {
    const int64_t to = ctx.AttrInt("to", 0);
    const std::optional<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(to));
    if (!dtype || !IsInteger(*dtype)) return std::nullopt;  // a size as a float: not a size
    return in[0];
  }
  if (op == "Concat") {
    std::vector<DimExpr> out;
    for (const auto& part : in) out.insert(out.end(), part.begin(), part.end());
    return out;
  }
  if (op == "Gather") {
    if (ctx.InputType(0).rank() != 1) return std::nullopt;
    std::vector<DimExpr> out;
    const int64_t n = static_cast<int64_t>(in[0].size());
    for (const DimExpr& index : in[1]) {
      if (!index.is_const()) return std::nullopt;
      int64_t k = index.value() < 0 ? index.value() + n : index.value();
      if (k < 0 || k >= n) return std::nullopt;
      out.push_back(in[0][static_cast<size_t>(k)]);
    }
    return out;
  }
  if (op == "Slice") {
    if (ctx.InputType(0).rank() != 1 || in.size() < 3) return std::nullopt;
    for (size_t i = 1; i < in.size(); ++i) {
      if (AnyVariable(in[i]) || (!in[i].empty() && in[i].size() != 1)) return std::nullopt;
    }
    if (in[1].size() != 1 || in[2].size() != 1) return std::nullopt;
    const int64_t n = static_cast<int64_t>(in[0].size());
    int64_t start = in[1][0].value(), end = in[2][0].value();
    int64_t step = in.size() > 4 && !in[4].empty() ? in[4][0].value() : 1;
    if (step == 0) return std::nullopt;
    // A step past the vector's length takes one element: clamped so that k += step
    // cannot overflow.
    step = std::clamp<int64_t>(step, -(n + 1), n + 1);
    if (start < 0) start += n;
    if (end < 0) end += n;
    std::vector<DimExpr> out;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, n);
      end = std::clamp<int64_t>(end, 0, n);
      for (int64_t k = start; k < end; k += step) out.push_back(in[0][static_cast<size_t>(k)]);
    } else {
      start = std::clamp<int64_t>(start, -1, n - 1);
      end = std::clamp<int64_t>(end, -1, n - 1);
      for (int64_t k = start; k > end; k += step) out.push_back(in[0][static_cast<size_t>(k)]);
    }
    return out;
  }
  if (op == "ReduceProd" && in.size() >= 1 && ctx.InputType(0).rank() <= 1) {
    DimExpr product(1);
    for (const DimExpr& e : in[0]) product = product * e;
    return std::vector<DimExpr>{product};
  }
  if (op == "Neg") {
    std::vector<DimExpr> out;
    for (const DimExpr& e : in[0]) out.push_back(DimExpr(0) - e);
    return out;
  }
  // Elementwise binary ops with broadcasting of one-element operands.
  const bool binary = op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" ||
                      op == "Min" || op == "Max" || op == "Equal";
  if (binary || op == "Where") {
    for (const auto& part : in) {
      if (part.size() != 1 && static_cast<int64_t>(part.size()) != out_count) return std::nullopt;
    }
    auto at = [](const std::vector<DimExpr>& v, int64_t k) {
      return v.size() == 1 ? v[0] : v[static_cast<size_t>(k)];
    };
    std::vector<DimExpr> out;
    for (int64_t k = 0; k < out_count; ++k) {
      if (op == "Where") {
        const DimExpr c = at(in[0], k);
        if (!c.is_const()) return std::nullopt;
        out.push_back(c.value() != 0 ? at(in[1], k) : at(in[2], k));
        continue;
      }
      const DimExpr a = at(in[0], k), b = at(in[1], k);
      if (op == "Equal") {
        std::optional<bool> eq = SizesEqual(a, b);
        if (!eq) return std::nullopt;
        out.emplace_back(int64_t{*eq ? 1 : 0});
      } else if (op == "Add") {
        out.push_back(a + b);
      } else if (op == "Sub") {
        out.push_back(a - b);
      } else if (op == "Mul") {
        out.push_back(a * b);
      } else if (op == "Div") {
        out.push_back(a / b);
      } else if (op == "Mod") {
        if (ctx.AttrInt("fmod", 0) != 0) return std::nullopt;
        out.push_back(a % b);
      } else {
        out.push_back(
            DimExpr::Binary(op == "Min" ? DimExpr::Kind::kMin : DimExpr::Kind::kMax, a, b));
      }
    }
    return out;
  }
  return std::nullopt;
}

// Range(start, limit, delta) of run-time sizes: a catalogue range whose bounds are
// computed at specialisation.
Status ImportRange(NodeContext& ctx) {
  Attrs attrs;
  const char* names[] = {"start", "limit", "delta"};
  std::vector<std::pair<std::string, DimExpr>> exprs;
  DType dtype = ctx.InputType(0).dtype;
  for (size_t i = 0; i < 3; ++i) {
    std::optional<std::vector<DimExpr>> e = Elements(ctx, i);
    if (!e || e->size() != 1) {
      return ctx.Fail(ImportProblem::kNeedsValue,
                      std::string("input '") + names[i] +
                          "' depends on run-time sizes in a way the importer cannot express; "
                          "import with --input-shape for a static model");
    }
    attrs.Set(names[i], ToDoubles(*ctx.ConstantInput(i))[0]);
    if (!(*e)[0].is_const()) exprs.emplace_back(names[i], (*e)[0]);
  }
  attrs.Set("dtype", std::string(DTypeName(dtype)));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("range", {}, std::move(attrs)));
  for (auto& [name, e] : exprs) ctx.AttachAttrExpr(name, {e}, false);
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// ConstantOfShape(shape) of run-time sizes: its fill value expanded to the shape.
Status ImportConstantOfShape(NodeContext& ctx) {
  std::optional<std::vector<DimExpr>> shape = Elements(ctx, 0);
  if (!shape) {
    return ctx.Fail(ImportProblem::kNeedsValue,
                    "input 'shape' depends on run-time sizes in a way the importer cannot "
                    "express; import with --input-shape for a static model");
  }
  Tensor fill;
  if (const auto* attr = ctx.Attr("value")) {
    Expected<Tensor> t = TensorFromProto(attr->t(), ctx.state().base_dir());
    if (!t.ok()) return ctx.Invalid(t.status().message());
    if (t->element_count() != 1) return ctx.Invalid("value must hold one element");
    SY_ASSIGN_OR_RETURN(fill, FromDoubles(t->dtype(), {}, ToDoubles(*t)));
  } else {
    const double zero = 0.0;
    SY_ASSIGN_OR_RETURN(fill, FromDoubles(DType::kF32, {}, std::span(&zero, 1)));
  }
  const ValueId scalar = ctx.state().AddConstant(fill, ctx.node().output(0) + "/fill");
  std::vector<int64_t> example;
  for (int64_t v : ToInt64s(*ctx.ConstantInput(0))) example.push_back(v);
  Attrs attrs;
  attrs.Set("shape", example);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("expand", {scalar}, std::move(attrs)));
  ctx.AttachAttrExpr("shape", *shape);
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Appends a node of `op` and its one output, whose type the catalogue infers.
Expected<ValueId> AddNode(ImportState& state, std::string_view op, std::vector<ValueId> inputs,
                          Attrs attrs, const std::string& name,
                          std::map<std::string, AttrExpr> exprs = {}) {
  Graph& g = state.graph();
  const OpSchema* schema = OpRegistry::Global().Find(op);
  std::vector<TensorType> types;
  for (ValueId id : inputs) types.push_back(g.values[id].type);
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, InferOutputTypes(*schema, types, attrs, 1));
  const ValueId id = state.AddValue(name, out[0]);
  Node node;
  node.op = std::string(op);
  node.inputs = std::move(inputs);
  node.outputs = {id};
  node.attrs = std::move(attrs);
  for (const auto& [attr, expr] : exprs) node.attrs.Erase(attr);  // computed at specialisation
  node.attr_exprs = std::move(exprs);
  node.name = name;
  g.nodes.push_back(std::move(node));
  return id;
}

// A dim's sizes at several bindings of the symbols (points[k] gives sizes[k]): the symbol,
// or product or sum of two, that has exactly those sizes at every point, so that shapes
// read [batch, seq, 768]; else "?". Several points with different sizes make a match by
// accident unlikely, and each specialisation checks the recorded dims anyway.
DimExpr NameDim(const std::vector<DimSymbol>& symbols, const std::vector<SymbolBinding>& points,
                const std::vector<int64_t>& sizes) {
  auto fits = [&](const DimExpr& e) {
    for (size_t k = 0; k < points.size(); ++k) {
      Expected<int64_t> v = e.Evaluate({&points[k], nullptr});
      if (!v.ok() || *v != sizes[k]) return false;
    }
    return true;
  };
  std::vector<DimExpr> candidates;
  for (const DimSymbol& a : symbols) candidates.push_back(DimExpr::Symbol(a.name));
  for (size_t i = 0; i < symbols.size(); ++i) {
    for (size_t j = i; j < symbols.size(); ++j) {
      candidates.push_back(DimExpr::Symbol(symbols[i].name) * DimExpr::Symbol(symbols[j].name));
      if (i != j) {
        candidates.push_back(DimExpr::Symbol(symbols[i].name) + DimExpr::Symbol(symbols[j].name));
      }
    }
  }
  for (const DimExpr& e : candidates) {
    if (fits(e)) return e;
  }
  return DimExpr::Unknown();
}

// More bindings than the two traces, to tell a size that depends on the symbols from one
// that happens to agree at two sizes (ceil(n / 2) is 2 at both 3 and 4): larger sizes, of
// both parities.
std::vector<SymbolBinding> ExtraPoints(const SymbolBinding& first) {
  std::vector<SymbolBinding> points(2);
  int64_t index = 0;
  for (const auto& [name, size] : first) {
    points[0][name] = 4 * size + 5 + 2 * index;
    points[1][name] = 2 * size + 8 + 3 * index;
    ++index;
  }
  return points;
}

}  // namespace

Expected<ValueId> MaterializeSizes(ImportState& state, const std::string& name,
                                   const Tensor& example, const std::vector<DimExpr>& dims) {
  const std::vector<double> values = ToDoubles(example);
  std::vector<ValueId> parts;
  for (size_t k = 0; k < dims.size(); ++k) {
    Attrs attrs;
    attrs.Set("start", values[k]);
    attrs.Set("limit", values[k] + 1);
    attrs.Set("delta", 1.0);
    attrs.Set("dtype", std::string(DTypeName(example.dtype())));
    std::map<std::string, AttrExpr> exprs;
    if (!dims[k].is_const()) {
      exprs["start"] = AttrExpr{false, {dims[k]}};
      exprs["limit"] = AttrExpr{false, {dims[k] + 1}};
    }
    SY_ASSIGN_OR_RETURN(ValueId part, AddNode(state, "range", {}, std::move(attrs), name + "/size",
                                              std::move(exprs)));
    parts.push_back(part);
  }
  ValueId all = parts.empty() ? -1 : parts[0];
  if (parts.size() != 1) {
    Attrs attrs;
    attrs.Set("axis", int64_t{0});
    if (parts.empty()) return InvalidModel("value '" + name + "' holds no sizes");
    SY_ASSIGN_OR_RETURN(all, AddNode(state, "concat", parts, std::move(attrs), name + "/sizes"));
  }
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(example.shape().begin(), example.shape().end()));
  return AddNode(state, "reshape", {all}, std::move(attrs), name);
}

Expected<bool> ImportSizeNode(NodeContext& ctx, const OpMapping& mapping) {
  ImportState& state = ctx.state();
  const std::string& op = ctx.node().op_type();
  if ((op == "Shape" || op == "Size") && ctx.HasInput(0) && ctx.OutputWanted(0)) {
    SY_RETURN_IF_ERROR(mapping.fold(ctx));
    std::vector<DimExpr> dims = state.DimsOf(ctx.node().input(0));
    std::vector<DimExpr> out;
    if (op == "Size") {
      DimExpr product(1);
      for (const DimExpr& d : dims) product = product * d;
      out.push_back(product);
    } else {
      const int64_t rank = static_cast<int64_t>(dims.size());
      int64_t start = ctx.AttrInt("start", 0), end = ctx.AttrInt("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      out.assign(dims.begin() + start, dims.begin() + end);
    }
    const std::string& name = ctx.node().output(0);
    Tensor value = *state.Find(name)->constant;
    if (!AnyVariable(out)) out.clear();
    state.SetSymbolicConstant(name, std::move(value), std::move(out), false);
    return true;
  }
  bool symbolic_input = false;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) symbolic_input |= ctx.InputSymbolic(i);
  if (!symbolic_input) return false;
  if (op == "Range") {
    SY_RETURN_IF_ERROR(ImportRange(ctx));
    return true;
  }
  if (op == "ConstantOfShape") {
    SY_RETURN_IF_ERROR(ImportConstantOfShape(ctx));
    return true;
  }
  bool all_small_constants = mapping.fold != nullptr;
  for (size_t i = 0; i < ctx.num_inputs() && all_small_constants; ++i) {
    if (!ctx.HasInput(i)) continue;
    const Tensor* t = ctx.ConstantInput(i);
    all_small_constants =
        t != nullptr && t->element_count() <= kMaxSizeElements && t->shape().size() <= 1;
  }
  if (!all_small_constants) return false;  // the mapping takes it at run time
  ctx.AllowExampleValues();
  SY_RETURN_IF_ERROR(mapping.fold(ctx));
  std::optional<std::vector<DimExpr>> sizes = FoldSizes(ctx, op);
  if (sizes && !WithinLimits(*sizes)) sizes.reset();  // computed at run time instead
  if (!sizes && mapping.map != nullptr) {
    // Not a size computation (a size as a float, a power of it): the op runs at run time
    // on the sizes, which Materialize computes (MaterializeSizes).
    SY_RETURN_IF_ERROR(mapping.map(ctx));
    return true;
  }
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    if (!ctx.OutputWanted(k)) continue;
    const std::string& name = ctx.node().output(static_cast<int>(k));
    const KnownValue* known = state.Find(name);
    if (known == nullptr || !known->constant) continue;
    Tensor value = *known->constant;
    if (k == 0 && sizes && static_cast<int64_t>(sizes->size()) == value.element_count()) {
      std::vector<DimExpr> dims = std::move(*sizes);
      if (!AnyVariable(dims)) dims.clear();  // decided for every size (`dim == -1`)
      state.SetSymbolicConstant(name, std::move(value), std::move(dims), false);
    } else {
      state.SetSymbolicConstant(name, std::move(value), {}, true);
    }
  }
  return true;
}

Status MergeTraces(Graph& first, const Graph& second) {
  auto differ = [](const std::string& what) {
    return Status(StatusCode::kUnsupported,
                  "the model's structure depends on its run-time sizes (" + what +
                      "), which the importer cannot express; import with --input-shape for a "
                      "static model");
  };
  if (first.nodes.size() != second.nodes.size() || first.values.size() != second.values.size() ||
      first.constants.size() != second.constants.size()) {
    return differ("traced at two sizes, it gives different graphs");
  }
  // Each value's dims, from its sizes in the first trace, the second, and the graph
  // specialised at further sizes: those equal everywhere are constants, those that follow
  // a symbol are named after it, the rest "?".
  std::vector<bool> is_input(first.values.size(), false);
  for (ValueId id : first.inputs) is_input[id] = true;
  Graph open = first;  // every value the nodes produce: "?" dims, to infer them anew
  for (size_t id = 0; id < first.values.size(); ++id) {
    const Value& value = first.values[id];
    const Value& other = second.values[id];
    if (is_input[id]) continue;  // the inputs' dims are the model's own symbols
    if (value.type.dtype != other.type.dtype || value.type.rank() != other.type.rank()) {
      return differ(first.DescribeValue(static_cast<ValueId>(id)) + " changes its type");
    }
    bool produced = true;
    for (const Constant& c : first.constants) produced = produced && c.value != ValueId(id);
    if (!produced) continue;
    Value& v = open.values[id];
    v.symbolic_shape.assign(v.type.shape.size(), DimExpr::Unknown());
    std::fill(v.type.shape.begin(), v.type.shape.end(), -1);
  }
  SY_ASSIGN_OR_RETURN(SymbolBinding first_sizes, ExampleBinding(first));
  SY_ASSIGN_OR_RETURN(SymbolBinding second_sizes, ExampleBinding(second));
  std::vector<SymbolBinding> points = {first_sizes, second_sizes};
  std::vector<const Graph*> shapes_at = {&first, &second};
  std::vector<Graph> extra;
  for (SymbolBinding& point : ExtraPoints(first_sizes)) {
    // A size the model refuses (a kernel larger than the image) only leaves the point out.
    Expected<Graph> g = Specialize(open, point);
    if (!g.ok()) continue;
    extra.push_back(std::move(*g));
    points.push_back(std::move(point));
  }
  for (const Graph& g : extra) shapes_at.push_back(&g);
  for (size_t id = 0; id < first.values.size(); ++id) {
    Value& value = first.values[id];
    if (is_input[id] || !open.values[id].is_symbolic()) continue;
    if (value.is_symbolic()) continue;  // sized by data: "?" already (MarkDataSizedValues)
    std::vector<DimExpr> dims;
    bool symbolic = false;
    for (size_t d = 0; d < value.type.shape.size(); ++d) {
      std::vector<int64_t> sizes;
      for (const Graph* g : shapes_at) sizes.push_back(g->values[id].type.shape[d]);
      if (std::all_of(sizes.begin(), sizes.end(), [&](int64_t v) { return v == sizes[0]; })) {
        dims.emplace_back(sizes[0]);
        continue;
      }
      dims.push_back(NameDim(first.symbols, points, sizes));
      value.type.shape[d] = -1;
      symbolic = true;
    }
    if (symbolic) value.symbolic_shape = std::move(dims);
  }
  // The check: the graph with run-time sizes, specialised at the second trace's sizes,
  // is the second trace.
  SY_ASSIGN_OR_RETURN(SymbolBinding binding, ExampleBinding(second));
  SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(first, binding));
  SY_ASSIGN_OR_RETURN(Graph second_static, Specialize(second, binding));
  for (size_t n = 0; n < specialised.nodes.size(); ++n) {
    const Node& a = specialised.nodes[n];
    const Node& b = second_static.nodes[n];
    if (a.op != b.op || a.inputs != b.inputs || a.outputs != b.outputs) {
      return differ(first.DescribeNode(n) + " differs between the traces");
    }
    if (!(a.attrs == b.attrs)) {
      for (const auto& [name, value] : b.attrs) {
        const AttrValue* mine = a.attrs.Find(name);
        if (mine == nullptr || !(*mine == value)) {
          return differ(first.DescribeNode(n) + " attribute " + name + " is " +
                        (mine ? AttrValueToString(*mine) : std::string("absent")) + " at " +
                        BindingToString(binding) + " but the model gives " +
                        AttrValueToString(value));
        }
      }
      return differ(first.DescribeNode(n) + " has different attributes");
    }
  }
  for (size_t id = 0; id < specialised.values.size(); ++id) {
    if (!(specialised.values[id].type == second_static.values[id].type)) {
      return differ(first.DescribeValue(static_cast<ValueId>(id)) + " is " +
                    specialised.values[id].type.ToString() + " at " + BindingToString(binding) +
                    " but the model gives " + second_static.values[id].type.ToString());
    }
  }
  for (size_t c = 0; c < first.constants.size(); ++c) {
    const Tensor& a = first.constants[c].data;
    const Tensor& b = second.constants[c].data;
    if (a.type() != b.type() ||
        std::memcmp(a.data(), b.data(), static_cast<size_t>(a.byte_size())) != 0) {
      return differ("constant " + first.DescribeValue(first.constants[c].value) +
                    " is computed from the sizes");
    }
  }
  return Status::Ok();
}

}  // namespace sy::onnx_import
