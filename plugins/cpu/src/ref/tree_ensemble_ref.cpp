// Reference kernel of tree_ensemble (docs/ops.md; of the indexing family, in a file of
// its own): ONNX ai.onnx.ml TreeEnsemble-5 as its text and onnx.reference evaluate it,
// with the extensions the importer needs for the older TreeEnsembleRegressor and
// TreeEnsembleClassifier (several votes per leaf, base values).
//
// Semantics decisions:
// - a NaN feature goes to the true child exactly when the node's
//   nodes_missing_value_tracks_true is 1, whatever its mode. TreeEnsemble-5's
//   `x != split` is true for NaN, so the importer sets the flag on its BRANCH_NEQ nodes.
// - comparisons are made in double, so a float x against a float split (widened exactly)
//   decides as the float comparison would.
// - values accumulate in double and round once on store. MIN and MAX start from the
//   largest finite value of x's dtype (and its negative), as onnx.reference does, so a
//   target no leaf votes for holds that value. AVERAGE divides by the number of trees.
//   base_values are added after the aggregation, before post_transform.
// - post_transform as onnx.reference's aionnxml/_common_classifier.py (which ONNX
//   Runtime follows): LOGISTIC 1 / (1 + e^-x) per element; SOFTMAX per row; SOFTMAX_ZERO
//   per row with entries within 1e-7 of 0 kept at ~0 and all 0.5 when they sum to 0;
//   PROBIT sqrt(2) * erfinv(2x - 1) with the same approximation of erfinv.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

enum class Mode : uint8_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember };

Mode ParseMode(const std::string& m) {
  if (m == "BRANCH_LT") return Mode::kLt;
  if (m == "BRANCH_GTE") return Mode::kGte;
  if (m == "BRANCH_GT") return Mode::kGt;
  if (m == "BRANCH_EQ") return Mode::kEq;
  if (m == "BRANCH_NEQ") return Mode::kNeq;
  if (m == "BRANCH_MEMBER") return Mode::kMember;
  return Mode::kLeq;  // the schema admits only these names
}

