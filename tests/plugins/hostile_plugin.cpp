// Plugins that take down whatever process loads them, one per SY_HOSTILE_* definition
// (tests/plugins/CMakeLists.txt), for the host's probe (core/src/plugin/plugin_probe.h):
//   crash_on_load:       a constructor dereferences null when the library is loaded
//   forge_verdict:       a constructor writes the probe's old verdict ("ok") to every
//                        descriptor up to 20, the probe's among them, and ends the probe
//                        with _exit(0); loaded anywhere else (the host, were the probe ever
//                        to let it through) it exits with status 86 instead, so that a test
//                        cannot pass by its process ending early with status 0
//   exit_in_query:       sy_plugin_query calls exit(0)
//   crash_in_initialize: initialize raises SIGSEGV
//   hang_in_initialize:  initialize never returns
//   fork_and_crash_in_initialize: initialize forks a child as fork_and_crash_in_execute's
//                        (below) does, then raises SIGSEGV: the probe's crash, seen at once
//   crash_in_supports:   supports_node raises SIGSEGV when asked about matmul
//   crash_in_execute:    runs `neg` (f32), and raises SIGSEGV when a partition executes
//   hang_in_execute:     runs `neg` (f32), and never returns from execute
//   fork_and_crash_in_execute: runs `neg` (f32); execute forks a child that sleeps 60 s
//                        holding every descriptor of its parent (the isolated worker's
//                        socket, the conformance worker's pipe), writes the child's pid to
//                        the file $SY_TEST_FORKED_PID_FILE names (when set), and raises
//                        SIGSEGV: the host must see the crash at once and end the child
//   fork_in_execute:     the same child, and execute returns (computing nothing): the
//                        child runs on until the host ends the worker
// The last four load and probe cleanly; only --isolate keeps the host alive through them
// (docs/plugin-isolation.md).
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <string_view>

#include "test_plugin.h"

#if defined(SY_HOSTILE_EXIT_IN_QUERY)

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) { std::exit(0); }

#else

#if defined(SY_HOSTILE_CRASH_ON_LOAD)
namespace {
[[gnu::constructor]] void CrashWhenLoaded() { std::raise(SIGSEGV); }
}  // namespace
#endif

#if defined(SY_HOSTILE_FORGE_VERDICT)
namespace {
[[gnu::constructor]] void ForgeTheProbesVerdict() {
  char exe[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string_view program(exe, n > 0 ? static_cast<size_t>(n) : 0);
  if (!program.ends_with("/switchyard-plugin-probe")) ::_exit(86);
  static constexpr char kVerdict[] = "ok\n";
  for (int fd = 0; fd <= 20; ++fd) {
    if (::write(fd, kVerdict, sizeof kVerdict - 1) < 0) continue;  // not open, or read-only
  }
  ::_exit(0);
}
}  // namespace
#endif

namespace {

constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,   "hostile", "0.0.1",
    "Switchyard tests",     "takes its process down"};

#if defined(SY_HOSTILE_CRASH_IN_SUPPORTS)
class CrashingContext : public sy_test_plugin::TestContext {
 public:
  CrashingContext() : TestContext(1, "") {}
  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    if (std::string_view(node.op) == "matmul") std::raise(SIGSEGV);
    return TestContext::Supports(device, node, reason);
  }
};
#endif

#if defined(SY_HOSTILE_FORK_AND_CRASH_IN_EXECUTE) || defined(SY_HOSTILE_FORK_IN_EXECUTE) || \
    defined(SY_HOSTILE_FORK_AND_CRASH_IN_INITIALIZE)
#define SY_HOSTILE_FORKS
#endif
#if defined(SY_HOSTILE_CRASH_IN_EXECUTE) || defined(SY_HOSTILE_HANG_IN_EXECUTE) || \
    defined(SY_HOSTILE_FORK_AND_CRASH_IN_EXECUTE) || defined(SY_HOSTILE_FORK_IN_EXECUTE)
#define SY_HOSTILE_EXECUTES
#endif

#if defined(SY_HOSTILE_FORKS)
// Forks a child that outlives this process unless someone ends it, and says its pid.
void ForkASleeper() {
  const pid_t child = ::fork();
  if (child == 0) {
    ::sleep(60);
    ::_exit(0);
  }
  const char* file = std::getenv("SY_TEST_FORKED_PID_FILE");
  if (child < 0 || file == nullptr) return;
  const int fd = ::open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string text = std::to_string(child) + "\n";
  (void)!::write(fd, text.data(), text.size());
  ::close(fd);
}
#endif

#if defined(SY_HOSTILE_EXECUTES)
class FailingExecutable : public sy_executable {
 public:
  void Execute(sy_buffer* const*, uint32_t) override {
#if defined(SY_HOSTILE_FORK_AND_CRASH_IN_EXECUTE) || defined(SY_HOSTILE_FORK_IN_EXECUTE)
    ForkASleeper();
#endif
#if defined(SY_HOSTILE_CRASH_IN_EXECUTE) || defined(SY_HOSTILE_FORK_AND_CRASH_IN_EXECUTE)
    // The default action whatever handler a library in the process installed (some
    // runtimes catch SIGSEGV, and a handler that returns would let raise() return).
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
#elif defined(SY_HOSTILE_HANG_IN_EXECUTE)
    while (true) ::pause();
#endif
  }
};

// Claims `neg` on f32, prepares it, and fails (or forks) when it runs.
class ExecutingContext : public sy_test_plugin::TestContext {
 public:
  ExecutingContext() : TestContext(1, "") {}
  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    if (std::string_view(node.op) == "neg") return true;
    return TestContext::Supports(device, node, reason);
  }
  std::unique_ptr<sy_executable> Prepare(uint32_t, const sy_partition&) override {
    return std::make_unique<FailingExecutable>();
  }
};
#endif

std::unique_ptr<sy_context> Create(const sy_init_options&) {
#if defined(SY_HOSTILE_CRASH_IN_SUPPORTS)
  return std::make_unique<CrashingContext>();
#endif
#if defined(SY_HOSTILE_EXECUTES)
  return std::make_unique<ExecutingContext>();
#endif
#if defined(SY_HOSTILE_CRASH_IN_INITIALIZE)
  std::raise(SIGSEGV);
#elif defined(SY_HOSTILE_FORK_AND_CRASH_IN_INITIALIZE)
  ForkASleeper();
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
#elif defined(SY_HOSTILE_HANG_IN_INITIALIZE)
  while (true) ::pause();
#endif
  return std::make_unique<sy_test_plugin::TestContext>(1, "");
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)

#endif
