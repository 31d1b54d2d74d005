// Shape rules of the indexing ops (core/src/ops/indexing_schemas.cpp). Expected shapes
// are derived by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "switchyard/op_schema.h"
#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::Outputs;
using test::T;

AttrValue I(int64_t v) { return v; }
AttrValue S(const char* v) { return std::string(v); }

TEST(IndexingSchemas, AllRegisteredWithOnnxNamesInTheIndexingFamily) {
  const std::vector<std::pair<const char*, const char*>> ops = {
      {"gather", "Gather"},
      {"gather_elements", "GatherElements"},
      {"scatter_elements", "ScatterElements"},
      {"gather_nd", "GatherND"},
      {"scatter_nd", "ScatterND"}};
  for (const auto& [name, onnx] : ops) {
    const OpSchema* s = OpRegistry::Global().Find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->onnx_name, onnx);
    EXPECT_EQ(s->family, "indexing") << name;
  }
}

// ---- gather ----

TEST(IndexingGather, InsertsIndicesShapeAtAxis) {
  const TensorType data = F32({5, 4, 3});
  const TensorType idx = T(DType::kI64, {2, 6});
  EXPECT_TRUE(Outputs(Infer("gather", {data, idx}), {F32({2, 6, 4, 3})}));
  EXPECT_TRUE(
      Outputs(Infer("gather", {data, idx}, MakeAttrs({{"axis", I(1)}})), {F32({5, 2, 6, 3})}));
  EXPECT_TRUE(
      Outputs(Infer("gather", {data, idx}, MakeAttrs({{"axis", I(-1)}})), {F32({5, 4, 2, 6})}));
  // A scalar index removes the axis.
  EXPECT_TRUE(Outputs(Infer("gather", {data, T(DType::kI32, {})}, MakeAttrs({{"axis", I(1)}})),
                      {F32({5, 3})}));
  EXPECT_TRUE(Outputs(Infer("gather", {F32({5}), T(DType::kI32, {0})}), {F32({0})}));
  EXPECT_TRUE(Outputs(
      Infer("gather", {T(DType::kU8, {0, 2}), T(DType::kI64, {3})}, MakeAttrs({{"axis", I(1)}})),
      {T(DType::kU8, {0, 3})}));
}

TEST(IndexingGather, Errors) {
  SY_EXPECT_ERROR(Infer("gather", {F32({5}), F32({2})}),
                  "input 1 (indices) has dtype f32 but gather accepts i32 i64");
  SY_EXPECT_ERROR(Infer("gather", {F32({5}), T(DType::kU8, {2})}), "has dtype u8");
  SY_EXPECT_ERROR(Infer("gather", {F32({}), T(DType::kI64, {2})}),
                  "input data has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("gather", {F32({5, 4}), T(DType::kI64, {2})}, MakeAttrs({{"axis", I(2)}})),
                  "attribute axis 2 is out of range for rank 2");
  SY_EXPECT_ERROR(Infer("gather", {F32({5})}), "takes 2 inputs but has 1");
}

// ---- gather_elements ----

TEST(IndexingGatherElements, OutputHasIndicesShape) {
  const TensorType data = F32({3, 4});
  EXPECT_TRUE(Outputs(Infer("gather_elements", {data, T(DType::kI64, {2, 4})}), {F32({2, 4})}));
  // The axis dim of indices may exceed data's.
  EXPECT_TRUE(Outputs(Infer("gather_elements", {data, T(DType::kI64, {5, 2})}), {F32({5, 2})}));
  EXPECT_TRUE(Outputs(
      Infer("gather_elements", {data, T(DType::kI32, {3, 7})}, MakeAttrs({{"axis", I(-1)}})),
      {F32({3, 7})}));
  EXPECT_TRUE(Outputs(Infer("gather_elements", {data, T(DType::kI32, {0, 4})}), {F32({0, 4})}));
}

TEST(IndexingGatherElements, Errors) {
  const TensorType data = F32({3, 4});
  SY_EXPECT_ERROR(Infer("gather_elements", {data, T(DType::kI64, {3})}),
                  "input indices has shape [3] but must have rank 2");
  SY_EXPECT_ERROR(Infer("gather_elements", {data, F32({3, 4})}),
                  "input 1 (indices) has dtype f32 but gather_elements accepts i32 i64");
  SY_EXPECT_ERROR(
      Infer("gather_elements", {data, T(DType::kI64, {4, 4})}, MakeAttrs({{"axis", I(1)}})),
      "exceeds input data's shape [3, 4] on dimension 0");
  SY_EXPECT_ERROR(
      Infer("gather_elements", {data, T(DType::kI64, {3, 4})}, MakeAttrs({{"axis", I(-3)}})),
      "attribute axis -3 is out of range");
  SY_EXPECT_ERROR(Infer("gather_elements", {F32({}), T(DType::kI64, {})}),
                  "must have rank at least 1");
}

