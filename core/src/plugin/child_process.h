// A child process that runs plugin code for this process (an isolated plugin's worker, a
// conformance worker), and how it is watched and ended.
//
// Why not just the pipe or socket to it: a plugin may fork, and its child inherits every
// descriptor, the worker's end of the socket included. When the worker then crashes, the
// socket stays open (no end of file) and the host would wait for the call's timeout, or
// for ever, while the child outlives everyone. So the child is started in a process group
// of its own (SpawnInOwnGroup, or setpgid(0, 0) after fork), its exit is watched through a
// pidfd beside the socket (WaitFor), and ending it (End) ends the whole group.
//
// Ownership: a ChildProcess owns its pid (it alone reaps it) and its pidfd. Destroying one
// ends the child as End(0) would.
#pragma once

#include <spawn.h>
#include <sys/types.h>

#include <string>

namespace sy {

// posix_spawn with the child put in a process group of its own (its pgid is its pid).
// Returns 0 or posix_spawn's error number.
int SpawnInOwnGroup(pid_t* pid, const char* program, const posix_spawn_file_actions_t* actions,
                    char* const argv[]);

class ChildProcess {
 public:
  ChildProcess() = default;
  // Takes charge of `pid`, a child of this process that leads its own process group.
  explicit ChildProcess(pid_t pid);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Its pid, for messages (kept after End).
  pid_t pid() const { return pid_; }
  bool ended() const { return pid_ <= 0 || ended_; }

  // Without a pidfd, how often WaitFor asks whether the child has exited.
  static constexpr int kExitPollMs = 20;

  enum class Wait { kReady, kExited, kTimedOut, kError };
  // Waits up to `timeout_ms` (negative: no bound) until `fd` is ready for `events` or the
  // child has exited. A ready `fd` wins: what the child wrote before it exited is read
  // before its exit is reported. `*error` is set on kError.
  Wait WaitFor(int fd, short events, int timeout_ms, std::string* error) const;

  // Whether the child has exited (or is gone). It is not reaped: End still gets its status.
  bool Exited() const;

  // Waits up to `grace_seconds` for the child to exit by itself, then kills it; either
  // way every process left in its group (what the plugin forked) is killed, and the child
  // is reaped. Returns its wait status, or -1 when it was already ended or would not die
  // within 2 s of SIGKILL (a process stuck in the kernel, in a driver call: it is left to
  // the system rather than block the caller). `*killed`, when given, says whether it had
  // to be killed (it did not exit within the grace).
  int End(double grace_seconds, bool* killed = nullptr);

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;  // -1 where the kernel has no pidfd_open (Linux < 5.3): polled instead
  bool ended_ = false;
  mutable bool reaped_elsewhere_ = false;  // a waitpid(-1) elsewhere took its status
};

// Tests only: false makes ChildProcesses created afterwards watch as on a kernel without
// pidfd_open (polling at kExitPollMs).
void SetPidfdEnabledForTesting(bool enabled);

}  // namespace sy
