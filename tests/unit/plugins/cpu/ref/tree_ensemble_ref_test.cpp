// tree_ensemble's reference kernel on a hand-derived ensemble (each aggregate, each post
// transform, NaN routing, set membership, leaves with several votes or none), and the
// schema's refusals of malformed ensembles (out-of-range children and features, cycles).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "test_util.h"

namespace sy::cpu::test {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

void ExpectRow(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> v = Values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol) << "element " << i;
}

// Two trees over 3 features, 2 targets:
//   tree 0: node 0 `x0 <= 1` (NaN goes true) -> node 1, else leaf 0 (t0 += 10);
//           node 1 `x1 in {2, 5}` -> leaf 1 (t1 += 1), else leaf 2 (t0 += 2)
//   tree 1: node 2 `x2 != 0` (NaN goes false) -> leaf 3 (t1 += 4), else leaf 4 (t1 -= 4)
// Rows [0, 2, 1], [3, 2, 0], [NaN, 7, NaN] reach leaves {1, 3}, {0, 4}, {2, 4}:
// sums [0, 5], [10, -4], [2, -4].
Attrs TwoTrees(std::string aggregate, std::string post) {
  return sy::test::MakeAttrs(
      {{"n_targets", int64_t{2}},
       {"aggregate_function", std::move(aggregate)},
       {"post_transform", std::move(post)},
       {"tree_roots", std::vector<int64_t>{0, 2}},
       {"nodes_featureids", std::vector<int64_t>{0, 1, 2}},
       {"nodes_modes", std::vector<std::string>{"BRANCH_LEQ", "BRANCH_MEMBER", "BRANCH_NEQ"}},
       {"nodes_splits", std::vector<double>{1, 0, 0}},
       {"nodes_truenodeids", std::vector<int64_t>{1, 1, 3}},
       {"nodes_trueleafs", std::vector<int64_t>{0, 1, 1}},
       {"nodes_falsenodeids", std::vector<int64_t>{0, 2, 4}},
       {"nodes_falseleafs", std::vector<int64_t>{1, 1, 1}},
       {"nodes_missing_value_tracks_true", std::vector<int64_t>{1, 0, 0}},
       {"membership_values", std::vector<double>{2, 5}},
       {"membership_counts", std::vector<int64_t>{2}},
       {"leaf_targetids", std::vector<int64_t>{0, 1, 0, 1, 1}},
       {"leaf_weights", std::vector<double>{10, 1, 2, 4, -4}}});
}

Tensor Rows(DType dtype) { return Make(dtype, {3, 3}, {0, 2, 1, 3, 2, 0, kNaN, 7, kNaN}); }

TEST(TreeEnsembleRef, AggregatesRouteNaNAndMembership) {
  const Tensor x = Rows(DType::kF64);
  ExpectRow(RunRef1("tree_ensemble", {x}, TwoTrees("SUM", "NONE")), {0, 5, 10, -4, 2, -4});
  ExpectRow(RunRef1("tree_ensemble", {x}, TwoTrees("AVERAGE", "NONE")), {0, 2.5, 5, -2, 1, -2});
  // MIN and MAX start from the dtype's largest finite value: row 0 has no t0 vote.
  ExpectRow(RunRef1("tree_ensemble", {x}, TwoTrees("MIN", "NONE")), {DBL_MAX, 1, 10, -4, 2, -4}, 0);
  ExpectRow(RunRef1("tree_ensemble", {x}, TwoTrees("MAX", "NONE")), {-DBL_MAX, 4, 10, -4, 2, -4},
            0);
  const Tensor min32 = RunRef1("tree_ensemble", {Rows(DType::kF32)}, TwoTrees("MIN", "NONE"));
  EXPECT_EQ(min32.dtype(), DType::kF32);
  ExpectRow(min32, {FLT_MAX, 1, 10, -4, 2, -4}, 0);
  Attrs based = TwoTrees("SUM", "NONE");
  based.Set("base_values", std::vector<double>{1, -1});
  ExpectRow(RunRef1("tree_ensemble", {x}, based), {1, 4, 11, -5, 3, -5});
}

TEST(TreeEnsembleRef, PostTransforms) {
  const Tensor x = Rows(DType::kF64);
  // LOGISTIC of [0, 5]: 1 / (1 + e^-5) = 0.9933071490757153.
  const std::vector<double> logistic =
      Values(RunRef1("tree_ensemble", {x}, TwoTrees("SUM", "LOGISTIC")));
  EXPECT_NEAR(logistic[0], 0.5, 1e-15);
  EXPECT_NEAR(logistic[1], 0.9933071490757153, 1e-15);
  // SOFTMAX of [10, -4]: [1 / (1 + e^-14), e^-14 / (1 + e^-14)].
  const std::vector<double> softmax =
      Values(RunRef1("tree_ensemble", {x}, TwoTrees("SUM", "SOFTMAX")));
  EXPECT_NEAR(softmax[2], 0.9999991684719722, 1e-15);
  EXPECT_NEAR(softmax[3], 1 - 0.9999991684719722, 1e-15);
  // SOFTMAX_ZERO keeps the 0 of [0, 5] at 0: [0, 1].
  const std::vector<double> zero =
      Values(RunRef1("tree_ensemble", {x}, TwoTrees("SUM", "SOFTMAX_ZERO")));
  EXPECT_EQ(zero[0], 0.0);
  EXPECT_NEAR(zero[1], 1.0, 1e-15);
}