// ---- scatter_elements ----

TEST(IndexingScatterElements, OutputIsData) {
  const TensorType data = T(DType::kI8, {3, 4});
  EXPECT_TRUE(Outputs(
      Infer("scatter_elements", {data, T(DType::kI64, {2, 4}), T(DType::kI8, {2, 4})}), {data}));
  for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
    EXPECT_TRUE(
        Outputs(Infer("scatter_elements", {data, T(DType::kI32, {3, 1}), T(DType::kI8, {3, 1})},
                      MakeAttrs({{"axis", I(-1)}, {"reduction", S(reduction)}})),
                {data}))
        << reduction;
  }
  EXPECT_TRUE(
      Outputs(Infer("scatter_elements", {F32({3}), T(DType::kI64, {0}), F32({0})}), {F32({3})}));
}

TEST(IndexingScatterElements, Errors) {
  const TensorType data = F32({3, 4});
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {2, 4}), F32({2, 3})}),
                  "input updates has shape [2, 3] but must equal input indices' shape [2, 4]");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {2, 4}), T(DType::kF16, {2, 4})}),
                  "input 2 (updates) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {8}), F32({8})}),
                  "input indices has shape [8] but must have rank 2");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, F32({2, 4}), F32({2, 4})}),
                  "input 1 (indices) has dtype f32");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {2, 5}), F32({2, 5})}),
                  "on dimension 1");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {2, 4}), F32({2, 4})},
                        MakeAttrs({{"reduction", S("sum")}})),
                  "attribute reduction is \"sum\" but must be one of: none, add, mul, max, min");
  SY_EXPECT_ERROR(Infer("scatter_elements", {data, T(DType::kI64, {2, 4})}),
                  "takes 3 inputs but has 2");
}

// ---- gather_nd ----

TEST(IndexingGatherND, OutputIsIndicesPrefixThenRemainingDataDims) {
  // The ONNX operator's examples: output = indices.shape[:-1] + data.shape[batch_dims + k:].
  EXPECT_TRUE(Outputs(Infer("gather_nd", {T(DType::kI32, {2, 2}), T(DType::kI64, {2, 2})}),
                      {T(DType::kI32, {2})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {T(DType::kI32, {2, 2}), T(DType::kI64, {2, 1})}),
                      {T(DType::kI32, {2, 2})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({2, 2, 2}), T(DType::kI64, {2, 2})}), {F32({2, 2})}));
  EXPECT_TRUE(
      Outputs(Infer("gather_nd", {F32({2, 2, 2}), T(DType::kI64, {2, 1, 2})}), {F32({2, 1, 2})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({2, 2, 2}), T(DType::kI64, {2, 1})},
                            MakeAttrs({{"batch_dims", I(1)}})),
                      {F32({2, 2})}));
  // k = rank - batch_dims selects single elements; a rank-1 indices gives one slice.
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({2, 3, 4}), T(DType::kI32, {2, 5, 2})},
                            MakeAttrs({{"batch_dims", I(1)}})),
                      {F32({2, 5})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({5, 3}), T(DType::kI32, {1})}), {F32({3})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({5, 3}), T(DType::kI32, {2})}), {F32({})}));
  // Empty tensors.
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({5, 3}), T(DType::kI64, {0, 1})}), {F32({0, 3})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {T(DType::kBool, {4, 0}), T(DType::kI64, {3, 1})}),
                      {T(DType::kBool, {3, 0})}));
  EXPECT_TRUE(Outputs(Infer("gather_nd", {F32({0, 2, 3}), T(DType::kI64, {0, 4, 1})},
                            MakeAttrs({{"batch_dims", I(1)}})),
                      {F32({0, 4, 3})}));
}

