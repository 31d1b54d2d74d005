// The numeric ops of the ai.onnx.ml domain that are one or two catalogue ops, with the
// semantics of ONNX's reference (onnx/reference/ops/aionnxml):
// - Binarizer: x > threshold as 1 and 0 in x's dtype (`greater`, `cast`).
// - ArrayFeatureExtractor: the elements of x's last axis at the indices y (flattened), a
//   `gather` on that axis; a 1-D x gives [1, len(y)].
// The tree ensembles are in map_tree_ensemble.cpp; the string and map ops of the domain are
// not mapped (docs/onnx-import.md).
// Also here, the default domain's classical text op TfIdfVectorizer on integer tokens,
// onto the catalogue's tfidf_vectorizer (a pool of strings is refused: no string dtype).
#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

constexpr std::string_view kMl = "ai.onnx.ml:";

Status MapBinarizer(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  SY_ASSIGN_OR_RETURN(ValueId threshold, ctx.Scalar(dtype, ctx.AttrFloat("threshold", 0.0)));
  SY_ASSIGN_OR_RETURN(ValueId above, ctx.Emit1("greater", {x, threshold}));
  SY_ASSIGN_OR_RETURN(ValueId out, CastTo(ctx, above, dtype));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapArrayFeatureExtractor(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Input(1));
  const Shape xs = ctx.TypeOf(x).shape;
  const int64_t count = ElementCount(ctx.TypeOf(y).shape);
  if (xs.empty()) return ctx.Invalid("input X must have rank >= 1");
  SY_ASSIGN_OR_RETURN(y, EmitReshape(ctx, y, {count}));
  Attrs gather;
  gather.Set("axis", static_cast<int64_t>(xs.size()) - 1);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("gather", {x, y}, std::move(gather)));
  if (xs.size() == 1) {
    SY_ASSIGN_OR_RETURN(out, EmitReshape(ctx, out, {1, count}));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapTfIdfVectorizer(NodeContext& ctx) {
  if (ctx.Attr("pool_strings") != nullptr) {
    return ctx.Fail(ImportProblem::kUnsupportedType,
                    "pool_strings: string tokens have no dtype in rml-graph v1 (integer pools "
                    "are mapped)");
  }
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  attrs.Set("mode", ctx.AttrString("mode", "TF"));
  attrs.Set("min_gram_length", ctx.AttrInt("min_gram_length", 1));
  attrs.Set("max_gram_length", ctx.AttrInt("max_gram_length", 1));
  attrs.Set("max_skip_count", ctx.AttrInt("max_skip_count", 0));
  attrs.Set("ngram_counts", ctx.AttrInts("ngram_counts").value_or(std::vector<int64_t>{}));
  attrs.Set("ngram_indexes", ctx.AttrInts("ngram_indexes").value_or(std::vector<int64_t>{}));
  attrs.Set("pool", ctx.AttrInts("pool_int64s").value_or(std::vector<int64_t>{}));
  if (auto w = ctx.AttrFloats("weights")) attrs.Set("weights", *w);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("tfidf_vectorizer", {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

void AddMlMappings(MappingTable& table) {
  table.At("TfIdfVectorizer").map = MapTfIdfVectorizer;
  const auto ml = [](std::string_view op) { return std::string(kMl) + std::string(op); };
  table.At(ml("Binarizer")).map = MapBinarizer;
  table.At(ml("ArrayFeatureExtractor")).map = MapArrayFeatureExtractor;
  AddTreeEnsembleMappings(table);
}

}  // namespace sy::onnx_import
