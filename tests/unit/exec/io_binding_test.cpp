// Device-resident inputs and outputs (switchyard/io_binding.h, docs/host-api.md): runs whose
// inputs are DeviceTensors and whose outputs are written into DeviceTensors, on the remote
// test plugin (two devices whose memory the host cannot address) and on the CPU. Expected
// values are computed here from the graph's definition, y = relu(x @ w), f = y flattened;
// Stats::host_bytes_in/out prove that nothing went through host memory where nothing should.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "sched/scheduling_fixture.h"
#include "switchyard/io_binding.h"
#include "switchyard/model_io.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

// x [2, 3] @ w [3, 2] -> relu -> y [2, 2]; f = reshape(y) [4]; x is also an output.
constexpr const char* kGraph = R"json({
  "format": "rml-graph", "version": 1,
  "values": [
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "w", "dtype": "f32", "shape": [3, 2]},
    {"name": "h", "dtype": "f32", "shape": [2, 2]},
    {"name": "y", "dtype": "f32", "shape": [2, 2]},
    {"name": "f", "dtype": "f32", "shape": [4]}
  ],
  "inputs": [0], "outputs": [3, 4, 0],
  "constants": [{"value": 1, "data": [1, 0, 0, 1, -1, 2]}],
  "nodes": [
    {"op": "matmul", "inputs": [0, 1], "outputs": [2]},
    {"op": "relu", "inputs": [2], "outputs": [3]},
    {"op": "reshape", "inputs": [3], "outputs": [4], "attrs": {"shape": [4]}}
  ]
})json";

// The same with run-time sizes: x [batch, 3], y [batch, 2], f [batch*2].
constexpr const char* kDynamicGraph = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "batch", "example": 2}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": ["batch", 3]},
    {"name": "w", "dtype": "f32", "shape": [3, 2]},
    {"name": "h", "dtype": "f32", "shape": ["batch", 2]},
    {"name": "y", "dtype": "f32", "shape": ["batch", 2]},
    {"name": "f", "dtype": "f32", "shape": ["batch*2"]}
  ],
  "inputs": [0], "outputs": [3, 4, 0],
  "constants": [{"value": 1, "data": [1, 0, 0, 1, -1, 2]}],
  "nodes": [
    {"op": "matmul", "inputs": [0, 1], "outputs": [2]},
    {"op": "relu", "inputs": [2], "outputs": [3]},
    {"op": "reshape", "inputs": [3], "outputs": [4], "attr_exprs": {"shape": ["batch*2"]}}
  ]
})json";

Tensor MakeX(int64_t rows, float offset = 0) {
  Tensor x = *Tensor::Allocate(DType::kF32, {rows, 3});
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.mutable_values<float>()[i] = static_cast<float>(i % 5) - 2 + offset;
  }
  return x;
}

// relu(x @ w) by hand, w = [[1, 0], [0, 1], [-1, 2]].
std::vector<float> ReluOfXw(const Tensor& x) {
  const float w[3][2] = {{1, 0}, {0, 1}, {-1, 2}};
  const int64_t rows = x.shape()[0];
  std::vector<float> y(static_cast<size_t>(rows * 2));
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = 0; c < 2; ++c) {
      float sum = 0;
      for (int k = 0; k < 3; ++k) sum += x.values<float>()[r * 3 + k] * w[k][c];
      y[static_cast<size_t>(r * 2 + c)] = std::max(sum, 0.0f);
    }
  }
  return y;
}

void ExpectValues(const Tensor& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(static_cast<size_t>(got.element_count()), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_FLOAT_EQ(got.values<float>()[i], want[i]) << what << "[" << i << "]";
  }
}

void ExpectValues(const DeviceTensor& got, const std::vector<float>& want,
                  const std::string& what) {
  Expected<Tensor> host = got.ToHost();
  SY_ASSERT_OK(host);
  ExpectValues(*host, want, what);
}

class IoBindingTest : public test::SchedulingTest {
 protected:
  std::unique_ptr<Session> Create(const char* json, const std::string& device) {
    Expected<Graph> graph = ParseGraphJson(json, nullptr);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    PlanOptions options;
    options.devices = {Find(device)};
    Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *host_, options);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
};

