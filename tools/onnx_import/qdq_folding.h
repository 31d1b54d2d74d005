// QDQ folding: a QDQ model's DequantizeLinear -> Conv -> QuantizeLinear units rewritten
// into QLinearConv before the nodes are mapped (qdq_folding.cpp says when and why).
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "onnx_functions.h"
#include "switchyard/tensor.h"

namespace sy::onnx_import {

// The initializer named so, or nullptr (a value computed by a node, a graph input).
using ConstantLookup = std::function<const Tensor*(const std::string& name)>;

// Rewrites, in place, each unit of `nodes` (the main graph, functions expanded) that folds,
// and returns how many did. `graph_outputs`: names the graph returns, which stay as they are.
size_t FoldQdqConvs(std::vector<FlatNode>& nodes, const std::set<std::string>& graph_outputs,
                    const ConstantLookup& constant);

}  // namespace sy::onnx_import
