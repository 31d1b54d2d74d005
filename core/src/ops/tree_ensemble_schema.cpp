// The catalogue extension tree_ensemble (docs/ops.md): ONNX ai.onnx.ml TreeEnsemble (opset
// 5) on flat node arrays, general enough that the importer maps the older
// TreeEnsembleRegressor and TreeEnsembleClassifier onto it too. Part of the indexing
// family: like tfidf_vectorizer, it looks values up in tables by what the data says.
//
// Its shape rule is also the model's only guard against a malformed ensemble, so it
// checks everything a kernel would index with: equal lengths, children and features in
// range, and no cycle (a tree is walked from its root with at most one step per interior
// node, so a kernel's walk always ends).
#include <string>
#include <vector>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }
std::string Str(size_t v) { return std::to_string(v); }

// Every `nodes_*` list must have one entry per interior node.
Status RequireNodeList(const Attrs& attrs, std::string_view name, size_t nodes) {
  const size_t got = attrs.Has(name) ? (attrs.GetInts(name).size()) : 0;
  if (got != nodes) {
    return AttrError(name, "has " + Str(got) + " entries but nodes_featureids has " + Str(nodes) +
                               " (one per interior node)");
  }
  return Status::Ok();
}

// Children: an index into the interior nodes, or with its leaf flag into the leaves.
Status CheckChildren(const Attrs& attrs, std::string_view ids_name, std::string_view leafs_name,
                     int64_t nodes, int64_t leaves) {
  const std::vector<int64_t> ids = attrs.GetInts(ids_name);
  const std::vector<int64_t> leafs = attrs.GetInts(leafs_name);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (leafs[i] != 0 && leafs[i] != 1) {
      return AttrError(leafs_name, "has " + Str(leafs[i]) + " at node " + Str(i) +
                                       " but entries must be 0 or 1");
    }
    const int64_t bound = leafs[i] ? leaves : nodes;
    if (ids[i] < 0 || ids[i] >= bound) {
      return AttrError(ids_name, "has " + Str(ids[i]) + " at node " + Str(i) + ", outside the " +
                                     Str(bound) + (leafs[i] ? " leaves" : " interior nodes"));
    }
  }
  return Status::Ok();
}

// Depth-first from every root over interior children: a node met again while still on
// the path is a cycle. Iterative, so that a deep tree cannot overflow the stack.
Status CheckAcyclic(const Attrs& attrs, int64_t nodes) {
  const std::vector<int64_t> true_ids = attrs.GetInts("nodes_truenodeids");
  const std::vector<int64_t> true_leafs = attrs.GetInts("nodes_trueleafs");
  const std::vector<int64_t> false_ids = attrs.GetInts("nodes_falsenodeids");
  const std::vector<int64_t> false_leafs = attrs.GetInts("nodes_falseleafs");
  enum : uint8_t { kNew, kOnPath, kDone };
  std::vector<uint8_t> state(static_cast<size_t>(nodes), kNew);
  struct Frame {
    int64_t node;
    int next_child;  // 0: true, 1: false, 2: both visited
  };
  std::vector<Frame> stack;
  for (int64_t root : attrs.GetInts("tree_roots")) {
    if (state[static_cast<size_t>(root)] != kNew) continue;
    stack.push_back({root, 0});
    state[static_cast<size_t>(root)] = kOnPath;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto at = static_cast<size_t>(f.node);
      if (f.next_child == 2) {
        state[at] = kDone;
        stack.pop_back();
        continue;
      }
      const bool is_true = f.next_child++ == 0;
      if (is_true ? true_leafs[at] : false_leafs[at]) continue;
      const int64_t child = is_true ? true_ids[at] : false_ids[at];
      const auto c = static_cast<size_t>(child);
      if (state[c] == kOnPath) {
        return AttrError(is_true ? "nodes_truenodeids" : "nodes_falsenodeids",
                         "has " + Str(child) + " at node " + Str(f.node) +
                             ", which closes a cycle (node " + Str(child) +
                             " is its own ancestor); trees must be acyclic");
      }
      if (state[c] == kNew) {
        state[c] = kOnPath;
        stack.push_back({child, 0});
      }
    }
  }
  return Status::Ok();
}

