// The graph optimization pass: a graph-to-graph rewrite between validation and placement
// that folds constants and replaces recognised chains of catalogue ops by fused ones
// (docs/optimization.md lists every rule). The unfused graph stays the reference: each
// rewrite computes the same function, within the fused op's conformance tolerance.
//
// A rewrite happens only where the device that would run the matched nodes (as a plan of
// the unoptimized graph places them) says it supports the fused node, so a plugin that
// does not know a fused op is never handed one; the report says what was fused, where,
// and why each candidate that was not fused was left alone.
//
// Levels: 0 leaves the graph as it is; 1 (the default) applies every rewrite that is
// exact up to rounding inside the fused kernel; 2 adds rewrites that can differ in corner
// cases the level-1 rules check for and refuse (docs/optimization.md says which).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plan.h"
#include "switchyard/plugin_host.h"
#include "switchyard/status.h"

namespace sy {

inline constexpr int kMaxOptimizeLevel = 2;

// One candidate rewrite the pass found, applied or not.
struct RewriteRecord {
  std::string rule;                   // "gelu", "attention", "fused_matmul", "fold_constant", ...
  std::vector<std::string> replaced;  // the nodes it replaces, as Graph::DescribeNode says
  std::string result;                 // the new node(s): "gelu \"/mlp/act\"", "constant"
  std::string device;                 // where the matched nodes run ("cpu:0"), "" if none
  bool applied = false;
  std::string reason;  // why not, when not applied ("opencl:0 declined: no kernel for ...")
};

struct OptimizeReport {
  int level = 0;
  size_t nodes_before = 0;
  size_t nodes_after = 0;
  std::vector<RewriteRecord> records;

  size_t Applied() const;
  // What `switchyard plan` prints: one line per rule with counts, then each rewrite.
  std::string Explain() const;
};

struct OptimizedGraph {
  Graph graph;  // validated (ValidateGraphTypes); shares constant storage with the input
  OptimizeReport report;
};

// Optimizes `graph` (validated) for the devices a plan with `options` would use: plans
// it once to learn which device runs each node, then rewrites. `level` in [0, 2]; level 0
// returns a copy. Fails on a bad level, when planning the input fails, or (a bug in a
// rule) when the rewritten graph does not validate; never changes `graph`.
Expected<OptimizedGraph> OptimizeGraph(const Graph& graph, const PluginHost* host,
                                       const PlanOptions& options, int level);

}  // namespace sy
