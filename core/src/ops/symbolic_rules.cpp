// The symbolic rules of the catalogue's ops (symbolic_rules.h). Each follows its op's
// static shape rule (the *_schemas.cpp files) on canonical polynomials. A rule decides
// only sizes: attributes out of range, dtypes and the like are left to the check at the
// examples, so a rule that meets something it does not expect returns nullopt. An error
// is raised only where two sizes differ at every binding of the symbols.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "ops/shape_rule_helpers.h"
#include "ops/symbolic_rules.h"
#include "switchyard/slice_bounds.h"

namespace sy {
namespace {

using Outputs = std::optional<std::vector<SymShape>>;
using Result = Expected<Outputs>;

Outputs One(SymShape shape) { return std::vector<SymShape>{std::move(shape)}; }

std::optional<size_t> Axis(std::optional<int64_t> axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (!axis || *axis < -r || *axis >= r) return std::nullopt;
  return static_cast<size_t>(*axis < 0 ? *axis + r : *axis);
}

// Of two dims taken to be equal where the pass cannot decide it, the one that says more.
const DimPoly& Pick(const DimPoly& a, const DimPoly& b) { return a.HasOpaque() ? b : a; }

// The product of `dims`.
DimPoly Product(DimAlgebra& algebra, const SymShape& dims) {
  DimPoly p = 1;
  for (const DimPoly& d : dims) p = algebra.Times(p, d);
  return p;
}

// One dim of a NumPy broadcast; nullopt when the sizes differ and neither is 1.
std::optional<DimPoly> BroadcastDim(DimAlgebra& algebra, const DimPoly& a, const DimPoly& b) {
  if (a == DimPoly(1)) return b;
  if (b == DimPoly(1)) return a;
  switch (Compare(a, b)) {
    case DimOrder::kEqual:
      return a;
    case DimOrder::kDifferent:
      return std::nullopt;
    case DimOrder::kUnknown:
      break;
  }
  // A constant other than 1 is the result whenever the broadcast is valid.
  if (a.is_const()) return a;
  if (b.is_const()) return b;
  const bool a_first = a.Key() < b.Key();
  return algebra.Opaque("broadcast", {a_first ? a : b, a_first ? b : a});
}

// `shapes` broadcast together; `who` describes them for the error.
Expected<SymShape> Broadcast(const SymbolicNode& n, const std::vector<const SymShape*>& shapes,
                             const std::function<std::string()>& who) {
  size_t rank = 0;
  for (const SymShape* s : shapes) rank = std::max(rank, s->size());
  SymShape out(rank, DimPoly(1));
  for (const SymShape* s : shapes) {
    const size_t pad = rank - s->size();
    for (size_t d = pad; d < rank; ++d) {
      const DimPoly& dim = (*s)[d - pad];
      std::optional<DimPoly> r = BroadcastDim(n.algebra, out[d], dim);
      if (!r) {
        return n.Error(who() + " do not broadcast: dim " + std::to_string(d) + " is " +
                       out[d].ToString() + " against " + dim.ToString() +
                       " (needs equal sizes or 1)");
      }
      out[d] = std::move(*r);
    }
  }
  return out;
}

std::string AllInputs(const SymbolicNode& n) {
  std::string text;
  const size_t count = n.inputs.size();
  for (size_t i = 0; i < count; ++i) {
    text += (i == 0 ? "" : i + 1 == count ? " and " : ", ") + n.Input(i);
  }
  return (count > 1 ? "inputs " : "input ") + text;
}

// ---- same shape, broadcasting ----

Result SameAsFirst(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  return Outputs(std::vector<SymShape>(n.num_outputs(), n.in(0)));
}

Result BroadcastInputs(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  std::vector<const SymShape*> shapes(n.inputs.begin(), n.inputs.end());
  SY_ASSIGN_OR_RETURN(SymShape out, Broadcast(n, shapes, [&] { return AllInputs(n); }));
  return One(std::move(out));
}

// ---- linear algebra ----

Expected<SymShape> MatmulDims(const SymbolicNode& n, const SymShape& a, const SymShape& b) {
  const size_t ra = a.size();
  const size_t rb = b.size();
  const DimPoly& ka = a[ra - 1];
  const DimPoly& kb = b[rb == 1 ? 0 : rb - 2];
  if (Compare(ka, kb) == DimOrder::kDifferent) {
    return n.Error(AllInputs(n) + " do not multiply: the contracted dims are " + ka.ToString() +
                   " against " + kb.ToString());
  }
  const SymShape batch_a(a.begin(), a.begin() + (ra > 2 ? ra - 2 : 0));
  const SymShape batch_b(b.begin(), b.begin() + (rb > 2 ? rb - 2 : 0));
  SY_ASSIGN_OR_RETURN(SymShape out, Broadcast(n, {&batch_a, &batch_b}, [&] {
                        return AllInputs(n) + ": the batch dims " + SymShapeToString(batch_a) +
                               " and " + SymShapeToString(batch_b);
                      }));
  if (ra >= 2) out.push_back(a[ra - 2]);
  if (rb >= 2) out.push_back(b[rb - 1]);
  return out;
}

Result Matmul(SymbolicNode& n) {
  if (n.inputs.size() < 2 || n.in(0).empty() || n.in(1).empty()) return Outputs();
  SymShape b = n.in(1);
  if (n.schema.name == "fused_matmul" && n.Int("trans_b") != std::optional<int64_t>(0)) {
    if (n.Int("trans_b") != std::optional<int64_t>(1) || b.size() < 2) return Outputs();
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  }
  SY_ASSIGN_OR_RETURN(SymShape out, MatmulDims(n, n.in(0), b));
  return One(std::move(out));
}

// quant_matmul: a [..., K] -> [..., N], N being b's first dim (the packed blocks' sizes
// are checked at the examples).
Result QuantMatmul(SymbolicNode& n) {
  if (n.inputs.size() < 2 || n.in(0).empty() || n.in(1).empty()) return Outputs();
  SymShape out(n.in(0).begin(), n.in(0).end() - 1);
  out.push_back(n.in(1)[0]);
  return One(std::move(out));
}

// tree_ensemble: x [N, F] -> [N, n_targets].
Result TreeEnsemble(SymbolicNode& n) {
  const std::optional<int64_t> targets = n.Int("n_targets");
  if (n.inputs.empty() || n.in(0).size() != 2 || !targets) return Outputs();
  return One({n.in(0)[0], DimPoly(*targets)});
}

Result Gemm(SymbolicNode& n) {
  if (n.inputs.size() < 2 || n.in(0).size() != 2 || n.in(1).size() != 2) return Outputs();
  const std::optional<int64_t> trans_a = n.Int("trans_a");
  const std::optional<int64_t> trans_b = n.Int("trans_b");
  if (!trans_a || !trans_b) return Outputs();
  const SymShape& a = n.in(0);
  const SymShape& b = n.in(1);
  const DimPoly& ka = a[*trans_a ? 0 : 1];
  const DimPoly& kb = b[*trans_b ? 1 : 0];
  if (Compare(ka, kb) == DimOrder::kDifferent) {
    return n.Error(AllInputs(n) + " do not multiply: the contracted dims are " + ka.ToString() +
                   " against " + kb.ToString());
  }
  return One({a[*trans_a ? 1 : 0], b[*trans_b ? 0 : 1]});
}

// ---- movement ----

Result Concat(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const size_t rank = n.in(0).size();
  const std::optional<size_t> axis = Axis(n.Int("axis"), rank);
  if (!axis) return Outputs();
  SymShape out = n.in(0);
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const SymShape& in = n.in(i);
    if (in.size() != rank) return Outputs();
    for (size_t d = 0; d < rank; ++d) {
      if (d == *axis) continue;
      if (Compare(out[d], in[d]) == DimOrder::kDifferent) {
        return n.Error("inputs " + n.Input(0) + " and " + n.Input(i) +
                       " do not concatenate on axis " + std::to_string(*axis) + ": dim " +
                       std::to_string(d) + " is " + out[d].ToString() + " against " +
                       in[d].ToString());
      }
      out[d] = Pick(out[d], in[d]);
    }
    out[*axis] = n.algebra.Plus(out[*axis], in[*axis]);
  }
  return One(std::move(out));
}

// ONNX Reshape: 0 copies the input's dim (allowzero = 0) or is 0 (allowzero = 1), one -1
// takes what is left.
Result Reshape(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const SymShape& x = n.in(0);
  std::optional<std::vector<DimPoly>> spec = n.Ints("shape");
  if (!spec) return Outputs();
  const std::optional<int64_t> allow_zero = n.Int("allowzero");
  if (allow_zero && *allow_zero != 0 && *allow_zero != 1) return Outputs();
  const bool zero_is_zero = allow_zero == std::optional<int64_t>(1);
  SymShape out;
  std::optional<size_t> minus_one;
  for (size_t i = 0; i < spec->size(); ++i) {
    const DimPoly& item = (*spec)[i];
    const std::optional<int64_t> c = item.AsConst();
    if (c && *c == -1) {
      if (minus_one) return Outputs();
      minus_one = i;
      out.push_back(1);
    } else if (c && *c == 0 && zero_is_zero) {
      out.push_back(0);
    } else if (c && *c == 0) {
      if (i >= x.size()) return Outputs();
      out.push_back(x[i]);
    } else if (c && *c < 0) {
      return Outputs();
    } else {
      out.push_back(item);
    }
  }
  // Equal dims on both sides cancel before the products are taken, so that what is left
  // is a small product (often a constant).
  std::vector<DimPoly> in_rest(x.begin(), x.end());
  std::vector<DimPoly> out_rest;
  for (size_t i = 0; i < out.size(); ++i) {
    if (minus_one && i == *minus_one) continue;
    auto same = std::find(in_rest.begin(), in_rest.end(), out[i]);
    if (same != in_rest.end()) {
      in_rest.erase(same);
    } else {
      out_rest.push_back(out[i]);
    }
  }
  const DimPoly in_count = Product(n.algebra, in_rest);
  const DimPoly known = Product(n.algebra, out_rest);
  if (minus_one) {
    out[*minus_one] = n.algebra.Div(in_count, known);
    const std::optional<int64_t> ci = in_count.AsConst();
    const std::optional<int64_t> ck = known.AsConst();
    if (ci && ck && *ck != 0 && *ci % *ck != 0) {
      return n.Error("input " + n.Input(0) + " has " + Product(n.algebra, x).ToString() +
                     " elements, which the other dims of shape " + SymShapeToString(out) +
                     " do not divide (" + std::to_string(*ci) + " over " + std::to_string(*ck) +
                     " after the common dims cancel)");
    }
  } else if (Compare(in_count, known) == DimOrder::kDifferent) {
    return n.Error("input " + n.Input(0) + " has " + Product(n.algebra, x).ToString() +
                   " elements but shape " + SymShapeToString(out) + " has " +
                   Product(n.algebra, out).ToString());
  }
  return One(std::move(out));
}

Result Transpose(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const SymShape& x = n.in(0);
  std::vector<int64_t> perm;
  if (n.Has("perm")) {
    std::optional<std::vector<int64_t>> p = n.ConstInts("perm");
    if (!p) return Outputs();
    perm = *p;
  } else {
    for (size_t i = x.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  if (perm.size() != x.size()) return Outputs();
  std::vector<bool> seen(x.size(), false);
  SymShape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(x.size()) || seen[p]) return Outputs();
    seen[p] = true;
    out.push_back(x[p]);
  }
  return One(std::move(out));
}

Result Expand(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  std::optional<std::vector<DimPoly>> target = n.Ints("shape");
  if (!target) return Outputs();
  for (const DimPoly& d : *target) {
    if (d.AsConst() && *d.AsConst() < 0) return Outputs();
  }
  const SymShape shape(target->begin(), target->end());
  SY_ASSIGN_OR_RETURN(SymShape out, Broadcast(n, {&n.in(0), &shape}, [&] {
                        return "input " + n.Input(0) + " and attribute shape " +
                               SymShapeToString(shape);
                      }));
  return One(std::move(out));
}

Result Pad(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  SymShape out = n.in(0);
  std::optional<std::vector<DimPoly>> pads = n.Ints("pads");
  if (!pads || pads->size() != 2 * out.size()) return Outputs();
  for (size_t d = 0; d < out.size(); ++d) {
    out[d] = n.algebra.Plus(n.algebra.Plus(out[d], (*pads)[d]), (*pads)[d + out.size()]);
  }
  return One(std::move(out));
}

Result Tile(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  SymShape out = n.in(0);
  std::optional<std::vector<DimPoly>> repeats = n.Ints("repeats");
  if (!repeats || repeats->size() != out.size()) return Outputs();
  for (size_t d = 0; d < out.size(); ++d) out[d] = n.algebra.Times(out[d], (*repeats)[d]);
  return One(std::move(out));
}

// One axis of a slice: exact when every bound is a constant, and for step 1 with bounds
// known to be >= 0 (then the count is min(end, dim) - min(start, dim)); else opaque.
DimPoly SliceDim(DimAlgebra& algebra, const DimPoly& dim, const DimPoly& start, const DimPoly& end,
                 int64_t step) {
  const std::optional<int64_t> cd = dim.AsConst();
  const std::optional<int64_t> cs = start.AsConst();
  const std::optional<int64_t> ce = end.AsConst();
  if (cd && cs && ce) return ResolveSliceAxis(*cd, *cs, *ce, step).count;
  if (step != 1) return algebra.Opaque("slice", {dim, start, end, step});
  // An end at or beyond 2^31 is "to the end" as exporters write it.
  const DimPoly stop = ce && *ce >= std::numeric_limits<int32_t>::max() ? dim : end;
  const bool bounded =
      !start.HasOpaque() && start.NonNegative() && !stop.HasOpaque() && stop.NonNegative();
  if (!bounded) return algebra.Opaque("slice", {dim, start, end, step});
  // From a constant to the end: max(dim - start, 0).
  if (stop == dim && cs) return algebra.Max(algebra.Minus(dim, start), 0);
  return algebra.Max(algebra.Minus(algebra.Min(stop, dim), algebra.Min(start, dim)), 0);
}

Result Slice(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  SymShape out = n.in(0);
  const std::optional<std::vector<DimPoly>> starts = n.Ints("starts");
  const std::optional<std::vector<DimPoly>> ends = n.Ints("ends");
  if (!starts || !ends || starts->size() != ends->size()) return Outputs();
  const size_t count = starts->size();
  std::vector<int64_t> axes;
  if (n.Has("axes")) {
    std::optional<std::vector<int64_t>> a = n.ConstInts("axes");
    if (!a || a->size() != count) return Outputs();
    axes = *a;
  } else {
    for (size_t i = 0; i < count; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(count, 1);
  if (n.Has("steps")) {
    std::optional<std::vector<int64_t>> s = n.ConstInts("steps");
    if (!s || s->size() != count) return Outputs();
    steps = *s;
  }
  std::set<size_t> seen;
  for (size_t i = 0; i < count; ++i) {
    const std::optional<size_t> axis = Axis(axes[i], out.size());
    if (!axis || !seen.insert(*axis).second || steps[i] == 0) return Outputs();
    out[*axis] = SliceDim(n.algebra, out[*axis], (*starts)[i], (*ends)[i], steps[i]);
  }
  return One(std::move(out));
}

// ONNX Split: `sizes` when given (summing to the dim), else equal chunks.
Result Split(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const SymShape& x = n.in(0);
  const std::optional<size_t> axis = Axis(n.Int("axis"), x.size());
  if (!axis) return Outputs();
  const DimPoly& dim = x[*axis];
  const size_t parts = n.num_outputs();
  if (parts == 0) return Outputs();
  std::vector<DimPoly> sizes;
  if (n.Has("sizes")) {
    std::optional<std::vector<DimPoly>> s = n.Ints("sizes");
    if (!s || s->size() != parts) return Outputs();
    sizes = *s;
    DimPoly total = 0;
    for (const DimPoly& size : sizes) total = n.algebra.Plus(total, size);
    if (Compare(total, dim) == DimOrder::kDifferent) {
      return n.Error("attribute sizes " + SymShapeToString(sizes) + " sums to " + total.ToString() +
                     " but input " + n.Input(0) + " has " + dim.ToString() + " on axis " +
                     std::to_string(*axis));
    }
  } else {
    const DimPoly count(static_cast<int64_t>(parts));
    if (std::optional<DimPoly> chunk = DivideExact(dim, count)) {
      sizes.assign(parts, *chunk);
    } else {
      // ceil(dim / n) for all but the last, which takes the rest.
      const DimPoly chunk_size =
          n.algebra.Div(n.algebra.Plus(dim, static_cast<int64_t>(parts) - 1), count);
      sizes.assign(parts - 1, chunk_size);
      sizes.push_back(
          n.algebra.Minus(dim, n.algebra.Times(chunk_size, static_cast<int64_t>(parts) - 1)));
    }
  }
  std::vector<SymShape> outputs;
  for (const DimPoly& size : sizes) {
    outputs.push_back(x);
    outputs.back()[*axis] = size;
  }
  return Outputs(std::move(outputs));
}

// ---- reductions, indexing ----

Result Reduce(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const SymShape& x = n.in(0);
  const std::optional<int64_t> keepdims = n.Int("keepdims");
  if (!keepdims) return Outputs();
  std::vector<bool> reduced(x.size(), false);
  std::vector<int64_t> axes;
  if (n.Has("axes")) {
    std::optional<std::vector<int64_t>> a = n.ConstInts("axes");
    if (!a) return Outputs();
    axes = *a;
  }
  if (axes.empty()) reduced.assign(x.size(), true);
  for (int64_t a : axes) {
    const std::optional<size_t> axis = Axis(a, x.size());
    if (!axis) return Outputs();
    reduced[*axis] = true;
  }
  SymShape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) out.push_back(x[d]);
    if (reduced[d] && *keepdims == 1) out.push_back(1);
  }
  return One(std::move(out));
}

Result ArgReduce(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  SymShape out = n.in(0);
  const std::optional<size_t> axis = Axis(n.Int("axis"), out.size());
  const std::optional<int64_t> keepdims = n.Int("keepdims");
  if (!axis || !keepdims) return Outputs();
  if (*keepdims == 1) {
    out[*axis] = 1;
  } else {
    out.erase(out.begin() + static_cast<ptrdiff_t>(*axis));
  }
  return One(std::move(out));
}

Result Topk(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  SymShape out = n.in(0);
  const std::optional<size_t> axis = Axis(n.Int("axis"), out.size());
  const std::optional<DimPoly> k = n.IntDim("k");
  if (!axis || !k) return Outputs();
  out[*axis] = *k;
  return Outputs(std::vector<SymShape>(n.num_outputs(), out));
}

Result Gather(SymbolicNode& n) {
  if (n.inputs.size() < 2) return Outputs();
  const SymShape& data = n.in(0);
  const std::optional<size_t> axis = Axis(n.Int("axis"), data.size());
  if (!axis) return Outputs();
  SymShape out(data.begin(), data.begin() + static_cast<ptrdiff_t>(*axis));
  out.insert(out.end(), n.in(1).begin(), n.in(1).end());
  out.insert(out.end(), data.begin() + static_cast<ptrdiff_t>(*axis) + 1, data.end());
  return One(std::move(out));
}

Result SecondInput(SymbolicNode& n) {
  if (n.inputs.size() < 2) return Outputs();
  return One(n.in(1));
}

// ---- convolution, pooling ----

// The sliding-window size floor((in + pads - extent) / stride) + 1: a polynomial when the
// division is exact (stride 1 always), else opaque (with ceil_mode, fresh).
DimPoly WindowDim(DimAlgebra& algebra, const DimPoly& in, const DimPoly& pad_begin,
                  const DimPoly& pad_end, int64_t extent, int64_t stride, bool ceil_mode) {
  const DimPoly span =
      algebra.Minus(algebra.Plus(algebra.Plus(in, pad_begin), pad_end), DimPoly(extent));
  if (std::optional<DimPoly> steps = DivideExact(span, DimPoly(stride))) {
    return algebra.Plus(*steps, 1);
  }
  if (ceil_mode) return algebra.Opaque("ceil_window", {span, stride});
  // Truncation is floor here: a valid window never starts past the padded input.
  return algebra.Plus(algebra.Div(span, DimPoly(stride)), 1);
}

// Output [N, channels, spatial...] of a conv or pool whose kernel is `kernel`.
Result Window(SymbolicNode& n, const DimPoly& channels, const std::vector<int64_t>& kernel,
              bool ceil_mode) {
  const SymShape& x = n.in(0);
  const size_t spatial = x.size() - 2;
  std::vector<int64_t> strides(spatial, 1);
  std::vector<int64_t> dilations(spatial, 1);
  std::vector<DimPoly> pads(2 * spatial, DimPoly(0));
  if (n.Has("strides")) {
    std::optional<std::vector<int64_t>> s = n.ConstInts("strides");
    if (!s || s->size() != spatial) return Outputs();
    strides = *s;
  }
  if (n.Has("dilations")) {
    std::optional<std::vector<int64_t>> d = n.ConstInts("dilations");
    if (!d || d->size() != spatial) return Outputs();
    dilations = *d;
  }
  if (n.Has("pads")) {
    std::optional<std::vector<DimPoly>> p = n.Ints("pads");
    if (!p || p->size() != 2 * spatial) return Outputs();
    pads = *p;
  }
  SymShape out = {x[0], channels};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t extent = 0;
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1 ||
        __builtin_mul_overflow(kernel[i] - 1, dilations[i], &extent) ||
        __builtin_add_overflow(extent, 1, &extent)) {
      return Outputs();
    }
    out.push_back(
        WindowDim(n.algebra, x[2 + i], pads[i], pads[spatial + i], extent, strides[i], ceil_mode));
  }
  return One(std::move(out));
}

