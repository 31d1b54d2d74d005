// ONNX tensors and types as Switchyard ones: the element type mapping and TensorProto
// decoding (raw_data, the typed repeated fields, external data files).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "onnx_proto.h"

#include "switchyard/dtype.h"
#include "switchyard/status.h"
#include "switchyard/tensor.h"

namespace sy::onnx_import {

// The rml-graph dtype of an ONNX TensorProto.DataType, or nullopt for the ones v1 lacks
// (string, u16, u32, u64, i16, complex, float8).
std::optional<DType> DTypeFromOnnx(int32_t onnx_type);
// The ONNX TensorProto.DataType of a Switchyard dtype.
int32_t OnnxTypeOf(DType dtype);
// "STRING", "UINT16", ... for messages ("type 99" when unknown).
// ", which rml-graph has no dtype for (...)" with why, for an ONNX element type without
// a dtype.
std::string NoDTypeReason(int32_t onnx_type);
std::string OnnxTypeName(int32_t onnx_type);

// Decodes `proto` into an owned tensor. `base_dir` resolves external data (which must
// stay inside it). Unsupported element types fail with kUnsupported; everything else
// (wrong field lengths, negative dims, missing files) with kInvalidModel or kIoError.
Expected<Tensor> TensorFromProto(const onnx::TensorProto& proto,
                                 const std::filesystem::path& base_dir);

}  // namespace sy::onnx_import
