// The code of docs/host-api.md, compiled and run: a host application's whole path from
// loading plugins to reading an output.
#include <gtest/gtest.h>

#include "switchyard/decoder.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

// The CPU plugin alone, loaded by path: the plumbing of the snippets below but the first
// (which shows it).
Expected<std::unique_ptr<PluginHost>> CpuPluginHost() {
  DiscoveryOptions discovery;
  discovery.scan_default_paths = false;
  discovery.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  return PluginHost::Create(discovery);
}

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
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::PluginHost> host, CpuPluginHost());
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

// docs/host-api.md, the Decoder snippet, on the same toy decoder: the tokens it returns.
Status DecoderApplication(std::vector<int64_t>& first_two, std::vector<int64_t>& generated) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::PluginHost> host, CpuPluginHost());
  SY_ASSIGN_OR_RETURN(sy::Graph graph,
                      sy::LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json"));
  SY_ASSIGN_OR_RETURN(const sy::Device* cpu, host->FindDevice("cpu"));
  sy::PlanOptions options;
  options.devices = {cpu};
  auto session = sy::Session::Create(graph, *host, options);
  SY_RETURN_IF_ERROR(session.status());
  const std::vector<int64_t> prompt = {1, 2, 3};
  // The documented snippet:
  sy::SamplerOptions sampling;  // greedy by default
  sampling.method = "top_k";    // or temperature, top_p, min_p
  sampling.top_k = 4;
  sampling.temperature = 0.8;
  sampling.seed = 7;  // a seed names one sequence of tokens
  auto decoder = sy::Decoder::Create(**session, *cpu, sampling);
  SY_RETURN_IF_ERROR(decoder.status());
  auto token = (*decoder)->Prefill(prompt);  // runs the prompt: the first new token
  SY_RETURN_IF_ERROR(token.status());
  auto next = (*decoder)->Step(*token);  // appends it: the second
  SY_RETURN_IF_ERROR(next.status());
  SY_RETURN_IF_ERROR((*decoder)->Reset());         // a new sequence, the generator from its seed
  auto tokens = (*decoder)->Generate(prompt, 12);  // Prefill, then Steps: 12 new tokens
  SY_RETURN_IF_ERROR(tokens.status());
  first_two = {*token, *next};
  generated = *tokens;
  return Status::Ok();
}

TEST(HostApiTest, TheDocumentedDecoderWorks) {
  std::vector<int64_t> first_two, generated;
  SY_ASSERT_OK(DecoderApplication(first_two, generated));
  // tests/data/decoder/top_k4_t0.8_seed7_1_2_3.txt, from the NumPy reference.
  const std::vector<int64_t> expected = {14, 1, 7, 4, 3, 14, 1, 7, 2, 10, 7, 7};
  EXPECT_EQ(generated, expected);
  EXPECT_EQ(first_two, (std::vector<int64_t>{14, 1}));
}

// docs/host-api.md, "Device-resident inputs and outputs", on the CPU: the snippet's calls,
// and y equal to a plain run's.
Status BoundApplication(Tensor& bound_y, Tensor& plain_y, uint64_t& host_bytes) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::PluginHost> host, CpuPluginHost());
  SY_ASSIGN_OR_RETURN(sy::Graph graph, sy::LoadModel(std::string(SY_SOURCE_DIR) + "/examples/mlp"));
  SY_ASSIGN_OR_RETURN(const sy::Device* cpu, host->FindDevice("cpu"));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<sy::Session> session, sy::Session::Create(graph, *cpu));
  SY_ASSIGN_OR_RETURN(sy::Tensor x,
                      sy::ReadNpy(std::string(SY_SOURCE_DIR) + "/examples/mlp/inputs/x.npy"));
  {
    // The documented snippet:
    const sy::Device& gpu = session->device();
    SY_ASSIGN_OR_RETURN(sy::DeviceTensor x_dev, sy::DeviceTensor::FromHost(gpu, x));
    SY_ASSIGN_OR_RETURN(sy::DeviceTensor y_dev,
                        sy::DeviceTensor::Allocate(gpu, {sy::DType::kF32, {2, 4}}));
    sy::IoBinding io;
    io.BindInput("x", x_dev);
    io.BindOutput("y", y_dev);
    SY_RETURN_IF_ERROR(session->Run(io));
    SY_ASSIGN_OR_RETURN(sy::Tensor y, y_dev.ToHost());
    bound_y = y;
  }
  host_bytes = session->stats().host_bytes_in + session->stats().host_bytes_out;
  SY_ASSIGN_OR_RETURN(auto outputs, session->Run({{"x", x}}));
  plain_y = outputs.at("y");
  return Status::Ok();
}

TEST(HostApiTest, TheDeviceResidentSnippetWorks) {
  Tensor bound_y, plain_y;
  uint64_t host_bytes = 1;
  SY_ASSERT_OK(BoundApplication(bound_y, plain_y, host_bytes));
  EXPECT_TRUE(bound_y.BitwiseEquals(plain_y));
  EXPECT_EQ(host_bytes, 0u);
}

}  // namespace
}  // namespace sy
