// The plugin host against real shared objects, through the public discovery path: the
// CPU plugin, and the deliberately broken plugins of tests/plugins/ (one folder per
// case under SY_TEST_PLUGIN_DIR). A scan keeps each bad candidate with a reason that
// names the problem; naming the same file explicitly is an error naming the path and
// the reason. Loading and unloading is clean (run under ASan: no leak, no use after
// unload) and really unloads the library.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

const fs::path kTestPlugins = SY_TEST_PLUGIN_DIR;
const fs::path kCpuPlugin = SY_CPU_PLUGIN_PATH;

fs::path CaseDir(const std::string& name) { return kTestPlugins / name; }
fs::path TestPlugin(const std::string& dir, const std::string& suffix) {
  return CaseDir(dir) / ("libswitchyard_test_" + suffix + ".so");
}

// Sets environment variable `name` for the lifetime of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name_)) old_ = old;
    setenv(name_, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// SWITCHYARD_PLUGIN_PATH for the lifetime of the object.
class ScopedPluginPath : public ScopedEnv {
 public:
  explicit ScopedPluginPath(const std::string& value)
      : ScopedEnv("SWITCHYARD_PLUGIN_PATH", value) {}
};

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// The candidates of `host` whose file lies in `dir` (a scan also looks beside the test
// executable and in the build tree's plugin folder; assertions ignore those).
std::vector<PluginCandidate> CandidatesIn(const PluginHost& host, const fs::path& dir) {
  std::vector<PluginCandidate> out;
  for (const PluginCandidate& c : host.candidates()) {
    if (SameFile(c.path.parent_path(), dir)) out.push_back(c);
  }
  return out;
}

const Plugin* LoadedFrom(const PluginHost& host, const fs::path& path) {
  for (const auto& p : host.plugins()) {
    if (SameFile(p->path(), path)) return p.get();
  }
  return nullptr;
}

// True while `path` is mapped into the process (RTLD_NOLOAD never loads it).
bool IsLoaded(const fs::path& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

Expected<std::unique_ptr<PluginHost>> LoadExplicitly(std::vector<fs::path> paths) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = std::move(paths);
  return PluginHost::Create(options);
}

Expected<std::unique_ptr<PluginHost>> Scan(const fs::path& dir) {
  ScopedPluginPath env(dir.string());
  return PluginHost::Create(DiscoveryOptions{});
}

// ---- bad plugins: one case per folder ----

struct BadPluginCase {
  std::string dir;      // folder under SY_TEST_PLUGIN_DIR
  std::string file;     // the candidate's file name in it
  std::string reason1;  // substrings the rejection reason must contain
  std::string reason2;
};

std::string PrintCase(const testing::TestParamInfo<BadPluginCase>& info) { return info.param.dir; }

class PluginHostBadPlugin : public testing::TestWithParam<BadPluginCase> {};

TEST_P(PluginHostBadPlugin, ScanKeepsItAsRejectedCandidateWithReason) {
  const BadPluginCase& c = GetParam();
  ASSERT_TRUE(fs::exists(CaseDir(c.dir) / c.file)) << CaseDir(c.dir) / c.file;
  Expected<std::unique_ptr<PluginHost>> host = Scan(CaseDir(c.dir));
  SY_ASSERT_OK(host);  // a scan never fails because of a bad candidate
  const std::vector<PluginCandidate> found = CandidatesIn(**host, CaseDir(c.dir));
  ASSERT_EQ(found.size(), 1u);
  const PluginCandidate& candidate = found[0];
  EXPECT_EQ(candidate.path.filename(), c.file);
  EXPECT_FALSE(candidate.loaded);
  EXPECT_FALSE(candidate.explicit_request);
  EXPECT_NE(candidate.reason.find(c.reason1), std::string::npos) << candidate.reason;
  EXPECT_NE(candidate.reason.find(c.reason2), std::string::npos) << candidate.reason;
  EXPECT_EQ(LoadedFrom(**host, candidate.path), nullptr);
  // Whatever else the scan found still loaded (the build tree's CPU plugin, when the
  // test runs from the build tree).
  for (const auto& p : (*host)->plugins()) EXPECT_FALSE(p->devices().empty()) << p->name();
}

TEST_P(PluginHostBadPlugin, ExplicitLoadIsAnErrorNamingPathAndReason) {
  const BadPluginCase& c = GetParam();
  const fs::path path = CaseDir(c.dir) / c.file;
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({path});
  SY_EXPECT_ERROR(host, path.string());
  SY_EXPECT_ERROR(host, c.reason1);
  SY_EXPECT_ERROR(host, c.reason2);
}

TEST_P(PluginHostBadPlugin, ExplicitLoadFailsEvenAfterTheScanRejectedIt) {
  // The scan sees the file first; naming it as well must not be satisfied silently.
  const BadPluginCase& c = GetParam();
  const fs::path path = CaseDir(c.dir) / c.file;
  ScopedPluginPath env(CaseDir(c.dir).string());
  DiscoveryOptions options;
  options.explicit_plugins = {path};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_EXPECT_ERROR(host, path.string());
  SY_EXPECT_ERROR(host, c.reason1);
}

INSTANTIATE_TEST_SUITE_P(
    PluginHost, PluginHostBadPlugin,
    testing::Values(BadPluginCase{"abi_too_new", "libswitchyard_test_abi_too_new.so",
                                  "ABI version 99", "newer than this host's 1"},
                    BadPluginCase{"abi_too_old", "libswitchyard_test_abi_too_old.so",
                                  "ABI version 0", "older than the oldest this host accepts"},
                    BadPluginCase{"query_returns_null", "libswitchyard_test_query_returns_null.so",
                                  "sy_plugin_query(1) returned null", "cannot serve this host"},
                    BadPluginCase{"init_fails", "libswitchyard_test_init_fails.so",
                                  "initialisation failed",
                                  "the accelerator runtime refused to start (code 42)"},
                    BadPluginCase{"no_devices", "libswitchyard_test_no_devices.so", "no devices",
                                  "no GPU driver found"},
                    BadPluginCase{"too_many_devices", "libswitchyard_test_too_many_devices.so",
                                  "device_count reports 4294967295 devices",
                                  "at most 1024 are accepted"},
                    BadPluginCase{"incomplete_table", "libswitchyard_test_incomplete_table.so",
                                  "function table is incomplete", "ABI version 1"},
                    BadPluginCase{"not_a_plugin", "libswitchyard_test_not_a_plugin.so",
                                  "no entry symbol sy_plugin_query", "not a Switchyard plugin"},
                    BadPluginCase{"fake_so", "fake.so", "cannot load", "not a shared object"}),
    PrintCase);

TEST(PluginHost, StringsAPluginReportsAreBounded) {
  Expected<std::unique_ptr<PluginHost>> host =
      LoadExplicitly({CaseDir("long_names") / "libswitchyard_test_long_names.so"});
  SY_ASSERT_OK(host);
  const Plugin* plugin = nullptr;
  for (const auto& p : (*host)->plugins()) {
    if (p->name() == "long_names") plugin = p.get();
  }
  ASSERT_NE(plugin, nullptr);
  ASSERT_EQ(plugin->devices().size(), 1u);
  EXPECT_EQ(plugin->devices()[0].name, std::string(4096, 'x'));  // of 100000
}

// Found by fuzz_plugin_table: a struct_size ending inside a function pointer.
TEST(PluginHost, TableEndingInsideAMemberLeavesThatMemberOut) {
  Expected<std::unique_ptr<PluginHost>> host =
      LoadExplicitly({CaseDir("ragged_table") / "libswitchyard_test_ragged_table.so"});
  SY_ASSERT_OK(host);
  ASSERT_EQ((*host)->plugins().size(), 1u);
  const sy_plugin_api* api = (*host)->plugins()[0]->api();
  EXPECT_EQ(api->buffer_view, nullptr);
  EXPECT_EQ(api->buffer_wrap_host, nullptr);
  EXPECT_NE(api->release, nullptr);
}

// Found by fuzz_plugin_table: an error message without a terminator.
TEST(PluginHost, ErrorMessagesAreBounded) {
  Expected<std::unique_ptr<PluginHost>> host =
      LoadExplicitly({CaseDir("unterminated_error") / "libswitchyard_test_unterminated_error.so"});
  ASSERT_FALSE(host.ok());
  const std::string m = host.status().message();
  EXPECT_NE(m.find(std::string(4096, 'e')), std::string::npos) << m.substr(0, 200);
  EXPECT_EQ(m.find(std::string(4097, 'e')), std::string::npos);
}

// XDG_CACHE_HOME (where the probe caches its verdicts) at a fresh folder for the
// lifetime of the object; the folder is removed at the end.
class ScopedProbeCache {
 public:
  ScopedProbeCache() : dir_(FreshDir()), env_("XDG_CACHE_HOME", dir_.string()) {}
  ~ScopedProbeCache() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

 private:
  static fs::path FreshDir() {
    const fs::path dir = fs::temp_directory_path() /
                         ("sy_probe_cache_" + std::to_string(::getpid()) + "_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    return dir;
  }
  fs::path dir_;
  ScopedEnv env_;
};

struct HostileCase {
  std::string dir;
  std::string reason;  // what the rejection says
};

class PluginHostProbe : public testing::TestWithParam<HostileCase> {};

std::string PrintHostileCase(const testing::TestParamInfo<HostileCase>& param) {
  return param.param.dir;
}

// A plugin that crashes, exits, hangs or forges the probe's verdict while loaded takes only
// the probe down: the host lists it as rejected, saying where, and loads the CPU plugin
// named with it.
TEST_P(PluginHostProbe, RejectsWhatTakesTheProbeDown) {
  const HostileCase& c = GetParam();
  ScopedProbeCache cache;
  ScopedPluginPath env(CaseDir(c.dir).string());
  DiscoveryOptions options;
  options.explicit_plugins = {kCpuPlugin};
  options.probe_timeout_seconds = 2;
  for (const char* round : {"probed", "probed earlier (cached)"}) {
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    SY_ASSERT_OK(host);
    const std::vector<PluginCandidate> found = CandidatesIn(**host, CaseDir(c.dir));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_FALSE(found[0].loaded);
    EXPECT_NE(found[0].reason.find(c.reason), std::string::npos) << found[0].reason;
    EXPECT_EQ(found[0].probe, round);
    ASSERT_NE(LoadedFrom(**host, kCpuPlugin), nullptr);
    EXPECT_FALSE(LoadedFrom(**host, kCpuPlugin)->devices().empty());
  }
  // Named explicitly, it is an error naming it and the reason.
  DiscoveryOptions explicit_options;
  explicit_options.scan_default_paths = false;
  const fs::path path = TestPlugin(c.dir, c.dir);
  explicit_options.explicit_plugins = {path};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(explicit_options);
  SY_EXPECT_ERROR(host, path.string());
  SY_EXPECT_ERROR(host, c.reason);
}

// Under AddressSanitizer a crash is ASan's report and exit status 1, not a signal: the
// reasons below name the step, which both give.
INSTANTIATE_TEST_SUITE_P(
    PluginHost, PluginHostProbe,
    testing::Values(HostileCase{"crash_on_load", "while its library was loaded"},
                    HostileCase{"exit_in_query",
                                "exited with status 0 in sy_plugin_query instead of returning"},
                    HostileCase{"crash_in_initialize", " in initialize"},
                    HostileCase{"crash_in_supports", " in supports_node (op matmul)"},
                    // A constructor that writes the old verdict and _exit(0)s (issue 37).
                    HostileCase{"forge_verdict",
                                "the probe's report was not its own (a verdict written before "
                                "the probe finished its checks) while its library was loaded"},
                    HostileCase{"hang_in_initialize",
                                "hung in initialize (no answer after 2 s; the probe was killed)"}),
    PrintHostileCase);

// A plugin that forks a child holding the probe's pipe, then crashes in initialize
// (fork_and_crash_in_initialize): the host watches the probe process, not only the pipe,
// so it is rejected at once as a crash, not as hung at the probe's timeout, and the child
// ends with the probe's process group.
TEST(PluginHost, ProbeSeesACrashWhileAForkedChildHoldsItsPipe) {
  ScopedProbeCache cache;
  test::TempDir dir;
  const fs::path pid_file = dir / "forked.pid";
  ScopedEnv forked_pid_file("SY_TEST_FORKED_PID_FILE", pid_file.string());
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {
      TestPlugin("fork_and_crash_in_initialize", "fork_and_crash_in_initialize")};
  options.probe_timeout_seconds = 30;
  const auto start = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(host.ok());
  const std::string m = host.status().message();
  // "crashed in initialize (SIGSEGV...)"; under AddressSanitizer, "exited with status 1".
  EXPECT_NE(m.find(" in initialize"), std::string::npos) << m;
  EXPECT_EQ(m.find("hung"), std::string::npos) << m;
  EXPECT_LT(seconds, 5.0) << m;
  ASSERT_TRUE(fs::exists(pid_file)) << "the plugin did not fork";
  EXPECT_TRUE(test::ProcessEndsWithin(std::stoi(test::ReadFile(pid_file)), 3))
      << "the plugin's child outlived the probe";
}

TEST(PluginHost, ProbeVerdictsFollowTheFile) {
  // A verdict is cached by the file's identity: a different file at the same path is
  // probed again.
  ScopedProbeCache cache;
  const fs::path dir = fs::temp_directory_path() / ("sy_probe_swap_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path plugin = dir / "libswitchyard_test_swap.so";
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {plugin};
  fs::copy_file(TestPlugin("crash_in_initialize", "crash_in_initialize"), plugin);
  SY_EXPECT_ERROR(PluginHost::Create(options), " in initialize");
  fs::remove(plugin);
  fs::copy_file(kCpuPlugin, plugin);
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  EXPECT_EQ((*host)->candidates()[0].probe, "probed");
  host->reset();
  fs::remove_all(dir);
}

// A plugin overwritten in place (same path, inode and size) with its mtime set back is
// probed again: the cache also keys on ctime, which no call can set back.
TEST(PluginHost, ProbeVerdictsFollowARewriteWithItsMtimeRestored) {
  ScopedProbeCache cache;
  const fs::path dir =
      fs::temp_directory_path() / ("sy_probe_rewrite_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path plugin = dir / "libswitchyard_test_rewrite.so";
  const fs::path bad = TestPlugin("crash_in_initialize", "crash_in_initialize");
  // Both files padded with zeros to one size (an ELF file ignores bytes past its end).
  const auto bytes_of = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string good_bytes = bytes_of(kCpuPlugin), bad_bytes = bytes_of(bad);
  const size_t size = std::max(good_bytes.size(), bad_bytes.size());
  good_bytes.resize(size, '\0');
  bad_bytes.resize(size, '\0');
  { std::ofstream(plugin, std::ios::binary) << good_bytes; }
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {plugin};
  {
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    SY_ASSERT_OK(host);
  }
  struct stat before {};
  ASSERT_EQ(::stat(plugin.c_str(), &before), 0);
  {
    std::fstream out(plugin, std::ios::binary | std::ios::in | std::ios::out);  // same inode
    out.write(bad_bytes.data(), static_cast<std::streamsize>(bad_bytes.size()));
  }
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, plugin.c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(plugin.c_str(), &after), 0);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_size, before.st_size);
  SY_EXPECT_ERROR(PluginHost::Create(options), " in initialize");
  fs::remove_all(dir);
}

// The cache file is read only as a bounded regular file: a FIFO there does not hang the
// host, a symbolic link to /dev/zero is not followed, and a huge file is ignored.
TEST(PluginHost, ProbeCacheThatIsNotAFileIsIgnored) {
  ScopedProbeCache cache;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  ASSERT_NE(xdg, nullptr);
  const fs::path dir = fs::path(xdg) / "switchyard";
  fs::create_directories(dir);
  const fs::path file = dir / "plugin-probes-v2.tsv";
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {kCpuPlugin};
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  SY_ASSERT_OK(PluginHost::Create(options));  // would block on the FIFO if it were read
  fs::remove(file);
  fs::create_symlink("/dev/zero", file);
  SY_ASSERT_OK(PluginHost::Create(options));
  fs::remove(file);
  { std::ofstream(file) << std::string((2 << 20) + 1, 'x'); }
  SY_ASSERT_OK(PluginHost::Create(options));
}

TEST(PluginHost, ExplicitMissingFileIsAnError) {
  const fs::path path = kTestPlugins / "does_not_exist" / "libswitchyard_nothing.so";
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({path});
  SY_EXPECT_ERROR(host, path.string());
  SY_EXPECT_ERROR(host, "no such file");
}

TEST(PluginHost, FailedPluginsAreUnloaded) {
  // A plugin that got as far as initialize is shut down and unloaded when rejected.
  const fs::path path = TestPlugin("no_devices", "no_devices");
  {
    Expected<std::unique_ptr<PluginHost>> host = Scan(CaseDir("no_devices"));
    SY_ASSERT_OK(host);
    EXPECT_FALSE(IsLoaded(path));
  }
  EXPECT_FALSE(IsLoaded(path));
}

// ---- duplicate names ----

TEST(PluginHost, SecondPluginWithTheSameNameIsRejectedNamingTheFirst) {
  const fs::path a = TestPlugin("duplicate", "dup_a");
  const fs::path b = TestPlugin("duplicate", "dup_b");
  Expected<std::unique_ptr<PluginHost>> host = Scan(CaseDir("duplicate"));
  SY_ASSERT_OK(host);
  const std::vector<PluginCandidate> found = CandidatesIn(**host, CaseDir("duplicate"));
  ASSERT_EQ(found.size(), 2u);
  // Files in a folder are considered in sorted order: dup_a wins.
  EXPECT_EQ(found[0].path.filename(), a.filename());
  EXPECT_TRUE(found[0].loaded);
  EXPECT_EQ(found[0].name, "dup");
  EXPECT_EQ(found[0].reason, "");
  EXPECT_EQ(found[1].path.filename(), b.filename());
  EXPECT_FALSE(found[1].loaded);
  EXPECT_NE(found[1].reason.find("a plugin named \"dup\" is already loaded from"),
            std::string::npos)
      << found[1].reason;
  EXPECT_NE(found[1].reason.find(a.string()), std::string::npos) << found[1].reason;
  const Plugin* loaded = LoadedFrom(**host, a);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->name(), "dup");
  EXPECT_EQ(LoadedFrom(**host, b), nullptr);
  EXPECT_FALSE(IsLoaded(b));  // the rejected duplicate does not stay mapped
}

TEST(PluginHost, ExplicitDuplicateIsAnError) {
  const fs::path a = TestPlugin("duplicate", "dup_a");
  const fs::path b = TestPlugin("duplicate", "dup_b");
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({a, b});
  SY_EXPECT_ERROR(host, "plugin " + b.string());
  SY_EXPECT_ERROR(host, "a plugin named \"dup\" is already loaded from " + a.string());
}

TEST(PluginHost, PluginPathTakesPrecedenceOverLaterDirectories) {
  // A second plugin named "cpu" found first (SWITCHYARD_PLUGIN_PATH) shadows the real
  // one, which is kept as a rejected candidate naming the shadow.
  const fs::path shadow = TestPlugin("shadow_cpu", "shadow_cpu");
  ScopedPluginPath env(CaseDir("shadow_cpu").string() + ":" + kCpuPlugin.parent_path().string());
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(DiscoveryOptions{});
  SY_ASSERT_OK(host);
  const Plugin* loaded = LoadedFrom(**host, shadow);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->name(), "cpu");
  EXPECT_EQ(LoadedFrom(**host, kCpuPlugin), nullptr);
  bool saw_real_cpu = false;
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (!SameFile(c.path, kCpuPlugin)) continue;
    saw_real_cpu = true;
    EXPECT_FALSE(c.loaded);
    EXPECT_NE(c.reason.find("a plugin named \"cpu\" is already loaded from " + shadow.string()),
              std::string::npos)
        << c.reason;
  }
  EXPECT_TRUE(saw_real_cpu);
  Expected<const Device*> device = (*host)->FindDevice("cpu");
  SY_ASSERT_OK(device);
  EXPECT_EQ((*device)->name, "shadow-cpu");
}

