// Einsum onto transpose, reduce_sum, reshape and matmul. Operands are contracted left to
// right, two at a time: labels summed away in one operand alone are reduced first; the
// rest become batch (in both operands and still needed), free (in one, still needed) or
// contracted (in both, needed no more) dims, and one batched matmul does the pair.
// Ellipses expand to placeholder labels from the static ranks. A label repeated within
// one operand takes that operand's diagonal first (a gather on the merged dims).
#include <algorithm>
#include <map>
#include <set>

#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

using Labels = std::string;  // one char per dim

struct Term {
  ValueId value;
  Labels labels;
};

// Reorders `t` to `order` (a permutation of its labels).
Expected<Term> Permute(NodeContext& ctx, Term t, const Labels& order) {
  if (t.labels == order) return t;
  std::vector<int64_t> perm;
  for (char c : order) perm.push_back(static_cast<int64_t>(t.labels.find(c)));
  Attrs attrs;
  attrs.Set("perm", perm);
  SY_ASSIGN_OR_RETURN(ValueId v, ctx.Emit1("transpose", {t.value}, std::move(attrs)));
  return Term{v, order};
}

// Sums away the labels of `t` not in `keep`.
Expected<Term> SumAway(NodeContext& ctx, Term t, const std::set<char>& keep) {
  std::vector<int64_t> axes;
  Labels rest;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (keep.count(t.labels[i]) == 0)
      axes.push_back(static_cast<int64_t>(i));
    else
      rest += t.labels[i];
  }
  if (axes.empty()) return t;
  Attrs attrs;
  attrs.Set("axes", axes);
  attrs.Set("keepdims", int64_t{0});
  SY_ASSIGN_OR_RETURN(ValueId v, ctx.Emit1("reduce_sum", {t.value}, std::move(attrs)));
  return Term{v, rest};
}

// A label repeated within one operand takes the diagonal: the two dims move to the end,
// merge into one of n * n, and a gather picks elements 0, n + 1, 2(n + 1), ...
Expected<Term> Diagonals(NodeContext& ctx, Term t) {
  for (;;) {
    size_t first = Labels::npos, second = Labels::npos;
    for (size_t i = 0; i < t.labels.size() && second == Labels::npos; ++i) {
      const size_t again = t.labels.find(t.labels[i], i + 1);
      if (again != Labels::npos) {
        first = i;
        second = again;
      }
    }
    if (second == Labels::npos) return t;
    const char c = t.labels[first];
    const Shape shape = ctx.TypeOf(t.value).shape;
    const int64_t n = shape[first];
    if (shape[second] != n) {
      return ctx.Invalid(std::string("label '") + c + "' has sizes " + std::to_string(n) + " and " +
                         std::to_string(shape[second]) + " in one operand");
    }
    Labels rest;
    for (size_t i = 0; i < t.labels.size(); ++i) {
      if (i != first && i != second) rest += t.labels[i];
    }
    // Permute to rest + c + c (labels repeat, so permute by position).
    std::vector<int64_t> perm;
    Shape moved;
    for (size_t i = 0; i < t.labels.size(); ++i) {
      if (i != first && i != second) {
        perm.push_back(static_cast<int64_t>(i));
        moved.push_back(shape[i]);
      }
    }
    perm.push_back(static_cast<int64_t>(first));
    perm.push_back(static_cast<int64_t>(second));
    Attrs transpose;
    transpose.Set("perm", perm);
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Emit1("transpose", {t.value}, std::move(transpose)));
    Shape merged = moved;
    merged.push_back(n * n);
    SY_ASSIGN_OR_RETURN(v, EmitReshape(ctx, v, merged));
    std::vector<int64_t> picks;
    for (int64_t k = 0; k < n; ++k) picks.push_back(k * (n + 1));
    SY_ASSIGN_OR_RETURN(Tensor index_tensor, Tensor::Allocate(DType::kI64, {n}));
    std::copy(picks.begin(), picks.end(), index_tensor.mutable_values<int64_t>().begin());
    const ValueId indices = ctx.state().AddConstant(index_tensor, "einsum_diagonal");
    Attrs gather;
    gather.Set("axis", static_cast<int64_t>(merged.size() - 1));
    SY_ASSIGN_OR_RETURN(v, ctx.Emit1("gather", {v, indices}, std::move(gather)));
    t = Term{v, rest + c};
  }
}

