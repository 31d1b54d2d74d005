// Internal helpers shared by the shape rules of the op families.
#pragma once

#include <string>
#include <vector>

#include "switchyard/op_schema.h"

namespace sy::ops {

// Output = input 0's type (unary elementwise ops, softmax, norms, ...).
Expected<std::vector<TensorType>> SameAsFirstInput(const InferContext& ctx);

// Output dtype = input 0's dtype, shape = all inputs broadcast together.
Expected<std::vector<TensorType>> BroadcastAll(const InferContext& ctx);

// Output dtype bool, shape = inputs broadcast (comparisons).
Expected<std::vector<TensorType>> BroadcastToBool(const InferContext& ctx);

// A schema whose inputs all bind one type variable T over `allowed`: the common shape of
// most catalogue entries (each family file wraps it for its own defaults).
OpSchema MakeSchema(std::string_view name, std::string_view onnx, DTypeSet allowed,
                    std::vector<InputSpec> inputs, std::vector<AttrSpec> attrs, ShapeRule rule);

// The one-type-variable schema shorthand: a TypeVar list {"T", allowed}.
inline std::vector<TypeVar> OneTypeVar(DTypeSet allowed) { return {{"T", allowed}}; }

// "input x has rank 3 but ... " helpers for messages.
std::string DescribeInput(const OpSchema& schema, size_t index, const TensorType& type);

// Requires an exact rank; error names the input.
Status RequireRank(const TensorType& type, std::string_view input_name, int64_t rank);
// Requires rank >= min_rank.
Status RequireMinRank(const TensorType& type, std::string_view input_name, int64_t min_rank);

// Requires an ints attribute to have exactly `size` entries when present.
Status RequireListSize(const Attrs& attrs, std::string_view attr, size_t size);

// Builds an error "attribute <attr> <what>".
Status AttrError(std::string_view attr, std::string_view what);

// "input k has shape [..] but its dimension 1 (3) must <rule>"
Status DimError(std::string_view input, const TensorType& type, int64_t dim,
                const std::string& rule);

}  // namespace sy::ops
