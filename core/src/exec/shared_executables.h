// Executables that the specialisations of one dynamic session share, on devices that run
// an executable at other sizes (SY_DEVICE_FLAG_RESIZABLE; docs/dynamic-shapes.md,
// "Plugins that run new sizes without a prepare").
//
// A specialisation's partition whose structure matches one already prepared for other
// sizes (same device, nodes, operands, bindings, dtypes, ranks, attribute names and
// kinds, constants) runs that executable through execute_resized with its own partition
// description, instead of preparing its own.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace sy {

// One prepared executable, released when the last session step holding it goes. The
// plugin's context outlives it: sessions go before the PluginHost.
struct SharedExecutable {
  SharedExecutable(const Plugin* owner, sy_executable* prepared)
      : plugin(owner), handle(prepared) {}
  SharedExecutable(const SharedExecutable&) = delete;
  SharedExecutable& operator=(const SharedExecutable&) = delete;
  ~SharedExecutable();

  const Plugin* plugin;
  sy_executable* handle;
  // Which session step's sizes it runs at now (Session::Step::sizes_id; 0: none yet). A
  // step whose id this is runs it with execute (or execute_profiled); another switches it
  // to its own sizes with execute_resized first.
  uint64_t sized_for = 0;
};

// What must be equal for a partition to run on an executable prepared from another:
// everything execute_resized's contract keeps fixed, as one string. `device` identifies
// the device; constants are identified by their host bytes' address (specialisations
// of one graph share constant storage).
std::string PartitionStructureKey(const Device& device, const sy_partition& partition);

// Owned by a dynamic session, which destroys it after its specialisations; holds their
// executables weakly, so an executable goes when the last specialisation using it does.
class ExecutableShelf {
 public:
  // A live executable prepared for a partition of this structure, or null (also once an
  // executable of this structure has declined other sizes).
  std::shared_ptr<SharedExecutable> Find(const std::string& key);
  void Put(const std::string& key, const std::shared_ptr<SharedExecutable>& executable);
  // An executable of this structure declined execute_resized (SY_ERROR_UNSUPPORTED): the
  // plugin prepares for fixed sizes there, so none is offered for this structure again.
  void Decline(const std::string& key);

  // Gives each constant of `graph` (a specialisation's, optimized) of at most
  // kInternBytes that equals, byte for byte, one an earlier specialisation had the
  // storage of that one. Constants are part of the structure key by address, and a
  // specialisation folds some at its own sizes (a range over a decoder's capacity, a mask
  // built from it) into new storage with the same bytes each time: without this, every
  // set of sizes would prepare its partition again. Larger constants keep their own
  // storage (the graph's weights are shared by every specialisation already).
  void InternConstants(Graph& graph);
  static constexpr size_t kInternBytes = size_t{1} << 20;

 private:
  std::vector<std::pair<std::string, std::weak_ptr<SharedExecutable>>> entries_;
  std::vector<std::string> declined_;
  // By a hash of dtype, shape and bytes; held for the shelf's life (the dynamic session's).
  std::unordered_multimap<size_t, Tensor> interned_;
};

}  // namespace sy
