// Plugins run in worker processes (core/src/plugin/isolation/isolated_plugin.h,
// docs/plugin-isolation.md): the CPU plugin isolated computes what it computes in-process,
// through shared-memory buffers; a plugin that crashes or hangs in execute fails that run
// with an error naming the plugin, the device and what happened, later calls to it fail
// the same way, and the host and its other plugins carry on.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "plugin/child_process.h"
#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

const fs::path kCpuPlugin = SY_CPU_PLUGIN_PATH;
fs::path Hostile(const std::string& mode) {
  return fs::path(SY_TEST_PLUGIN_DIR) / mode / ("libswitchyard_test_" + mode + ".so");
}

Expected<std::unique_ptr<PluginHost>> Load(std::vector<fs::path> plugins,
                                           std::vector<std::string> isolate,
                                           double timeout_seconds = 0) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = std::move(plugins);
  options.isolate = std::move(isolate);
  options.call_timeout_seconds = timeout_seconds;
  options.num_threads = 2;
  return PluginHost::Create(options);
}

// y = relu(x + c) with c a constant, x f32 [2, 2].
Graph AddRelu() {
  Graph g;
  g.values = {{"x", {DType::kF32, {2, 2}}},
              {"c", {DType::kF32, {2, 2}}},
              {"s", {DType::kF32, {2, 2}}},
              {"y", {DType::kF32, {2, 2}}}};
  g.inputs = {0};
  g.outputs = {3};
  Tensor c = *Tensor::Allocate(DType::kF32, {2, 2});
  const float cv[] = {1, -1, 2, -2};
  for (int i = 0; i < 4; ++i) c.mutable_values<float>()[i] = cv[i];
  g.constants.push_back({1, "", c});
  g.nodes.push_back({"add", {0, 1}, {2}, {}, "sum", ""});
  g.nodes.push_back({"relu", {2}, {3}, {}, "act", ""});
  return g;
}

// y = neg(x), x f32 [4]: what the hostile execute plugins claim.
Graph Neg() {
  Graph g;
  g.values = {{"x", {DType::kF32, {4}}}, {"y", {DType::kF32, {4}}}};
  g.inputs = {0};
  g.outputs = {1};
  g.nodes.push_back({"neg", {0}, {1}, {}, "n", ""});
  return g;
}

Tensor F32(Shape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DType::kF32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.mutable_values<float>()[i] = values[i];
  return t;
}

TEST(IsolatedPlugin, CpuPluginComputesTheSameInAWorker) {
  Expected<std::unique_ptr<PluginHost>> host = Load({kCpuPlugin}, {"all"});
  SY_ASSERT_OK(host);
  ASSERT_EQ((*host)->plugins().size(), 1u);
  const Plugin& cpu = *(*host)->plugins()[0];
  EXPECT_TRUE(cpu.isolated());
  EXPECT_GT(cpu.worker_pid(), 0);
  EXPECT_EQ(cpu.name(), "cpu");
  ASSERT_EQ(cpu.devices().size(), 2u);
  EXPECT_TRUE(cpu.devices()[0].host_memory());  // shared memory: the host maps it
  EXPECT_NE(cpu.devices()[0].details.find("matmul"), std::string::npos);
  EXPECT_EQ((*host)->candidates()[0].worker_pid, cpu.worker_pid());
  const Graph graph = AddRelu();
  for (const char* spec : {"cpu", "cpu-ref"}) {
    SCOPED_TRACE(spec);
    Expected<const Device*> device = (*host)->FindDevice(spec);
    SY_ASSERT_OK(device);
    Expected<std::unique_ptr<Session>> session = Session::Create(graph, **device);
    SY_ASSERT_OK(session);
    for (int run = 0; run < 3; ++run) {
      const float v = static_cast<float>(run);
      Expected<std::map<std::string, Tensor>> out =
          (*session)->Run({{"x", F32({2, 2}, {0.5f + v, 0.5f, -3.0f, 3.0f + v})}});
      SY_ASSERT_OK(out);
      const auto y = out->at("y").values<float>();
      EXPECT_EQ(y[0], 1.5f + v);
      EXPECT_EQ(y[1], 0.0f);
      EXPECT_EQ(y[2], 0.0f);
      EXPECT_EQ(y[3], 1.0f + v);
    }
  }
}

