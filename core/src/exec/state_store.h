// A session's decoding state (docs/decoding.md): one device buffer per state value of the
// graph, kept between runs, and how many positions they hold. Owned by the session that
// the caller created; a dynamic session's specialisations share it, each binding the same
// buffers, so a prompt run at one shape and the tokens after it at another see one cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace sy {

class StateStore {
 public:
  // Takes the names, types and axes of `graph`'s state values (graph may go afterwards).
  explicit StateStore(const Graph& graph);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  struct Entry {
    std::string name;  // the state input's name
    TensorType type;
    int64_t axis = 0;
    const Device* device = nullptr;  // set by the first BufferFor
    sy_buffer* buffer = nullptr;     // owned; freed with the store
    uint64_t bytes = 0;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  bool IsStateInput(const std::string& name) const;

  // The graph input the session fills with the length (empty: none) and its type; the
  // input whose size along advance_axis is what a run adds.
  std::string position_name;
  TensorType position_type;
  std::string advance_name;
  int64_t advance_axis = 0;

  // The buffer of state value `index` on `device`, allocated and zeroed on first use.
  // A second device asking is an error naming both (a state value lives on one device).
  Expected<sy_buffer*> BufferFor(size_t index, const Device& device);
  // Every buffer back to zero bytes and the length to 0 (Session::Reset).
  Status Clear();
  // Gives the nodes of `graph` (a specialisation about to be planned) that read a state
  // value already kept on a device that device as their backend hint, where they have
  // none: a specialisation's placement (the island pass weighs copies by sizes) could
  // otherwise put the cache's readers elsewhere, and a state value lives on one device.
  void PinReaders(Graph& graph) const;

  // Positions held: the sum of what each successful run added since the last Clear.
  int64_t length = 0;
  // The fewest positions a state value holds (its size along its axis).
  int64_t capacity() const;

 private:
  Status Zero(const Entry& entry);
  std::vector<Entry> entries_;
};

}  // namespace sy
