// `switchyard conformance --plugin PATH_OR_NAME`: proves a plugin correct. Op cases run
// on the plugin and on cpu-ref and are compared under per-op tolerances; API cases test
// the ABI contract. Cases run in worker processes so that a crash or a hang is recorded
// and the run goes on (conformance/suite.h). docs/conformance.md describes it all.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli.h"
#include "conformance/expectations.h"
#include "conformance/report.h"
#include "conformance/suite.h"
#include "plugin/child_process.h"
#include "progress_line.h"

namespace sy::cli {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace sy::conformance;

Expected<fs::path> ResolvePlugin(const std::string& spec) {
  std::error_code ec;
  if (spec.find('/') != std::string::npos || fs::is_regular_file(spec, ec)) {
    if (!fs::is_regular_file(spec, ec)) return NotFound("--plugin " + spec + ": no such file");
    return fs::absolute(spec);
  }
  // A name: the loaded plugin of that name in the default search path.
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create({});
  if (!host.ok()) return host.status();
  std::string names;
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (c.loaded && c.name == spec) return c.path;
    if (c.loaded) names += (names.empty() ? "" : ", ") + c.name;
  }
  // A plugin that loads but finds no device (the CUDA plugin without a GPU) is rejected
  // by the scan and so has no name: match its file name; the run then skips every case.
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (!c.loaded && c.reason.rfind("no devices", 0) == 0 &&
        c.path.filename() == "libswitchyard_" + spec + ".so") {
      return c.path;
    }
  }
  return NotFound("--plugin " + spec + ": no loaded plugin of that name (loaded: " +
                  (names.empty() ? "none" : names) + "); give a path to a .so instead");
}

