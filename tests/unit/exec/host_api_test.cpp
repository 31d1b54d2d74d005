// The code of docs/host-api.md, compiled and run: a host application's whole path from
// loading plugins to reading an output.
#include <gtest/gtest.h>

#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

// The documented snippet, as a function so that SY_ASSIGN_OR_RETURN can return.
Status HostApplication(std::string& explanation, Tensor& result) {
  sy::DiscoveryOptions discovery;
  discovery.scan_default_paths = false;  // the test loads the CPU plugin by path
  discovery.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  discovery.num_threads = 0;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::PluginHost> host, sy::PluginHost::Create(discovery));
  SY_ASSIGN_OR_RETURN(sy::Graph graph, sy::LoadModel(std::string(SY_SOURCE_DIR) + "/examples/mlp"));
  sy::PlanOptions options;
  SY_ASSIGN_OR_RETURN(const sy::Device* cpu, host->FindDevice("cpu"));
  options.devices = {cpu};
  options.memory_limits[cpu] = 64ull << 20;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::Session> session,
                      sy::Session::Create(graph, *host, options));
  explanation = session->plan().Explain(graph);
  SY_ASSIGN_OR_RETURN(sy::Tensor x, sy::Tensor::Allocate(sy::DType::kF32, {2, 12}));
  SY_ASSIGN_OR_RETURN(auto outputs, session->Run({{"x", x}}));
  result = outputs.at("y");
  return Status::Ok();
}

TEST(HostApiTest, TheDocumentedPathWorks) {
  std::string explanation;
  Tensor y;
  SY_ASSERT_OK(HostApplication(explanation, y));
  EXPECT_EQ(y.type(), (TensorType{DType::kF32, {2, 4}}));
  EXPECT_NE(explanation.find("partitions: 1"), std::string::npos) << explanation;
}

}  // namespace
}  // namespace sy
