// The check of device-resident inputs and outputs (switchyard/io_binding.h) that every GPU
// plugin's tests run on their device (tests/unit/plugins/opencl/io_binding_test.cpp,
// tests/unit/plugins/cuda/io_binding_test.cpp), loaded through the plugin host as an
// application loads it: a session on `gpu` reads a DeviceTensor in place and writes its
// output into one, with nothing through host memory, also when the bound tensors change
// between runs (a plugin may have captured the previous addresses, as CUDA graphs do); a
// CPU DeviceTensor bound to it is copied in and the output left on the CPU. Expected values
// by hand: y = relu(x @ w).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "switchyard/io_binding.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy::test {

inline constexpr const char* kIoBindingGraph = R"json({
  "format": "rml-graph", "version": 1,
  "values": [
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "w", "dtype": "f32", "shape": [3, 2]},
    {"name": "h", "dtype": "f32", "shape": [2, 2]},
    {"name": "y", "dtype": "f32", "shape": [2, 2]}
  ],
  "inputs": [0], "outputs": [3],
  "constants": [{"value": 1, "data": [1, 0, 0, 1, -1, 2]}],
  "nodes": [
    {"op": "matmul", "inputs": [0, 1], "outputs": [2]},
    {"op": "relu", "inputs": [2], "outputs": [3]}
  ]
})json";

// y = relu(x @ w), x [2, 3], w = [[1, 0], [0, 1], [-1, 2]].

// Runs the check on `gpu`, with `cpu` as the other device; both of one PluginHost.
inline void CheckDeviceTensorsStayOnTheDevice(const Device& gpu, const Device& cpu) {
  Expected<Graph> graph = ParseGraphJson(kIoBindingGraph, nullptr);
  SY_ASSERT_OK(graph);
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, gpu);
  SY_ASSERT_OK(session);
  Session& s = **session;

  Tensor x = *Tensor::Allocate(DType::kF32, {2, 3});
  const float xs[6] = {1, -2, 3, 0.5f, 4, 1};
  std::copy(xs, xs + 6, x.mutable_values<float>().begin());
  // relu(x @ [[1, 0], [0, 1], [-1, 2]]) by hand.
  const float want[4] = {0, 4, 0, 6};

  Expected<DeviceTensor> x_dev = DeviceTensor::FromHost(gpu, x);
  SY_ASSERT_OK(x_dev);
  Expected<DeviceTensor> y_dev = DeviceTensor::Allocate(gpu, {DType::kF32, {2, 2}});
  SY_ASSERT_OK(y_dev);
  IoBinding io;
  io.BindInput("x", *x_dev);
  Expected<DeviceTensor> y_other = DeviceTensor::Allocate(gpu, {DType::kF32, {2, 2}});
  SY_ASSERT_OK(y_other);
  for (int run = 0; run < 4; ++run) {
    // Alternate output tensors: each run's addresses differ from the captured ones.
    DeviceTensor into = run % 2 == 0 ? *y_dev : *y_other;
    io.BindOutput("y", into);
    SY_ASSERT_OK(s.Run(io));
    Expected<Tensor> y = into.ToHost();
    SY_ASSERT_OK(y);
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y->values<float>()[i], want[i]) << run << i;
    SY_ASSERT_OK(into.CopyFrom(*Tensor::Allocate(DType::kF32, {2, 2})));  // zeros again
  }
  EXPECT_EQ(s.stats().host_bytes_in, 0u);
  EXPECT_EQ(s.stats().host_bytes_out, 0u);
  EXPECT_EQ(s.stats().inputs_in_place, 4u);
  EXPECT_EQ(s.stats().outputs_in_place, 4u);

  // A CPU tensor in, the output left on the CPU device: copied by the plugins' own paths.
  Expected<DeviceTensor> x_cpu = DeviceTensor::FromHost(cpu, x);
  SY_ASSERT_OK(x_cpu);
  io.BindInput("x", *x_cpu);
  io.BindOutput("y", cpu);
  SY_ASSERT_OK(s.Run(io));
  const DeviceTensor& y_cpu = io.device_outputs().at("y");
  EXPECT_EQ(&y_cpu.device(), &cpu);
  ASSERT_NE(y_cpu.host_data(), nullptr);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(static_cast<const float*>(y_cpu.host_data())[i], want[i]) << i;
  }
}

}  // namespace sy::test