TEST_F(IoBindingTest, DeviceTensorRoundTripAndErrors) {
  Load(kRemote, {{"SY_TEST_REMOTE_MEMORY", "4096"}});
  const Device& gpu = *Find("remote:0");
  const Tensor x = MakeX(2);
  Expected<DeviceTensor> t = DeviceTensor::FromHost(gpu, x);
  SY_ASSERT_OK(t);
  EXPECT_EQ(t->type(), x.type());
  EXPECT_EQ(t->byte_size(), 24u);
  EXPECT_EQ(&t->device(), &gpu);
  EXPECT_EQ(t->host_data(), nullptr);  // the remote plugin's memory is its own
  Expected<Tensor> back = t->ToHost();
  SY_ASSERT_OK(back);
  EXPECT_TRUE(back->BitwiseEquals(x));

  Tensor wrong = *Tensor::Allocate(DType::kF32, {3, 2});
  SY_EXPECT_ERROR(t->CopyFrom(wrong), "f32 [3, 2] but the device tensor on remote:0 is f32 [2, 3]");
  SY_EXPECT_ERROR(t->CopyTo(wrong), "a writable tensor of that type is expected");
  SY_EXPECT_ERROR(DeviceTensor::Allocate(gpu, {DType::kF32, {1 << 20}}),
                  "allocating 4.0 MiB on remote:0 for a device tensor f32 [1048576]");
  SY_EXPECT_ERROR(DeviceTensor::Allocate(gpu, {DType::kF32, {-1}}), "negative");
  SY_EXPECT_ERROR(DeviceTensor().ToHost(), "no storage");
  Expected<DeviceTensor> empty = DeviceTensor::Allocate(gpu, {DType::kF32, {0, 3}});
  SY_ASSERT_OK(empty);
  Expected<Tensor> none = empty->ToHost();
  SY_ASSERT_OK(none);
  EXPECT_EQ(none->element_count(), 0);
}

// Everything on a device without host memory: inputs read where they are, outputs written
// in place by their producer, and not one byte through host memory.
TEST_F(IoBindingTest, RemoteRunsWithoutHostCopies) {
  Load(kRemote);
  const Device& gpu = *Find("remote:0");
  std::unique_ptr<Session> session = Create(kGraph, "remote:0");
  ASSERT_NE(session, nullptr);
  const Tensor x = MakeX(2);
  DeviceTensor x_dev = *DeviceTensor::FromHost(gpu, x);
  DeviceTensor y_dev = *DeviceTensor::Allocate(gpu, {DType::kF32, {2, 2}});
  IoBinding io;
  io.BindInput("x", x_dev);
  io.BindOutput("y", y_dev);
  io.BindOutput("f", gpu);
  io.BindOutput("x", gpu);
  const Session::Stats before = session->stats();
  for (int run = 0; run < 3; ++run) {
    SY_ASSERT_OK(session->Run(io));
    EXPECT_TRUE(io.host_outputs().empty());
    ASSERT_EQ(io.device_outputs().size(), 3u);
    EXPECT_TRUE(io.device_outputs().at("y").SharesStorageWith(y_dev));
    ExpectValues(y_dev, ReluOfXw(x), "y");
    ExpectValues(io.device_outputs().at("f"), ReluOfXw(x), "f");
    ExpectValues(io.device_outputs().at("x"), {-2, -1, 0, 1, 2, -2}, "x");
  }
  const Session::Stats after = session->stats();
  EXPECT_EQ(after.host_bytes_in, before.host_bytes_in);
  EXPECT_EQ(after.host_bytes_out, before.host_bytes_out);
  EXPECT_EQ(after.inputs_in_place - before.inputs_in_place, 3u);
  EXPECT_EQ(after.outputs_in_place - before.outputs_in_place, 6u);  // y and f, three runs
  EXPECT_EQ(after.buffer_allocations, before.buffer_allocations);

  // A device output nobody else holds is reused; one the caller keeps is not overwritten.
  const sy_buffer* f_buffer = io.device_outputs().at("f").buffer();
  SY_ASSERT_OK(session->Run(io));
  EXPECT_EQ(io.device_outputs().at("f").buffer(), f_buffer);
  const DeviceTensor kept = io.device_outputs().at("f");
  io.BindInput("x", *DeviceTensor::FromHost(gpu, MakeX(2, 1)));
  SY_ASSERT_OK(session->Run(io));
  EXPECT_NE(io.device_outputs().at("f").buffer(), kept.buffer());
  ExpectValues(kept, ReluOfXw(x), "the kept f");
  ExpectValues(io.device_outputs().at("f"), ReluOfXw(MakeX(2, 1)), "the new f");

  // The plain Run still works after bound runs (the planned buffers are back in place).
  Expected<std::map<std::string, Tensor>> plain = session->Run({{"x", x}});
  SY_ASSERT_OK(plain);
  ExpectValues(plain->at("y"), ReluOfXw(x), "plain y");
  EXPECT_EQ(session->stats().host_bytes_in - after.host_bytes_in, 24u);
}