int64_t Dim(NodeContext& ctx, const Term& t, char c) {
  return ctx.TypeOf(t.value).shape[t.labels.find(c)];
}

// Contracts a and b into a term whose labels are `out` (each label of `out` occurs in a
// or b; every other label is summed).
Expected<Term> Contract(NodeContext& ctx, Term a, Term b, const Labels& out) {
  const std::set<char> out_set(out.begin(), out.end());
  std::set<char> in_a(a.labels.begin(), a.labels.end()), in_b(b.labels.begin(), b.labels.end());
  // Labels only one side has and nobody needs: sum them now.
  std::set<char> keep_a, keep_b;
  for (char c : a.labels) {
    if (out_set.count(c) || in_b.count(c)) keep_a.insert(c);
  }
  for (char c : b.labels) {
    if (out_set.count(c) || in_a.count(c)) keep_b.insert(c);
  }
  SY_ASSIGN_OR_RETURN(a, SumAway(ctx, a, keep_a));
  SY_ASSIGN_OR_RETURN(b, SumAway(ctx, b, keep_b));
  Labels batch, a_free, b_free, contracted;
  for (char c : a.labels) {
    if (b.labels.find(c) != Labels::npos) {
      (out_set.count(c) ? batch : contracted) += c;
    } else {
      a_free += c;
    }
  }
  for (char c : b.labels) {
    if (a.labels.find(c) == Labels::npos) b_free += c;
  }
  // Batch and contracted dims must agree; a 1 against n (from an ellipsis) is broadcast.
  for (char c : batch + contracted) {
    const int64_t da = Dim(ctx, a, c), db = Dim(ctx, b, c);
    if (da == db) continue;
    if (da != 1 && db != 1) {
      return ctx.Invalid(std::string("label '") + c + "' has size " + std::to_string(da) +
                         " in one operand and " + std::to_string(db) + " in the other");
    }
    Term& small = da == 1 ? a : b;
    Shape target = ctx.TypeOf(small.value).shape;
    target[small.labels.find(c)] = std::max(da, db);
    Attrs attrs;
    attrs.Set("shape", std::vector<int64_t>(target.begin(), target.end()));
    SY_ASSIGN_OR_RETURN(small.value, ctx.Emit1("expand", {small.value}, std::move(attrs)));
  }
  SY_ASSIGN_OR_RETURN(a, Permute(ctx, a, batch + a_free + contracted));
  SY_ASSIGN_OR_RETURN(b, Permute(ctx, b, batch + contracted + b_free));
  Shape batch_dims, a_free_dims, b_free_dims;
  int64_t m = 1, n = 1, k = 1;
  for (char c : batch) batch_dims.push_back(Dim(ctx, a, c));
  for (char c : a_free) {
    a_free_dims.push_back(Dim(ctx, a, c));
    m *= a_free_dims.back();
  }
  for (char c : b_free) {
    b_free_dims.push_back(Dim(ctx, b, c));
    n *= b_free_dims.back();
  }
  for (char c : contracted) k *= Dim(ctx, a, c);
  Shape a_shape = batch_dims, b_shape = batch_dims;
  a_shape.insert(a_shape.end(), {m, k});
  b_shape.insert(b_shape.end(), {k, n});
  SY_ASSIGN_OR_RETURN(ValueId a2, EmitReshape(ctx, a.value, a_shape));
  SY_ASSIGN_OR_RETURN(ValueId b2, EmitReshape(ctx, b.value, b_shape));
  SY_ASSIGN_OR_RETURN(ValueId product, ctx.Emit1("matmul", {a2, b2}));
  Shape result_shape = batch_dims;
  result_shape.insert(result_shape.end(), a_free_dims.begin(), a_free_dims.end());
  result_shape.insert(result_shape.end(), b_free_dims.begin(), b_free_dims.end());
  SY_ASSIGN_OR_RETURN(product, EmitReshape(ctx, product, result_shape));
  return Permute(ctx, Term{product, batch + a_free + b_free}, out);
}