TEST(PluginHost, ExplicitPluginShadowedByScanIsAnError) {
  ScopedPluginPath env(CaseDir("shadow_cpu").string());
  DiscoveryOptions options;
  options.explicit_plugins = {kCpuPlugin};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_EXPECT_ERROR(host, kCpuPlugin.string());
  SY_EXPECT_ERROR(host, "a plugin named \"cpu\" is already loaded");
}

// ---- the CPU plugin ----

TEST(PluginHost, CpuPluginLoadsWithTwoDevices) {
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({kCpuPlugin});
  SY_ASSERT_OK(host);
  ASSERT_EQ((*host)->candidates().size(), 1u);
  const PluginCandidate& candidate = (*host)->candidates()[0];
  EXPECT_TRUE(candidate.loaded);
  EXPECT_TRUE(candidate.explicit_request);
  EXPECT_EQ(candidate.reason, "");
  EXPECT_EQ(candidate.name, "cpu");
  EXPECT_EQ(candidate.abi_version, SY_PLUGIN_ABI_VERSION);

  ASSERT_EQ((*host)->plugins().size(), 1u);
  const Plugin& plugin = *(*host)->plugins()[0];
  EXPECT_EQ(plugin.name(), "cpu");
  EXPECT_FALSE(plugin.version().empty());
  EXPECT_EQ(plugin.vendor(), "Switchyard");
  EXPECT_EQ(plugin.abi_version(), SY_PLUGIN_ABI_VERSION);
  EXPECT_EQ(plugin.status(), "");
  ASSERT_EQ(plugin.devices().size(), 2u);
  const Device& cpu = plugin.devices()[0];
  const Device& ref = plugin.devices()[1];
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.Spec(), "cpu:0");
  EXPECT_EQ(cpu.kind, DeviceKind::kCpu);
  EXPECT_TRUE(cpu.host_memory());
  EXPECT_FALSE(cpu.reference());
  EXPECT_EQ(cpu.plugin, &plugin);
  EXPECT_EQ(ref.name, "cpu-ref");
  EXPECT_EQ(ref.Spec(), "cpu:1");
  EXPECT_EQ(ref.index, 1u);
  EXPECT_TRUE(ref.reference());
  EXPECT_EQ((*host)->devices().size(), 2u);
}

