// The importer's opset knowledge: every ONNX operator schema of every version, generated
// from the ONNX specification (the onnx package's schemas with history) and ONNX Runtime's
// contrib registry (com.microsoft) by tools/gen_onnx_schemas.py into
// onnx_schema_table.cpp. Nothing here comes from the system's libonnx, whose tables end
// at an old opset. A new onnx release is one regeneration.
//
// The table is static data: every string_view points into the generated file's literals
// and lives as long as the program.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sy::onnx_import {

enum class OnnxFormalOption : uint8_t { kSingle, kOptional, kVariadic };

enum class OnnxAttrType : uint8_t {
  kFloat,
  kInt,
  kString,
  kTensor,
  kGraph,
  kFloats,
  kInts,
  kStrings,
  kTensors,
  kGraphs,
  kSparseTensor,
  kSparseTensors,
  kTypeProto,
  kTypeProtos,
};

// Bits of OnnxFormal::types: bit k for ONNX element type k (TensorProto.DataType), and
// these flags for the kinds of value that are not tensors.
constexpr int kOnnxSequenceBit = 60;
constexpr int kOnnxOptionalBit = 61;
constexpr int kOnnxMapBit = 62;
constexpr int kOnnxOtherTypeBit = 63;

struct OnnxFormal {
  std::string_view name;
  OnnxFormalOption option;
  uint64_t types;  // allowed types, bits as above
};

struct OnnxAttrSpec {
  std::string_view name;
  OnnxAttrType type;
  bool required;
  std::string_view default_value;  // a serialized AttributeProto, or empty when none
};

// A function body ONNX defines for an op, written against opset `opset` of its domains.
struct OnnxFunctionBody {
  int64_t opset;
  std::string_view function_proto;  // a serialized FunctionProto
};

struct OnnxRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

struct OnnxSchema {
  std::string_view domain;  // "" for the default domain (ai.onnx)
  std::string_view name;
  int64_t since_version;
  bool deprecated;
  int32_t min_inputs, max_inputs, min_outputs, max_outputs;  // INT32_MAX: unbounded
  OnnxRange inputs, outputs, attributes, bodies;
  // ONNX defines the op by a body built from the node's input types, which the table
  // cannot hold.
  bool context_dependent_body;

  std::span<const OnnxFormal> Inputs() const;
  std::span<const OnnxFormal> Outputs() const;
  std::span<const OnnxAttrSpec> Attributes() const;
  std::span<const OnnxFunctionBody> Bodies() const;
  const OnnxAttrSpec* FindAttribute(std::string_view name) const;
  // The body for a model importing `opset` of the op's domain: the newest written for an
  // opset at or below it (null when there is none).
  const OnnxFunctionBody* BodyFor(int64_t opset) const;
  // "ReduceMean-18", "com.microsoft:SkipLayerNormalization-1".
  std::string Label() const;
};

// The generated data (onnx_schema_table.cpp).
struct OnnxSchemaTable {
  std::span<const OnnxSchema> schemas;  // sorted by (domain, name, since_version)
  std::span<const OnnxFormal> formals;
  std::span<const OnnxAttrSpec> attributes;
  std::span<const OnnxFunctionBody> bodies;
  std::string_view source;  // which releases it was generated from
};

namespace generated {
extern const OnnxSchemaTable kTable;
}

// "" and "ai.onnx" are the same domain; returns the table's spelling.
std::string_view CanonicalOnnxDomain(std::string_view domain);

// Every version of an op, oldest first (empty when the table does not know it).
std::span<const OnnxSchema> OnnxSchemaVersions(std::string_view domain, std::string_view op);

// The version of `op` in effect for a model importing opset `opset` of `domain`: the one
// with the greatest since_version at or below `opset`; null when the op does not exist at
// that opset (unknown, or introduced later).
const OnnxSchema* FindOnnxSchema(std::string_view domain, std::string_view op, int64_t opset);

// The newest opset version of a domain that the table knows (0 for an unknown domain).
int64_t NewestOnnxOpset(std::string_view domain);

// Every schema, and which releases the table was generated from.
const OnnxSchemaTable& OnnxSchemas();

// The element types a formal allows, as ONNX names ("float, double, int64"), for messages.
std::string OnnxTypesAllowed(uint64_t types);

}  // namespace sy::onnx_import
