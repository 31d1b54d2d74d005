// Small tensor operations on the host, for evaluating shape computations at import time
// (constant_folder.cpp). They favour clarity over speed: the tensors they see are shapes,
// indices and scalars. Integers are computed in int64, floats in double.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "switchyard/status.h"
#include "switchyard/tensor.h"

namespace sy::onnx_import {

// Element values converted: integers and bools exactly, floats truncated toward zero
// (ToInt64s) or widened (ToDoubles).
std::vector<int64_t> ToInt64s(const Tensor& tensor);
std::vector<double> ToDoubles(const Tensor& tensor);

// Tensors built from values; float to integer truncates toward zero and saturates, like
// the catalogue's cast.
Expected<Tensor> FromInt64s(DType dtype, const Shape& shape, std::span<const int64_t> values);
Expected<Tensor> FromDoubles(DType dtype, const Shape& shape, std::span<const double> values);
Tensor Int64Vector(std::span<const int64_t> values);

Expected<Tensor> CastHost(const Tensor& x, DType to);
// Same bytes, new shape (element counts must match).
Expected<Tensor> ReshapeHost(const Tensor& x, const Shape& shape);
Expected<Tensor> TransposeHost(const Tensor& x, std::span<const int64_t> perm);
Expected<Tensor> GatherHost(const Tensor& data, const Tensor& indices, int64_t axis);
// ONNX Slice semantics: clamping, negative steps. `axes` and `steps` may be empty.
Expected<Tensor> SliceHost(const Tensor& x, std::span<const int64_t> starts,
                           std::span<const int64_t> ends, std::span<const int64_t> axes,
                           std::span<const int64_t> steps);
Expected<Tensor> ConcatHost(std::span<const Tensor> inputs, int64_t axis);
Expected<Tensor> ExpandHost(const Tensor& x, const Shape& shape);
// Elementwise with NumPy broadcasting. `op` is the ONNX op type: Add Sub Mul Div Mod Pow
// Max Min Equal Less Greater LessOrEqual GreaterOrEqual And Or Xor.
Expected<Tensor> BinaryHost(std::string_view op, const Tensor& a, const Tensor& b);
// Neg Abs Floor Ceil Sqrt Not Reciprocal Sign.
Expected<Tensor> UnaryHost(std::string_view op, const Tensor& x);
Expected<Tensor> WhereHost(const Tensor& cond, const Tensor& a, const Tensor& b);
// ReduceProd, ReduceSum, ReduceMax, ReduceMin over `axes` (all when empty).
Expected<Tensor> ReduceHost(std::string_view op, const Tensor& x, std::span<const int64_t> axes,
                            bool keepdims);

}  // namespace sy::onnx_import