TEST(PluginHost, FindDevice) {
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({kCpuPlugin});
  SY_ASSERT_OK(host);
  const PluginHost& h = **host;
  const Plugin& plugin = *h.plugins()[0];

  Expected<const Device*> by_plugin = h.FindDevice("cpu");  // first non-reference device
  SY_ASSERT_OK(by_plugin);
  EXPECT_EQ(*by_plugin, &plugin.devices()[0]);
  Expected<const Device*> by_index = h.FindDevice("cpu:1");
  SY_ASSERT_OK(by_index);
  EXPECT_EQ(*by_index, &plugin.devices()[1]);
  Expected<const Device*> by_index0 = h.FindDevice("cpu:0");
  SY_ASSERT_OK(by_index0);
  EXPECT_EQ((*by_index0)->name, "cpu");
  Expected<const Device*> by_name = h.FindDevice("cpu-ref");
  SY_ASSERT_OK(by_name);
  EXPECT_EQ(*by_name, &plugin.devices()[1]);

  const std::string available = "cpu:0 (cpu), cpu:1 (cpu-ref)";
  for (const char* bad : {"cpu:7", "cpu:", "cpu:x", "cpu:-1"}) {
    Expected<const Device*> d = h.FindDevice(bad);
    SY_EXPECT_ERROR(d, "device \"" + std::string(bad) + "\"");
    SY_EXPECT_ERROR(d, "plugin cpu has 2 devices");
    SY_EXPECT_ERROR(d, available);
  }
  Expected<const Device*> nope = h.FindDevice("nope");
  SY_EXPECT_ERROR(nope, "no device \"nope\"");
  SY_EXPECT_ERROR(nope, available);
  EXPECT_EQ(nope.status().code(), StatusCode::kNotFound);
}