TEST(IndexingGatherND, Errors) {
  const TensorType data = F32({2, 3, 4});
  SY_EXPECT_ERROR(Infer("gather_nd", {data, F32({2, 1})}),
                  "input 1 (indices) has dtype f32 but gather_nd accepts i32 i64");
  SY_EXPECT_ERROR(Infer("gather_nd", {F32({}), T(DType::kI64, {1})}),
                  "input data has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("gather_nd", {data, T(DType::kI64, {})}),
                  "input indices has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("gather_nd", {data, T(DType::kI64, {2, 4})}),
                  "input indices has shape [2, 4] whose last dim 4 (the length of each index "
                  "tuple) must be between 1 and 3 (the rank of input data, shape [2, 3, 4])");
  SY_EXPECT_ERROR(Infer("gather_nd", {data, T(DType::kI64, {2, 0})}),
                  "whose last dim 0 (the length of each index tuple) must be between 1 and 3");
  SY_EXPECT_ERROR(
      Infer("gather_nd", {data, T(DType::kI64, {2, 3})}, MakeAttrs({{"batch_dims", I(1)}})),
      "must be between 1 and 2 (the rank of input data, shape [2, 3, 4], less batch_dims 1)");
  SY_EXPECT_ERROR(
      Infer("gather_nd", {data, T(DType::kI64, {3, 1})}, MakeAttrs({{"batch_dims", I(1)}})),
      "input indices has shape [3, 1] but its first 1 dims (batch_dims) must equal input "
      "data's, whose shape is [2, 3, 4]");
  SY_EXPECT_ERROR(
      Infer("gather_nd", {data, T(DType::kI64, {2, 1})}, MakeAttrs({{"batch_dims", I(2)}})),
      "attribute batch_dims is 2 but must be between 0 and 1 (below the ranks of input data, "
      "3, and input indices, 2)");
  SY_EXPECT_ERROR(
      Infer("gather_nd", {data, T(DType::kI64, {2, 1})}, MakeAttrs({{"batch_dims", I(-1)}})),
      "attribute batch_dims is -1 but must be between 0 and 1");
  SY_EXPECT_ERROR(Infer("gather_nd", {data, T(DType::kI64, {2, 1})}, MakeAttrs({{"axis", I(0)}})),
                  "unknown attribute axis");
  SY_EXPECT_ERROR(Infer("gather_nd", {data}), "takes 2 inputs but has 1");
}

// ---- scatter_nd ----

TEST(IndexingScatterND, OutputIsData) {
  // The ONNX operator's examples: data [8] with indices [4, 1] and updates [4]; data
  // [4, 4, 4] with indices [2, 1] and updates [2, 4, 4].
  EXPECT_TRUE(
      Outputs(Infer("scatter_nd", {F32({8}), T(DType::kI64, {4, 1}), F32({4})}), {F32({8})}));
  for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
    EXPECT_TRUE(
        Outputs(Infer("scatter_nd", {F32({4, 4, 4}), T(DType::kI64, {2, 1}), F32({2, 4, 4})},
                      MakeAttrs({{"reduction", S(reduction)}})),
                {F32({4, 4, 4})}))
        << reduction;
  }
  // k = rank: single elements; more index dims; empty indices and empty data.
  const TensorType data = T(DType::kU8, {3, 5});
  EXPECT_TRUE(Outputs(Infer("scatter_nd", {data, T(DType::kI32, {2, 3, 2}), T(DType::kU8, {2, 3})}),
                      {data}));
  EXPECT_TRUE(
      Outputs(Infer("scatter_nd", {data, T(DType::kI32, {0, 1}), T(DType::kU8, {0, 5})}), {data}));
  EXPECT_TRUE(Outputs(Infer("scatter_nd", {F32({0, 4}), T(DType::kI64, {2, 1}), F32({2, 4})}),
                      {F32({0, 4})}));
  // A rank-1 indices is one tuple: updates has data's remaining dims.
  EXPECT_TRUE(
      Outputs(Infer("scatter_nd", {data, T(DType::kI64, {1}), T(DType::kU8, {5})}), {data}));
}

TEST(IndexingScatterND, Errors) {
  const TensorType data = F32({4, 5});
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 1}), F32({2, 4})}),
                  "input updates has shape [2, 4] but must be [2, 5] (input indices' shape "
                  "without its last dim, then input data's dims from 1 on)");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 2}), F32({2, 1})}),
                  "input updates has shape [2, 1] but must be [2]");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 3}), F32({2})}),
                  "input indices has shape [2, 3] whose last dim 3 (the length of each index "
                  "tuple) must be between 1 and 2 (the rank of input data, shape [4, 5])");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 0}), F32({2, 4, 5})}),
                  "whose last dim 0");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {}), F32({4, 5})}),
                  "input indices has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("scatter_nd", {F32({}), T(DType::kI64, {1}), F32({})}),
                  "input data has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 1}), T(DType::kF16, {2, 5})}),
                  "input 2 (updates) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kU8, {2, 1}), F32({2, 5})}),
                  "input 1 (indices) has dtype u8 but scatter_nd accepts i32 i64");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 1}), F32({2, 5})},
                        MakeAttrs({{"reduction", S("sum")}})),
                  "attribute reduction is \"sum\" but must be one of: none, add, mul, max, min");
  SY_EXPECT_ERROR(Infer("scatter_nd", {data, T(DType::kI64, {2, 1})}), "takes 3 inputs but has 2");
}

}  // namespace
}  // namespace sy
