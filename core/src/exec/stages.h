// Stages of a graph with data symbols (docs/dynamic-shapes.md): where an op's output size
// is decided by the data (non_zero's count, a TopK k read from a tensor), the nodes that
// need that size run in a later stage, specialised once the value is known. A graph
// without data symbols is one stage: itself.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/planned_session.h"
#include "switchyard/graph.h"

namespace sy {

// One specialisation of a stage: the stage's input shapes and data symbol sizes it was
// built for, and its session.
struct SpecializationEntry {
  std::vector<Shape> shapes;
  std::vector<int64_t> data_sizes;
  std::vector<Shape> input_shapes;  // the graph inputs', for stages after the first
  std::unique_ptr<PlannedSession> session;
};

struct Stage {
  // The stage's nodes as a graph of their own: its inputs are the graph inputs it reads
  // and the values of earlier stages it reads (their dims not known before the run are
  // fresh symbols named #<value id>.<axis>); its outputs the graph outputs it produces and
  // the values later stages read. Value names are the original graph's. Its symbols are
  // the original's input symbols (the session passes their sizes), the data symbols
  // known before it runs and the fresh ones.
  Graph graph;
  // The data symbols known before the stage runs, each with the name of the value whose
  // contents give its size.
  std::vector<std::pair<std::string, std::string>> data;
  std::list<SpecializationEntry> cache;  // most recently used first
};

// The stages of `graph`, in the order they run. kInvalidModel when a node needs a data
// symbol whose value it produces itself.
Expected<std::vector<Stage>> SplitIntoStages(const Graph& graph);

}  // namespace sy