Expected<fs::path> FindCpuPlugin() {
  for (const fs::path& dir : PluginHost::SearchPath()) {
    std::error_code ec;
    const fs::path candidate = dir / "libswitchyard_cpu.so";
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return NotFound(
      "the CPU plugin (libswitchyard_cpu.so, whose cpu-ref device is the reference) is not in "
      "the plugin search path; set SWITCHYARD_PLUGIN_PATH");
}

// Runs the suite in worker processes, resuming after each crash or hang.
// `no_devices`: the worker's reason when the plugin has no device (every case skipped).
std::vector<Result> RunIsolated(const std::vector<std::string>& args,
                                const std::vector<SuiteCase>& suite, double timeout_seconds,
                                bool verbose, std::string& no_devices) {
  std::vector<Result> results(suite.size());
  // On a terminal: which case is running, once the run has lasted half a second.
  ProgressLine progress("switchyard conformance");
  size_t next = 0;
  while (next < suite.size()) {
    int fds[2];
    if (pipe(fds) != 0) {
      for (size_t k = next; k < suite.size(); ++k)
        results[k] = {Outcome::kCrashed, "pipe() failed", 0};
      break;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      // The worker leads a process group of its own, so that ending it ends whatever the
      // plugin forked (which would hold fds[1] open, too). Outside the terminal's
      // foreground group, it must not read the terminal (it would be stopped): its stdin
      // is /dev/null.
      setpgid(0, 0);
      // It reports on fds[1]; its stdout goes to stderr (or nowhere), so that a plugin's
      // own printing cannot corrupt the protocol.
      close(fds[0]);
      const int null_fd = open("/dev/null", O_RDWR);
      dup2(null_fd, STDIN_FILENO);
      dup2(verbose ? STDERR_FILENO : null_fd, STDOUT_FILENO);
      if (!verbose) dup2(null_fd, STDERR_FILENO);
      std::vector<std::string> argv_text = {"switchyard", "conformance"};
      argv_text.insert(argv_text.end(), args.begin(), args.end());
      argv_text.insert(argv_text.end(), {"--worker-start", std::to_string(next), "--worker-fd",
                                         std::to_string(fds[1])});
      std::vector<char*> argv;
      for (std::string& s : argv_text) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      for (size_t k = next; k < suite.size(); ++k)
        results[k] = {Outcome::kCrashed, "fork() failed", 0};
      break;
    }
    setpgid(pid, pid);  // as the child does: whichever runs first (EACCES once it has exec'd)
    // Watched beside the pipe: a process the plugin forked keeps the pipe open after the
    // worker dies, so its end of file would come only when that process ends.
    ChildProcess worker(pid);
    std::string buffer;
    long started = -1;
    bool began_any = false;
    auto start_time = std::chrono::steady_clock::now();
    bool hung = false;
    while (true) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
      // Loading the plugin gets the same allowance as a case.
      const double left = timeout_seconds - elapsed;
      if (left <= 0) {
        hung = true;
        break;
      }
      std::string error;
      const ChildProcess::Wait ready =
          worker.WaitFor(fds[0], POLLIN, static_cast<int>(std::min(left * 1000 + 1, 1e9)), &error);
      if (ready == ChildProcess::Wait::kTimedOut) continue;  // re-check the clock
      if (ready != ChildProcess::Wait::kReady) break;        // the worker died (or poll failed)
      char chunk[4096];
      const ssize_t n = read(fds[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the worker exited (or died)
      buffer.append(chunk, static_cast<size_t>(n));
      size_t newline;
      while ((newline = buffer.find('\n')) != std::string::npos) {
        const std::string line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        if (line.rfind("N ", 0) == 0) {
          no_devices = line.substr(2);
        } else if (line.rfind("B ", 0) == 0) {
          started = std::stol(line.substr(2));
          began_any = true;
          if (started >= 0 && static_cast<size_t>(started) < suite.size()) {
            progress.Update(static_cast<size_t>(started) + 1, suite.size(),
                            suite[started].op + " " + suite[started].label);
          }
          start_time = std::chrono::steady_clock::now();
        } else if (line.rfind("R ", 0) == 0) {
          const size_t a = line.find(' ', 2);
          const size_t b = line.find(' ', a + 1);
          const size_t k = std::stoul(line.substr(2, a - 2));
          const int outcome = std::stoi(line.substr(a + 1, b - a - 1));
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
          if (k < results.size()) {
            results[k] = {static_cast<Outcome>(outcome),
                          b == std::string::npos ? "" : line.substr(b + 1), seconds};
          }
          next = k + 1;
          started = -1;
          start_time = std::chrono::steady_clock::now();
        }
      }
    }
    close(fds[0]);
    // Killed at once when hung; else it has exited or is exiting (it closed its pipe), and
    // gets the time of a case to finish. Either way its process group ends with it.
    const int status = worker.End(hung ? 0 : timeout_seconds);
    if (next >= suite.size()) break;
    std::string how = hung         ? ""
                      : status < 0 ? std::string("could not be ended (stuck in the kernel)")
                      : WIFSIGNALED(status)
                          ? std::string("was killed by signal ") + strsignal(WTERMSIG(status))
                          : "exited with status " + std::to_string(WEXITSTATUS(status));
    if (!began_any && !hung) {
      // It died before its first case: loading the plugin crashes. Nothing else can run.
      for (size_t k = next; k < suite.size(); ++k) {
        results[k] = {Outcome::kCrashed, "the worker died while loading the plugin (" + how + ")",
                      0};
      }
      break;
    }
    const size_t victim = started >= 0 ? static_cast<size_t>(started) : next;
    if (hung) {
      results[victim] = {Outcome::kHung,
                         "no result after " + std::to_string(static_cast<int>(timeout_seconds)) +
                             " s (--timeout); the worker was killed",
                         timeout_seconds};
    } else {
      results[victim] = {Outcome::kCrashed, "the worker " + how, 0};
    }
    next = victim + 1;
  }
  return results;
}

}  // namespace

int RunConformance(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard conformance --plugin PATH_OR_NAME [--device N] [--ops LIST]\n"
      "                              [--cases GLOB] [--scope mandatory|all] [--expectations FILE]\n"
      "                              [--junit FILE] [--json] [--timeout SECONDS]\n\n"
      "Runs the conformance suite against a plugin: every op of the catalogue in each dtype\n"
      "it takes (generated shapes, special values, seeded inputs) on the plugin and on\n"
      "cpu-ref, compared under per-op tolerances with guard bytes around every output, and\n"
      "API cases that test the ABI contract. Each case ends as pass, fail, unsupported\n"
      "(the plugin declined), expected failure (listed in --expectations), unexpected\n"
      "pass, crashed or hung; cases run in worker processes, so a crash or a hang is\n"
      "recorded and the run goes on. Exits 1 on any fail, crash, hang or unexpected pass.\n"
      "A plugin that loads but finds no device (no GPU) has every case skipped, with its\n"
      "reason, and exits 0.\n"
      "docs/conformance.md explains the cases, tolerances and the expectations file.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")(
      "plugin", po::value<std::string>(),
      "the plugin: a .so path, or the name of a plugin in the search path")(
      "device", po::value<int>()->default_value(-1),
      "device index in the plugin (default: its first non-reference device)")(
      "ops", po::value<std::string>(),
      "comma-separated ops to test (\"api\" for the API cases); default all")(
      "scope", po::value<std::string>()->default_value("all"), "mandatory or all")(
      "cases", po::value<std::string>(), "only cases whose label matches this glob, e.g. 'f32 *'")(
      "expectations", po::value<std::string>(),
      "known failures: <op glob> <label glob>: <reason> per line")(
      "junit", po::value<std::string>(), "write JUnit XML to FILE")("json", "print JSON")(
      "timeout", po::value<double>()->default_value(60),
      "seconds one case may take before it is hung")(
      "list-unsupported", "also list every unsupported case with the plugin's reason")(
      "verbose", "show the workers' output (plugin messages, sanitizer reports)")(
      "threads", po::value<int64_t>()->default_value(0)->notifier(CheckThreadCount),
      "threads for the plugin's CPU work");
  po::options_description hidden;
  hidden.add_options()("worker-start", po::value<size_t>())("worker-fd", po::value<int>());
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("conformance", args, visible, nullptr, vm, exit_code, &hidden)) return exit_code;
  if (!vm.count("plugin")) {
    PrintError("conformance", "--plugin is required (see 'switchyard conformance --help')");
    return kExitUsage;
  }
  const std::string scope = vm["scope"].as<std::string>();
  if (scope != "all" && scope != "mandatory") {
    PrintError("conformance", "--scope must be mandatory or all, not \"" + scope + "\"");
    return kExitUsage;
  }
  const double timeout = vm["timeout"].as<double>();
  if (!(timeout > 0 && timeout <= 86400)) {
    PrintError("conformance", "--timeout must be between 0 and 86400 seconds");
    return kExitUsage;
  }
  SuiteOptions suite_options;
  suite_options.mandatory_only = scope == "mandatory";
  if (vm.count("cases")) suite_options.label_glob = vm["cases"].as<std::string>();
  if (vm.count("ops")) {
    const std::string list = vm["ops"].as<std::string>();
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = list.find(',', start);
      const std::string op = list.substr(start, comma - start);
      if (!op.empty()) suite_options.ops.push_back(op);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  Expected<std::vector<SuiteCase>> suite = BuildSuite(suite_options);
  if (!suite.ok()) {
    PrintError("conformance", suite.status().message());
    return kExitUsage;
  }
  Expected<fs::path> plugin = ResolvePlugin(vm["plugin"].as<std::string>());
  if (!plugin.ok()) {
    PrintError("conformance", plugin.status().message());
    return kExitFailure;
  }
  Expected<fs::path> cpu_plugin = FindCpuPlugin();
  if (!cpu_plugin.ok()) {
    PrintError("conformance", cpu_plugin.status().message());
    return kExitFailure;
  }
  WorkerOptions worker{*plugin, vm["device"].as<int>(), *cpu_plugin,
                       static_cast<uint32_t>(vm["threads"].as<int64_t>())};
  if (vm.count("worker-start")) {
    return RunWorker(worker, *suite, vm["worker-start"].as<size_t>(),
                     vm.count("worker-fd") ? vm["worker-fd"].as<int>() : STDOUT_FILENO);
  }
  Expectations expectations;
  if (vm.count("expectations")) {
    Expected<Expectations> loaded = Expectations::Load(vm["expectations"].as<std::string>());
    if (!loaded.ok()) {
      PrintError("conformance", loaded.status().message());
      return kExitUsage;
    }
    expectations = std::move(*loaded);
  }

  // Workers get the original arguments with the plugin resolved to its path.
  std::vector<std::string> worker_args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin" && i + 1 < args.size()) {
      ++i;
      continue;
    }
    if (args[i].rfind("--plugin=", 0) == 0) continue;
    worker_args.push_back(args[i]);
  }
  worker_args.insert(worker_args.end(), {"--plugin", plugin->string()});
  std::string no_devices;
  std::vector<Result> results =
      RunIsolated(worker_args, *suite, timeout, vm.count("verbose") > 0, no_devices);

  for (size_t k = 0; k < results.size(); ++k) {
    const Expectation* e = expectations.Find((*suite)[k].op, (*suite)[k].label);
    if (e == nullptr) continue;
    Result& r = results[k];
    const std::string where = "expectations line " + std::to_string(e->line) + ": " + e->reason;
    if (r.outcome == Outcome::kPass) {
      r.outcome = Outcome::kUnexpectedPass;
      r.detail = "passes, but " + where + " (remove the entry)";
    } else if (r.outcome == Outcome::kFail || r.outcome == Outcome::kCrashed ||
               r.outcome == Outcome::kHung) {
      r.detail = std::string(OutcomeName(r.outcome)) + " as expected (" + where + "): " + r.detail;
      r.outcome = Outcome::kExpectedFailure;
    }
  }

  const std::string device_text =
      vm["device"].as<int>() >= 0 ? std::to_string(vm["device"].as<int>()) : "default";
  if (vm.count("junit")) {
    const Status written =
        WriteJUnit(vm["junit"].as<std::string>(), plugin->string(), *suite, results);
    if (!written.ok()) {
      PrintError("conformance", written.message());
      return kExitFailure;
    }
  }
  if (vm.count("json")) {
    std::cout << boost::json::serialize(JsonReport(plugin->string(), device_text, *suite, results))
              << "\n";
  } else {
    std::cout << "conformance of " << plugin->string() << " (device " << device_text
              << ") against cpu-ref: " << suite->size() << " cases\n\n";
    if (!no_devices.empty()) {
      // Nothing ran: say why once instead of a table of skipped cases.
      const Totals t = Count(results);
      std::cout << "every case skipped: " << no_devices << "\n\n"
                << t.passed << " passed, " << t.failed << " failed, " << t.skipped << " skipped\n";
    } else {
      std::cout << ConsoleReport(*suite, results, vm.count("list-unsupported") > 0);
    }
  }
  return Count(results).failed > 0 ? kExitFailure : kExitOk;
}

}  // namespace sy::cli
