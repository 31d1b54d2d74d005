// ONNX's control flow (If, Loop, Scan), lowered at import onto the catalogue's ops where
// what the body does is decided at import time: each body is imported in place (its
// nodes join the graph, under names of their own: ImportState::import_body), once per
// branch taken or per iteration.
// - If: a condition known at import (a constant, or folded from constants) imports the
//   branch it takes. A condition known only at run time imports both branches and picks
//   each output with `where`: both are computed (ONNX bodies have no side effects); their
//   outputs must agree in dtype and shape.
// - Loop: the trip count and the initial condition must be known at import, and the body's
//   condition must fold to a constant each iteration; the body is then imported once per
//   iteration (unrolled), its loop-carried values threaded through, its scan outputs
//   stacked along a new axis 0.
// - Scan: the scan inputs' length must be known at import; the body is imported once per
//   element, each scan input sliced by a `gather` at that index (in either direction), the
//   scan outputs stacked along their axes. Scan-8's leading batch axis is one such scan
//   per batch element, stacked; its sequence_lens (known at import) shortens each row's
//   scan, the row's scan outputs padded with zeros to the longest, as ONNX Runtime does.
// This is the part of control flow whose shape import can decide. A loop whose
// iterations the data decides (a while loop), an If whose branches differ in shape, and
// bodies unrolled beyond kMaxIterations are refused with a reason: they need the
// catalogue's control-flow ops (seed 003's Branch and Scan), which are still to come
// (docs/onnx-import.md, "Control flow").
#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

constexpr int64_t kMaxIterations = 4096;

const onnx::GraphProto* Body(NodeContext& ctx, std::string_view attr) {
  const onnx::AttributeProto* a = ctx.Attr(attr);
  return a != nullptr && a->has_g() ? &a->g() : nullptr;
}

// Imports one instance of body `attr` with `inputs`; returns the names of its outputs.
Expected<std::vector<std::string>> RunBody(NodeContext& ctx, std::string_view attr,
                                           const std::string& what,
                                           const std::vector<KnownValue>& inputs) {
  const onnx::GraphProto* body = Body(ctx, attr);
  if (body == nullptr) return ctx.Invalid("has no graph attribute " + std::string(attr));
  std::vector<std::string> outputs;
  const std::string origin = " (" + what + " of " + ctx.Describe() + ")";
  SY_RETURN_IF_ERROR(ctx.state().import_body(*body, origin, inputs, outputs));
  return outputs;
}

const KnownValue& Known(NodeContext& ctx, const std::string& name) {
  return *ctx.state().Find(name);
}

// Binds node output i to what value `name` is.
void BindOutput(NodeContext& ctx, size_t i, const std::string& name) {
  if (!ctx.OutputWanted(i)) return;
  KnownValue v = Known(ctx, name);
  v.is_graph_input = false;
  ctx.state().Bind(ctx.node().output(static_cast<int>(i)), std::move(v));
}

KnownValue ConstantValue(Tensor t) {
  KnownValue v;
  v.type = TensorType{t.dtype(), t.shape()};
  v.constant = std::move(t);
  return v;
}

// A constant, or a value that folded to one (not one sized at run time).
std::optional<Tensor> ConstantOf(const KnownValue& v) {
  if (!v.constant || v.symbolic()) return std::nullopt;
  return *v.constant;
}

bool Truth(const Tensor& t) {
  std::vector<double> v = ToDoubles(t);
  return !v.empty() && v[0] != 0;
}

// x with a new axis of size 1 at `axis` (sizes known only at run time kept).
Expected<ValueId> Unsqueeze(NodeContext& ctx, ValueId x, int64_t axis) {
  const TensorType t = ctx.TypeOf(x);
  std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
  shape.insert(shape.begin() + axis, 1);
  std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
  const bool symbolic =
      std::any_of(dims.begin(), dims.end(), [](const DimExpr& d) { return !d.is_const(); });
  Attrs attrs;
  attrs.Set("shape", shape);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("reshape", {x}, std::move(attrs)));
  if (symbolic) {
    dims.insert(dims.begin() + axis, DimExpr(1));
    ctx.AttachAttrExpr("shape", dims);
  }
  return out;
}