Status MapEinsum(NodeContext& ctx) {
  std::string equation;
  for (char c : ctx.AttrString("equation", "")) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.num_inputs()) {
    return ctx.Invalid("equation '" + equation + "' has " + std::to_string(terms.size()) +
                       " operands but the node " + std::to_string(ctx.num_inputs()) + " inputs");
  }
  // Expand ellipses: placeholder labels '0'..'9' aligned from the right.
  size_t ellipsis_rank = 0;
  std::vector<Term> operands;
  for (size_t i = 0; i < terms.size(); ++i) {
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(i));
    const size_t rank = ctx.TypeOf(v).shape.size();
    std::string t = terms[i];
    const size_t dots = t.find("...");
    if (dots != std::string::npos) {
      const size_t explicit_labels = t.size() - 3;
      if (rank < explicit_labels)
        return ctx.Invalid("operand " + std::to_string(i) + " has too few dims");
      ellipsis_rank = std::max(ellipsis_rank, rank - explicit_labels);
    }
    operands.push_back(Term{v, t});
  }
  if (ellipsis_rank > 10) return ctx.UnsupportedOp("more than 10 ellipsis dims");
  const std::string all_placeholders = std::string("0123456789").substr(0, ellipsis_rank);
  for (Term& t : operands) {
    const size_t dots = t.labels.find("...");
    if (dots != std::string::npos) {
      const size_t rank = ctx.TypeOf(t.value).shape.size();
      const size_t e = rank - (t.labels.size() - 3);
      t.labels.replace(dots, 3, all_placeholders.substr(ellipsis_rank - e));
    }
    if (t.labels.size() != ctx.TypeOf(t.value).shape.size()) {
      return ctx.Invalid("term '" + t.labels + "' does not match its operand's rank " +
                         std::to_string(ctx.TypeOf(t.value).shape.size()));
    }
    SY_ASSIGN_OR_RETURN(t, Diagonals(ctx, t));
  }
  Labels out;
  if (arrow == std::string::npos) {  // implicit: placeholders, then labels seen once, sorted
    std::map<char, int> count;
    for (const Term& t : operands) {
      for (char c : t.labels) ++count[c];
    }
    out = all_placeholders;
    for (const auto& [c, n] : count) {
      if (n == 1 && all_placeholders.find(c) == std::string::npos) out += c;
    }
  } else {
    out = equation.substr(arrow + 2);
    const size_t dots = out.find("...");
    if (dots != std::string::npos) out.replace(dots, 3, all_placeholders);
  }
  Term acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    // Keep what the output or a later operand needs.
    std::set<char> needed(out.begin(), out.end());
    for (size_t j = i + 1; j < operands.size(); ++j)
      needed.insert(operands[j].labels.begin(), operands[j].labels.end());
    Labels pair_out;
    for (char c : acc.labels + operands[i].labels) {
      if (needed.count(c) && pair_out.find(c) == Labels::npos) pair_out += c;
    }
    SY_ASSIGN_OR_RETURN(acc, Contract(ctx, acc, operands[i], pair_out));
  }
  SY_ASSIGN_OR_RETURN(acc, SumAway(ctx, acc, std::set<char>(out.begin(), out.end())));
  for (char c : out) {
    if (acc.labels.find(c) == Labels::npos) {
      return ctx.Invalid(std::string("output label '") + c + "' is in no operand");
    }
  }
  SY_ASSIGN_OR_RETURN(acc, Permute(ctx, acc, out));
  ctx.SetOutput(0, acc.value);
  return Status::Ok();
}

}  // namespace

void AddEinsumMappings(MappingTable& table) { table.At("Einsum").map = MapEinsum; }

}  // namespace sy::onnx_import
