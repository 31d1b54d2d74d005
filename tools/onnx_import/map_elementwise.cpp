// Elementwise ONNX ops: one-to-one where the catalogue has the op, decomposed otherwise
// (Celu, ThresholdedRelu, Shrink, IsNaN, IsInf, Sinh, Cosh, Mean, variadic Sum/Max/Min).
#include <cmath>
#include <limits>

#include "op_mapping.h"
#include "switchyard/op_schema.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// The ONNX ops that map one to one onto the catalogue op whose schema names them
// (OpSchema::onnx_name): the catalogue is the one table of ONNX-to-catalogue names, and
// this list only says which of them need nothing but their inputs passed on.
constexpr std::string_view kDirectOps[] = {
    "Neg",
    "Abs",
    "Sign",
    "Exp",
    "Log",
    "Sqrt",
    "Reciprocal",
    "Sin",
    "Cos",
    "Tan",
    "Erf",
    "Tanh",
    "Asin",
    "Acos",
    "Atan",
    "Asinh",
    "Acosh",
    "Atanh",
    "Sigmoid",
    "Relu",
    "Softplus",
    "Softsign",
    "Mish",
    "HardSwish",
    "Floor",
    "Ceil",
    "Round",
    "Not",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Equal",
    "Less",
    "LessOrEqual",
    "Greater",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "Where",
    "PRelu",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "BitwiseNot",
    "Det",
};

}  // namespace

// ONNX op -> catalogue op, from the catalogue's schemas, for every op of kDirectOps.
const std::map<std::string, std::string, std::less<>>& DirectOps() {
  static const std::map<std::string, std::string, std::less<>> ops = [] {
    std::map<std::string, std::string, std::less<>> by_onnx;
    for (const OpSchema& schema : OpRegistry::Global().schemas()) {
      if (!schema.onnx_name.empty()) by_onnx.emplace(schema.onnx_name, schema.name);
    }
    std::map<std::string, std::string, std::less<>> out;
    for (std::string_view onnx : kDirectOps) {
      auto it = by_onnx.find(onnx);  // empty when no schema names it (a unit test fails)
      out.emplace(std::string(onnx), it != by_onnx.end() ? it->second : std::string());
    }
    return out;
  }();
  return ops;
}

Expected<ValueId> CastTo(NodeContext& ctx, ValueId x, DType to) {
  if (ctx.TypeOf(x).dtype == to) return x;
  Attrs attrs;
  attrs.Set("to", std::string(DTypeName(to)));
  return ctx.Emit1("cast", {x}, std::move(attrs));
}

namespace {

// Before opset 7, binary ops broadcast only when `broadcast` is 1, aligning B's dims with
// A's starting at `axis` (default: B's trailing dims). B is reshaped with trailing ones so
// that NumPy broadcasting lines it up the same way. PRelu before 7 applied a 1-D slope per
// channel (dim 1), which the same reshape expresses.
Expected<ValueId> LegacyAlign(NodeContext& ctx, ValueId a, ValueId b) {
  const bool prelu = ctx.node().op_type() == "PRelu";
  if (ctx.since_version() >= 7 || (!prelu && ctx.AttrInt("broadcast", 0) == 0)) return b;
  const Shape& as = ctx.TypeOf(a).shape;
  const Shape bs = ctx.TypeOf(b).shape;
  int64_t axis = ctx.AttrInt("axis", -1);
  if (prelu) {
    if (bs.size() != 1 || as.size() < 2 || bs[0] != as[1]) return b;
    axis = 1;
  }
  if (ctx.Attr("axis") == nullptr && !prelu) return b;  // trailing alignment: NumPy's
  const int64_t rank = static_cast<int64_t>(as.size());
  if (axis < 0) axis += rank;
  const int64_t trailing = rank - axis - static_cast<int64_t>(bs.size());
  if (axis < 0 || trailing < 0) {
    return ctx.Invalid("broadcast axis " + std::to_string(ctx.AttrInt("axis", -1)) +
                       " does not fit B " + ShapeToString(bs) + " into A " + ShapeToString(as));
  }
  Shape aligned = bs;
  aligned.insert(aligned.end(), static_cast<size_t>(trailing), 1);
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(aligned.begin(), aligned.end()));
  return ctx.Emit1("reshape", {b}, std::move(attrs));
}