// conv's window with w at input `w_index` (qlinear_conv's is input 3).
Result ConvWith(SymbolicNode& n, size_t w_index) {
  if (n.inputs.size() <= w_index || n.in(0).size() < 3 || n.in(w_index).size() != n.in(0).size()) {
    return Outputs();
  }
  const SymShape& w = n.in(w_index);
  std::vector<int64_t> kernel;
  for (size_t d = 2; d < w.size(); ++d) {
    std::optional<int64_t> k = w[d].AsConst();
    if (!k) return Outputs();
    kernel.push_back(*k);
  }
  return Window(n, w[0], kernel, false);
}

Result Conv(SymbolicNode& n) { return ConvWith(n, 1); }
Result QLinearConv(SymbolicNode& n) { return ConvWith(n, 3); }

Result Pool(SymbolicNode& n) {
  if (n.inputs.empty() || n.in(0).size() < 3) return Outputs();
  std::optional<std::vector<int64_t>> kernel = n.ConstInts("kernel_shape");
  const std::optional<int64_t> ceil_mode = n.Int("ceil_mode");
  if (!kernel || kernel->size() != n.in(0).size() - 2 || !ceil_mode) return Outputs();
  return Window(n, n.in(0)[1], *kernel, *ceil_mode == 1);
}

Result GlobalPool(SymbolicNode& n) {
  if (n.inputs.empty() || n.in(0).size() < 3) return Outputs();
  SymShape out(n.in(0).size(), DimPoly(1));
  out[0] = n.in(0)[0];
  out[1] = n.in(0)[1];
  return One(std::move(out));
}