TEST(PluginHost, FindDeviceWithNoPlugins) {
  Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({});
  SY_ASSERT_OK(host);
  EXPECT_TRUE((*host)->devices().empty());
  SY_EXPECT_ERROR((*host)->FindDevice("cpu"), "(available: none)");
}

TEST(PluginHost, SearchPathStartsWithPluginPathEntries) {
  ScopedPluginPath env("/opt/a::/opt/b:");
  const std::vector<fs::path> dirs = PluginHost::SearchPath();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], fs::path("/opt/a"));
  EXPECT_EQ(dirs[1], fs::path("/opt/b"));
  // Then the installed plugin folder and the executable's own folder.
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[2].filename(), "plugins");
  EXPECT_TRUE(SameFile(dirs[3], fs::read_symlink("/proc/self/exe").parent_path()));
}

// A host inside another program (the Python module) names its installation: plugins and
// helper programs are found under that prefix only, not beside the running program.
TEST(PluginHost, PrefixNamesWherePluginsAndProgramsAre) {
  ScopedPluginPath env("");
  ScopedProbeCache cache;
  const fs::path prefix = fs::temp_directory_path() / ("sy_prefix_" + std::to_string(::getpid()));
  fs::remove_all(prefix);
  fs::create_directories(prefix / "lib" / "switchyard" / "plugins");
  fs::copy_file(kCpuPlugin, prefix / "lib" / "switchyard" / "plugins" / kCpuPlugin.filename());
  const std::vector<fs::path> dirs = PluginHost::SearchPath(prefix);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0], prefix / "lib" / "switchyard" / "plugins");
  DiscoveryOptions options;
  options.prefix = prefix;
  {
    // No probe program under the prefix: loaded directly, and the reason says so.
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    SY_ASSERT_OK(host);
    ASSERT_EQ((*host)->candidates().size(), 1u);
    EXPECT_TRUE((*host)->candidates()[0].loaded);
    EXPECT_EQ((*host)->candidates()[0].probe, "not probed: no switchyard-plugin-probe found");
  }
  // The probe beside this test program, copied into the prefix's libexec.
  fs::create_directories(prefix / "libexec" / "switchyard");
  fs::copy_file(fs::read_symlink("/proc/self/exe").parent_path() / "switchyard-plugin-probe",
                prefix / "libexec" / "switchyard" / "switchyard-plugin-probe");
  {
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    SY_ASSERT_OK(host);
    ASSERT_EQ((*host)->candidates().size(), 1u);
    EXPECT_EQ((*host)->candidates()[0].probe, "probed");
  }
  // Isolation looks for its worker there too, and says where it looked.
  options.isolate = {"all"};
  SY_EXPECT_ERROR(PluginHost::Create(options),
                  "no switchyard-plugin-worker in " + (prefix / "libexec" / "switchyard").string());
  fs::remove_all(prefix);
}

