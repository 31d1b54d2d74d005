// The loss functions ONNX defines for inference graphs, decomposed onto catalogue ops:
//   NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight [C]?)
//     loss = -input[n, target, d...] * weight[target], 0 where target == ignore_index;
//     reduction none (loss), sum, or mean (sum / sum of the applied weights);
//   SoftmaxCrossEntropyLoss = NegativeLogLikelihoodLoss(LogSoftmax(scores, axis 1), ...),
//     with the log-probabilities as its optional second output.
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

Expected<ValueId> Nll(NodeContext& ctx, ValueId input, ValueId target,
                      std::optional<ValueId> weight) {
  const TensorType in_type = ctx.TypeOf(input);
  const TensorType t_type = ctx.TypeOf(target);
  if (in_type.shape.size() < 2 || t_type.shape.size() + 1 != in_type.shape.size()) {
    return ctx.Invalid("input " + in_type.ToString() + " and target " + t_type.ToString() +
                       " do not have the shapes [N, C, d...] and [N, d...]");
  }
  const std::string reduction = ctx.AttrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return ctx.Invalid("reduction '" + reduction + "' is not one of none sum mean");
  }
  std::optional<ValueId> ignored;  // bool mask of targets equal to ignore_index
  ValueId safe_target = target;
  if (ctx.Attr("ignore_index") != nullptr) {
    SY_ASSIGN_OR_RETURN(
        ValueId ii, ctx.Scalar(t_type.dtype, static_cast<double>(ctx.AttrInt("ignore_index", 0))));
    SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(t_type.dtype, 0));
    SY_ASSIGN_OR_RETURN(ValueId mask, ctx.Emit1("equal", {target, ii}));
    ignored = mask;
    // Ignored targets may be out of range for the class dim; gather class 0 instead.
    SY_ASSIGN_OR_RETURN(safe_target, ctx.Emit1("where", {*ignored, zero, target}));
  }
  Shape index_shape = t_type.shape;
  index_shape.insert(index_shape.begin() + 1, 1);
  Attrs to_index;
  to_index.Set("shape", std::vector<int64_t>(index_shape.begin(), index_shape.end()));
  SY_ASSIGN_OR_RETURN(ValueId index, ctx.Emit1("reshape", {safe_target}, std::move(to_index)));
  Attrs axis1;
  axis1.Set("axis", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId picked,
                      ctx.Emit1("gather_elements", {input, index}, std::move(axis1)));
  Attrs to_target;
  to_target.Set("shape", std::vector<int64_t>(t_type.shape.begin(), t_type.shape.end()));
  SY_ASSIGN_OR_RETURN(picked, ctx.Emit1("reshape", {picked}, std::move(to_target)));
  SY_ASSIGN_OR_RETURN(ValueId loss, ctx.Emit1("neg", {picked}));
  std::optional<ValueId> applied;  // the weight each element got, for the mean
  if (weight) {
    Attrs axis0;
    axis0.Set("axis", int64_t{0});
    SY_ASSIGN_OR_RETURN(ValueId w, ctx.Emit1("gather", {*weight, safe_target}, std::move(axis0)));
    applied = w;
    SY_ASSIGN_OR_RETURN(loss, ctx.Emit1("mul", {loss, *applied}));
  }
  if (ignored) {
    SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(in_type.dtype, 0));
    SY_ASSIGN_OR_RETURN(loss, ctx.Emit1("where", {*ignored, zero, loss}));
    ValueId kept = -1;
    if (applied) {
      SY_ASSIGN_OR_RETURN(kept, ctx.Emit1("where", {*ignored, zero, *applied}));
    } else {
      SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(in_type.dtype, 1));
      SY_ASSIGN_OR_RETURN(kept, ctx.Emit1("where", {*ignored, zero, one}));
    }
    applied = kept;
  }
  if (reduction == "none") return loss;
  Attrs all;
  all.Set("keepdims", int64_t{0});
  if (reduction == "mean" && !applied) return ctx.Emit1("reduce_mean", {loss}, all);
  SY_ASSIGN_OR_RETURN(ValueId total, ctx.Emit1("reduce_sum", {loss}, all));
  if (reduction == "sum") return total;
  SY_ASSIGN_OR_RETURN(ValueId weight_total, ctx.Emit1("reduce_sum", {*applied}, all));
  return ctx.Emit1("div", {total, weight_total});
}

Status MapNll(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId input, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId target, ctx.Input(1));
  std::optional<ValueId> weight;
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(2));
    weight = w;
  }
  SY_ASSIGN_OR_RETURN(ValueId out, Nll(ctx, input, target, weight));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapSoftmaxCrossEntropy(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId scores, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId labels, ctx.Input(1));
  std::optional<ValueId> weight;
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(2));
    weight = w;
  }
  Attrs axis1;
  axis1.Set("axis", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId log_prob, ctx.Emit1("log_softmax", {scores}, std::move(axis1)));
  SY_ASSIGN_OR_RETURN(ValueId out, Nll(ctx, log_prob, labels, weight));
  ctx.SetOutput(0, out);
  ctx.SetOutput(1, log_prob);
  return Status::Ok();
}

}  // namespace

void AddLossMappings(MappingTable& table) {
  table.At("NegativeLogLikelihoodLoss").map = MapNll;
  table.At("SoftmaxCrossEntropyLoss").map = MapSoftmaxCrossEntropy;
}

}  // namespace sy::onnx_import
