// The optimizer steps of ONNX's ai.onnx.preview.training domain (Adagrad, Adam,
// Momentum), which are elementwise arithmetic on the parameters, gradients and
// accumulators a caller passes in and gets back: decomposed onto catalogue ops as ONNX's
// reference (onnx/reference/ops/aionnx_preview_training) computes them, in X's dtype.
// Each takes R (learning rate) and T (update count) scalars, then n tensors of each
// kind: Adagrad X G H -> X' H'; Momentum X G V -> X' V'; Adam X G V H -> X' V' H'. The
// conditions on T (Momentum's first step, Adam's bias correction) are `where`s, so T may
// be a run-time input. Gradient (automatic differentiation) stays refused as
// training-only: it would need the graph's derivative, which the catalogue does not build.
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

struct Step {
  NodeContext& ctx;
  DType dtype;
  ValueId r = -1, t = -1;  // R in X's dtype, T as given

  Expected<ValueId> C(double v) { return ctx.Scalar(dtype, v); }
  Expected<ValueId> Op(std::string_view op, ValueId a, ValueId b) { return ctx.Emit1(op, {a, b}); }
  // a * x + y for a constant a.
  Expected<ValueId> Axpy(double a, ValueId x, ValueId y) {
    SY_ASSIGN_OR_RETURN(ValueId ac, C(a));
    SY_ASSIGN_OR_RETURN(ValueId ax, Op("mul", ac, x));
    return Op("add", ax, y);
  }
  // T > 0, as bool.
  Expected<ValueId> Started() {
    SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(ctx.TypeOf(t).dtype, 0.0));
    return Op("greater", t, zero);
  }
  // T in X's dtype.
  Expected<ValueId> TFloat() { return CastTo(ctx, t, dtype); }
};

// Reads R and T and checks the inputs split into `kinds` groups of n.
Expected<std::pair<Step, int64_t>> Begin(NodeContext& ctx, int64_t kinds) {
  const auto inputs = static_cast<int64_t>(ctx.num_inputs());
  if (inputs < 2 + kinds || (inputs - 2) % kinds != 0) {
    return ctx.Invalid("takes R, T and " + std::to_string(kinds) + " tensors per parameter");
  }
  const int64_t n = (inputs - 2) / kinds;
  if (static_cast<int64_t>(ctx.num_outputs()) > (kinds == 4 ? 3 : 2) * n) {
    return ctx.Invalid("has more outputs than its inputs give");
  }
  SY_ASSIGN_OR_RETURN(ValueId x0, ctx.Input(2));
  const DType dtype = ctx.TypeOf(x0).dtype;
  if (!IsFloat(dtype)) return ctx.Invalid("X must be a float tensor");
  Step s{ctx, dtype};
  SY_ASSIGN_OR_RETURN(ValueId r, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(s.r, CastTo(ctx, r, dtype));
  SY_ASSIGN_OR_RETURN(s.t, ctx.Input(1));
  return std::pair<Step, int64_t>{s, n};
}

void SetIfWanted(NodeContext& ctx, int64_t i, ValueId v) {
  if (i < static_cast<int64_t>(ctx.num_outputs()) && ctx.OutputWanted(static_cast<size_t>(i))) {
    ctx.SetOutput(static_cast<size_t>(i), v);
  }
}

Status MapAdagrad(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(auto begun, Begin(ctx, 3));
  auto& [s, n] = begun;
  const double decay = ctx.AttrFloat("decay_factor", 0.0);
  const double epsilon = ctx.AttrFloat("epsilon", 0.0);
  const double norm = ctx.AttrFloat("norm_coefficient", 0.0);
  // r' = R / (1 + T * decay)
  SY_ASSIGN_OR_RETURN(ValueId tf, s.TFloat());
  SY_ASSIGN_OR_RETURN(ValueId one, s.C(1.0));
  SY_ASSIGN_OR_RETURN(ValueId denom, s.Axpy(decay, tf, one));
  SY_ASSIGN_OR_RETURN(ValueId rate, s.Op("div", s.r, denom));
  for (int64_t i = 0; i < n; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(static_cast<size_t>(2 + i)));
    SY_ASSIGN_OR_RETURN(ValueId g, ctx.Input(static_cast<size_t>(2 + n + i)));
    SY_ASSIGN_OR_RETURN(ValueId h, ctx.Input(static_cast<size_t>(2 + 2 * n + i)));
    SY_ASSIGN_OR_RETURN(ValueId gr, s.Axpy(norm, x, g));
    SY_ASSIGN_OR_RETURN(ValueId gg, s.Op("mul", gr, gr));
    SY_ASSIGN_OR_RETURN(ValueId h_new, s.Op("add", h, gg));
    SY_ASSIGN_OR_RETURN(ValueId root, ctx.Emit1("sqrt", {h_new}));
    SY_ASSIGN_OR_RETURN(ValueId eps, s.C(epsilon));
    SY_ASSIGN_OR_RETURN(ValueId scale, s.Op("add", root, eps));
    SY_ASSIGN_OR_RETURN(ValueId step, s.Op("mul", rate, gr));
    SY_ASSIGN_OR_RETURN(step, s.Op("div", step, scale));
    SY_ASSIGN_OR_RETURN(ValueId x_new, s.Op("sub", x, step));
    SetIfWanted(ctx, i, x_new);
    SetIfWanted(ctx, n + i, h_new);
  }
  return Status::Ok();
}