// The values of `names` stacked along a new axis `axis` (each the same shape).
Expected<ValueId> Stack(NodeContext& ctx, const std::vector<std::string>& names, int64_t axis) {
  std::vector<ValueId> parts;
  for (const std::string& name : names) {
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.state().Materialize(name));
    SY_ASSIGN_OR_RETURN(v, Unsqueeze(ctx, v, axis));
    if (!parts.empty() && ctx.TypeOf(v).shape != ctx.TypeOf(parts[0]).shape) {
      return ctx.Invalid("a scan output changes shape between iterations (" +
                         ShapeToString(ctx.TypeOf(parts[0]).shape) + " then " +
                         ShapeToString(ctx.TypeOf(v).shape) + ")");
    }
    parts.push_back(v);
  }
  if (parts.size() == 1) return parts[0];
  Attrs attrs;
  attrs.Set("axis", axis);
  return ctx.Emit1("concat", std::move(parts), std::move(attrs));
}

Status MapIf(NodeContext& ctx) {
  const KnownValue& cond = Known(ctx, ctx.node().input(0));
  if (std::optional<Tensor> c = ConstantOf(cond)) {
    const bool taken = Truth(*c);
    SY_ASSIGN_OR_RETURN(std::vector<std::string> outs,
                        RunBody(ctx, taken ? "then_branch" : "else_branch",
                                taken ? "then_branch" : "else_branch", {}));
    if (outs.size() != ctx.num_outputs()) {
      return ctx.Invalid("the branch taken has " + std::to_string(outs.size()) +
                         " outputs but the node has " + std::to_string(ctx.num_outputs()));
    }
    for (size_t i = 0; i < outs.size(); ++i) BindOutput(ctx, i, outs[i]);
    return Status::Ok();
  }
  // A condition known only at run time: both branches, then `where` per output.
  SY_ASSIGN_OR_RETURN(std::vector<std::string> then_outs,
                      RunBody(ctx, "then_branch", "then_branch", {}));
  SY_ASSIGN_OR_RETURN(std::vector<std::string> else_outs,
                      RunBody(ctx, "else_branch", "else_branch", {}));
  if (then_outs.size() != ctx.num_outputs() || else_outs.size() != ctx.num_outputs()) {
    return ctx.Invalid("its branches have " + std::to_string(then_outs.size()) + " and " +
                       std::to_string(else_outs.size()) + " outputs but the node has " +
                       std::to_string(ctx.num_outputs()));
  }
  SY_ASSIGN_OR_RETURN(ValueId c, ctx.Input(0));
  if (ctx.TypeOf(c).dtype != DType::kBool || ElementCount(ctx.TypeOf(c).shape) != 1) {
    return ctx.Invalid("cond must be a bool tensor of one element");
  }
  SY_ASSIGN_OR_RETURN(c, EmitReshape(ctx, c, {}));
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.OutputWanted(i)) continue;
    SY_ASSIGN_OR_RETURN(ValueId t, ctx.state().Materialize(then_outs[i]));
    SY_ASSIGN_OR_RETURN(ValueId e, ctx.state().Materialize(else_outs[i]));
    const TensorType tt = ctx.TypeOf(t), et = ctx.TypeOf(e);
    const std::vector<DimExpr> td = ctx.state().DimsOfValue(t), ed = ctx.state().DimsOfValue(e);
    bool same_dims = td.size() == ed.size();
    for (size_t d = 0; same_dims && d < td.size(); ++d) {
      same_dims = td[d].ToString() == ed[d].ToString();
    }
    if (tt.dtype != et.dtype || tt.shape != et.shape || !same_dims) {
      return ctx.UnsupportedOp(
          "output " + std::to_string(i) + " is " + std::string(DTypeName(tt.dtype)) + " " +
          ShapeToString(tt.shape) + " in then_branch but " + std::string(DTypeName(et.dtype)) +
          " " + ShapeToString(et.shape) +
          " in else_branch, and the condition is known only at run time: an If whose "
          "branches differ needs the catalogue's control-flow ops (not yet there)");
    }
    SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("where", {c, t, e}));
    ctx.SetOutput(i, out);
  }
  return Status::Ok();
}

