// A dynamic session's state (docs/dynamic-shapes.md), shared by session.cpp and
// specializing_session.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/shared_executables.h"
#include "exec/stages.h"
#include "switchyard/session.h"
#include "switchyard/specialize.h"

namespace sy {

// Owned by the dynamic session. Each stage's cache holds at most
// options.max_specializations static sessions, most recently used first; each lives until
// it is evicted or the dynamic session is destroyed (before the host, like any session).
struct Session::Specializations {
  Graph graph;  // as given, symbols and all
  const PluginHost* host = nullptr;
  PlanOptions options;  // without on_prepare, which serves Create only
  // Executables of its specialisations that other specialisations may run at their sizes;
  // declared before `stages` so that it outlives their sessions, which point at it.
  ExecutableShelf shelf;
  std::vector<Stage> stages;
  // Scratch of one run: the graph inputs' shapes, each stage's input shapes and data sizes,
  // and the tensors of a staged run by value name.
  std::vector<Shape> input_shapes;
  std::vector<Shape> shapes;
  std::vector<int64_t> data_sizes;
  std::map<std::string, Tensor> values;
};

}  // namespace sy
