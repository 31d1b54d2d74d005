// The tree ensembles of the ai.onnx.ml domain, onto the catalogue's tree_ensemble (whose
// schema checks lengths, ranges and cycles, so a malformed model fails at import):
// - TreeEnsemble (5): one to one; modes from their codes, membership_values split at
//   their NaNs into per-node counts, BRANCH_NEQ nodes marked to send NaN to the true
//   child (x != split is true for NaN in ONNX's text and reference). Output in X's dtype.
// - TreeEnsembleRegressor (1, 3) and TreeEnsembleClassifier (1, 3): nodes named by
//   (tree id, node id) tuples, LEAF nodes holding any number of votes, are converted to
//   the flat form (interior nodes and leaves indexed apart, each tree's root its first
//   node, a root that is a leaf behind one interior node whose both children are it).
//   The outputs are float, as the ONNX schemas say: a cast after the op.
// - The classifier follows onnx.reference (aionnxml/op_tree_ensemble_classifier.py):
//   scores start at base_values and add the votes; when the votes name one class only
//   ("binary"), score 1 takes score 0 and score 0 becomes 1 - it (NONE, PROBIT) or -it
//   (otherwise), with two scores when there is one label. That rewrite is linear in the
//   votes, so it is done on the votes and base values here and post_transform stays in
//   the op. Y is the label of each row's first largest score (argmax, gather); a single
//   label must be 1 (labels 0 and 1) as in the reference. classlabels_strings is refused.
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// A float list attribute given as floats or as `<name>_as_tensor`; nullopt when neither.
Expected<std::optional<std::vector<double>>> FloatsOrTensor(NodeContext& ctx,
                                                            const std::string& name) {
  if (auto f = ctx.AttrFloats(name)) return std::optional<std::vector<double>>(std::move(*f));
  const onnx::AttributeProto* t = ctx.Attr(name + "_as_tensor");
  if (t == nullptr) return std::optional<std::vector<double>>();
  Expected<Tensor> tensor = TensorFromProto(t->t(), ctx.state().base_dir());
  if (!tensor.ok()) return ctx.Invalid(name + "_as_tensor: " + tensor.status().message());
  return std::optional<std::vector<double>>(ToDoubles(*tensor));
}

// A tensor attribute (TreeEnsemble-5 keeps splits, weights and modes in tensors).
Expected<std::optional<Tensor>> TensorAttr(NodeContext& ctx, const std::string& name) {
  const onnx::AttributeProto* t = ctx.Attr(name);
  if (t == nullptr) return std::optional<Tensor>();
  Expected<Tensor> tensor = TensorFromProto(t->t(), ctx.state().base_dir());
  if (!tensor.ok()) return ctx.Invalid(name + ": " + tensor.status().message());
  return std::optional<Tensor>(std::move(*tensor));
}

std::vector<int64_t> IntsOr(const NodeContext& ctx, std::string_view name) {
  return ctx.AttrInts(name).value_or(std::vector<int64_t>{});
}

// X as the op takes it: f32 and f64 (and f16 for TreeEnsemble-5) as they are, integers
// as f32 (onnx.reference's classifier casts so; ONNX Runtime does for both ops).
Expected<ValueId> FloatInput(NodeContext& ctx, bool keep_f16) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType d = ctx.TypeOf(x).dtype;
  if (d == DType::kF32 || d == DType::kF64 || (keep_f16 && d == DType::kF16)) return x;
  return CastTo(ctx, x, DType::kF32);
}

