// A host application built out of tree against the installed package
// (find_package(Switchyard) -> Switchyard::runtime), for tests/sdk/install_test.sh: it
// loads the plugins, plans MODEL with the platform order, runs it on the .npy files in
// MODEL/inputs/ and prints the plan and each output's type.
// usage: host_app MODEL_FOLDER
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace {

int Fail(const sy::Status& status) {
  std::fprintf(stderr, "host_app: %s\n", status.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_app MODEL_FOLDER\n");
    return 2;
  }
  const std::filesystem::path model = argv[1];
  sy::Expected<std::unique_ptr<sy::PluginHost>> host = sy::PluginHost::Create({});
  if (!host.ok()) return Fail(host.status());
  sy::Expected<sy::Graph> graph = sy::LoadModel(model);
  if (!graph.ok()) return Fail(graph.status());
  sy::Expected<std::unique_ptr<sy::Session>> session =
      sy::Session::Create(*graph, **host, sy::PlanOptions{});
  if (!session.ok()) return Fail(session.status());
  std::printf("%s\n", (*session)->plan().Explain(*graph).c_str());

  std::map<std::string, sy::Tensor> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(model / "inputs")) {
    sy::Expected<sy::Tensor> tensor = sy::ReadNpy(entry.path());
    if (!tensor.ok()) return Fail(tensor.status());
    inputs.emplace(entry.path().stem().string(), std::move(*tensor));
  }
  sy::Expected<std::map<std::string, sy::Tensor>> outputs = (*session)->Run(inputs);
  if (!outputs.ok()) return Fail(outputs.status());
  for (const auto& [name, tensor] : *outputs) {
    std::printf("output %s: %s\n", name.c_str(), tensor.type().ToString().c_str());
  }
  return 0;
}
