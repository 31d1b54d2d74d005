// The numeric ops of the ai.onnx.ml domain that are one or two catalogue ops, with the
// semantics of ONNX's reference (onnx/reference/ops/aionnxml):
// - Binarizer: x > threshold as 1 and 0 in x's dtype (`greater`, `cast`).
// - ArrayFeatureExtractor: the elements of x's last axis at the indices y (flattened), a
//   `gather` on that axis; a 1-D x gives [1, len(y)].
// The tree ensembles are in map_tree_ensemble.cpp; the string and map ops of the domain are
// not mapped (docs/onnx-import.md).
// Also here, the default domain's classical text op TfIdfVectorizer on integer tokens,
// onto the catalogue's tfidf_vectorizer (a pool of strings is refused: no string dtype).
#include <algorithm>
#include <cmath>
#include <optional>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
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

// LabelEncoder's keys or values: the `<kind>_floats`, `<kind>_int64s` or (opset 4)
// `<kind>_tensor` attribute, as a tensor of its own dtype; strings are refused (no string
// dtype).
Expected<Tensor> LabelList(NodeContext& ctx, const std::string& kind) {
  if (ctx.Attr(kind + "_strings") != nullptr) {
    return ctx.Fail(ImportProblem::kUnsupportedType,
                    kind +
                        "_strings: string labels have no dtype in rml-graph v1 (numeric "
                        "keys and values are mapped)");
  }
  if (auto f = ctx.AttrFloats(kind + "_floats")) {
    return FromDoubles(DType::kF32, {static_cast<int64_t>(f->size())}, *f);
  }
  if (auto i = ctx.AttrInts(kind + "_int64s")) {
    return FromInt64s(DType::kI64, {static_cast<int64_t>(i->size())}, *i);
  }
  if (const onnx::AttributeProto* t = ctx.Attr(kind + "_tensor")) {
    Expected<Tensor> tensor = TensorFromProto(t->t(), ctx.state().base_dir());
    if (!tensor.ok()) {
      if (tensor.status().code() == StatusCode::kUnsupported) {
        return ctx.Fail(ImportProblem::kUnsupportedType,
                        kind + "_tensor: " + tensor.status().message());
      }
      return ctx.Invalid(kind + "_tensor: " + tensor.status().message());
    }
    return *tensor;
  }
  return ctx.Invalid("has no " + kind + "_floats, " + kind + "_int64s or " + kind + "_tensor");
}