Status MapTreeEnsemble(NodeContext& ctx) {
  static const char* const kModes[] = {"BRANCH_LEQ", "BRANCH_LT",  "BRANCH_GTE",   "BRANCH_GT",
                                       "BRANCH_EQ",  "BRANCH_NEQ", "BRANCH_MEMBER"};
  static const char* const kAggregates[] = {"AVERAGE", "SUM", "MIN", "MAX"};
  static const char* const kPosts[] = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"};
  SY_ASSIGN_OR_RETURN(ValueId x, FloatInput(ctx, true));
  SY_ASSIGN_OR_RETURN(std::optional<Tensor> modes_t, TensorAttr(ctx, "nodes_modes"));
  SY_ASSIGN_OR_RETURN(std::optional<Tensor> splits_t, TensorAttr(ctx, "nodes_splits"));
  SY_ASSIGN_OR_RETURN(std::optional<Tensor> weights_t, TensorAttr(ctx, "leaf_weights"));
  SY_ASSIGN_OR_RETURN(std::optional<Tensor> members_t, TensorAttr(ctx, "membership_values"));
  if (!modes_t || !splits_t || !weights_t) {
    return ctx.Invalid("nodes_modes, nodes_splits and leaf_weights are required");
  }
  const std::vector<int64_t> codes = ToInt64s(*modes_t);
  std::vector<int64_t> missing = IntsOr(ctx, "nodes_missing_value_tracks_true");
  if (missing.empty()) missing.assign(codes.size(), 0);
  std::vector<std::string> modes;
  size_t member_nodes = 0;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] < 0 || codes[i] > 6) {
      return ctx.Invalid("nodes_modes has " + Str(codes[i]) + " at node " + Str(int64_t(i)) +
                         " but modes are 0 (BRANCH_LEQ) to 6 (BRANCH_MEMBER)");
    }
    modes.push_back(kModes[codes[i]]);
    if (codes[i] == 5 && i < missing.size()) missing[i] = 1;  // NaN != split is true
    member_nodes += codes[i] == 6;
  }
  // membership_values: each BRANCH_MEMBER node's members, in node order, NaN after each.
  std::vector<double> members;
  std::vector<int64_t> counts;
  if (members_t) {
    int64_t count = 0;
    for (double v : ToDoubles(*members_t)) {
      if (std::isnan(v)) {
        counts.push_back(count);
        count = 0;
      } else {
        members.push_back(v);
        ++count;
      }
    }
    if (count != 0) counts.push_back(count);  // the last set without its NaN
  }
  if (counts.size() != member_nodes) {
    return ctx.Invalid("membership_values holds " + Str(int64_t(counts.size())) +
                       " NaN-delimited sets but " + Str(int64_t(member_nodes)) +
                       " nodes are BRANCH_MEMBER");
  }
  const int64_t aggregate = ctx.AttrInt("aggregate_function", 1);
  const int64_t post = ctx.AttrInt("post_transform", 0);
  if (aggregate < 0 || aggregate > 3) {
    return ctx.Invalid("aggregate_function " + Str(aggregate) + " is not 0 to 3");
  }
  if (post < 0 || post > 4) return ctx.Invalid("post_transform " + Str(post) + " is not 0 to 4");
  Attrs a;
  a.Set("n_targets", ctx.AttrInt("n_targets", 0));
  a.Set("aggregate_function", std::string(kAggregates[aggregate]));
  a.Set("post_transform", std::string(kPosts[post]));
  a.Set("tree_roots", IntsOr(ctx, "tree_roots"));
  a.Set("nodes_featureids", IntsOr(ctx, "nodes_featureids"));
  a.Set("nodes_modes", std::move(modes));
  a.Set("nodes_splits", ToDoubles(*splits_t));
  a.Set("nodes_truenodeids", IntsOr(ctx, "nodes_truenodeids"));
  a.Set("nodes_trueleafs", IntsOr(ctx, "nodes_trueleafs"));
  a.Set("nodes_falsenodeids", IntsOr(ctx, "nodes_falsenodeids"));
  a.Set("nodes_falseleafs", IntsOr(ctx, "nodes_falseleafs"));
  a.Set("nodes_missing_value_tracks_true", std::move(missing));
  if (member_nodes != 0) {
    a.Set("membership_values", std::move(members));
    a.Set("membership_counts", std::move(counts));
  }
  a.Set("leaf_targetids", IntsOr(ctx, "leaf_targetids"));
  a.Set("leaf_weights", ToDoubles(*weights_t));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("tree_ensemble", {x}, std::move(a)));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

// ---- TreeEnsembleRegressor and TreeEnsembleClassifier (opsets 1 and 3) ----

// One vote of a leaf: its target (class) and weight.
struct Vote {
  int64_t target;
  double weight;
};

// The (tree id, node id) form read from the node's attributes and converted to the
// op's flat attributes. `prefix` is "target" (regressor) or "class" (classifier).
struct TupleForm {
  std::vector<std::vector<Vote>> leaf_votes;  // per leaf of the flat form
  Attrs attrs;                                // the op's node and leaf attributes
};

