// Reductions, arg-reductions, scans and TopK. The ONNX reductions without a catalogue op
// of their own are decomposed: ReduceL1 = sum|x|, ReduceL2 = sqrt(sum x^2),
// ReduceSumSquare = sum x^2, ReduceLogSum = log(sum x), ReduceLogSumExp = m + log(sum
// exp(x - m)) with m the max (so that it does not overflow).
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

int64_t AxesInputSince(std::string_view type) { return type == "ReduceSum" ? 13 : 18; }

Status MapReduce(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(auto axes, AxesParam(ctx, 1, AxesInputSince(type)));
  const bool keepdims = ctx.AttrInt("keepdims", 1) != 0;
  if (axes.empty() && ctx.AttrInt("noop_with_empty_axes", 0) != 0) {
    // Reducing over nothing, except that the decomposed ones still apply their
    // elementwise parts.
    if (type == "ReduceL1") {
      SY_ASSIGN_OR_RETURN(x, ctx.Emit1("abs", {x}));
    } else if (type == "ReduceSumSquare" || type == "ReduceL2") {
      SY_ASSIGN_OR_RETURN(x, ctx.Emit1("mul", {x, x}));
      if (type == "ReduceL2") {
        SY_ASSIGN_OR_RETURN(x, ctx.Emit1("sqrt", {x}));
      }
    } else if (type == "ReduceLogSum") {
      SY_ASSIGN_OR_RETURN(x, ctx.Emit1("log", {x}));
    }
    ctx.SetOutput(0, x);
    return Status::Ok();
  }
  const auto reduce = [&](std::string_view op, ValueId in, bool keep) -> Expected<ValueId> {
    Attrs attrs;
    if (!axes.empty()) attrs.Set("axes", axes);
    attrs.Set("keepdims", int64_t{keep ? 1 : 0});
    return ctx.Emit1(op, {in}, std::move(attrs));
  };
  ValueId out = -1;
  if (type == "ReduceSum" || type == "ReduceMean" || type == "ReduceMax" || type == "ReduceMin" ||
      type == "ReduceProd") {
    const std::string op = type == "ReduceSum"    ? "reduce_sum"
                           : type == "ReduceMean" ? "reduce_mean"
                           : type == "ReduceMax"  ? "reduce_max"
                           : type == "ReduceMin"  ? "reduce_min"
                                                  : "reduce_prod";
    const DType dtype = ctx.TypeOf(x).dtype;
    if (dtype == DType::kBool && (op == "reduce_max" || op == "reduce_min")) {
      // ReduceMax-20 / ReduceMin-20 on bool (any / all): as u8, which holds 0 and 1.
      SY_ASSIGN_OR_RETURN(ValueId as_int, CastTo(ctx, x, DType::kU8));
      SY_ASSIGN_OR_RETURN(ValueId r, reduce(op, as_int, keepdims));
      SY_ASSIGN_OR_RETURN(out, CastTo(ctx, r, DType::kBool));
    } else {
      SY_ASSIGN_OR_RETURN(out, reduce(op, x, keepdims));
    }
  } else if (type == "ReduceL1") {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx.Emit1("abs", {x}));
    SY_ASSIGN_OR_RETURN(out, reduce("reduce_sum", a, keepdims));
  } else if (type == "ReduceL2" || type == "ReduceSumSquare") {
    SY_ASSIGN_OR_RETURN(ValueId sq, ctx.Emit1("mul", {x, x}));
    SY_ASSIGN_OR_RETURN(out, reduce("reduce_sum", sq, keepdims));
    if (type == "ReduceL2") {
      if (!IsFloat(ctx.TypeOf(out).dtype)) {
        // sqrt of an integer sum: computed in f64 and truncated back, as ONNX's reference does.
        Attrs to_f;
        to_f.Set("to", std::string("f64"));
        SY_ASSIGN_OR_RETURN(ValueId f, ctx.Emit1("cast", {out}, std::move(to_f)));
        SY_ASSIGN_OR_RETURN(f, ctx.Emit1("sqrt", {f}));
        Attrs back;
        back.Set("to", std::string(DTypeName(ctx.TypeOf(out).dtype)));
        SY_ASSIGN_OR_RETURN(out, ctx.Emit1("cast", {f}, std::move(back)));
      } else {
        SY_ASSIGN_OR_RETURN(out, ctx.Emit1("sqrt", {out}));
      }
    }
  } else if (type == "ReduceLogSum") {
    SY_ASSIGN_OR_RETURN(ValueId s, reduce("reduce_sum", x, keepdims));
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("log", {s}));
  } else {  // ReduceLogSumExp
    SY_ASSIGN_OR_RETURN(ValueId m, reduce("reduce_max", x, true));
    SY_ASSIGN_OR_RETURN(ValueId shifted, ctx.Emit1("sub", {x, m}));
    SY_ASSIGN_OR_RETURN(ValueId e, ctx.Emit1("exp", {shifted}));
    SY_ASSIGN_OR_RETURN(ValueId s, reduce("reduce_sum", e, keepdims));
    SY_ASSIGN_OR_RETURN(ValueId l, ctx.Emit1("log", {s}));
    ValueId mk = m;
    if (!keepdims) {
      SY_ASSIGN_OR_RETURN(mk, reduce("reduce_max", x, false));
    }
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("add", {l, mk}));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapArg(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  attrs.Set("axis", ctx.AttrInt("axis", 0));
  attrs.Set("keepdims", ctx.AttrInt("keepdims", 1));
  attrs.Set("select_last_index", ctx.AttrInt("select_last_index", 0));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(ctx.node().op_type() == "ArgMax" ? "argmax" : "argmin",
                                             {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapCumSum(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(double axis, ctx.StaticScalar(1, "axis"));
  Attrs attrs;
  attrs.Set("axis", static_cast<int64_t>(axis));
  attrs.Set("exclusive", ctx.AttrInt("exclusive", 0));
  attrs.Set("reverse", ctx.AttrInt("reverse", 0));
  const char* op = ctx.node().op_type() == "CumProd" ? "cumprod" : "cumsum";
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(op, {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapTopK(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  int64_t k = ctx.AttrInt("k", -1);
  std::string k_symbol;  // k computed at run time: a data symbol (docs/dynamic-shapes.md)
  if (ctx.since_version() >= 10) {
    const KnownValue* known = ctx.state().Find(ctx.node().input(1));
    const bool given = ctx.state().options().input_values.count(ctx.node().input(1)) != 0;
    if (known != nullptr && !known->constant && !given && !ctx.InputSymbolic(1)) {
      SY_ASSIGN_OR_RETURN(ValueId k_value, ctx.Input(1));
      k_symbol = ctx.state().DeclareDataSymbol(ctx.node().input(1), k_value);
      k = ctx.state().symbols().back().example;
    } else {
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> kk, ctx.StaticInts(1, "k"));
      if (kk.size() != 1) return ctx.Invalid("k must hold one element");
      k = kk[0];
    }
  }
  Attrs attrs;
  attrs.Set("k", k);
  attrs.Set("axis", ctx.AttrInt("axis", -1));
  attrs.Set("largest", ctx.AttrInt("largest", 1));
  attrs.Set("sorted", ctx.AttrInt("sorted", 1));
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> out, ctx.Emit("topk", {x}, std::move(attrs), 2));
  if (!k_symbol.empty()) ctx.AttachAttrExpr("k", {DimExpr::Symbol(k_symbol)}, false);
  ctx.SetOutput(0, out[0]);
  ctx.SetOutput(1, out[1]);
  return Status::Ok();
}

}  // namespace

void AddReductionMappings(MappingTable& table) {
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    table.At(op).map = MapReduce;
  }
  table.At("ArgMax").map = MapArg;
  table.At("ArgMin").map = MapArg;
  table.At("CumSum").map = MapCumSum;
  table.At("CumProd").map = MapCumSum;
  table.At("TopK").map = MapTopK;
}

}  // namespace sy::onnx_import