// LabelEncoder (opsets 2, 4) on numeric keys and values: each element of x that equals a
// key becomes that key's value (the last of repeated keys wins; a NaN key matches NaN),
// every other the default. As catalogue ops: x [..., 1] == keys [K] gives [..., K], its
// argmax picks the key, `gather` its value, `where` the default where none matched
// (memory N x K: a debt for very large tables).
Status MapLabelEncoder(NodeContext& ctx) {
  if (ctx.since_version() < 2) {  // classes_strings: strings to integers or back
    return ctx.Fail(ImportProblem::kUnsupportedType,
                    "LabelEncoder-1 maps strings (classes_strings), which have no dtype in "
                    "rml-graph v1");
  }
  SY_ASSIGN_OR_RETURN(Tensor key_list, LabelList(ctx, "keys"));
  SY_ASSIGN_OR_RETURN(Tensor value_list, LabelList(ctx, "values"));
  const std::vector<double> keys = ToDoubles(key_list), values = ToDoubles(value_list);
  if (keys.size() != values.size()) return ctx.Invalid("keys and values differ in length");
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType xt = ctx.TypeOf(x);
  const DType out = value_list.dtype();
  double fallback = out == DType::kI64 ? -1.0 : -0.0;
  if (const onnx::AttributeProto* t = ctx.Attr("default_tensor")) {
    Expected<Tensor> d = TensorFromProto(t->t(), ctx.state().base_dir());
    if (!d.ok() || d->element_count() != 1) return ctx.Invalid("default_tensor must be one value");
    fallback = ToDoubles(*d)[0];
  } else if (IsFloat(out)) {
    fallback = ctx.AttrFloat("default_float", -0.0);
  } else {
    fallback = static_cast<double>(ctx.AttrInt("default_int64", -1));
  }
  // Unique keys, the last value of each; a NaN key apart.
  std::vector<double> uk, uv;
  std::optional<double> nan_value;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (std::isnan(keys[i])) {
      nan_value = values[i];
      continue;
    }
    auto at = std::find(uk.begin(), uk.end(), keys[i]);
    if (at == uk.end()) {
      uk.push_back(keys[i]);
      uv.push_back(values[i]);
    } else {
      uv[static_cast<size_t>(at - uk.begin())] = values[i];
    }
  }
  // The default as a scalar: the `where`s below broadcast it to x's shape (a table of no
  // keys but NaN's, or of none, is a filled constant of x's static shape).
  SY_ASSIGN_OR_RETURN(ValueId result,
                      uk.empty() ? ctx.Scalar(out, fallback, xt.shape) : ctx.Scalar(out, fallback));
  if (!uk.empty()) {
    SY_ASSIGN_OR_RETURN(Tensor kt, FromDoubles(xt.dtype, {static_cast<int64_t>(uk.size())}, uk));
    SY_ASSIGN_OR_RETURN(Tensor vt, FromDoubles(out, {static_cast<int64_t>(uv.size())}, uv));
    const ValueId key_values = ctx.state().AddConstant(kt, "label_keys");
    const ValueId value_values = ctx.state().AddConstant(vt, "label_values");
    std::vector<int64_t> expanded(xt.shape.size(), 0);
    expanded.push_back(1);
    SY_ASSIGN_OR_RETURN(ValueId column, EmitReshape(ctx, x, expanded));
    SY_ASSIGN_OR_RETURN(ValueId equal, ctx.Emit1("equal", {column, key_values}));
    SY_ASSIGN_OR_RETURN(ValueId hits, CastTo(ctx, equal, DType::kI32));
    Attrs last;
    last.Set("axis", int64_t{-1});
    last.Set("keepdims", int64_t{0});
    SY_ASSIGN_OR_RETURN(ValueId which, ctx.Emit1("argmax", {hits}, last));
    SY_ASSIGN_OR_RETURN(ValueId any, ctx.Emit1("reduce_max", {hits}, [] {
      Attrs a;
      a.Set("axes", std::vector<int64_t>{-1});
      a.Set("keepdims", int64_t{0});
      return a;
    }()));
    SY_ASSIGN_OR_RETURN(ValueId matched, CastTo(ctx, any, DType::kBool));
    SY_ASSIGN_OR_RETURN(ValueId picked, ctx.Emit1("gather", {value_values, which}));
    SY_ASSIGN_OR_RETURN(result, ctx.Emit1("where", {matched, picked, result}));
  }
  if (nan_value && IsFloat(xt.dtype)) {
    SY_ASSIGN_OR_RETURN(ValueId self, ctx.Emit1("equal", {x, x}));
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Scalar(out, *nan_value));
    SY_ASSIGN_OR_RETURN(result, ctx.Emit1("where", {self, result, v}));
  }
  ctx.SetOutput(0, result);
  return Status::Ok();
}

}  // namespace

void AddMlMappings(MappingTable& table) {
  table.At("TfIdfVectorizer").map = MapTfIdfVectorizer;
  const auto ml = [](std::string_view op) { return std::string(kMl) + std::string(op); };
  table.At(ml("Binarizer")).map = MapBinarizer;
  table.At(ml("ArrayFeatureExtractor")).map = MapArrayFeatureExtractor;
  table.At(ml("LabelEncoder")).map = MapLabelEncoder;
  AddTreeEnsembleMappings(table);
}

}  // namespace sy::onnx_import