// ---- neural ----

Result Attention(SymbolicNode& n) {
  if (n.inputs.size() < 3 || n.in(0).size() != 4 || n.in(2).size() != 4) return Outputs();
  const SymShape& q = n.in(0);
  return One({q[0], q[1], q[2], n.in(2)[3]});
}

// y [B, Hq, T, Dv] from q and v; the final state has the state input's shape.
Result LinearAttention(SymbolicNode& n) {
  if (n.inputs.size() < 4 || n.in(0).size() != 4 || n.in(2).size() != 4) return Outputs();
  const SymShape& q = n.in(0);
  return Outputs(std::vector<SymShape>{{q[0], q[1], q[2], n.in(2)[3]}, n.in(3)});
}

Result GridSample(SymbolicNode& n) {
  if (n.inputs.size() < 2 || n.in(0).size() < 4 || n.in(1).size() != n.in(0).size()) {
    return Outputs();
  }
  SymShape out{n.in(0)[0], n.in(0)[1]};
  for (size_t d = 1; d + 1 < n.in(1).size(); ++d) out.push_back(n.in(1)[d]);
  return One(std::move(out));
}

Result Resize(SymbolicNode& n) {
  if (n.inputs.empty()) return Outputs();
  const SymShape& x = n.in(0);
  if (n.Has("sizes")) {
    std::optional<std::vector<DimPoly>> sizes = n.Ints("sizes");
    if (!sizes || sizes->size() != x.size()) return Outputs();
    return One(SymShape(sizes->begin(), sizes->end()));
  }
  const AttrValue* scales = n.node().attrs.Find("scales");
  const auto* values = scales != nullptr ? std::get_if<std::vector<double>>(scales) : nullptr;
  if (values == nullptr || values->size() != x.size()) return Outputs();
  SymShape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const double s = (*values)[d];
    // floor(dim * s) is a product only for a whole s.
    if (!(s >= 1 && s <= 1 << 20 && s == std::floor(s))) return Outputs();
    out.push_back(n.algebra.Times(x[d], static_cast<int64_t>(s)));
  }
  return One(std::move(out));
}