// The proxy's table has every optional function; the host keeps only those the plugin
// itself has, so that its own fallbacks (staged copies) still apply.
TEST(IsolatedPlugin, OptionalFunctionsFollowThePlugin) {
  const fs::path remote = fs::path(SY_TEST_PLUGIN_DIR) / "remote" / "libswitchyard_test_remote.so";
  for (const bool d2d : {true, false}) {
    SCOPED_TRACE(d2d ? "with copy_device_to_device" : "without");
    if (!d2d) setenv("SY_TEST_REMOTE_NO_D2D", "1", 1);
    Expected<std::unique_ptr<PluginHost>> host = Load({remote}, {"all"});
    unsetenv("SY_TEST_REMOTE_NO_D2D");
    SY_ASSERT_OK(host);
    const sy_plugin_api* api = (*host)->plugins()[0]->api();
    EXPECT_EQ(api->copy_device_to_device != nullptr, d2d);
    EXPECT_NE(api->buffer_view, nullptr);
    EXPECT_EQ(api->buffer_wrap_host, nullptr);  // the caller's memory is never shared
    EXPECT_EQ(api->execute_resized, nullptr);   // not forwarded: prepared per set of sizes
  }
}

TEST(IsolatedPlugin, OnlyThePluginsNamedAreIsolated) {
  Expected<std::unique_ptr<PluginHost>> host =
      Load({kCpuPlugin, Hostile("crash_in_execute")}, {"hostile"});
  SY_ASSERT_OK(host);
  for (const auto& plugin : (*host)->plugins()) {
    EXPECT_EQ(plugin->isolated(), plugin->name() == "hostile") << plugin->name();
  }
}

// Runs Neg() on the hostile device and returns the run's error.
Status RunNegOn(const PluginHost& host) {
  Expected<const Device*> device = host.FindDevice("hostile");
  if (!device.ok()) return device.status();
  Expected<std::unique_ptr<Session>> session = Session::Create(Neg(), **device);
  if (!session.ok()) return session.status();
  return (*session)->Run({{"x", F32({4}, {1, 2, 3, 4})}}).status();
}

TEST(IsolatedPlugin, CrashInExecuteFailsTheRunAndSparesTheHost) {
  Expected<std::unique_ptr<PluginHost>> host =
      Load({kCpuPlugin, Hostile("crash_in_execute")}, {"hostile"});
  SY_ASSERT_OK(host);
  const Status crashed = RunNegOn(**host);
  ASSERT_FALSE(crashed.ok());
  const std::string& m = crashed.message();
  EXPECT_NE(m.find("plugin hostile"), std::string::npos) << m;
  EXPECT_NE(m.find("device hostile:0, execute"), std::string::npos) << m;
  EXPECT_NE(m.find("its worker process (pid"), std::string::npos) << m;
  // SIGSEGV normally; under AddressSanitizer its handler may end the worker otherwise.
  EXPECT_TRUE(m.find("crashed (SIG") != std::string::npos ||
              m.find("exited with status") != std::string::npos)
      << m;
  // The plugin stays unusable, with the same reason; the CPU plugin still runs.
  const Status again = RunNegOn(**host);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("cannot be used any more"), std::string::npos) << again.message();
  Expected<const Device*> cpu = (*host)->FindDevice("cpu");
  SY_ASSERT_OK(cpu);
  Expected<std::unique_ptr<Session>> session = Session::Create(Neg(), **cpu);
  SY_ASSERT_OK(session);
  Expected<std::map<std::string, Tensor>> out = (*session)->Run({{"x", F32({4}, {1, 2, 3, 4})}});
  SY_ASSERT_OK(out);
  EXPECT_EQ(out->at("y").values<float>()[3], -4.0f);
}

TEST(IsolatedPlugin, HangInExecuteEndsAtTheTimeout) {
  Expected<std::unique_ptr<PluginHost>> host = Load({Hostile("hang_in_execute")}, {"all"}, 0.5);
  SY_ASSERT_OK(host);
  const int pid = (*host)->plugins()[0]->worker_pid();
  const auto start = std::chrono::steady_clock::now();
  const Status hung = RunNegOn(**host);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(hung.ok());
  EXPECT_NE(hung.message().find("did not answer within 0.5 s"), std::string::npos)
      << hung.message();
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(::kill(pid, 0), 0) << "the hung worker was not killed";
}