Status MapMomentum(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(auto begun, Begin(ctx, 3));
  auto& [s, n] = begun;
  for (const char* a : {"alpha", "beta", "mode", "norm_coefficient"}) {
    if (ctx.Attr(a) == nullptr) return ctx.Invalid(std::string("needs attribute ") + a);
  }
  const double alpha = ctx.AttrFloat("alpha", 0.0), beta = ctx.AttrFloat("beta", 0.0);
  const double norm = ctx.AttrFloat("norm_coefficient", 0.0);
  const std::string mode = ctx.AttrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") {
    return ctx.Invalid("mode must be standard or nesterov, not " + mode);
  }
  // The gradient's coefficient is 1 at the first step (T = 0), beta after.
  SY_ASSIGN_OR_RETURN(ValueId started, s.Started());
  SY_ASSIGN_OR_RETURN(ValueId b, s.C(beta));
  SY_ASSIGN_OR_RETURN(ValueId one, s.C(1.0));
  SY_ASSIGN_OR_RETURN(ValueId coefficient, ctx.Emit1("where", {started, b, one}));
  for (int64_t i = 0; i < n; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(static_cast<size_t>(2 + i)));
    SY_ASSIGN_OR_RETURN(ValueId g, ctx.Input(static_cast<size_t>(2 + n + i)));
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(static_cast<size_t>(2 + 2 * n + i)));
    SY_ASSIGN_OR_RETURN(ValueId gr, s.Axpy(norm, x, g));
    SY_ASSIGN_OR_RETURN(ValueId bg, s.Op("mul", coefficient, gr));
    SY_ASSIGN_OR_RETURN(ValueId v_new, s.Axpy(alpha, v, bg));
    ValueId direction = v_new;
    if (mode == "nesterov") {
      SY_ASSIGN_OR_RETURN(direction, s.Axpy(alpha, v_new, gr));
    }
    SY_ASSIGN_OR_RETURN(ValueId step, s.Op("mul", s.r, direction));
    SY_ASSIGN_OR_RETURN(ValueId x_new, s.Op("sub", x, step));
    SetIfWanted(ctx, i, x_new);
    SetIfWanted(ctx, n + i, v_new);
  }
  return Status::Ok();
}

