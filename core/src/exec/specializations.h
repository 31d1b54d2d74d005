// A dynamic session's state (docs/dynamic-shapes.md), shared by session.cpp and
// specializing_session.cpp.
#pragma once

#include <list>
#include <memory>
#include <vector>

#include "switchyard/session.h"

namespace sy {

// Owned by the dynamic session. The cache holds at most options.max_specializations
// static sessions, most recently used first; each lives until it is evicted or the
// dynamic session is destroyed (before the host, like any session).
struct Session::Specializations {
  Graph graph;  // as given, symbols and all
  const PluginHost* host = nullptr;
  PlanOptions options;
  struct Entry {
    std::vector<Shape> shapes;  // per graph input
    std::unique_ptr<Session> session;
  };
  std::list<Entry> cache;
  std::vector<Shape> shapes;  // scratch: this run's input shapes
};

}  // namespace sy