// The plugin forks a child that holds the worker's socket and sleeps 60 s, then crashes
// (tests/plugins/hostile_plugin.cpp, fork_and_crash_in_execute). The host watches the
// worker process, not only the socket: it reports the crash at once, not after the
// child's 60 s nor as a timeout, and ends the child with the worker's process group.
// With a pidfd and without one (the polled fallback of kernels before 5.3), with no call
// timeout and with one (which must not turn the crash into "did not answer").
TEST(IsolatedPlugin, CrashIsSeenAtOnceWhileAForkedChildHoldsTheSocket) {
  for (const bool pidfd : {true, false}) {
    for (const double timeout : {0.0, 30.0}) {
      SCOPED_TRACE(std::string(pidfd ? "pidfd" : "polled") + ", timeout " +
                   std::to_string(timeout));
      SetPidfdEnabledForTesting(pidfd);
      test::TempDir dir;
      const fs::path pid_file = dir / "forked.pid";
      setenv("SY_TEST_FORKED_PID_FILE", pid_file.c_str(), 1);  // the worker inherits it
      Expected<std::unique_ptr<PluginHost>> host =
          Load({Hostile("fork_and_crash_in_execute")}, {"all"}, timeout);
      unsetenv("SY_TEST_FORKED_PID_FILE");
      SetPidfdEnabledForTesting(true);
      SY_ASSERT_OK(host);
      const int worker = (*host)->plugins()[0]->worker_pid();
      const auto start = std::chrono::steady_clock::now();
      const Status crashed = RunNegOn(**host);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ASSERT_FALSE(crashed.ok());
      const std::string& m = crashed.message();
      EXPECT_NE(m.find("device hostile:0, execute: its worker process (pid " +
                       std::to_string(worker) + ")"),
                std::string::npos)
          << m;
      // SIGSEGV normally; under AddressSanitizer its handler may end the worker otherwise.
      EXPECT_TRUE(m.find("crashed (SIGSEGV") != std::string::npos ||
                  m.find("exited with status") != std::string::npos)
          << m;
      EXPECT_EQ(m.find("did not answer"), std::string::npos) << m;
      EXPECT_LT(seconds, 5.0) << "the crash was seen only when the socket closed";
      ASSERT_TRUE(fs::exists(pid_file)) << "the plugin did not fork";
      const pid_t forked = std::stoi(test::ReadFile(pid_file));
      ASSERT_GT(forked, 0);
      EXPECT_TRUE(test::ProcessEndsWithin(forked, 3)) << "the plugin's child outlived its worker";
      EXPECT_TRUE(test::ProcessEndsWithin(worker, 1));
    }
  }
}

// Destroying the host ends each worker's process group: a child its plugin forked
// (fork_in_execute: execute forks a sleeper and returns) ends with it.
TEST(IsolatedPlugin, DestroyingTheHostEndsWhatItsPluginForked) {
  test::TempDir dir;
  const fs::path pid_file = dir / "forked.pid";
  setenv("SY_TEST_FORKED_PID_FILE", pid_file.c_str(), 1);
  Expected<std::unique_ptr<PluginHost>> host = Load({Hostile("fork_in_execute")}, {"all"});
  unsetenv("SY_TEST_FORKED_PID_FILE");
  SY_ASSERT_OK(host);
  const int worker = (*host)->plugins()[0]->worker_pid();
  SY_ASSERT_OK(RunNegOn(**host));  // computes nothing, but returns
  ASSERT_TRUE(fs::exists(pid_file)) << "the plugin did not fork";
  const pid_t forked = std::stoi(test::ReadFile(pid_file));
  ASSERT_GT(forked, 0);
  EXPECT_EQ(::kill(forked, 0), 0) << "the plugin's child should run until the host ends";
  host->reset();
  EXPECT_TRUE(test::ProcessEndsWithin(forked, 3)) << "the plugin's child outlived its host";
  EXPECT_TRUE(test::ProcessEndsWithin(worker, 1));
}

TEST(IsolatedPlugin, MissingWorkerProgramIsAnErrorForAnExplicitPlugin) {
  const char* old = std::getenv("SWITCHYARD_PLUGIN_WORKER");
  const std::string saved = old ? old : "";
  setenv("SWITCHYARD_PLUGIN_WORKER", "/nonexistent/switchyard-plugin-worker", 1);
  Expected<std::unique_ptr<PluginHost>> host = Load({kCpuPlugin}, {"all"});
  if (old) {
    setenv("SWITCHYARD_PLUGIN_WORKER", saved.c_str(), 1);
  } else {
    unsetenv("SWITCHYARD_PLUGIN_WORKER");
  }
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.status().message().find(
                "cannot isolate plugins: cannot start /nonexistent/switchyard-plugin-worker"),
            std::string::npos)
      << host.status().message();
}

}  // namespace
}  // namespace sy