Status MapLoop(NodeContext& ctx) {
  std::optional<int64_t> trip_count;
  if (ctx.HasInput(0)) {
    SY_ASSIGN_OR_RETURN(Tensor m, ctx.StaticInput(0, "M (the trip count)"));
    trip_count = static_cast<int64_t>(ToDoubles(m).at(0));
  }
  bool cond = true;
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(Tensor c, ctx.StaticInput(1, "cond"));
    cond = Truth(c);
  }
  const size_t carried = ctx.num_inputs() - 2;
  std::vector<KnownValue> state;
  for (size_t k = 0; k < carried; ++k) {
    if (!ctx.HasInput(2 + k)) return ctx.Invalid("a loop-carried input is missing");
    state.push_back(Known(ctx, ctx.node().input(static_cast<int>(2 + k))));
  }
  if (ctx.num_outputs() < carried) return ctx.Invalid("has fewer outputs than loop-carried inputs");
  const size_t scans = ctx.num_outputs() - carried;
  std::vector<std::vector<std::string>> scanned(scans);
  std::vector<std::string> carried_names(carried);
  for (size_t k = 0; k < carried; ++k) carried_names[k] = ctx.node().input(static_cast<int>(2 + k));
  int64_t i = 0;
  for (; cond && (!trip_count || i < *trip_count); ++i) {
    if (i >= kMaxIterations) {
      return ctx.UnsupportedOp("runs more than " + std::to_string(kMaxIterations) +
                               " iterations, beyond what the importer unrolls (a loop the "
                               "catalogue's control-flow ops would run is not yet there)");
    }
    std::vector<KnownValue> inputs;
    SY_ASSIGN_OR_RETURN(Tensor iter, FromDoubles(DType::kI64, {}, std::vector<double>{double(i)}));
    SY_ASSIGN_OR_RETURN(Tensor flag, FromDoubles(DType::kBool, {}, std::vector<double>{1}));
    inputs.push_back(ConstantValue(std::move(iter)));
    inputs.push_back(ConstantValue(std::move(flag)));
    inputs.insert(inputs.end(), state.begin(), state.end());
    SY_ASSIGN_OR_RETURN(std::vector<std::string> outs,
                        RunBody(ctx, "body", "iteration " + std::to_string(i), inputs));
    if (outs.size() != 1 + carried + scans) {
      return ctx.Invalid("its body has " + std::to_string(outs.size()) + " outputs, not " +
                         std::to_string(1 + carried + scans) +
                         " (the condition, the loop-carried values, the scan outputs)");
    }
    const std::optional<Tensor> next = ConstantOf(Known(ctx, outs[0]));
    if (!next) {
      return ctx.UnsupportedOp(
          "its body computes the loop condition from run-time data (a while loop): the "
          "importer unrolls only loops whose iterations are known at import, and the "
          "catalogue's control-flow ops are not yet there");
    }
    cond = Truth(*next);
    for (size_t k = 0; k < carried; ++k) {
      state[k] = Known(ctx, outs[1 + k]);
      carried_names[k] = outs[1 + k];
    }
    for (size_t k = 0; k < scans; ++k) scanned[k].push_back(outs[1 + carried + k]);
  }
  for (size_t k = 0; k < carried; ++k) BindOutput(ctx, k, carried_names[k]);
  for (size_t k = 0; k < scans; ++k) {
    if (!ctx.OutputWanted(carried + k)) continue;
    if (scanned[k].empty()) {
      return ctx.UnsupportedOp("runs zero times, so the shape of scan output " + std::to_string(k) +
                               " is not known at import");
    }
    SY_ASSIGN_OR_RETURN(ValueId out, Stack(ctx, scanned[k], 0));
    ctx.SetOutput(carried + k, out);
  }
  return Status::Ok();
}