Status MapAdam(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(auto begun, Begin(ctx, 4));
  auto& [s, n] = begun;
  const double alpha = ctx.AttrFloat("alpha", 0.9), beta = ctx.AttrFloat("beta", 0.999);
  const double epsilon = ctx.AttrFloat("epsilon", 0.0);
  const double norm = ctx.AttrFloat("norm_coefficient", 0.0);
  const double norm_post = ctx.AttrFloat("norm_coefficient_post", 0.0);
  // Bias correction once T > 0: R * sqrt(1 - beta^T) / (1 - alpha^T); R itself at T = 0.
  SY_ASSIGN_OR_RETURN(ValueId tf, s.TFloat());
  SY_ASSIGN_OR_RETURN(ValueId one, s.C(1.0));
  SY_ASSIGN_OR_RETURN(ValueId a, s.C(alpha));
  SY_ASSIGN_OR_RETURN(ValueId b, s.C(beta));
  SY_ASSIGN_OR_RETURN(ValueId a_t, s.Op("pow", a, tf));
  SY_ASSIGN_OR_RETURN(ValueId b_t, s.Op("pow", b, tf));
  SY_ASSIGN_OR_RETURN(ValueId num, s.Op("sub", one, b_t));
  SY_ASSIGN_OR_RETURN(num, ctx.Emit1("sqrt", {num}));
  SY_ASSIGN_OR_RETURN(ValueId den, s.Op("sub", one, a_t));
  SY_ASSIGN_OR_RETURN(ValueId corrected, s.Op("mul", s.r, num));
  SY_ASSIGN_OR_RETURN(corrected, s.Op("div", corrected, den));
  SY_ASSIGN_OR_RETURN(ValueId started, s.Started());
  SY_ASSIGN_OR_RETURN(ValueId rate, ctx.Emit1("where", {started, corrected, s.r}));
  for (int64_t i = 0; i < n; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(static_cast<size_t>(2 + i)));
    SY_ASSIGN_OR_RETURN(ValueId g, ctx.Input(static_cast<size_t>(2 + n + i)));
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(static_cast<size_t>(2 + 2 * n + i)));
    SY_ASSIGN_OR_RETURN(ValueId h, ctx.Input(static_cast<size_t>(2 + 3 * n + i)));
    SY_ASSIGN_OR_RETURN(ValueId gr, s.Axpy(norm, x, g));
    // v' = alpha v + (1 - alpha) g; h' = beta h + (1 - beta) g^2
    SY_ASSIGN_OR_RETURN(ValueId ag, s.C(1.0 - alpha));
    SY_ASSIGN_OR_RETURN(ag, s.Op("mul", ag, gr));
    SY_ASSIGN_OR_RETURN(ValueId v_new, s.Axpy(alpha, v, ag));
    SY_ASSIGN_OR_RETURN(ValueId gg, s.Op("mul", gr, gr));
    SY_ASSIGN_OR_RETURN(ValueId bg, s.C(1.0 - beta));
    SY_ASSIGN_OR_RETURN(bg, s.Op("mul", bg, gg));
    SY_ASSIGN_OR_RETURN(ValueId h_new, s.Axpy(beta, h, bg));
    SY_ASSIGN_OR_RETURN(ValueId root, ctx.Emit1("sqrt", {h_new}));
    SY_ASSIGN_OR_RETURN(ValueId eps, s.C(epsilon));
    SY_ASSIGN_OR_RETURN(root, s.Op("add", root, eps));
    SY_ASSIGN_OR_RETURN(ValueId ratio, s.Op("div", v_new, root));
    SY_ASSIGN_OR_RETURN(ValueId step, s.Op("mul", rate, ratio));
    SY_ASSIGN_OR_RETURN(ValueId x_new, s.Op("sub", x, step));
    if (norm_post != 0) {
      SY_ASSIGN_OR_RETURN(ValueId keep, s.C(1.0 - norm_post));
      SY_ASSIGN_OR_RETURN(x_new, s.Op("mul", keep, x_new));
    }
    SetIfWanted(ctx, i, x_new);
    SetIfWanted(ctx, n + i, v_new);
    SetIfWanted(ctx, 2 * n + i, h_new);
  }
  return Status::Ok();
}

}  // namespace

void AddTrainingMappings(MappingTable& table) {
  const std::string domain = "ai.onnx.preview.training:";
  table.At(domain + "Adagrad").map = MapAdagrad;
  table.At(domain + "Momentum").map = MapMomentum;
  table.At(domain + "Adam").map = MapAdam;
}

}  // namespace sy::onnx_import
