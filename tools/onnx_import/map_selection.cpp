// Ops whose output size the data decides (docs/dynamic-shapes.md): NonZero, Compress,
// Unique and NonMaxSuppression map onto the catalogue's selection ops, which write a
// fixed-capacity output and a count; the count becomes a data symbol, and a slice with
// the symbol as its end trims each output, in a later stage of the session that runs it.
#include <algorithm>

#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

// Trims `buffer` along `axis` to the data symbol's size.
Expected<ValueId> Trim(NodeContext& ctx, ValueId buffer, int64_t axis, const std::string& symbol,
                       int64_t example) {
  Attrs attrs;
  attrs.Set("starts", std::vector<int64_t>{0});
  attrs.Set("ends", std::vector<int64_t>{example});
  attrs.Set("axes", std::vector<int64_t>{axis});
  attrs.Set("steps", std::vector<int64_t>{1});
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("slice", {buffer}, std::move(attrs)));
  ctx.AttachAttrExpr("ends", {DimExpr::Symbol(symbol)});
  return out;
}

// Emits `op` with `num_outputs` outputs (the count last), declares the count's data
// symbol, and binds ONNX output k to catalogue output k trimmed along trim_axes[k]
// (-1: bound as it is).
Status EmitSelection(NodeContext& ctx, std::string_view op, std::vector<ValueId> inputs,
                     Attrs attrs, const std::vector<int64_t>& trim_axes) {
  const int num_outputs = static_cast<int>(trim_axes.size()) + 1;
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> out,
                      ctx.Emit(op, std::move(inputs), std::move(attrs), num_outputs));
  ImportState& state = ctx.state();
  const std::string symbol = state.DeclareDataSymbol(ctx.node().output(0) + "_count", out.back());
  const int64_t example = state.symbols().back().example;
  for (size_t k = 0; k < trim_axes.size(); ++k) {
    if (!ctx.OutputWanted(k)) continue;
    if (trim_axes[k] < 0) {
      ctx.SetOutput(k, out[k]);
      continue;
    }
    SY_ASSIGN_OR_RETURN(ValueId trimmed, Trim(ctx, out[k], trim_axes[k], symbol, example));
    ctx.SetOutput(k, trimmed);
  }
  return Status::Ok();
}

Status MapNonZero(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  return EmitSelection(ctx, "non_zero", {x}, {}, {1});
}

Status MapCompress(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId condition, ctx.Input(1));
  Attrs attrs;
  int64_t axis = 0;
  if (ctx.Attr("axis") != nullptr) {
    axis = ctx.AttrInt("axis", 0);
    if (axis < 0) axis += ctx.InputType(0).rank();
    attrs.Set("axis", axis);
  }
  return EmitSelection(ctx, "compress", {x, condition}, std::move(attrs), {axis});
}

Status MapUnique(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  int64_t axis = 0;
  if (ctx.Attr("axis") != nullptr) {
    axis = ctx.AttrInt("axis", 0);
    if (axis < 0) axis += ctx.InputType(0).rank();
    attrs.Set("axis", axis);
  }
  attrs.Set("sorted", ctx.AttrInt("sorted", 1));
  // y along the axis; indices and counts; inverse_indices has the input's length.
  return EmitSelection(ctx, "unique", {x}, std::move(attrs), {axis, 0, -1, 0});
}

Status MapNonMaxSuppression(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId boxes, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scores, ctx.Input(1));
  Attrs attrs;
  attrs.Set("center_point_box", ctx.AttrInt("center_point_box", 0));
  int64_t max_boxes = 0;
  if (ctx.HasInput(2)) {
    // As an integer: exporters pass INT64_MAX for "no limit", which a double cannot hold.
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.StaticInts(2, "max_output_boxes_per_class"));
    if (v.size() != 1) return ctx.Invalid("max_output_boxes_per_class must hold one element");
    max_boxes = std::max<int64_t>(0, v[0]);
  }
  attrs.Set("max_output_boxes_per_class", max_boxes);
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(double v, ctx.StaticScalar(3, "iou_threshold"));
    attrs.Set("iou_threshold", v);
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(double v, ctx.StaticScalar(4, "score_threshold"));
    attrs.Set("score_threshold", v);
  }
  return EmitSelection(ctx, "non_max_suppression", {boxes, scores}, std::move(attrs), {0});
}

}  // namespace

void AddSelectionMappings(MappingTable& table) {
  table.At("NonZero").map = MapNonZero;
  table.At("Compress").map = MapCompress;
  table.At("Unique").map = MapUnique;
  table.At("NonMaxSuppression").map = MapNonMaxSuppression;
}

}  // namespace sy::onnx_import
