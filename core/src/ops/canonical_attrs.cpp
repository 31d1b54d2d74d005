// The canonical form of a validated node's attributes (op_schema.h, CanonicalAttrs):
// what the plugin host sends across the boundary, so that every plugin reads one form.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "switchyard/op_schema.h"
#include "switchyard/slice_bounds.h"

namespace sy {
namespace {

int64_t NonNegative(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Every axis of x, each with its resolved bounds; axes the node does not slice read all.
void CanonicalSlice(const TensorType& x, Attrs& attrs) {
  const int64_t rank = x.rank();
  const std::vector<int64_t> starts = attrs.GetInts("starts");
  const std::vector<int64_t> ends = attrs.GetInts("ends");
  const size_t n = starts.size();
  std::vector<int64_t> axes = attrs.GetInts("axes");
  if (!attrs.Has("axes")) {
    axes.resize(n);
    std::iota(axes.begin(), axes.end(), int64_t{0});
  }
  std::vector<int64_t> steps = attrs.Has("steps") ? attrs.GetInts("steps") : std::vector<int64_t>();
  steps.resize(n, 1);
  std::vector<int64_t> out_starts(rank, 0), out_ends(x.shape), out_axes(rank), out_steps(rank, 1);
  std::iota(out_axes.begin(), out_axes.end(), int64_t{0});
  for (size_t i = 0; i < n && i < ends.size() && i < axes.size(); ++i) {
    const int64_t axis = NonNegative(axes[i], rank);
    if (axis < 0 || axis >= rank) continue;  // validation has ruled it out
    const SliceAxis resolved = ResolveSliceAxis(x.shape[axis], starts[i], ends[i], steps[i]);
    out_starts[axis] = resolved.start;
    out_ends[axis] = resolved.end;
    out_steps[axis] = steps[i];
  }
  attrs.Set("starts", std::move(out_starts));
  attrs.Set("ends", std::move(out_ends));
  attrs.Set("axes", std::move(out_axes));
  attrs.Set("steps", std::move(out_steps));
}

}  // namespace

bool HasCanonicalForm(const OpSchema& schema) {
  return schema.name == "slice" || schema.FindAttr("axis") != nullptr ||
         schema.FindAttr("axes") != nullptr;
}

Attrs CanonicalAttrs(const OpSchema& schema, std::span<const TensorType> inputs,
                     const Attrs& attrs) {
  Attrs canonical = attrs;
  if (inputs.empty()) return canonical;
  // In the catalogue every `axis` and `axes` counts the axes of the first input.
  const int64_t rank = inputs[0].rank();
  if (schema.name == "slice") {
    CanonicalSlice(inputs[0], canonical);
    return canonical;
  }
  if (const AttrValue* axis = attrs.Find("axis");
      axis != nullptr && KindOf(*axis) == AttrKind::kInt) {
    canonical.Set("axis", NonNegative(std::get<int64_t>(*axis), rank));
  }
  if (const AttrSpec* spec = schema.FindAttr("axes"); spec != nullptr) {
    std::vector<int64_t> axes = attrs.GetInts("axes");
    for (int64_t& a : axes) a = NonNegative(a, rank);
    // reduce_*: absent or empty reduces every axis; say so explicitly, in order.
    if (schema.name.starts_with("reduce_")) {
      if (axes.empty()) {
        axes.resize(rank);
        std::iota(axes.begin(), axes.end(), int64_t{0});
      }
      std::sort(axes.begin(), axes.end());
    }
    if (attrs.Has("axes") || !axes.empty()) canonical.Set("axes", std::move(axes));
  }
  return canonical;
}

}  // namespace sy
