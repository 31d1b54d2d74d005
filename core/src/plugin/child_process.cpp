#include "plugin/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace sy {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> pidfd_enabled{true};

// A descriptor that polls readable once `pid` has exited, or -1: the kernel may lack the
// call (ENOSYS before Linux 5.3) or a sandbox may refuse it (EPERM); either way the
// caller polls instead.
int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  if (!pidfd_enabled.load()) return -1;
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);  // close-on-exec by definition
  return fd >= 0 ? static_cast<int>(fd) : -1;
#else
  (void)pid;
  return -1;
#endif
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

void SetPidfdEnabledForTesting(bool enabled) { pidfd_enabled.store(enabled); }

int SpawnInOwnGroup(pid_t* pid, const char* program, const posix_spawn_file_actions_t* actions,
                    char* const argv[]) {
  posix_spawnattr_t attributes;
  if (const int e = posix_spawnattr_init(&attributes); e != 0) return e;
  int result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);  // 0: its own pid
  if (result == 0) result = posix_spawn(pid, program, actions, &attributes, argv, environ);
  posix_spawnattr_destroy(&attributes);
  return result;
}

ChildProcess::ChildProcess(pid_t pid) : pid_(pid), pidfd_(pid > 0 ? OpenPidfd(pid) : -1) {}

ChildProcess::~ChildProcess() {
  End(0);
  if (pidfd_ >= 0) ::close(pidfd_);
}

bool ChildProcess::Exited() const {
  if (ended()) return true;
  siginfo_t info{};
  // WNOWAIT: the child stays a zombie, so its pid (and its group's id) cannot be reused
  // before End kills what is left of the group.
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) {
      reaped_elsewhere_ = true;  // ECHILD: something else in this process reaped it
      return true;
    }
  }
  return info.si_pid == pid_;
}

ChildProcess::Wait ChildProcess::WaitFor(int fd, short events, int timeout_ms,
                                         std::string* error) const {
  const Clock::time_point start = Clock::now();
  while (true) {
    int slice = timeout_ms;
    if (timeout_ms >= 0) {
      const long long left = timeout_ms - static_cast<long long>(SecondsSince(start) * 1000);
      slice = static_cast<int>(std::max(0LL, left));
    }
    const bool watch_fd = pidfd_ >= 0 && !ended();
    if (!watch_fd && !ended()) {
      slice = slice < 0 ? kExitPollMs : std::min(slice, kExitPollMs);
    }
    pollfd p[2] = {{fd, events, 0}, {pidfd_, POLLIN, 0}};
    const int ready = ::poll(p, watch_fd ? 2 : 1, slice);
    if (ready < 0) {
      if (errno == EINTR) continue;
      *error = std::string("poll: ") + std::strerror(errno);
      return Wait::kError;
    }
    if (p[0].revents != 0) return Wait::kReady;
    if (watch_fd ? p[1].revents != 0 : Exited()) return Wait::kExited;
    if (timeout_ms >= 0 && SecondsSince(start) * 1000 >= timeout_ms) return Wait::kTimedOut;
  }
}

int ChildProcess::End(double grace_seconds, bool* killed_out) {
  bool killed = false;
  const auto result = [&](int status) {
    if (killed_out != nullptr) *killed_out = killed;
    ended_ = true;
    return status;
  };
  if (ended()) return -1;
  constexpr double kKillWaitSeconds = 2;
  const Clock::time_point start = Clock::now();
  while (!Exited()) {
    const double waited = SecondsSince(start);
    if (!killed && waited >= grace_seconds) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);  // in case it had left its group
      killed = true;
      continue;
    }
    if (killed && waited >= grace_seconds + kKillWaitSeconds) return result(-1);
    const double until = killed ? grace_seconds + kKillWaitSeconds : grace_seconds;
    const int slice = static_cast<int>(std::clamp((until - waited) * 1000 + 1, 1.0, 50.0));
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      ::poll(&p, 1, slice);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(slice, 2)));
    }
  }
  // The child has exited but is not reaped yet, so no other process can have taken its
  // pid as a group id: whatever it forked is killed before the id is released. (Reaped
  // by something else, its pid may be anyone's now: nothing is killed.)
  if (reaped_elsewhere_) return result(-1);
  ::kill(-pid_, SIGKILL);
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  return result(done == pid_ ? status : -1);
}

}  // namespace sy