// Tensors on another device than the session's are copied device to device: directly
// where the plugin can, else through host memory (counted).
TEST_F(IoBindingTest, OtherDeviceIsCopiedDirectlyOrStaged) {
  for (const char* no_d2d : {"0", "1"}) {
    Load(kRemote, {{"SY_TEST_REMOTE_NO_D2D", no_d2d}});
    {  // device tensors and the session go before the host that loaded their plugin
      std::unique_ptr<Session> session = Create(kGraph, "remote:0");
      ASSERT_NE(session, nullptr);
      const Device& other = *Find("remote:1");
      const Tensor x = MakeX(2);
      IoBinding io;
      io.BindInput("x", *DeviceTensor::FromHost(other, x));
      DeviceTensor y_other = *DeviceTensor::Allocate(other, {DType::kF32, {2, 2}});
      io.BindOutput("y", y_other);
      SY_ASSERT_OK(session->Run(io));
      ExpectValues(y_other, ReluOfXw(x), "y");
      ExpectValues(io.host_outputs().at("f"), ReluOfXw(x), "f");
      const bool staged = std::string(no_d2d) == "1";
      EXPECT_EQ(session->stats().host_bytes_in, staged ? 24u : 0u) << no_d2d;
      // f (16) and x (24) come back to the host; y goes device to device.
      EXPECT_EQ(session->stats().host_bytes_out, 16u + 24u + (staged ? 16u : 0u)) << no_d2d;
      EXPECT_EQ(session->stats().outputs_in_place, 0u);
    }
    TearDown();
  }
}

// On the CPU, f is y's bytes (a reshape in place): neither may be redirected, so both are
// copied into their tensors; a CPU device tensor is read in place.
TEST_F(IoBindingTest, CpuAliasedOutputsAreCopied) {
  Load(kCpu);
  const Device& cpu = *Find("cpu");
  std::unique_ptr<Session> session = Create(kGraph, "cpu");
  ASSERT_NE(session, nullptr);
  const Tensor x = MakeX(2);
  DeviceTensor x_dev = *DeviceTensor::FromHost(cpu, x);
  EXPECT_NE(x_dev.host_data(), nullptr);
  DeviceTensor y_dev = *DeviceTensor::Allocate(cpu, {DType::kF32, {2, 2}});
  DeviceTensor f_dev = *DeviceTensor::Allocate(cpu, {DType::kF32, {4}});
  IoBinding io;
  io.BindInput("x", x_dev);
  io.BindOutput("y", y_dev);
  io.BindOutput("f", f_dev);
  SY_ASSERT_OK(session->Run(io));
  ExpectValues(y_dev, ReluOfXw(x), "y");
  ExpectValues(f_dev, ReluOfXw(x), "f");
  ExpectValues(io.host_outputs().at("x"), {-2, -1, 0, 1, 2, -2}, "x");
  EXPECT_EQ(session->stats().inputs_in_place, 1u);
  EXPECT_EQ(session->stats().host_bytes_in, 0u);
  Expected<std::map<std::string, Tensor>> all = io.CopyOutputsToHost();
  SY_ASSERT_OK(all);
  EXPECT_EQ(all->size(), 3u);
  ExpectValues(all->at("f"), ReluOfXw(x), "f on the host");
}

