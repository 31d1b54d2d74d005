// What `run` and `bench` share: loading a model, choosing its device from --device,
// preparing a session, and gathering its inputs.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <boost/program_options.hpp>

#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace sy::cli {

// Adds --device, --input, --seed.
void AddModelOptions(boost::program_options::options_description& options);

// Declared so that the session is destroyed before the host that loaded its plugin.
struct PreparedModel {
  std::unique_ptr<PluginHost> host;
  Graph graph;
  std::unique_ptr<Session> session;
  std::map<std::string, Tensor> inputs;
  ~PreparedModel() { session.reset(); }
  PreparedModel() = default;
  PreparedModel(PreparedModel&&) = default;
};

// Loads `model`, loads plugins, picks the first device in --device order (default:
// non-reference devices, GPUs before CPUs) that supports every node, prepares the
// session, and reads inputs: --input NAME=FILE.npy or NAME=random, then
// <model folder>/inputs/<name>.npy. kInvalidArgument errors are command-line mistakes.
Expected<PreparedModel> PrepareModel(const std::string& model,
                                     const boost::program_options::variables_map& vm);

}  // namespace sy::cli