// One scan unrolled: the body once per element of the scan inputs (each sliced by a
// `gather` at the element's index along its axis, in its direction), the state threaded
// through. Returns the final state's names and each scan output stacked along its axis
// (reversed for a backward direction).
struct ScanSpec {
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
  int64_t n_scan_out = 0;
};
struct ScanResult {
  std::vector<std::string> state;
  std::vector<ValueId> outputs;
};
Expected<ScanResult> UnrollScan(NodeContext& ctx, std::vector<KnownValue> state,
                                std::vector<std::string> state_names,
                                const std::vector<ValueId>& scan_in, ScanSpec spec,
                                const std::string& label) {
  const auto num_scan = static_cast<int64_t>(scan_in.size());
  const auto n_state = static_cast<int64_t>(state.size());
  int64_t length = -1;
  for (int64_t j = 0; j < num_scan; ++j) {
    const ValueId x = scan_in[static_cast<size_t>(j)];
    const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
    int64_t& axis = spec.in_axes[static_cast<size_t>(j)];
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return ctx.Invalid("a scan_input_axes entry is out of range");
    const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
    if (!dims[static_cast<size_t>(axis)].is_const()) {
      return ctx.UnsupportedOp(
          "scans an axis whose length is known only at run time: the "
          "importer unrolls scans of a length known at import");
    }
    const int64_t len = ctx.TypeOf(x).shape[static_cast<size_t>(axis)];
    if (length >= 0 && len != length) return ctx.Invalid("its scan inputs differ in length");
    length = len;
  }
  if (length > kMaxIterations) {
    return ctx.UnsupportedOp("scans " + std::to_string(length) + " elements, beyond the " +
                             std::to_string(kMaxIterations) + " the importer unrolls");
  }
  std::vector<std::vector<std::string>> scanned(static_cast<size_t>(spec.n_scan_out));
  for (int64_t t = 0; t < length; ++t) {
    std::vector<KnownValue> inputs = state;
    for (int64_t j = 0; j < num_scan; ++j) {
      const int64_t at = spec.in_dirs[static_cast<size_t>(j)] != 0 ? length - 1 - t : t;
      SY_ASSIGN_OR_RETURN(ValueId index, ctx.Scalar(DType::kI64, static_cast<double>(at)));
      Attrs gather;
      gather.Set("axis", spec.in_axes[static_cast<size_t>(j)]);
      SY_ASSIGN_OR_RETURN(
          ValueId slice,
          ctx.Emit1("gather", {scan_in[static_cast<size_t>(j)], index}, std::move(gather)));
      KnownValue v;
      v.id = slice;
      v.type = ctx.TypeOf(slice);
      inputs.push_back(std::move(v));
    }
    SY_ASSIGN_OR_RETURN(std::vector<std::string> outs,
                        RunBody(ctx, "body", label + "element " + std::to_string(t), inputs));
    if (static_cast<int64_t>(outs.size()) != n_state + spec.n_scan_out) {
      return ctx.Invalid("its body has " + std::to_string(outs.size()) + " outputs, not " +
                         std::to_string(n_state + spec.n_scan_out));
    }
    for (int64_t k = 0; k < n_state; ++k) {
      state[static_cast<size_t>(k)] = Known(ctx, outs[static_cast<size_t>(k)]);
      state_names[static_cast<size_t>(k)] = outs[static_cast<size_t>(k)];
    }
    for (int64_t k = 0; k < spec.n_scan_out; ++k) {
      scanned[static_cast<size_t>(k)].push_back(outs[static_cast<size_t>(n_state + k)]);
    }
  }
  ScanResult result;
  result.state = std::move(state_names);
  for (int64_t k = 0; k < spec.n_scan_out; ++k) {
    std::vector<std::string>& parts = scanned[static_cast<size_t>(k)];
    if (parts.empty()) {
      return ctx.UnsupportedOp("scans zero elements, so the shape of scan output " +
                               std::to_string(k) + " is not known at import");
    }
    if (spec.out_dirs[static_cast<size_t>(k)] != 0) std::reverse(parts.begin(), parts.end());
    const int64_t rank = static_cast<int64_t>(Known(ctx, parts[0]).type.shape.size()) + 1;
    int64_t axis = spec.out_axes[static_cast<size_t>(k)];
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return ctx.Invalid("a scan_output_axes entry is out of range");
    SY_ASSIGN_OR_RETURN(ValueId out, Stack(ctx, parts, axis));
    result.outputs.push_back(out);
  }
  return result;
}