TEST_F(IoBindingTest, BadBindingsAreRefusedAndLeaveTheSessionUsable) {
  Load(kRemote);
  const Device& gpu = *Find("remote:0");
  std::unique_ptr<Session> session = Create(kGraph, "remote:0");
  ASSERT_NE(session, nullptr);
  const Tensor x = MakeX(2);
  DeviceTensor x_dev = *DeviceTensor::FromHost(gpu, x);
  {
    IoBinding io;
    io.BindInput("x", x_dev);
    io.BindOutput("z", gpu);
    SY_EXPECT_ERROR(session->Run(io),
                    "output \"z\" is bound but the model has no such output "
                    "(its outputs are: y, f, x)");
  }
  {
    IoBinding io;
    io.BindInput("x", x_dev);
    io.BindOutput("y", *DeviceTensor::Allocate(gpu, {DType::kF32, {4}}));
    SY_EXPECT_ERROR(session->Run(io),
                    "output \"y\" is f32 [2, 2] but the device tensor bound "
                    "for it on remote:0 is f32 [4]");
    EXPECT_TRUE(io.device_outputs().empty());
    EXPECT_TRUE(io.host_outputs().empty());
  }
  {
    IoBinding io;
    io.BindInput("x", *DeviceTensor::FromHost(gpu, MakeX(3)));
    SY_EXPECT_ERROR(session->Run(io),
                    "input \"x\" is f32 [3, 3] on remote:0 but the model expects f32 [2, 3]");
  }
  {
    IoBinding io;
    io.BindInput("x", x_dev);
    io.BindOutput("x", x_dev);
    SY_EXPECT_ERROR(session->Run(io), "output \"x\" is bound to the device tensor of input \"x\"");
    DeviceTensor shared = *DeviceTensor::Allocate(gpu, {DType::kF32, {2, 2}});
    io.BindOutput("x", gpu);
    io.BindOutput("y", shared);
    io.BindOutput("f", shared);
    SY_EXPECT_ERROR(session->Run(io),
                    "outputs \"f\" and \"y\" are bound to the same device tensor");
  }
  {
    IoBinding io;
    SY_EXPECT_ERROR(session->Run(io), "missing input \"x\" (f32 [2, 3])");
    io.BindInput("x", DeviceTensor());
    SY_EXPECT_ERROR(session->Run(io), "input \"x\" is bound to an empty DeviceTensor");
    io.BindInput("x", x_dev);
    io.BindInput("extra", x_dev);
    SY_EXPECT_ERROR(session->Run(io), "unknown input \"extra\"");
  }
  // Still usable.
  IoBinding io;
  io.BindInput("x", x_dev);
  io.BindOutput("y", gpu);
  SY_ASSERT_OK(session->Run(io));
  ExpectValues(io.device_outputs().at("y"), ReluOfXw(x), "y");
}

// A dynamic session picks its specialisation from the device tensors' shapes.
TEST_F(IoBindingTest, DynamicSessionsTakeShapesFromDeviceTensors) {
  Load(kRemote);
  const Device& gpu = *Find("remote:0");
  std::unique_ptr<Session> session = Create(kDynamicGraph, "remote:0");
  ASSERT_NE(session, nullptr);
  for (int64_t rows : {1, 5, 1}) {
    const Tensor x = MakeX(rows);
    IoBinding io;
    io.BindInput("x", *DeviceTensor::FromHost(gpu, x));
    io.BindOutput("y", gpu);
    io.BindOutput("f", gpu);
    SY_ASSERT_OK(session->Run(io));
    EXPECT_EQ(io.device_outputs().at("y").type(), TensorType(DType::kF32, {rows, 2}));
    ExpectValues(io.device_outputs().at("y"), ReluOfXw(x), "y");
    ExpectValues(io.device_outputs().at("f"), ReluOfXw(x), "f");
  }
  // The graph's example (batch 2) at Create, then 1 and 5.
  EXPECT_EQ(session->stats().specializations, 3u);
  EXPECT_EQ(session->stats().host_bytes_in, 0u);
  // x comes back to the host (the only unbound output): 4, 20 and 4 floats.
  EXPECT_EQ(session->stats().host_bytes_out, (3u + 15u + 3u) * 4u);
  EXPECT_EQ(session->stats().outputs_in_place, 6u);
}

}  // namespace
}  // namespace sy
