// `switchyard plan --dot` and `--svg` (docs/scheduling.md, "The plan as a picture"): the
// plan as a Graphviz graph. Nodes are coloured by device and grouped in one cluster per
// partition; a value crossing devices is a red dashed edge labelled with the copy's
// bytes ("read in place" for a shared copy); fallbacks and fused nodes say so.
#pragma once

#include <string>

#include "switchyard/graph.h"
#include "switchyard/optimize.h"
#include "switchyard/plan.h"
#include "switchyard/status.h"

namespace sy::cli {

// The DOT text of `plan` over `graph` (the optimized graph it was built from).
std::string PlanToDot(const Graph& graph, const Plan& plan, const OptimizeReport& report);

// Renders `dot_text` to `svg_path` with Graphviz's `dot`; an error says how to install
// it when it is missing, or what dot printed when it failed.
Status RenderSvg(const std::string& dot_text, const std::string& svg_path);

}  // namespace sy::cli