// Scan-9+ as one unrolled scan; Scan-8 (a leading batch axis on every input, and
// sequence_lens) as one unrolled scan per batch element, the results stacked on axis 0.
Status MapScan(NodeContext& ctx) {
  const bool v8 = ctx.since_version() < 9;
  const size_t first = v8 ? 1 : 0;  // Scan-8's input 0 is sequence_lens
  // Scan-8's sequence_lens, known at import: each batch row scans its first len[b]
  // elements (directions apply within them) and its scan outputs are padded with zeros to
  // the longest, as ONNX Runtime's Scan-8 does.
  std::vector<int64_t> lens;
  if (v8 && ctx.HasInput(0)) {
    SY_ASSIGN_OR_RETURN(Tensor t, ctx.StaticInput(0, "sequence_lens"));
    lens = ToInt64s(t);
  }
  const int64_t num_scan = ctx.AttrInt("num_scan_inputs", -1);
  const auto n_in = static_cast<int64_t>(ctx.num_inputs() - first);
  if (num_scan < 1 || num_scan > n_in) return ctx.Invalid("num_scan_inputs is out of range");
  const int64_t n_state = n_in - num_scan;
  const auto n_out = static_cast<int64_t>(ctx.num_outputs());
  if (n_out < n_state) return ctx.Invalid("has fewer outputs than state variables");
  auto list = [&](std::string_view name, int64_t size) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = ctx.AttrInts(name).value_or(std::vector<int64_t>(size, 0));
    if (static_cast<int64_t>(v.size()) != size) {
      return ctx.Invalid(std::string(name) + " has " + std::to_string(v.size()) + " entries, not " +
                         std::to_string(size));
    }
    return v;
  };
  ScanSpec spec;
  spec.n_scan_out = n_out - n_state;
  SY_ASSIGN_OR_RETURN(spec.in_dirs, list(v8 ? "directions" : "scan_input_directions", num_scan));
  spec.in_axes.assign(static_cast<size_t>(num_scan), 0);
  spec.out_axes.assign(static_cast<size_t>(spec.n_scan_out), 0);
  spec.out_dirs.assign(static_cast<size_t>(spec.n_scan_out), 0);
  if (!v8) {
    SY_ASSIGN_OR_RETURN(spec.in_axes, list("scan_input_axes", num_scan));
    SY_ASSIGN_OR_RETURN(spec.out_dirs, list("scan_output_directions", spec.n_scan_out));
    SY_ASSIGN_OR_RETURN(spec.out_axes, list("scan_output_axes", spec.n_scan_out));
  }
  std::vector<ValueId> inputs;
  for (int64_t k = 0; k < n_in; ++k) {
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(first + static_cast<size_t>(k)));
    inputs.push_back(v);
  }
  auto known_of = [&](ValueId id) {
    KnownValue v;
    v.id = id;
    v.type = ctx.TypeOf(id);
    return v;
  };
  if (!v8) {
    std::vector<KnownValue> state;
    std::vector<std::string> names;
    for (int64_t k = 0; k < n_state; ++k) {
      names.push_back(ctx.node().input(static_cast<int>(first + static_cast<size_t>(k))));
      state.push_back(Known(ctx, names.back()));
    }
    const std::vector<ValueId> scan_in(inputs.begin() + n_state, inputs.end());
    SY_ASSIGN_OR_RETURN(ScanResult r, UnrollScan(ctx, state, names, scan_in, spec, ""));
    for (int64_t k = 0; k < n_state; ++k)
      BindOutput(ctx, static_cast<size_t>(k), r.state[static_cast<size_t>(k)]);
    for (int64_t k = 0; k < spec.n_scan_out; ++k) {
      ctx.SetOutput(static_cast<size_t>(n_state + k), r.outputs[static_cast<size_t>(k)]);
    }
    return Status::Ok();
  }
  // Scan-8: the batch axis (0 of every input) must be known at import.
  const std::vector<DimExpr> dims = ctx.state().DimsOfValue(inputs[0]);
  if (dims.empty() || !dims[0].is_const()) {
    return ctx.UnsupportedOp("Scan-8 over a batch known only at run time is not unrolled");
  }
  const int64_t batch = ctx.TypeOf(inputs[0]).shape[0];
  if (batch > kMaxIterations) return ctx.UnsupportedOp("Scan-8's batch is too large to unroll");
  const int64_t max_len =
      num_scan > 0 && ctx.TypeOf(inputs[static_cast<size_t>(n_state)]).shape.size() > 1
          ? ctx.TypeOf(inputs[static_cast<size_t>(n_state)]).shape[1]
          : 0;
  if (!lens.empty()) {
    if (static_cast<int64_t>(lens.size()) != batch) {
      return ctx.Invalid("sequence_lens has " + std::to_string(lens.size()) +
                         " entries for a batch of " + std::to_string(batch));
    }
    for (int64_t len : lens) {
      if (len < 1 || len > max_len) {
        return ctx.UnsupportedOp("sequence_lens holds " + std::to_string(len) +
                                 ": lengths from 1 to the scan inputs' " + std::to_string(max_len) +
                                 " are unrolled");
      }
    }
  }
  std::vector<std::vector<std::string>> outs(static_cast<size_t>(n_out));
  for (int64_t b = 0; b < batch; ++b) {
    SY_ASSIGN_OR_RETURN(ValueId index, ctx.Scalar(DType::kI64, static_cast<double>(b)));
    std::vector<ValueId> row;
    for (ValueId v : inputs) {
      Attrs gather;
      gather.Set("axis", int64_t{0});
      SY_ASSIGN_OR_RETURN(ValueId r, ctx.Emit1("gather", {v, index}, std::move(gather)));
      row.push_back(r);
    }
    std::vector<KnownValue> state;
    std::vector<std::string> names;
    for (int64_t k = 0; k < n_state; ++k) {
      state.push_back(known_of(row[static_cast<size_t>(k)]));
      names.push_back(ctx.state().UniqueName("scan8#" + ctx.node().output(0) + "/state"));
      ctx.state().Bind(names.back(), state.back());
    }
    std::vector<ValueId> scan_in(row.begin() + n_state, row.end());
    const int64_t len = lens.empty() ? max_len : lens[static_cast<size_t>(b)];
    if (len < max_len) {
      for (ValueId& v : scan_in) {
        Attrs head;
        head.Set("starts", std::vector<int64_t>{0});
        head.Set("ends", std::vector<int64_t>{len});
        head.Set("axes", std::vector<int64_t>{0});
        SY_ASSIGN_OR_RETURN(v, ctx.Emit1("slice", {v}, std::move(head)));
      }
    }
    SY_ASSIGN_OR_RETURN(ScanResult r, UnrollScan(ctx, state, names, scan_in, spec,
                                                 "batch " + std::to_string(b) + ", "));
    for (int64_t k = 0; k < n_state; ++k)
      outs[static_cast<size_t>(k)].push_back(r.state[static_cast<size_t>(k)]);
    for (int64_t k = 0; k < spec.n_scan_out; ++k) {
      ValueId scanned = r.outputs[static_cast<size_t>(k)];
      if (len < max_len) {  // zeros after the row's last element
        TensorType pad = ctx.TypeOf(scanned);
        pad.shape[0] = max_len - len;
        SY_ASSIGN_OR_RETURN(ValueId zeros, ctx.Scalar(pad.dtype, 0.0, pad.shape));
        Attrs axis0;
        axis0.Set("axis", int64_t{0});
        SY_ASSIGN_OR_RETURN(scanned, ctx.Emit1("concat", {scanned, zeros}, std::move(axis0)));
      }
      const std::string name = ctx.state().UniqueName("scan8#" + ctx.node().output(0) + "/scan");
      ctx.state().Bind(name, known_of(scanned));
      outs[static_cast<size_t>(n_state + k)].push_back(name);
    }
  }
  for (int64_t k = 0; k < n_out; ++k) {
    if (!ctx.OutputWanted(static_cast<size_t>(k))) continue;
    if (outs[static_cast<size_t>(k)].empty()) {
      return ctx.UnsupportedOp("Scan-8 over an empty batch: its output shapes are not known");
    }
    SY_ASSIGN_OR_RETURN(ValueId out, Stack(ctx, outs[static_cast<size_t>(k)], 0));
    ctx.SetOutput(static_cast<size_t>(k), out);
  }
  return Status::Ok();
}

}  // namespace

void AddControlFlowMappings(MappingTable& table) {
  table.At("If").map = MapIf;
  table.At("Loop").map = MapLoop;
  table.At("Scan").map = MapScan;
}

}  // namespace sy::onnx_import