// One tree, `x0 <= 0`: leaf 0 votes twice (t0 0.25, t1 0.9), leaf 1 not at all. PROBIT
// (onnx.reference's erfinv approximation): 0.25 -> -0.6745742457433284, 0.9 ->
// 1.2817128969878195, 0 -> 0.
TEST(TreeEnsembleRef, LeavesWithSeveralVotesAndProbit) {
  const Attrs a = sy::test::MakeAttrs({{"n_targets", int64_t{2}},
                                       {"post_transform", "PROBIT"},
                                       {"tree_roots", std::vector<int64_t>{0}},
                                       {"nodes_featureids", std::vector<int64_t>{0}},
                                       {"nodes_modes", std::vector<std::string>{"BRANCH_LEQ"}},
                                       {"nodes_splits", std::vector<double>{0}},
                                       {"nodes_truenodeids", std::vector<int64_t>{0}},
                                       {"nodes_trueleafs", std::vector<int64_t>{1}},
                                       {"nodes_falsenodeids", std::vector<int64_t>{1}},
                                       {"nodes_falseleafs", std::vector<int64_t>{1}},
                                       {"leaf_offsets", std::vector<int64_t>{0, 2, 2}},
                                       {"leaf_targetids", std::vector<int64_t>{0, 1}},
                                       {"leaf_weights", std::vector<double>{0.25, 0.9}}});
  ExpectRow(RunRef1("tree_ensemble", {Make(DType::kF64, {2, 1}, {-1, 1})}, a),
            {-0.6745742457433284, 1.2817128969878195, 0, 0});
}

// A malformed ensemble fails at the schema, with the attribute named.
void ExpectRefused(Attrs a, const std::string& needle) {
  Expected<std::vector<Tensor>> r = RunRef("tree_ensemble", {Rows(DType::kF32)}, std::move(a));
  ASSERT_FALSE(r.ok()) << needle;
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

TEST(TreeEnsembleRef, MalformedEnsemblesAreRefused) {
  Attrs cycle = TwoTrees("SUM", "NONE");  // node 1's false child: node 0, its parent
  cycle.Set("nodes_falseleafs", std::vector<int64_t>{1, 0, 1});
  cycle.Set("nodes_falsenodeids", std::vector<int64_t>{0, 0, 4});
  ExpectRefused(cycle, "cycle");
  Attrs self = TwoTrees("SUM", "NONE");  // node 2 is its own true child
  self.Set("nodes_trueleafs", std::vector<int64_t>{0, 1, 0});
  self.Set("nodes_truenodeids", std::vector<int64_t>{1, 1, 2});
  ExpectRefused(self, "cycle");
  Attrs leaf = TwoTrees("SUM", "NONE");
  leaf.Set("nodes_falsenodeids", std::vector<int64_t>{0, 5, 4});
  ExpectRefused(leaf, "nodes_falsenodeids has 5 at node 1, outside the 5 leaves");
  Attrs node = TwoTrees("SUM", "NONE");
  node.Set("nodes_truenodeids", std::vector<int64_t>{3, 1, 3});
  ExpectRefused(node, "outside the 3 interior nodes");
  Attrs feature = TwoTrees("SUM", "NONE");
  feature.Set("nodes_featureids", std::vector<int64_t>{0, 3, 2});
  ExpectRefused(feature, "input x has 3 features");
  Attrs target = TwoTrees("SUM", "NONE");
  target.Set("leaf_targetids", std::vector<int64_t>{0, 1, 0, 1, 2});
  ExpectRefused(target, "leaf_targetids");
  Attrs lengths = TwoTrees("SUM", "NONE");
  lengths.Set("nodes_splits", std::vector<double>{1, 0});
  ExpectRefused(lengths, "nodes_splits has 2 entries");
  Attrs members = TwoTrees("SUM", "NONE");
  members.Set("membership_counts", std::vector<int64_t>{3});
  ExpectRefused(members, "membership_values");
  Attrs root = TwoTrees("SUM", "NONE");
  root.Set("tree_roots", std::vector<int64_t>{0, 7});
  ExpectRefused(root, "tree_roots");
}

}  // namespace
}  // namespace sy::cpu::test