// BitShift: the catalogue's bit_shift with the direction in lower case.
Status MapBitShift(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  const std::string direction = ctx.AttrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return ctx.Invalid("direction must be LEFT or RIGHT, not '" + direction + "'");
  }
  Attrs attrs;
  attrs.Set("direction", std::string(direction == "LEFT" ? "left" : "right"));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("bit_shift", {a, b}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapDirect(NodeContext& ctx) {
  const std::string& op = DirectOps().find(ctx.node().op_type())->second;
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    SY_ASSIGN_OR_RETURN(ValueId id, ctx.Input(i));
    inputs.push_back(id);
  }
  if (inputs.size() == 2) {
    SY_ASSIGN_OR_RETURN(inputs[1], LegacyAlign(ctx, inputs[0], inputs[1]));
  }
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(op, inputs));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Unary ops whose float attributes carry over by name (with ONNX defaults).
Status MapUnaryWithAttrs(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  std::string op;
  if (type == "LeakyRelu") {
    op = "leaky_relu";
    attrs.Set("alpha", ctx.AttrFloat("alpha", 0.01));
  } else if (type == "Elu") {
    op = "elu";
    attrs.Set("alpha", ctx.AttrFloat("alpha", 1.0));
  } else if (type == "HardSigmoid") {
    op = "hard_sigmoid";
    attrs.Set("alpha", ctx.AttrFloat("alpha", 0.2));
    attrs.Set("beta", ctx.AttrFloat("beta", 0.5));
  } else if (type == "Selu") {
    op = "selu";
    attrs.Set("alpha", ctx.AttrFloat("alpha", 1.67326319217681884765625));
    attrs.Set("gamma", ctx.AttrFloat("gamma", 1.05070102214813232421875));
  } else {  // Gelu (opset 20)
    op = "gelu";
    attrs.Set("approximate", ctx.AttrString("approximate", "none"));
  }
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(op, {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

// Dropout in training mode with a ratio r in (0, 1), as ONNX's reference: mask =
// uniform >= r (the catalogue's random_uniform, docs/onnx-import.md), y = x / (1 - r)
// where kept, else 0; r = 1 drops everything.
namespace {
Status MapTrainingDropout(NodeContext& ctx, double ratio) {
  if (!(ratio >= 0 && ratio <= 1)) return ctx.Invalid("ratio must be in [0, 1]");
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  if (!IsFloat(dtype)) return ctx.Invalid("drops elements of a float input only");
  SY_ASSIGN_OR_RETURN(ValueId u, EmitRandomUniform(ctx, x, dtype));
  SY_ASSIGN_OR_RETURN(ValueId r, ctx.Scalar(dtype, ratio));
  SY_ASSIGN_OR_RETURN(ValueId keep, ctx.Emit1("greater_equal", {u, r}));
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
  ValueId scaled = zero;
  if (ratio < 1) {
    SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Scalar(dtype, 1.0 / (1.0 - ratio)));
    SY_ASSIGN_OR_RETURN(scaled, ctx.Emit1("mul", {x, scale}));
  }
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("where", {keep, scaled, zero}));
  ctx.SetOutput(0, y);
  if (ctx.OutputWanted(1)) ctx.SetOutput(1, keep);
  return Status::Ok();
}

}  // namespace

// Identity and Dropout in inference: the output is the input, no node needed.
Status MapAlias(NodeContext& ctx) {
  if (ctx.node().op_type() == "Dropout") {
    if (ctx.HasInput(2)) {
      SY_ASSIGN_OR_RETURN(double training, ctx.StaticScalar(2, "training_mode"));
      // Training with a ratio of 0 drops nothing: the inference form (mask all true).
      double ratio = 0.5;
      if (training != 0 && ctx.HasInput(1)) {
        SY_ASSIGN_OR_RETURN(ratio, ctx.StaticScalar(1, "ratio"));
      }
      if (training != 0 && ratio != 0) return MapTrainingDropout(ctx, ratio);
    }
    if (ctx.since_version() < 7 && ctx.AttrInt("is_test", 0) == 0) {
      return ctx.Fail(ImportProblem::kTrainingOnly, "runs in training mode (is_test is 0)");
    }
  }
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  ctx.SetOutput(0, x);
  if (ctx.OutputWanted(1)) {  // Dropout's mask: all true in inference
    SY_ASSIGN_OR_RETURN(ValueId mask, ctx.Scalar(DType::kBool, 1, ctx.TypeOf(x).shape));
    ctx.SetOutput(1, mask);
  }
  return Status::Ok();
}

namespace {

Status MapClip(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  if (ctx.since_version() < 11) {
    if (ctx.Attr("min") != nullptr) attrs.Set("min", ctx.AttrFloat("min", 0));
    if (ctx.Attr("max") != nullptr) attrs.Set("max", ctx.AttrFloat("max", 0));
  } else {
    if (ctx.HasInput(1)) {
      SY_ASSIGN_OR_RETURN(double v, ctx.StaticScalar(1, "min"));
      attrs.Set("min", v);
    }
    if (ctx.HasInput(2)) {
      SY_ASSIGN_OR_RETURN(double v, ctx.StaticScalar(2, "max"));
      attrs.Set("max", v);
    }
  }
  // ONNX: when min exceeds max every element becomes max (min(max(x, min), max)); the
  // catalogue's clip takes min <= max, so min is lowered to max.
  if (attrs.Has("min") && attrs.Has("max") && attrs.GetFloat("min") > attrs.GetFloat("max")) {
    attrs.Set("min", attrs.GetFloat("max"));
  }
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("clip", {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapCast(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  DType to = ctx.InputType(0).dtype;
  if (ctx.node().op_type() == "CastLike") {
    to = ctx.InputType(1).dtype;
  } else {
    SY_ASSIGN_OR_RETURN(to, DTypeParam(ctx, ctx.AttrInt("to", 0), "the target type"));
  }
  SY_ASSIGN_OR_RETURN(ValueId out, CastTo(ctx, x, to));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// BitCast (opset 26): the catalogue's bitcast; to bool is refused (its bytes must be 0 or
// 1), by the catalogue's schema.
Status MapBitCast(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(DType to, DTypeParam(ctx, ctx.AttrInt("to", 0), "the target type"));
  if (to == DType::kBool) {
    return ctx.UnsupportedOp("BitCast to bool (whose bytes must be 0 or 1) is not supported");
  }
  Attrs attrs;
  attrs.Set("to", std::string(DTypeName(to)));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("bitcast", {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapMod(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  Attrs attrs;
  attrs.Set("fmod", ctx.AttrInt("fmod", 0));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("mod", {a, b}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// ONNX Pow lets the exponent's type differ from the base's; the catalogue's pow takes
// one float type. Integer bases are computed in f64 and cast back (exact for the results
// an integer type can hold up to 2^53).
Status MapPow(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b_in, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId b, LegacyAlign(ctx, a, b_in));
  const DType base = ctx.TypeOf(a).dtype;
  const DType compute = IsFloat(base) ? base : DType::kF64;
  SY_ASSIGN_OR_RETURN(ValueId fa, CastTo(ctx, a, compute));
  SY_ASSIGN_OR_RETURN(ValueId fb, CastTo(ctx, b, compute));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("pow", {fa, fb}));
  if (compute != base) {
    // Round before the cast: pow in floating point may land a hair under an integer.
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("round", {out}));
    SY_ASSIGN_OR_RETURN(out, CastTo(ctx, out, base));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Sum, Mean, Max, Min over 1..N inputs: a chain of binary ops.
Status MapVariadic(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  const std::string op = type == "Max" ? "max" : type == "Min" ? "min" : "add";
  SY_ASSIGN_OR_RETURN(ValueId acc, ctx.Input(0));
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    SY_ASSIGN_OR_RETURN(ValueId next, ctx.Input(i));
    SY_ASSIGN_OR_RETURN(acc, ctx.Emit1(op, {acc, next}));
  }
  if (type == "Mean") {
    SY_ASSIGN_OR_RETURN(ValueId n,
                        ctx.Scalar(ctx.TypeOf(acc).dtype, static_cast<double>(ctx.num_inputs())));
    SY_ASSIGN_OR_RETURN(acc, ctx.Emit1("div", {acc, n}));
  }
  ctx.SetOutput(0, acc);
  return Status::Ok();
}

Status MapIsNaN(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId same, ctx.Emit1("equal", {x, x}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("not", {same}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapIsInf(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  const bool positive = ctx.AttrInt("detect_positive", 1) != 0;
  const bool negative = ctx.AttrInt("detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  std::optional<ValueId> out;
  if (positive) {
    SY_ASSIGN_OR_RETURN(ValueId pinf, ctx.Scalar(dtype, inf));
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("equal", {x, pinf}));
  }
  if (negative) {
    SY_ASSIGN_OR_RETURN(ValueId ninf, ctx.Scalar(dtype, -inf));
    SY_ASSIGN_OR_RETURN(ValueId is_neg, ctx.Emit1("equal", {x, ninf}));
    if (out) {
      SY_ASSIGN_OR_RETURN(out, ctx.Emit1("or", {*out, is_neg}));
    } else {
      out = is_neg;
    }
  }
  if (!out) {  // neither: all false
    SY_ASSIGN_OR_RETURN(ValueId same, ctx.Emit1("equal", {x, x}));
    SY_ASSIGN_OR_RETURN(ValueId truth, ctx.Emit1("not", {same}));
    SY_ASSIGN_OR_RETURN(ValueId nan_or_not, ctx.Emit1("or", {same, truth}));
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("not", {nan_or_not}));
  }
  ctx.SetOutput(0, *out);
  return Status::Ok();
}

// Celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Status MapCelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  const double alpha = ctx.AttrFloat("alpha", 1.0);
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0));
  SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(dtype, 1));
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Scalar(dtype, alpha));
  SY_ASSIGN_OR_RETURN(ValueId scaled, ctx.Emit1("div", {x, a}));
  SY_ASSIGN_OR_RETURN(ValueId e, ctx.Emit1("exp", {scaled}));
  SY_ASSIGN_OR_RETURN(ValueId em1, ctx.Emit1("sub", {e, one}));
  SY_ASSIGN_OR_RETURN(ValueId neg_part, ctx.Emit1("mul", {a, em1}));
  SY_ASSIGN_OR_RETURN(ValueId lo, ctx.Emit1("min", {zero, neg_part}));
  SY_ASSIGN_OR_RETURN(ValueId hi, ctx.Emit1("max", {zero, x}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("add", {hi, lo}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// ThresholdedRelu(x) = x > alpha ? x : 0.
Status MapThresholdedRelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  SY_ASSIGN_OR_RETURN(ValueId alpha, ctx.Scalar(dtype, ctx.AttrFloat("alpha", 1.0)));
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0));
  SY_ASSIGN_OR_RETURN(ValueId above, ctx.Emit1("greater", {x, alpha}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("where", {above, x, zero}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Shrink(x) = x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
Status MapShrink(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  const double lambd = ctx.AttrFloat("lambd", 0.5), bias = ctx.AttrFloat("bias", 0.0);
  SY_ASSIGN_OR_RETURN(ValueId lo, ctx.Scalar(dtype, -lambd));
  SY_ASSIGN_OR_RETURN(ValueId hi, ctx.Scalar(dtype, lambd));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Scalar(dtype, bias));
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0));
  SY_ASSIGN_OR_RETURN(ValueId below, ctx.Emit1("less", {x, lo}));
  SY_ASSIGN_OR_RETURN(ValueId above, ctx.Emit1("greater", {x, hi}));
  SY_ASSIGN_OR_RETURN(ValueId plus, ctx.Emit1("add", {x, b}));
  SY_ASSIGN_OR_RETURN(ValueId minus, ctx.Emit1("sub", {x, b}));
  SY_ASSIGN_OR_RETURN(ValueId upper, ctx.Emit1("where", {above, minus, zero}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("where", {below, plus, upper}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Sinh = (e^x - e^-x) / 2, Cosh = (e^x + e^-x) / 2.
Status MapHyperbolic(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  SY_ASSIGN_OR_RETURN(ValueId ep, ctx.Emit1("exp", {x}));
  SY_ASSIGN_OR_RETURN(ValueId nx, ctx.Emit1("neg", {x}));
  SY_ASSIGN_OR_RETURN(ValueId en, ctx.Emit1("exp", {nx}));
  SY_ASSIGN_OR_RETURN(ValueId combined,
                      ctx.Emit1(ctx.node().op_type() == "Sinh" ? "sub" : "add", {ep, en}));
  SY_ASSIGN_OR_RETURN(ValueId half, ctx.Scalar(dtype, 0.5));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("mul", {combined, half}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

void AddElementwiseMappings(MappingTable& table) {
  table.At("BitShift").map = MapBitShift;
  for (const auto& [onnx_op, op] : DirectOps()) {
    if (!op.empty()) table.At(onnx_op).map = MapDirect;
  }
  for (const char* op : {"LeakyRelu", "Elu", "HardSigmoid", "Selu", "Gelu"}) {
    table.At(op).map = MapUnaryWithAttrs;
  }
  table.At("Identity").map = MapAlias;
  table.At("Dropout").map = MapAlias;
  table.At("Clip").map = MapClip;
  table.At("Cast").map = MapCast;
  table.At("BitCast").map = MapBitCast;
  table.At("CastLike").map = MapCast;
  table.At("Mod").map = MapMod;
  table.At("Pow").map = MapPow;
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) table.At(op).map = MapVariadic;
  table.At("IsNaN").map = MapIsNaN;
  table.At("IsInf").map = MapIsInf;
  table.At("Celu").map = MapCelu;
  table.At("ThresholdedRelu").map = MapThresholdedRelu;
  table.At("Shrink").map = MapShrink;
  table.At("Sinh").map = MapHyperbolic;
  table.At("Cosh").map = MapHyperbolic;
}

}  // namespace sy::onnx_import
