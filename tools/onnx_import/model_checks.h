// The checks a model passes before the import walks its nodes: the opsets it imports
// against the schema table, function expansion (onnx_functions.h), and each node of the
// expanded graph against its op's schema and the mapping table (single assignment,
// arity, required inputs and attributes, every op mapped at its version).
#pragma once

#include <cstdint>
#include <string>

#include "onnx_functions.h"
#include "onnx_proto.h"
#include "onnx_schemas.h"
#include "switchyard/onnx_import.h"
#include "switchyard/status.h"

namespace sy::onnx_import {

bool IsDefaultDomain(const std::string& domain);

// Records `kind` in `problem` and returns `status` (a failure with its kind).
Status Fail(ImportProblem& problem, ImportProblem kind, Status status);

// The opset of `domain` a node binds against (0 when its opsets do not import it).
int64_t OpsetOf(const FlatNode& flat, const std::string& domain);

// The schema a node's op resolves to at its opset (null: unknown, or not yet at it).
const OnnxSchema* SchemaOf(const FlatNode& flat);

// The model's nodes with functions expanded, every check above passed: each node then
// has a schema and a mapping of its version (Mappings()). On failure `problem` says
// what kind it is.
Expected<FlatGraph> FlattenAndCheck(const onnx::ModelProto& model, ImportProblem& problem);

}  // namespace sy::onnx_import
