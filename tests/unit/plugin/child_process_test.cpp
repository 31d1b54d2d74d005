// A child that exits while a process it forked holds its pipe open is seen to exit at
// once, with its status, and ending it ends that process too; with a pidfd and without
// (the fallback of kernels before 5.3).
#include "plugin/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "test_util.h"

namespace sy {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Starts `sh -c script` in its own group with its stdout on a pipe; *read_end gets the
// pipe's other end.
pid_t SpawnShell(const std::string& script, int* read_end) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::string sh = "/bin/sh", c = "-c", text = script;
  char* argv[] = {sh.data(), c.data(), text.data(), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(SpawnInOwnGroup(&pid, "/bin/sh", &actions, argv), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  *read_end = fds[0];
  return pid;
}

class ChildProcessTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { SetPidfdEnabledForTesting(GetParam()); }
  void TearDown() override { SetPidfdEnabledForTesting(true); }
};

TEST_P(ChildProcessTest, ExitIsSeenWhileAForkedProcessHoldsThePipe) {
  test::TempDir dir;
  const std::string pid_file = (dir / "forked.pid").string();
  int pipe_fd = -1;
  // The shell forks a sleeper that inherits its stdout (the pipe), then exits with 3.
  const pid_t pid = SpawnShell("sleep 60 & echo $! > '" + pid_file + "'; exit 3", &pipe_fd);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(::getpgid(pid), pid) << "not the leader of its own process group";
  ChildProcess child(pid);
  const Clock::time_point start = Clock::now();
  std::string error;
  ChildProcess::Wait w = child.WaitFor(pipe_fd, POLLIN, 20000, &error);
  EXPECT_EQ(w, ChildProcess::Wait::kExited) << error;
  EXPECT_LT(SecondsSince(start), 5.0);
  EXPECT_TRUE(child.Exited());
  const pid_t sleeper = std::stoi(test::ReadFile(pid_file));
  EXPECT_EQ(::kill(sleeper, 0), 0) << "the sleeper should still run until the group ends";
  bool killed = true;
  const int status = child.End(5, &killed);
  EXPECT_FALSE(killed);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_TRUE(child.ended());
  EXPECT_EQ(child.pid(), pid);  // kept for messages
  EXPECT_TRUE(test::ProcessEndsWithin(sleeper, 5)) << "the forked process outlived the group's end";
  ::close(pipe_fd);
}

TEST_P(ChildProcessTest, WhatTheChildWroteIsReadBeforeItsExit) {
  int pipe_fd = -1;
  const pid_t pid = SpawnShell("echo hello; sleep 60 & exit 0", &pipe_fd);
  ChildProcess child(pid);
  // Let it write and exit first: the data must still come before the exit.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::string error;
  ASSERT_EQ(child.WaitFor(pipe_fd, POLLIN, 5000, &error), ChildProcess::Wait::kReady) << error;
  char text[16] = {};
  EXPECT_EQ(::read(pipe_fd, text, sizeof text - 1), 6);
  EXPECT_STREQ(text, "hello\n");
  EXPECT_EQ(child.WaitFor(pipe_fd, POLLIN, 5000, &error), ChildProcess::Wait::kExited) << error;
  ::close(pipe_fd);
}

TEST_P(ChildProcessTest, AWaitTimesOutWhileTheChildRuns) {
  int pipe_fd = -1;
  const pid_t pid = SpawnShell("exec sleep 60", &pipe_fd);
  ChildProcess child(pid);
  std::string error;
  const Clock::time_point start = Clock::now();
  EXPECT_EQ(child.WaitFor(pipe_fd, POLLIN, 100, &error), ChildProcess::Wait::kTimedOut);
  EXPECT_GE(SecondsSince(start), 0.09);
  EXPECT_FALSE(child.Exited());
  // Ending a child that does not exit by itself kills it.
  bool killed = false;
  const int status = child.End(0, &killed);
  EXPECT_TRUE(killed);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(child.End(0), -1);  // once only
  ::close(pipe_fd);
}

TEST_P(ChildProcessTest, DestroyingItEndsTheGroup) {
  test::TempDir dir;
  const std::string pid_file = (dir / "forked.pid").string();
  int pipe_fd = -1;
  const pid_t pid = SpawnShell("sleep 60 & echo $! > '" + pid_file + "'; wait", &pipe_fd);
  pid_t sleeper = 0;
  {
    ChildProcess child(pid);
    for (int i = 0; i < 250 && sleeper == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const std::string text = std::filesystem::exists(pid_file) ? test::ReadFile(pid_file) : "";
      if (!text.empty() && text.back() == '\n') sleeper = std::stoi(text);
    }
    ASSERT_GT(sleeper, 0);
  }
  EXPECT_TRUE(test::ProcessEndsWithin(pid, 5));
  EXPECT_TRUE(test::ProcessEndsWithin(sleeper, 5));
  ::close(pipe_fd);
}

INSTANTIATE_TEST_SUITE_P(Watch, ChildProcessTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Pidfd" : "Polled";
                         });

}  // namespace
}  // namespace sy
