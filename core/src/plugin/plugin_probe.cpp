#include "plugin/plugin_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "plugin/child_process.h"
#include "plugin/install_layout.h"
#include "plugin/probe_report.h"

namespace sy {
namespace {

namespace fs = std::filesystem;

// What the step the probe last reported means in a message.
std::string StepText(const std::string& step) {
  if (step.empty() || step == "start") return "before loading it";
  if (step == "dlopen") return "while its library was loaded (a constructor or a library it needs)";
  // "ready": the probe had shut the plugin down and unloaded it; what is left of the
  // plugin's code then runs in threads it started.
  if (step == "ready") return "once it was unloaded (a thread it left running?)";
  return "in " + step;
}

// ---- the verdict cache ---------------------------------------------------------------

// A plugin file as the cache knows it. ctime as well as mtime: a file overwritten in place
// with its mtime set back (touch -d, utimensat) still gets a new ctime, which no call can
// set, so a rewritten plugin is probed again.
struct Identity {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const Identity&) const = default;
};

bool IdentityOf(const fs::path& path, Identity* id) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  id->device = st.st_dev;
  id->inode = st.st_ino;
  id->size = static_cast<uint64_t>(st.st_size);
  id->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id->ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return true;
}

fs::path CacheFile() {
  fs::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    dir = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    dir = fs::path(home) / ".cache";
  } else {
    return {};
  }
  return dir / "switchyard" / "plugin-probes-v2.tsv";
}

struct CacheEntry {
  Identity id;
  bool usable = false;
  std::string reason;
};

// The cache file's bytes: read only from a regular file (not through a symbolic link),
// without blocking (a FIFO put there would otherwise hang the host), and only up to
// kMaxCacheBytes (a file that large is not one this code wrote: it is ignored). "" when
// there is no usable file: the cache is only a cache.
constexpr off_t kMaxCacheBytes = 1 << 20;

std::string ReadCacheBytes(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  std::string bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxCacheBytes) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    bytes.resize(done);
  }
  ::close(fd);
  return bytes;
}

// Lines: path \t device \t inode \t size \t mtime_ns \t ctime_ns \t ok|rejected \t
// reason. A line that does not parse is dropped (the file is only a cache).
std::map<std::string, CacheEntry> ParseCache(const std::string& text) {
  std::map<std::string, CacheEntry> entries;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    std::string part;
    while (std::getline(fields, part, '\t')) f.push_back(part);
    if (f.size() == 7) f.emplace_back();  // an empty reason: getline reads no last field
    if (f.size() != 8 || (f[6] != "ok" && f[6] != "rejected")) continue;
    CacheEntry e;
    char* end = nullptr;
    e.id.device = std::strtoull(f[1].c_str(), &end, 10);
    e.id.inode = std::strtoull(f[2].c_str(), &end, 10);
    e.id.size = std::strtoull(f[3].c_str(), &end, 10);
    e.id.mtime_ns = std::strtoll(f[4].c_str(), &end, 10);
    e.id.ctime_ns = std::strtoll(f[5].c_str(), &end, 10);
    e.usable = f[6] == "ok";
    e.reason = f[7];
    entries[f[0]] = std::move(e);
  }
  return entries;
}

std::map<std::string, CacheEntry> ReadCache(const fs::path& file) {
  return ParseCache(ReadCacheBytes(file));
}

// Rewrites the cache with `path`'s entry replaced: a temporary file renamed over the old
// one, so a reader never sees half a file. Failures are ignored (it is only a cache).
void WriteCache(const fs::path& file, const std::string& path, const CacheEntry& entry) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::map<std::string, CacheEntry> entries = ReadCache(file);
  entries[path] = entry;
  const fs::path temp = file.string() + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!out) return;
    for (const auto& [p, e] : entries) {
      if (p.find_first_of("\t\n") != std::string::npos) continue;
      std::string reason = e.reason;
      for (char& c : reason) c = (c == '\t' || c == '\n') ? ' ' : c;
      out << p << '\t' << e.id.device << '\t' << e.id.inode << '\t' << e.id.size << '\t'
          << e.id.mtime_ns << '\t' << e.id.ctime_ns << '\t' << (e.usable ? "ok" : "rejected")
          << '\t' << reason << '\n';
    }
    if (!out.flush()) {
      fs::remove(temp, ec);
      return;
    }
  }
  fs::rename(temp, file, ec);
  if (ec) fs::remove(temp, ec);
}

// ---- running the probe -----------------------------------------------------------------

struct Report {
  explicit Report(std::string nonce) : reader(std::move(nonce)) {}
  ProbeReportReader reader;
  bool hung = false;
  int wait_status = 0;
  std::string spawn_error;
};