TEST(PluginHost, CpuPluginIsUnloadedWithItsHost) {
  {
    Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({kCpuPlugin});
    SY_ASSERT_OK(host);
    EXPECT_TRUE(IsLoaded(kCpuPlugin));
  }
  EXPECT_FALSE(IsLoaded(kCpuPlugin)) << "the library stayed mapped after its host was destroyed";
}

// x f32 [2, 2] -> y = relu(x + c), c a constant: enough to touch every part of the ABI
// (support query, buffers, constant upload, prepare, execute, release).
Graph SmallGraph() {
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

TEST(PluginHost, LoadRunUnloadFiftyTimes) {
  Graph graph = SmallGraph();
  SY_ASSERT_OK(ValidateGraphTypes(graph));
  Tensor x = *Tensor::Allocate(DType::kF32, {2, 2});
  const float xv[] = {0.5f, 0.5f, -3.0f, 3.0f};
  for (int i = 0; i < 4; ++i) x.mutable_values<float>()[i] = xv[i];
  const float expected[] = {1.5f, 0.0f, 0.0f, 1.0f};
  for (int round = 0; round < 50; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Expected<std::unique_ptr<PluginHost>> host = LoadExplicitly({kCpuPlugin});
    SY_ASSERT_OK(host);
    Expected<const Device*> device = (*host)->FindDevice(round % 2 ? "cpu-ref" : "cpu");
    SY_ASSERT_OK(device);
    Expected<std::unique_ptr<Session>> session = Session::Create(graph, **device);
    SY_ASSERT_OK(session);
    Expected<std::map<std::string, Tensor>> out = (*session)->Run({{"x", x}});
    SY_ASSERT_OK(out);
    const Tensor& y = out->at("y");
    ASSERT_EQ(y.type(), (TensorType{DType::kF32, {2, 2}}));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y.values<float>()[i], expected[i]) << i;
    session->reset();  // sessions go before their host
    host->reset();
    ASSERT_FALSE(IsLoaded(kCpuPlugin));
    // Results copied out of the session outlive the plugin that computed them.
    EXPECT_EQ(y.values<float>()[0], 1.5f);
  }
}

}  // namespace
}  // namespace sy