// tree_ensemble: x [N, F] -> [N, n_targets] in x's dtype.
Expected<std::vector<TensorType>> InferTreeEnsemble(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 2));
  const Attrs& a = ctx.attrs;
  const int64_t n_targets = a.GetInt("n_targets");
  if (n_targets < 1) return AttrError("n_targets", "is " + Str(n_targets) + " but must be >= 1");

  const std::vector<int64_t> features = a.GetInts("nodes_featureids");
  const size_t nodes = features.size();
  SY_RETURN_IF_ERROR(RequireNodeList(a, "nodes_truenodeids", nodes));
  SY_RETURN_IF_ERROR(RequireNodeList(a, "nodes_trueleafs", nodes));
  SY_RETURN_IF_ERROR(RequireNodeList(a, "nodes_falsenodeids", nodes));
  SY_RETURN_IF_ERROR(RequireNodeList(a, "nodes_falseleafs", nodes));
  if (a.Has("nodes_missing_value_tracks_true")) {
    SY_RETURN_IF_ERROR(RequireNodeList(a, "nodes_missing_value_tracks_true", nodes));
  }
  if (const size_t n = a.GetStrings("nodes_modes").size(); n != nodes) {
    return AttrError("nodes_modes", "has " + Str(n) + " entries but nodes_featureids has " +
                                        Str(nodes) + " (one per interior node)");
  }
  if (const size_t n = a.GetFloats("nodes_splits").size(); n != nodes) {
    return AttrError("nodes_splits", "has " + Str(n) + " entries but nodes_featureids has " +
                                         Str(nodes) + " (one per interior node)");
  }
  for (size_t i = 0; i < nodes; ++i) {
    if (features[i] < 0 || features[i] >= x.shape[1]) {
      return AttrError("nodes_featureids", "has " + Str(features[i]) + " at node " + Str(i) +
                                               " but input x has " + Str(x.shape[1]) + " features");
    }
  }

  // Set membership: the members of each BRANCH_MEMBER node, in node order.
  size_t members_nodes = 0;
  for (const std::string& m : a.GetStrings("nodes_modes")) members_nodes += m == "BRANCH_MEMBER";
  const std::vector<int64_t> counts =
      a.Has("membership_counts") ? a.GetInts("membership_counts") : std::vector<int64_t>{};
  if (counts.size() != members_nodes) {
    return AttrError("membership_counts", "has " + Str(counts.size()) + " entries but " +
                                              Str(members_nodes) +
                                              " nodes are BRANCH_MEMBER (one count each)");
  }
  int64_t members = 0;
  for (int64_t c : counts) {
    if (c < 0) return AttrError("membership_counts", "has " + Str(c) + " but counts are >= 0");
    members += c;
  }
  const size_t values =
      a.Has("membership_values") ? a.GetFloats("membership_values").size() : size_t{0};
  if (static_cast<int64_t>(values) != members) {
    return AttrError(
        "membership_values",
        "has " + Str(values) + " entries but membership_counts add up to " + Str(members));
  }

  // Leaves: one vote each, or with leaf_offsets a range of votes each.
  const std::vector<int64_t> targets = a.GetInts("leaf_targetids");
  const size_t votes = a.GetFloats("leaf_weights").size();
  if (targets.size() != votes) {
    return AttrError("leaf_targetids",
                     "has " + Str(targets.size()) + " entries but leaf_weights has " + Str(votes));
  }
  for (int64_t t : targets) {
    if (t < 0 || t >= n_targets) {
      return AttrError("leaf_targetids",
                       "has " + Str(t) + ", outside [0, n_targets = " + Str(n_targets) + ")");
    }
  }
  int64_t leaves = static_cast<int64_t>(votes);
  if (a.Has("leaf_offsets")) {
    const std::vector<int64_t> offsets = a.GetInts("leaf_offsets");
    if (offsets.empty() || offsets.front() != 0 || offsets.back() != static_cast<int64_t>(votes)) {
      return AttrError("leaf_offsets", "must start at 0 and end at the " + Str(votes) +
                                           " votes of leaf_weights (one more entry than leaves)");
    }
    for (size_t i = 1; i < offsets.size(); ++i) {
      if (offsets[i] < offsets[i - 1]) {
        return AttrError("leaf_offsets", "decreases at entry " + Str(i) + "; it must not");
      }
    }
    leaves = static_cast<int64_t>(offsets.size()) - 1;
  }
  if (a.Has("base_values")) {
    if (const size_t n = a.GetFloats("base_values").size(); n != static_cast<size_t>(n_targets)) {
      return AttrError("base_values",
                       "has " + Str(n) + " entries but n_targets is " + Str(n_targets));
    }
  }

  const std::vector<int64_t> roots = a.GetInts("tree_roots");
  if (roots.empty()) return AttrError("tree_roots", "is empty; an ensemble needs a tree");
  for (int64_t r : roots) {
    if (r < 0 || r >= static_cast<int64_t>(nodes)) {
      return AttrError("tree_roots",
                       "has " + Str(r) + ", outside the " + Str(nodes) + " interior nodes");
    }
  }
  const auto m = static_cast<int64_t>(nodes);
  SY_RETURN_IF_ERROR(CheckChildren(a, "nodes_truenodeids", "nodes_trueleafs", m, leaves));
  SY_RETURN_IF_ERROR(CheckChildren(a, "nodes_falsenodeids", "nodes_falseleafs", m, leaves));
  SY_RETURN_IF_ERROR(CheckAcyclic(a, m));
  return std::vector<TensorType>{{x.dtype, Shape{x.shape[0], n_targets}}};
}

}  // namespace

void AddTreeEnsembleSchema(std::vector<OpSchema>& out) {
  auto ints = [](std::string_view name, bool required) {
    return AttrSpec{name, AttrKind::kInts, std::nullopt, required, {}};
  };
  auto floats = [](std::string_view name, bool required) {
    return AttrSpec{name, AttrKind::kFloats, std::nullopt, required, {}};
  };
  OpSchema s = MakeSchema(
      "tree_ensemble", "TreeEnsemble", DTypeSet::Float(), {{"x", 0}},
      {{"n_targets", AttrKind::kInt, std::nullopt, true, {}},
       {"aggregate_function", AttrKind::kString, "SUM", false, {"SUM", "AVERAGE", "MIN", "MAX"}},
       {"post_transform",
        AttrKind::kString,
        "NONE",
        false,
        {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"}},
       ints("tree_roots", true),
       ints("nodes_featureids", true),
       {"nodes_modes",
        AttrKind::kStrings,
        std::nullopt,
        true,
        {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ",
         "BRANCH_MEMBER"}},
       floats("nodes_splits", true),
       ints("nodes_truenodeids", true),
       ints("nodes_trueleafs", true),
       ints("nodes_falsenodeids", true),
       ints("nodes_falseleafs", true),
       ints("nodes_missing_value_tracks_true", false),
       floats("membership_values", false),
       ints("membership_counts", false),
       ints("leaf_targetids", true),
       floats("leaf_weights", true),
       ints("leaf_offsets", false),
       floats("base_values", false)},
      InferTreeEnsemble);
  out.push_back(std::move(s));
}

}  // namespace sy::ops
