// Names in ONNX subgraphs (the bodies of If, Loop and Scan, held in GRAPH attributes):
// a body reads the values of the scopes around it by name, so copying a body somewhere
// else, or instancing it more than once, means renaming. Used by function expansion
// (onnx_functions.cpp: a Loop in a function body reads the function's renamed locals)
// and by the control-flow mappings (map_control_flow.cpp: each instance of a body gets
// its own names).
#pragma once

#include <map>
#include <string>

#include "onnx_proto.h"

namespace sy::onnx_import {

// Rewrites the reads of outer-scope names in `graph` (its nodes' inputs, its outputs, and
// the same in the bodies its nodes hold, recursively) by `rename`. A name the graph
// defines itself (an input, an initializer, a node output) shadows the outer one and is
// left alone.
void RenameOuterReads(onnx::GraphProto& graph, const std::map<std::string, std::string>& rename);

// A copy of `body` in which every name it defines (inputs, initializers, node outputs)
// is prefixed with `prefix`, and every read of them (in its nodes, outputs and nested
// bodies) follows. Reads of outer-scope names are left as they are.
onnx::GraphProto ScopedBody(const onnx::GraphProto& body, const std::string& prefix);

}  // namespace sy::onnx_import