double LargestFinite(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return 65504.0;
    case DType::kBF16:
      return 3.3895313892515355e38;
    case DType::kF32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

// onnx.reference's erf_inv (Winitzki's approximation, a = 0.147).
double ErfInv(double x) {
  constexpr double kPi = 3.14159265358979323846;
  const double sgn = x < 0 ? -1.0 : 1.0;
  x = (1.0 - x) * (1.0 + x);
  if (x == 0) return 0;
  const double log = std::log(x);
  const double v = 2.0 / (kPi * 0.147) + 0.5 * log;
  const double v2 = 1.0 / 0.147 * log;
  const double v3 = -v + std::sqrt(v * v - v2);
  return sgn * std::sqrt(v3);
}

void PostTransform(const std::string& post, std::vector<double>& row) {
  if (post == "LOGISTIC") {
    for (double& v : row) {
      const double e = 1.0 / (1.0 + std::exp(-std::abs(v)));
      v = v < 0 ? 1.0 - e : e;
    }
  } else if (post == "SOFTMAX") {
    const double top = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (double& v : row) sum += (v = std::exp(v - top));
    for (double& v : row) v /= sum;
  } else if (post == "SOFTMAX_ZERO") {
    const double top = *std::max_element(row.begin(), row.end());
    const double scale = std::exp(-top);
    double sum = 0;
    for (double& v : row) {
      v = (v > 1e-7 || v < -1e-7) ? std::exp(v - top) : v * scale;
      sum += v;
    }
    for (double& v : row) v = sum == 0 ? 0.5 : v / sum;
  } else if (post == "PROBIT") {
    for (double& v : row) v = 1.41421356 * ErfInv(v * 2 - 1);
  }
}

Status TreeEnsemble(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const Attrs& a = ctx.attrs;
  const std::vector<int64_t> features = a.GetInts("nodes_featureids");
  const std::vector<double> splits = a.GetFloats("nodes_splits");
  const std::vector<int64_t> true_ids = a.GetInts("nodes_truenodeids");
  const std::vector<int64_t> true_leafs = a.GetInts("nodes_trueleafs");
  const std::vector<int64_t> false_ids = a.GetInts("nodes_falsenodeids");
  const std::vector<int64_t> false_leafs = a.GetInts("nodes_falseleafs");
  const size_t nodes = features.size();
  const std::vector<int64_t> missing_true = a.Has("nodes_missing_value_tracks_true")
                                                ? a.GetInts("nodes_missing_value_tracks_true")
                                                : std::vector<int64_t>(nodes, 0);
  std::vector<Mode> modes;
  for (const std::string& m : a.GetStrings("nodes_modes")) modes.push_back(ParseMode(m));
  // Each BRANCH_MEMBER node's members, in node order.
  std::vector<std::vector<double>> members(nodes);
  {
    const std::vector<int64_t> counts =
        a.Has("membership_counts") ? a.GetInts("membership_counts") : std::vector<int64_t>{};
    const std::vector<double> values =
        a.Has("membership_values") ? a.GetFloats("membership_values") : std::vector<double>{};
    size_t next = 0;
    size_t at = 0;
    for (size_t i = 0; i < nodes; ++i) {
      if (modes[i] != Mode::kMember) continue;
      const auto n = static_cast<size_t>(counts[next++]);
      members[i].assign(values.begin() + static_cast<std::ptrdiff_t>(at),
                        values.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    }
  }
  const std::vector<int64_t> targets = a.GetInts("leaf_targetids");
  const std::vector<double> weights = a.GetFloats("leaf_weights");
  std::vector<int64_t> offsets;
  if (a.Has("leaf_offsets")) {
    offsets = a.GetInts("leaf_offsets");
  } else {
    for (size_t i = 0; i <= weights.size(); ++i) offsets.push_back(static_cast<int64_t>(i));
  }
  const std::vector<int64_t> roots = a.GetInts("tree_roots");
  const std::vector<double> base =
      a.Has("base_values") ? a.GetFloats("base_values") : std::vector<double>{};
  const std::string aggregate = a.GetString("aggregate_function", "SUM");
  const std::string post = a.GetString("post_transform", "NONE");
  const int64_t n_targets = a.GetInt("n_targets");
  const int64_t rows = x.shape()[0];
  const int64_t width = x.shape()[1];

  const double start = aggregate == "MIN"   ? LargestFinite(y.dtype())
                       : aggregate == "MAX" ? -LargestFinite(y.dtype())
                                            : 0.0;
  std::vector<double> acc(static_cast<size_t>(n_targets));
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(acc.begin(), acc.end(), start);
    for (int64_t root : roots) {
      auto node = static_cast<size_t>(root);
      // The schema rejects cycles, so a walk takes at most one step per interior node;
      // the bound keeps a kernel called on unvalidated attributes from spinning.
      for (size_t steps = 0;; ++steps) {
        if (steps > nodes) {
          return InvalidArgument(std::string(ctx.op) + ": tree from root " + std::to_string(root) +
                                 " does not reach a leaf (a cycle)");
        }
        const double v = LoadFloat(x.dtype(), x.data, r * width + features[node]);
        bool go_true = false;
        if (std::isnan(v)) {
          go_true = missing_true[node] != 0;
        } else {
          const double s = splits[node];
          switch (modes[node]) {
            case Mode::kLeq:
              go_true = v <= s;
              break;
            case Mode::kLt:
              go_true = v < s;
              break;
            case Mode::kGte:
              go_true = v >= s;
              break;
            case Mode::kGt:
              go_true = v > s;
              break;
            case Mode::kEq:
              go_true = v == s;
              break;
            case Mode::kNeq:
              go_true = v != s;
              break;
            case Mode::kMember:
              go_true =
                  std::find(members[node].begin(), members[node].end(), v) != members[node].end();
              break;
          }
        }
        const int64_t child = go_true ? true_ids[node] : false_ids[node];
        if (!(go_true ? true_leafs[node] : false_leafs[node])) {
          node = static_cast<size_t>(child);
          continue;
        }
        const auto leaf = static_cast<size_t>(child);
        for (int64_t k = offsets[leaf]; k < offsets[leaf + 1]; ++k) {
          double& slot = acc[static_cast<size_t>(targets[static_cast<size_t>(k)])];
          const double w = weights[static_cast<size_t>(k)];
          if (aggregate == "MIN") {
            slot = std::min(slot, w);
          } else if (aggregate == "MAX") {
            slot = std::max(slot, w);
          } else {
            slot += w;
          }
        }
        break;
      }
    }
    if (aggregate == "AVERAGE") {
      for (double& v : acc) v /= static_cast<double>(roots.size());
    }
    for (size_t t = 0; t < base.size(); ++t) acc[t] += base[t];
    PostTransform(post, acc);
    for (int64_t t = 0; t < n_targets; ++t) {
      StoreFloat(y.dtype(), y.data, r * n_targets + t, acc[static_cast<size_t>(t)]);
    }
  }
  return Status::Ok();
}

}  // namespace

void AddTreeEnsembleRefKernel(KernelTable& table) { table.Add("tree_ensemble", TreeEnsemble); }

}  // namespace sy::cpu
