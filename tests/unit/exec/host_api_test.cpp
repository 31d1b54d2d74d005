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

// docs/host-api.md, "Models with decoding state": a prompt, a token, Reset. The model is
// the toy decoder of tools/make_toy_decoder.py (docs/decoding.md).
Status DecodingApplication(int64_t& length_after_two_runs, int64_t& length_after_reset) {
  sy::DiscoveryOptions discovery;
  discovery.scan_default_paths = false;
  discovery.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::PluginHost> host, sy::PluginHost::Create(discovery));
  SY_ASSIGN_OR_RETURN(sy::Graph graph,
                      sy::LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json"));
  sy::PlanOptions options;
  SY_ASSIGN_OR_RETURN(const sy::Device* cpu, host->FindDevice("cpu"));
  options.devices = {cpu};
  SY_ASSIGN_OR_RETURN(sy::Tensor prompt_1x7, sy::Tensor::Allocate(sy::DType::kI64, {1, 7}));
  SY_ASSIGN_OR_RETURN(sy::Tensor token_1x1, sy::Tensor::Allocate(sy::DType::kI64, {1, 1}));
  // The documented snippet:
  auto session = sy::Session::Create(graph, *host, options);
  SY_RETURN_IF_ERROR(session.status());
  auto first = (*session)->Run({{"input_ids", prompt_1x7}});  // 7 positions
  auto next = (*session)->Run({{"input_ids", token_1x1}});    // position 7
  SY_RETURN_IF_ERROR(first.status());
  SY_RETURN_IF_ERROR(next.status());
  length_after_two_runs = (*session)->state_length();
  SY_RETURN_IF_ERROR((*session)->Reset());  // a new sequence
  length_after_reset = (*session)->state_length();
  return Status::Ok();
}

TEST(HostApiTest, TheDocumentedDecodingPathWorks) {
  int64_t after_two = 0, after_reset = -1;
  SY_ASSERT_OK(DecodingApplication(after_two, after_reset));
  EXPECT_EQ(after_two, 8);
  EXPECT_EQ(after_reset, 0);
}

}  // namespace
}  // namespace sy
