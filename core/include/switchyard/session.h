// Sessions: a validated graph prepared once on a device, then run many times.
//
// Creating a session uploads the constants once, prepares the graph as one partition
// with the device's plugin, and allocates the buffers for inputs and outputs; each Run
// copies the named inputs in, executes, and copies the outputs out, reusing everything.
// (Multi-device placement, partitions and copies between devices come with the
// scheduler; this session puts the whole graph on one device.)
//
// Lifetime: a session holds buffers and an executable of its device's plugin, so it
// must be destroyed before the PluginHost that loaded that plugin. One session runs on
// one thread at a time; independent sessions may run concurrently.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/tensor.h"

namespace sy {

class Session {
 public:
  // `graph` must have passed LoadModel's validation (or ValidateGraphTypes). Fails when
  // the device declines a node (naming the node and the plugin's reason) or when
  // preparation fails.
  static Expected<std::unique_ptr<Session>> Create(const Graph& graph, const Device& device);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs with inputs by graph input name; returns every graph output by name. Errors
  // (an unknown or missing input, a wrong dtype or shape, a data error in a kernel)
  // leave the session usable.
  Expected<std::map<std::string, Tensor>> Run(const std::map<std::string, Tensor>& inputs);

  const Device& device() const { return *device_; }
  const std::vector<TensorType>& input_types() const { return input_types_; }
  const std::vector<std::string>& input_names() const { return input_names_; }

 private:
  Session() = default;
  struct Buffer;
  const Device* device_ = nullptr;
  const Plugin* plugin_ = nullptr;
  sy_executable* executable_ = nullptr;
  std::vector<std::unique_ptr<Buffer>> buffers_;  // bound in partition order
  std::vector<sy_buffer*> bound_;
  std::vector<std::string> input_names_;
  std::vector<TensorType> input_types_;
  std::vector<size_t> input_slots_;  // index into bound_ per graph input
  struct Output {
    std::string name;
    TensorType type;
    int64_t slot = -1;  // index into bound_, or -1 when served from `fixed`
    Tensor fixed;       // an output that is a constant
    int64_t from_input = -1;  // an output that is a graph input
  };
  std::vector<Output> outputs_;
};

}  // namespace sy