// range with delta 1 over sizes: limit - start elements when that is never negative.
Result Range(SymbolicNode& n) {
  auto bound = [&](std::string_view name) -> std::optional<DimPoly> {
    if (auto it = n.exprs.find(std::string(name)); it != n.exprs.end()) {
      if (it->second.size() == 1) return it->second[0];
      return std::nullopt;
    }
    const AttrValue* v = n.node().attrs.Find(name);
    const double* d = v != nullptr ? std::get_if<double>(v) : nullptr;
    if (d == nullptr || !(std::fabs(*d) < 1e15) || *d != std::floor(*d)) return std::nullopt;
    return DimPoly(static_cast<int64_t>(*d));
  };
  const std::optional<DimPoly> start = bound("start");
  const std::optional<DimPoly> limit = bound("limit");
  const std::optional<DimPoly> delta = bound("delta");
  if (!start || !limit || !delta || *delta != DimPoly(1)) return Outputs();
  const DimPoly count = n.algebra.Minus(*limit, *start);
  if (count.HasOpaque() || !count.NonNegative()) return Outputs();
  return One({count});
}

}  // namespace

SymbolicRule FindSymbolicRule(const OpSchema& schema) {
  if (schema.infer == ops::SameAsFirstInput) return SameAsFirst;
  if (schema.infer == ops::BroadcastAll || schema.infer == ops::BroadcastToBool) {
    return BroadcastInputs;
  }
  static const std::map<std::string_view, SymbolicRule> kRules = {
      {"add_layer_norm", SameAsFirst},
      {"argmax", ArgReduce},
      {"argmin", ArgReduce},
      {"attention", Attention},
      {"linear_attention", LinearAttention},
      {"avg_pool", Pool},
      {"batch_norm", SameAsFirst},
      {"bitcast", SameAsFirst},
      {"cache_write", SameAsFirst},
      {"cast", SameAsFirst},
      {"clip", SameAsFirst},
      {"concat", Concat},
      {"conv", Conv},
      {"qlinear_conv", QLinearConv},
      {"cumprod", SameAsFirst},
      {"cumsum", SameAsFirst},
      {"expand", Expand},
      {"fused_conv", Conv},
      {"fused_matmul", Matmul},
      {"gather", Gather},
      {"gather_elements", SecondInput},
      {"gemm", Gemm},
      {"global_avg_pool", GlobalPool},
      {"grid_sample", GridSample},
      {"group_norm", SameAsFirst},
      {"instance_norm", SameAsFirst},
      {"layer_norm", SameAsFirst},
      {"log_softmax", SameAsFirst},
      {"matmul", Matmul},
      {"matmul_integer", Matmul},
      {"max_pool", Pool},
      {"mod", BroadcastInputs},
      {"pad", Pad},
      {"prelu", SameAsFirst},
      {"quant_matmul", QuantMatmul},
      {"random_normal", SameAsFirst},
      {"random_uniform", SameAsFirst},
      {"range", Range},
      {"reduce_max", Reduce},
      {"reduce_mean", Reduce},
      {"reduce_min", Reduce},
      {"reduce_prod", Reduce},
      {"reduce_sum", Reduce},
      {"reshape", Reshape},
      {"resize", Resize},
      {"rms_norm", SameAsFirst},
      {"rotary_embedding", SameAsFirst},
      {"scatter_elements", SameAsFirst},
      {"scatter_nd", SameAsFirst},
      {"slice", Slice},
      {"softmax", SameAsFirst},
      {"split", Split},
      {"tile", Tile},
      {"topk", Topk},
      {"transpose", Transpose},
      {"tree_ensemble", TreeEnsemble},
      {"trilu", SameAsFirst},
      {"where", BroadcastInputs},
  };
  auto it = kRules.find(schema.name);
  return it != kRules.end() ? it->second : nullptr;
}

}  // namespace sy
