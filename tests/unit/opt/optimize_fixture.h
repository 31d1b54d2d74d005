// Shared by the optimization pass's tests: a plugin host with the CPU plugin (whose `cpu`
// device runs every fused op) and the partial test plugin (an accelerator that runs only
// add, mul, relu, sigmoid, matmul and softmax, so it declines every fused op), and helpers
// that optimize a graph for one device and compare the optimized and unoptimized runs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "switchyard/optimize.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace sy::test {

class OptimizeTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    DiscoveryOptions options;
    options.scan_default_paths = false;
    options.explicit_plugins = {
        SY_CPU_PLUGIN_PATH,
        std::filesystem::path(SY_TEST_PLUGIN_DIR) / "partial" / "libswitchyard_test_partial.so"};
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    host_ = std::move(*host).release();
  }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }

  static const Device& DeviceNamed(const std::string& spec) {
    Expected<const Device*> d = host_->FindDevice(spec);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return **d;
  }
  static PlanOptions On(const std::string& spec, int level = 1) {
    PlanOptions options;
    options.devices = {&DeviceNamed(spec)};
    options.use_hints_and_fallback = false;
    options.optimize_level = level;
    return options;
  }

  // The graph optimized for `spec` (the test fails on an error).
  static OptimizedGraph Optimize(const Graph& graph, const std::string& spec = "cpu",
                                 int level = 1) {
    Expected<OptimizedGraph> out = OptimizeGraph(graph, host_, On(spec, level), level);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? std::move(*out) : OptimizedGraph{graph, {}};
  }
  static std::vector<std::string> Ops(const Graph& graph) {
    std::vector<std::string> ops;
    for (const Node& n : graph.nodes) ops.push_back(n.op);
    return ops;
  }
  static const Node* FindOp(const Graph& graph, const std::string& op) {
    for (const Node& n : graph.nodes) {
      if (n.op == op) return &n;
    }
    return nullptr;
  }

  // Random inputs (floats uniform in [-scale, scale)) by graph input name.
  static std::map<std::string, Tensor> RandomInputs(const Graph& graph, double scale = 1.0,
                                                    uint32_t seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    std::map<std::string, Tensor> inputs;
    for (ValueId v : graph.inputs) {
      Tensor t = *Tensor::Allocate(graph.values[v].type.dtype, graph.values[v].type.shape);
      if (t.dtype() == DType::kF32) {
        for (float& x : t.mutable_values<float>()) x = uniform(rng);
      }
      inputs[graph.values[v].name] = t;
    }
    return inputs;
  }

  // Runs `graph` on `spec` with the pass off and at `level`, and expects every output to
  // agree within atol + rtol * max |output| (the unfused graph is the reference).
  static void ExpectSameOutputs(const Graph& graph, const std::map<std::string, Tensor>& inputs,
                                const std::string& spec = "cpu", int level = 1, double rtol = 1e-5,
                                double atol = 1e-6) {
    auto run = [&](int at) {
      Expected<std::unique_ptr<Session>> s = Session::Create(graph, *host_, On(spec, at));
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      Expected<std::map<std::string, Tensor>> out = (*s)->Run(inputs);
      EXPECT_TRUE(out.ok()) << out.status().ToString();
      return *out;
    };
    const std::map<std::string, Tensor> reference = run(0);
    const std::map<std::string, Tensor> optimized = run(level);
    ASSERT_EQ(reference.size(), optimized.size());
    for (const auto& [name, want] : reference) {
      const Tensor& got = optimized.at(name);
      ASSERT_EQ(got.type(), want.type()) << name;
      double scale = 0, worst = 0;
      for (int64_t i = 0; i < want.element_count(); ++i) {
        scale = std::max(scale, std::fabs(ElementAsDouble(want, i)));
      }
      for (int64_t i = 0; i < want.element_count(); ++i) {
        const double w = ElementAsDouble(want, i), g = ElementAsDouble(got, i);
        if (std::isnan(w)) {
          EXPECT_TRUE(std::isnan(g)) << name << "[" << i << "]";
          continue;
        }
        worst = std::max(worst, std::fabs(w - g));
      }
      EXPECT_LE(worst, atol + rtol * scale) << name << ": max |diff| " << worst;
    }
  }

  static inline PluginHost* host_ = nullptr;
};

// A constant of `shape` with values uniform in [-scale, scale).
inline Tensor RandomConstant(Shape shape, double scale = 0.5, uint32_t seed = 3) {
  Tensor t = *Tensor::Allocate(DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (float& x : t.mutable_values<float>()) x = uniform(rng);
  return t;
}
inline Tensor Scalar(float value) { return MakeTensor<float>(DType::kF32, {}, {value}); }

}  // namespace sy::test
