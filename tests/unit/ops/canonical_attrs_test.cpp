// The canonical attributes plugins receive (op_schema.h, CanonicalAttrs; docs/plugin-abi.md,
// "Canonical nodes"): hand-derived cases, the slice bounds' fixed point, and the node
// descriptions the plugin host builds.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "plugin/node_descriptors.h"
#include "switchyard/op_schema.h"
#include "switchyard/slice_bounds.h"

namespace sy {
namespace {

using Ints = std::vector<int64_t>;

Attrs Canonical(const std::string& op, std::vector<TensorType> inputs, Attrs attrs) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  EXPECT_NE(schema, nullptr) << op;
  // Validated first (defaults filled in), as every graph the host plans is.
  Expected<std::vector<TensorType>> outputs = InferOutputTypes(*schema, inputs, attrs, 1);
  EXPECT_TRUE(outputs.ok()) << outputs.status().ToString();
  return CanonicalAttrs(*schema, inputs, attrs);
}

Attrs SliceAttrs(Ints starts, Ints ends, Ints axes = {}, Ints steps = {}) {
  Attrs a;
  a.Set("starts", starts);
  a.Set("ends", ends);
  if (!axes.empty()) a.Set("axes", axes);
  if (!steps.empty()) a.Set("steps", steps);
  return a;
}

TEST(CanonicalAttrsTest, SliceListsEveryAxisWithResolvedBounds) {
  const TensorType x{DType::kF32, {3, 4}};
  // x[:, 1:3] written as axes [-1]: every axis listed, the first read whole.
  Attrs a = Canonical("slice", {x}, SliceAttrs({1}, {3}, {-1}));
  EXPECT_EQ(a.GetInts("axes"), (Ints{0, 1}));
  EXPECT_EQ(a.GetInts("starts"), (Ints{0, 1}));
  EXPECT_EQ(a.GetInts("ends"), (Ints{3, 3}));
  EXPECT_EQ(a.GetInts("steps"), (Ints{1, 1}));
  // x[1::2] on dim 3 ... an end past the dim is clamped: reads 1 only (1, then 3 >= 3).
  a = Canonical("slice", {x}, SliceAttrs({1}, {100}, {}, {2}));
  EXPECT_EQ(a.GetInts("starts"), (Ints{1, 0}));
  EXPECT_EQ(a.GetInts("ends"), (Ints{3, 4}));
}

TEST(CanonicalAttrsTest, SliceNegativeStepsAndEmptySlices) {
  const TensorType x{DType::kF32, {5}};
  // x[::-1]: starts -1 -> 4, reads 4 3 2 1 0; the end before index 0 is -dim - 1 = -6.
  Attrs a = Canonical("slice", {x}, SliceAttrs({-1}, {INT64_MIN}, {}, {-1}));
  EXPECT_EQ(a.GetInts("starts"), (Ints{4}));
  EXPECT_EQ(a.GetInts("ends"), (Ints{-6}));
  EXPECT_EQ(a.GetInts("steps"), (Ints{-1}));
  // x[4:1:-2]: reads 4 and 2; ends 4 + 2 * -2 = 0.
  a = Canonical("slice", {x}, SliceAttrs({4}, {1}, {}, {-2}));
  EXPECT_EQ(a.GetInts("starts"), (Ints{4}));
  EXPECT_EQ(a.GetInts("ends"), (Ints{0}));
  // x[3:1] reads nothing: 0, 0.
  a = Canonical("slice", {x}, SliceAttrs({3}, {1}));
  EXPECT_EQ(a.GetInts("starts"), (Ints{0}));
  EXPECT_EQ(a.GetInts("ends"), (Ints{0}));
}

// The canonical bounds are a fixed point of ONNX's resolution: resolving them again
// gives the same first index, end and count, so a plugin that still applies ONNX's rules
// reads the same elements.
TEST(CanonicalAttrsTest, SliceBoundsAreAFixedPointOfOnnxResolution) {
  for (int64_t dim = 0; dim <= 6; ++dim) {
    for (int64_t start = -9; start <= 9; ++start) {
      for (int64_t end = -9; end <= 9; ++end) {
        for (int64_t step : {INT64_MIN, int64_t{-7}, int64_t{-3}, int64_t{-2}, int64_t{-1},
                             int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, INT64_MAX}) {
          const SliceAxis once = ResolveSliceAxis(dim, start, end, step);
          const SliceAxis twice = ResolveSliceAxis(dim, once.start, once.end, step);
          ASSERT_EQ(twice.count, once.count) << dim << " " << start << " " << end << " " << step;
          if (once.count == 0) continue;
          ASSERT_EQ(twice.start, once.start) << dim << " " << start << " " << end << " " << step;
          ASSERT_GE(once.start, 0);
          ASSERT_LT(once.start, dim);
          // The last element read is inside the dim.
          const int64_t last = once.start + (once.count - 1) * step;
          ASSERT_GE(last, 0);
          ASSERT_LT(last, dim);
          // The end is one step past the last index read, clamped as ONNX would.
          if (step > 0) {
            ASSERT_GT(once.end, last);
            ASSERT_LE(once.end, dim);
          } else {
            ASSERT_LT(once.end, last);
          }
        }
      }
    }
  }
}

TEST(CanonicalAttrsTest, AxesBecomeNonNegativeAndReductionsListTheirAxes) {
  const TensorType x{DType::kF32, {2, 3, 4}};
  Attrs softmax;
  softmax.Set("axis", int64_t{-1});
  EXPECT_EQ(Canonical("softmax", {x}, softmax).GetInt("axis"), 2);
  // The default (-1) too.
  EXPECT_EQ(Canonical("softmax", {x}, {}).GetInt("axis"), 2);
  Attrs reduce;
  EXPECT_EQ(Canonical("reduce_sum", {x}, reduce).GetInts("axes"), (Ints{0, 1, 2}));
  reduce.Set("axes", Ints{-1, 0});
  EXPECT_EQ(Canonical("reduce_sum", {x}, reduce).GetInts("axes"), (Ints{0, 2}));
  const TensorType indices{DType::kI64, {2}};
  Attrs gather;
  gather.Set("axis", int64_t{-2});
  EXPECT_EQ(Canonical("gather", {x, indices}, gather).GetInt("axis"), 1);
}

// What crosses the boundary is the canonical form (NodeDescriptors), while the graph
// keeps what the model said.
TEST(CanonicalAttrsTest, TheHostSendsCanonicalNodes) {
  test::GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2, 3});
  const ValueId y = g.Value("y", DType::kF32, {2, 3});
  Attrs attrs;
  attrs.Set("axis", int64_t{-1});
  g.Node("softmax", {x}, {y}, attrs, "s");
  g.Output(y);
  const Graph graph = g.Build();
  const NodeDescriptors descriptors(graph);
  const sy_node& node = descriptors.node(0);
  ASSERT_EQ(node.num_attrs, 1u);
  EXPECT_STREQ(node.attrs[0].name, "axis");
  EXPECT_EQ(node.attrs[0].i, 1);
  EXPECT_EQ(graph.nodes[0].attrs.GetInt("axis"), -1);
}

}  // namespace
}  // namespace sy
