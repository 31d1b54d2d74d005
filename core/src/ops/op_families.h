// Internal: each family file of the catalogue appends its schemas. Called once, by
// OpRegistry's constructor, in this order; the registry names each schema's family after
// the file (OpSchema::family) and then sorts by name.
#pragma once

#include <vector>

#include "switchyard/op_schema.h"

namespace sy::ops {

void AddElementwiseSchemas(std::vector<OpSchema>& out);    // elementwise_schemas.cpp
void AddLinalgSchemas(std::vector<OpSchema>& out);         // linalg_schemas.cpp
void AddMovementSchemas(std::vector<OpSchema>& out);       // movement_schemas.cpp
void AddIndexingSchemas(std::vector<OpSchema>& out);       // indexing_schemas.cpp
void AddReductionSchemas(std::vector<OpSchema>& out);      // reduction_schemas.cpp
void AddNormalizationSchemas(std::vector<OpSchema>& out);  // normalization_schemas.cpp
void AddConvPoolSchemas(std::vector<OpSchema>& out);       // conv_pool_schemas.cpp
void AddNeuralSchemas(std::vector<OpSchema>& out);         // neural_schemas.cpp
void AddFusedSchemas(std::vector<OpSchema>& out);          // fused_schemas.cpp
void AddSelectionSchemas(std::vector<OpSchema>& out);      // selection_schemas.cpp
void AddSamplingSchemas(std::vector<OpSchema>& out);       // sampling_schemas.cpp

// tree_ensemble, of the indexing family, in a file of its own (tree_ensemble_schema.cpp).
void AddTreeEnsembleSchema(std::vector<OpSchema>& out);

// Shape rules the fused ops build on (a fused op produces what its first op would).
Expected<std::vector<TensorType>> InferMatmul(const InferContext& ctx);  // linalg_schemas.cpp
Expected<std::vector<TensorType>> InferConv(const InferContext& ctx);    // conv_pool_schemas.cpp
Expected<std::vector<TensorType>> InferAxisNorm(
    const InferContext& ctx);  // normalization_schemas.cpp

}  // namespace sy::ops