// Sends the nonce the probe asked for. MSG_NOSIGNAL: a probe already gone is an EPIPE
// here, not a SIGPIPE that would end the host; it then gives no verdict, which says why.
void SendNonce(int fd, const std::string& nonce) {
  const std::string line = nonce + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Runs the probe on `plugin` and reads its report (probe_report.h) until it closes its end,
// its time is up, or the report shows itself not the probe's own.
Report RunProbe(const fs::path& program, const fs::path& plugin, uint32_t threads,
                double timeout_seconds, const std::string& nonce) {
  Report report(nonce);
  // A socket, not a pipe: the host also answers on it (the nonce), and only once asked.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    report.spawn_error = std::string("socketpair: ") + std::strerror(errno);
    return report;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The report goes to fd 3; the plugin's own printing goes nowhere. Neither argv nor the
  // environment carries anything secret: the plugin's code can read both.
  posix_spawn_file_actions_adddup2(&actions, fds[1], kProbeReportFd);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {program.string(), "--threads", std::to_string(threads),
                                   plugin.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = SpawnInOwnGroup(&pid, program.c_str(), &actions, argv.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    report.spawn_error =
        std::string("cannot start ") + program.string() + ": " + std::strerror(spawned);
    return report;
  }
  // Watched beside the pipe, which a process the plugin forked would hold open after the
  // probe died; ending the probe ends its process group, and that process with it.
  ChildProcess probe(pid);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool forged = false;
  while (true) {
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      report.hung = true;
      break;
    }
    std::string error;
    const ChildProcess::Wait ready =
        probe.WaitFor(fds[0], POLLIN, static_cast<int>(std::min(left * 1000 + 1, 1e9)), &error);
    if (ready == ChildProcess::Wait::kTimedOut) continue;
    if (ready != ChildProcess::Wait::kReady) {  // the probe exited (or poll failed)
      report.reader.Finish();
      break;
    }
    char chunk[4096];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the probe exited (or died)
      report.reader.Finish();
      break;
    }
    const ProbeReportReader::Next next =
        report.reader.Take(std::string_view(chunk, static_cast<size_t>(n)));
    if (next == ProbeReportReader::Next::kSendNonce) SendNonce(fds[0], nonce);
    if (next == ProbeReportReader::Next::kStop) {
      forged = true;  // nothing it says later counts: no need to wait for it
      break;
    }
  }
  ::close(fds[0]);
  // Killed at once when hung; else it has exited or closed its pipe, and gets the rest of
  // its time (at least a second) to finish: one that does not is hung too.
  const double left =
      std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  bool killed = false;
  // A forged report: nothing it says later counts, so it is ended at once too.
  report.wait_status = probe.End(report.hung || forged ? 0 : std::max(left, 1.0), &killed);
  if (!forged && (killed || report.wait_status < 0)) report.hung = true;
  return report;
}

}  // namespace

fs::path FindProbeProgram(bool* disabled, const fs::path& prefix) {
  *disabled = false;
  if (const char* env = std::getenv("SWITCHYARD_PLUGIN_PROBE"); env != nullptr && *env != '\0') {
    if (std::string_view(env) == "0") {
      *disabled = true;
      return {};
    }
    return fs::path(env);
  }
  for (const fs::path& dir : InstallDirsFor(prefix).programs) {
    const fs::path candidate = dir / kProbeProgram;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

ProbeResult ProbePlugin(const fs::path& plugin, uint32_t threads, double timeout_seconds,
                        const fs::path& prefix) {
  ProbeResult result;
  bool disabled = false;
  const fs::path program = FindProbeProgram(&disabled, prefix);
  if (program.empty()) {
    result.reason = disabled ? "probing turned off (SWITCHYARD_PLUGIN_PROBE=0)"
                             : std::string("no ") + kProbeProgram + " found";
    return result;
  }
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(plugin, ec);
  const std::string key = (ec ? plugin : canonical).string();
  Identity id;
  const bool identified = IdentityOf(plugin, &id);
  const fs::path cache = CacheFile();
  if (identified && !cache.empty()) {
    const std::map<std::string, CacheEntry> entries = ReadCache(cache);
    if (auto it = entries.find(key); it != entries.end() && it->second.id == id) {
      result.kind = it->second.usable ? ProbeResult::Kind::kUsable : ProbeResult::Kind::kRejected;
      result.reason = it->second.reason;
      result.cached = true;
      return result;
    }
  }
  const std::string nonce = MakeProbeNonce();
  if (nonce.empty()) {
    result.reason = "no random bytes for the probe's nonce (getrandom failed)";
    return result;  // skipped: a verdict it could not check is no verdict
  }
  const Report report = RunProbe(program, plugin, threads, timeout_seconds, nonce);
  if (!report.spawn_error.empty()) {
    result.reason = report.spawn_error;
    return result;  // skipped: the host loads it in-process, as without a probe
  }
  const ProbeReportReader& reader = report.reader;
  const std::string where = StepText(reader.asked() ? "ready" : reader.last_step());
  // Everything but a verified verdict followed by a clean exit rejects the plugin. A
  // forgery first: a plugin that forges usually also ends the probe, and the forgery is
  // what to fix.
  result.kind = ProbeResult::Kind::kRejected;
  if (!reader.forgery().empty()) {
    result.reason = "the probe's report was not its own (" + reader.forgery() + ") " + where;
  } else if (report.hung) {
    std::ostringstream text;
    text << "hung " << where << " (no answer after " << timeout_seconds
         << " s; the probe was killed)";
    result.reason = text.str();
  } else if (WIFSIGNALED(report.wait_status)) {
    const int sig = WTERMSIG(report.wait_status);
    const char* name = sigabbrev_np(sig);
    result.reason = "crashed " + where + " (SIG" + (name ? name : std::to_string(sig)) + ": " +
                    strsignal(sig) + ")";
  } else if (!reader.verified()) {
    result.reason = "exited with status " + std::to_string(WEXITSTATUS(report.wait_status)) + " " +
                    where + " instead of returning to the host";
  } else if (WEXITSTATUS(report.wait_status) != 0) {
    result.reason = "the probe exited with status " +
                    std::to_string(WEXITSTATUS(report.wait_status)) + " after its verdict";
  } else {
    result.kind = ProbeResult::Kind::kUsable;
  }
  if (identified && !cache.empty()) {
    WriteCache(cache, key, {id, result.kind == ProbeResult::Kind::kUsable, result.reason});
  }
  return result;
}

std::vector<std::string> ProbeCachePaths(const std::string& text) {
  std::vector<std::string> paths;
  for (const auto& [path, entry] : ParseCache(text)) paths.push_back(path);
  return paths;
}

}  // namespace sy