Expected<TupleForm> ConvertTuples(NodeContext& ctx, const std::string& prefix) {
  const std::vector<int64_t> tree_ids = IntsOr(ctx, "nodes_treeids");
  const std::vector<int64_t> node_ids = IntsOr(ctx, "nodes_nodeids");
  const std::vector<int64_t> features = IntsOr(ctx, "nodes_featureids");
  const std::vector<int64_t> true_ids = IntsOr(ctx, "nodes_truenodeids");
  const std::vector<int64_t> false_ids = IntsOr(ctx, "nodes_falsenodeids");
  std::vector<int64_t> missing = IntsOr(ctx, "nodes_missing_value_tracks_true");
  std::vector<std::string> modes;
  if (const onnx::AttributeProto* m = ctx.Attr("nodes_modes")) {
    modes.assign(m->strings().begin(), m->strings().end());
  }
  SY_ASSIGN_OR_RETURN(std::optional<std::vector<double>> values,
                      FloatsOrTensor(ctx, "nodes_values"));
  const size_t n = tree_ids.size();
  if (missing.empty()) missing.assign(n, 0);
  if (node_ids.size() != n || features.size() != n || true_ids.size() != n ||
      false_ids.size() != n || modes.size() != n || !values || values->size() != n ||
      missing.size() != n) {
    return ctx.Invalid(
        "nodes_treeids, nodes_nodeids, nodes_featureids, nodes_modes, nodes_values, "
        "nodes_truenodeids, nodes_falsenodeids (and nodes_missing_value_tracks_true) must "
        "have one entry per node (" +
        Str(int64_t(n)) + ")");
  }
  static const std::set<std::string> kBranches = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE",
                                                  "BRANCH_GT",  "BRANCH_EQ", "BRANCH_NEQ"};
  std::map<std::pair<int64_t, int64_t>, size_t> index;
  std::vector<int64_t> flat(n);  // node i -> its interior or leaf index
  int64_t interior = 0;
  int64_t leaves = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(tree_ids[i], node_ids[i]), i).second) {
      return ctx.Invalid("node (tree " + Str(tree_ids[i]) + ", id " + Str(node_ids[i]) +
                         ") appears twice");
    }
    if (modes[i] != "LEAF" && kBranches.count(modes[i]) == 0) {
      return ctx.Invalid("nodes_modes has \"" + modes[i] + "\" at node " + Str(int64_t(i)) +
                         "; modes are LEAF and BRANCH_LEQ/LT/GTE/GT/EQ/NEQ");
    }
    flat[i] = modes[i] == "LEAF" ? leaves++ : interior++;
  }
  TupleForm out;
  out.leaf_votes.resize(static_cast<size_t>(leaves));
  std::vector<int64_t> f_ids, f_true, f_true_leaf, f_false, f_false_leaf, f_missing;
  std::vector<std::string> f_modes;
  std::vector<double> f_splits;
  // An interior node's child: its flat index and whether it is a leaf.
  auto child = [&](size_t i, int64_t nid, const char* which) -> Expected<std::pair<int64_t, int>> {
    auto it = index.find({tree_ids[i], nid});
    if (it == index.end()) {
      return ctx.Invalid("node (tree " + Str(tree_ids[i]) + ", id " + Str(node_ids[i]) + ")'s " +
                         which + " child " + Str(nid) + " is not a node of tree " +
                         Str(tree_ids[i]));
    }
    return std::make_pair(flat[it->second], modes[it->second] == "LEAF" ? 1 : 0);
  };
  for (size_t i = 0; i < n; ++i) {
    if (modes[i] == "LEAF") continue;
    SY_ASSIGN_OR_RETURN(auto t, child(i, true_ids[i], "true"));
    SY_ASSIGN_OR_RETURN(auto f, child(i, false_ids[i], "false"));
    f_ids.push_back(features[i]);
    f_modes.push_back(modes[i]);
    f_splits.push_back((*values)[i]);
    f_true.push_back(t.first);
    f_true_leaf.push_back(t.second);
    f_false.push_back(f.first);
    f_false_leaf.push_back(f.second);
    f_missing.push_back(missing[i] != 0 ? 1 : 0);
  }
  // Each tree's root is its first node (onnx.reference), trees in increasing id order.
  std::map<int64_t, size_t> roots;
  for (size_t i = 0; i < n; ++i) roots.emplace(tree_ids[i], i);
  std::vector<int64_t> tree_roots;
  for (const auto& [tree, i] : roots) {
    if (modes[i] != "LEAF") {
      tree_roots.push_back(flat[i]);
      continue;
    }
    // A tree that is one leaf: an interior node that reaches it either way.
    tree_roots.push_back(static_cast<int64_t>(f_ids.size()));
    f_ids.push_back(0);
    f_modes.push_back("BRANCH_LEQ");
    f_splits.push_back(0.0);
    f_true.push_back(flat[i]);
    f_true_leaf.push_back(1);
    f_false.push_back(flat[i]);
    f_false_leaf.push_back(1);
    f_missing.push_back(0);
  }
  // Votes, in the order given, onto their leaves.
  const std::vector<int64_t> vote_trees = IntsOr(ctx, prefix + "_treeids");
  const std::vector<int64_t> vote_nodes = IntsOr(ctx, prefix + "_nodeids");
  const std::vector<int64_t> vote_ids = IntsOr(ctx, prefix + "_ids");
  SY_ASSIGN_OR_RETURN(std::optional<std::vector<double>> vote_weights,
                      FloatsOrTensor(ctx, prefix + "_weights"));
  const size_t v = vote_trees.size();
  if (vote_nodes.size() != v || vote_ids.size() != v || !vote_weights ||
      vote_weights->size() != v) {
    return ctx.Invalid(prefix + "_treeids, " + prefix + "_nodeids, " + prefix + "_ids and " +
                       prefix + "_weights must have one entry per vote (" + Str(int64_t(v)) + ")");
  }
  for (size_t k = 0; k < v; ++k) {
    auto it = index.find({vote_trees[k], vote_nodes[k]});
    if (it == index.end() || modes[it->second] != "LEAF") {
      return ctx.Invalid(prefix + " vote " + Str(int64_t(k)) + " names (tree " +
                         Str(vote_trees[k]) + ", id " + Str(vote_nodes[k]) +
                         "), which is not a LEAF node");
    }
    out.leaf_votes[static_cast<size_t>(flat[it->second])].push_back(
        {vote_ids[k], (*vote_weights)[k]});
  }
  Attrs& a = out.attrs;
  a.Set("tree_roots", std::move(tree_roots));
  a.Set("nodes_featureids", std::move(f_ids));
  a.Set("nodes_modes", std::move(f_modes));
  a.Set("nodes_splits", std::move(f_splits));
  a.Set("nodes_truenodeids", std::move(f_true));
  a.Set("nodes_trueleafs", std::move(f_true_leaf));
  a.Set("nodes_falsenodeids", std::move(f_false));
  a.Set("nodes_falseleafs", std::move(f_false_leaf));
  a.Set("nodes_missing_value_tracks_true", std::move(f_missing));
  return out;
}

