// ONNX functions, expanded before import: calls to the model's own FunctionProtos
// (ModelProto.functions, e.g. `local:Twice`), nested, with attribute references and
// defaults; and ops that no mapping covers but that ONNX defines by a function body
// (onnx_schemas.h), which are expanded from that body as an honest fallback.
//
// The result is a flat list of nodes, each with the opsets it binds against: a node
// from a function body binds against the function's opset_import, not the model's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "onnx_proto.h"
#include "switchyard/status.h"

namespace sy::onnx_import {

// Domain ("" for ai.onnx) -> imported version.
using OpsetMap = std::map<std::string, int64_t, std::less<>>;

struct FlatNode {
  onnx::NodeProto node;
  std::shared_ptr<const OpsetMap> opsets;  // shared by every node of one body
  // Where the node came from, for messages: "" for a node of the main graph, else
  // " (in function local:Twice, called by node 3 \"n\")".
  std::string origin;
  int index = 0;  // the node's index in the graph or body it came from
};

struct FlatGraph {
  std::vector<FlatNode> nodes;
  size_t local_calls = 0;    // calls to the model's functions expanded
  size_t schema_bodies = 0;  // ops expanded from the body ONNX defines for them
};

// Whether a mapping covers (domain, op) at a schema version; the expander leaves such
// nodes alone and expands others that have a body.
using IsMapped =
    std::function<bool(const std::string& domain, const std::string& op, const OpsetMap& opsets)>;

// The model's graph with every function call expanded. Errors name the node, the
// function and what is wrong: a call cycle, too deep a nesting, too many nodes, a body
// that reads a name nothing defines, an attribute reference with nothing to bind.
Expected<FlatGraph> ExpandFunctions(const onnx::ModelProto& model, const IsMapped& is_mapped);

}  // namespace sy::onnx_import