// The leaves' votes as leaf_offsets, leaf_targetids and leaf_weights.
void SetVotes(Attrs& a, const std::vector<std::vector<Vote>>& leaf_votes) {
  std::vector<int64_t> offsets = {0};
  std::vector<int64_t> targets;
  std::vector<double> weights;
  for (const std::vector<Vote>& leaf : leaf_votes) {
    for (const Vote& vote : leaf) {
      targets.push_back(vote.target);
      weights.push_back(vote.weight);
    }
    offsets.push_back(static_cast<int64_t>(targets.size()));
  }
  a.Set("leaf_offsets", std::move(offsets));
  a.Set("leaf_targetids", std::move(targets));
  a.Set("leaf_weights", std::move(weights));
}

Status MapTreeEnsembleRegressor(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, FloatInput(ctx, false));
  SY_ASSIGN_OR_RETURN(TupleForm form, ConvertTuples(ctx, "target"));
  const int64_t n_targets = ctx.AttrInt("n_targets", 0);
  Attrs& a = form.attrs;
  SetVotes(a, form.leaf_votes);
  a.Set("n_targets", n_targets);
  a.Set("aggregate_function", ctx.AttrString("aggregate_function", "SUM"));
  a.Set("post_transform", ctx.AttrString("post_transform", "NONE"));
  SY_ASSIGN_OR_RETURN(std::optional<std::vector<double>> base, FloatsOrTensor(ctx, "base_values"));
  if (base && !base->empty()) a.Set("base_values", std::move(*base));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("tree_ensemble", {x}, std::move(a)));
  SY_ASSIGN_OR_RETURN(y, CastTo(ctx, y, DType::kF32));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapTreeEnsembleClassifier(NodeContext& ctx) {
  if (ctx.Attr("classlabels_strings") != nullptr) {
    return ctx.Fail(ImportProblem::kUnsupportedType,
                    "classlabels_strings: string labels have no dtype in rml-graph v1 (integer "
                    "labels, classlabels_int64s, are mapped)");
  }
  const std::vector<int64_t> labels = IntsOr(ctx, "classlabels_int64s");
  const auto k = static_cast<int64_t>(labels.size());
  if (k == 0) return ctx.Invalid("classlabels_int64s is required and must not be empty");
  if (k == 1 && labels[0] != 1) {
    return ctx.UnsupportedOp("a single class label must be 1 (as onnx.reference), not " +
                             Str(labels[0]));
  }
  SY_ASSIGN_OR_RETURN(ValueId x, FloatInput(ctx, false));
  SY_ASSIGN_OR_RETURN(TupleForm form, ConvertTuples(ctx, "class"));
  const std::string post = ctx.AttrString("post_transform", "NONE");
  SY_ASSIGN_OR_RETURN(std::optional<std::vector<double>> base_in,
                      FloatsOrTensor(ctx, "base_values"));
  std::vector<double> base(static_cast<size_t>(k), 0.0);
  if (base_in && !base_in->empty()) {
    if (base_in->size() == 1) {
      base.assign(static_cast<size_t>(k), (*base_in)[0]);
    } else if (static_cast<int64_t>(base_in->size()) == k) {
      base = *base_in;
    } else {
      return ctx.Invalid("base_values has " + Str(int64_t(base_in->size())) + " entries for " +
                         Str(k) + " classes");
    }
  }
  std::set<int64_t> classes;
  for (const auto& leaf : form.leaf_votes) {
    for (const Vote& vote : leaf) {
      if (vote.target < 0 || vote.target >= k) {
        return ctx.Invalid("class_ids has " + Str(vote.target) + ", outside the " + Str(k) +
                           " class labels");
      }
      classes.insert(vote.target);
    }
  }
  int64_t width = k;
  if (classes.size() == 1) {
    // The binary rewrite (onnx.reference): s1 = s0, s0 = c - s0 with c = 1 for NONE and
    // PROBIT, else 0; on the votes: class 0's go to 1 as they are and to 0 negated,
    // class 1's are overwritten (dropped), the others stay.
    width = std::max<int64_t>(k, 2);
    const double c = post == "NONE" || post == "PROBIT" ? 1.0 : 0.0;
    for (auto& leaf : form.leaf_votes) {
      std::vector<Vote> rewritten;
      for (const Vote& vote : leaf) {
        if (vote.target == 0) {
          rewritten.push_back({1, vote.weight});
          rewritten.push_back({0, -vote.weight});
        } else if (vote.target >= 2) {
          rewritten.push_back(vote);
        }
      }
      leaf = std::move(rewritten);
    }
    const double b0 = base[0];
    base.resize(static_cast<size_t>(width), 0.0);
    base[1] = b0;
    base[0] = c - b0;
  }
  Attrs& a = form.attrs;
  SetVotes(a, form.leaf_votes);
  a.Set("n_targets", width);
  a.Set("aggregate_function", std::string("SUM"));
  a.Set("post_transform", post);
  a.Set("base_values", std::move(base));
  SY_ASSIGN_OR_RETURN(ValueId scores, ctx.Emit1("tree_ensemble", {x}, std::move(a)));
  SY_ASSIGN_OR_RETURN(scores, CastTo(ctx, scores, DType::kF32));
  Attrs argmax;
  argmax.Set("axis", int64_t{1});
  argmax.Set("keepdims", int64_t{0});
  SY_ASSIGN_OR_RETURN(ValueId best, ctx.Emit1("argmax", {scores}, std::move(argmax)));
  const std::vector<int64_t> table = k == 1 ? std::vector<int64_t>{0, 1} : labels;
  const ValueId table_id = ctx.state().AddConstant(Int64Vector(table), "classlabels");
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("gather", {table_id, best}));
  ctx.SetOutput(0, y);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, scores);
  return Status::Ok();
}

}  // namespace

void AddTreeEnsembleMappings(MappingTable& table) {
  const std::string ml = "ai.onnx.ml:";
  table.At(ml + "TreeEnsemble").map = MapTreeEnsemble;
  table.At(ml + "TreeEnsembleRegressor").map = MapTreeEnsembleRegressor;
  table.At(ml + "TreeEnsembleClassifier").map = MapTreeEnsembleClassifier;
}

}  // namespace sy::onnx_import
