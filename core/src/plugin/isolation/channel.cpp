#include "plugin/isolation/channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "plugin/child_process.h"

namespace sy::isolation {
namespace {

using Clock = std::chrono::steady_clock;

// The longest wait with a deadline (a year); longer, infinite or NaN timeouts wait
// without one, so that no conversion below overflows.
constexpr double kLongestTimeout = 365.0 * 24 * 3600;

bool Bounded(double timeout_seconds) {
  return timeout_seconds > 0 && timeout_seconds <= kLongestTimeout;
}

Clock::time_point DeadlineAfter(double timeout_seconds) {
  if (!Bounded(timeout_seconds)) return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(timeout_seconds));
}

// Waits until `fd` is ready for `events`, `peer` (when not null) has exited, or the
// deadline passes (no deadline when `timeout_seconds` <= 0).
Channel::Result WaitFor(int fd, short events, const ChildProcess* peer, Clock::time_point deadline,
                        double timeout_seconds, std::string* error) {
  while (true) {
    int wait_ms = -1;
    if (Bounded(timeout_seconds)) {
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) return Channel::Result::kTimedOut;
      wait_ms = static_cast<int>(std::min(left * 1000 + 1, 1e9));
    }
    if (peer != nullptr) {
      switch (peer->WaitFor(fd, events, wait_ms, error)) {
        case ChildProcess::Wait::kReady:
          return Channel::Result::kOk;
        case ChildProcess::Wait::kExited:
          return Channel::Result::kPeerExited;
        case ChildProcess::Wait::kTimedOut:
          continue;  // the deadline check above decides
        case ChildProcess::Wait::kError:
          return Channel::Result::kError;
      }
    }
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready > 0) return Channel::Result::kOk;
    if (ready == 0) continue;  // the deadline check above decides
    if (errno == EINTR) continue;
    *error = std::string("poll: ") + std::strerror(errno);
    return Channel::Result::kError;
  }
}

constexpr size_t kMaxFds = 4;

}  // namespace

Channel::~Channel() {
  if (fd_ >= 0) ::close(fd_);
}

Channel::Result Channel::Send(const std::string& body, std::span<const int> fds,
                              double timeout_seconds, std::string* error) {
  const Clock::time_point deadline = DeadlineAfter(timeout_seconds);
  const uint64_t length = body.size();
  std::string frame(sizeof length, '\0');
  std::memcpy(frame.data(), &length, sizeof length);
  frame += body;
  size_t sent = 0;
  bool fds_sent = fds.empty();
  while (sent < frame.size()) {
    const Result ready = WaitFor(fd_, POLLOUT, peer_, deadline, timeout_seconds, error);
    if (ready != Result::kOk) return ready;
    iovec iov{frame.data() + sent, frame.size() - sent};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
    if (!fds_sent) {
      if (fds.size() > kMaxFds) {
        *error = "too many descriptors for one frame";
        return Result::kError;
      }
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      if (errno == EPIPE || errno == ECONNRESET) return Result::kClosed;
      *error = std::string("send: ") + std::strerror(errno);
      return Result::kError;
    }
    fds_sent = true;
    sent += static_cast<size_t>(n);
  }
  return Result::kOk;
}

Channel::Result Channel::Receive(std::string* body, std::vector<int>* fds, double timeout_seconds,
                                 size_t max_size, std::string* error) {
  const Clock::time_point deadline = DeadlineAfter(timeout_seconds);
  fds->clear();
  // Reads exactly `size` bytes into `into`, collecting descriptors on the way.
  const auto read_exactly = [&](char* into, size_t size) -> Result {
    size_t got = 0;
    while (got < size) {
      const Result ready = WaitFor(fd_, POLLIN, peer_, deadline, timeout_seconds, error);
      if (ready != Result::kOk) return ready;
      iovec iov{into + got, size - got};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      const ssize_t n = ::recvmsg(fd_, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        if (errno == ECONNRESET) return Result::kClosed;
        *error = std::string("receive: ") + std::strerror(errno);
        return Result::kError;
      }
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
          int fd = -1;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
          // At most kMaxFds per frame are kept; a peer sending more (in many small
          // pieces) has the rest closed at once rather than filling this process's table.
          if (fds->size() < kMaxFds) {
            fds->push_back(fd);
          } else {
            ::close(fd);
          }
        }
      }
      if ((msg.msg_flags & MSG_CTRUNC) != 0) {
        *error = "a frame carried more descriptors than expected";
        return Result::kError;
      }
      if (n == 0) return Result::kClosed;
      got += static_cast<size_t>(n);
    }
    return Result::kOk;
  };
  uint64_t length = 0;
  Result r = read_exactly(reinterpret_cast<char*>(&length), sizeof length);
  if (r != Result::kOk) return r;
  if (length > max_size) {
    *error = "a frame of " + std::to_string(length) + " bytes (at most " +
             std::to_string(max_size) + " expected)";
    return Result::kError;
  }
  body->resize(static_cast<size_t>(length));
  return read_exactly(body->data(), body->size());
}

SharedRegion::~SharedRegion() {
  if (data_ != nullptr) ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
}

bool SharedRegion::Create(const char* name, size_t size, std::string* error) {
  fd_ = ::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd_ < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  const size_t mapped = size == 0 ? 1 : size;  // mmap refuses 0 bytes
  if (::ftruncate(fd_, static_cast<off_t>(mapped)) != 0) {
    *error = "cannot size a shared region of " + std::to_string(size) +
             " bytes: " + std::strerror(errno);
    return false;
  }
  // Sealed at its size: the peer it is passed to cannot shrink the file under this
  // process's mapping (its next access would be SIGBUS) or grow it.
  if (::fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    *error = std::string("cannot seal a shared region: ") + std::strerror(errno);
    return false;
  }
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    *error =
        "cannot map a shared region of " + std::to_string(size) + " bytes: " + std::strerror(errno);
    return false;
  }
  data_ = static_cast<std::byte*>(p);
  size_ = mapped;
  return true;
}

bool SharedRegion::Adopt(int fd, size_t size, std::string* error) {
  fd_ = fd;
  struct stat st {};
  const size_t mapped = size == 0 ? 1 : size;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) < mapped) {
    *error = "the shared region is not a file of " + std::to_string(mapped) + " bytes";
    return false;
  }
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    *error = std::string("cannot map a shared region: ") + std::strerror(errno);
    return false;
  }
  data_ = static_cast<std::byte*>(p);
  size_ = mapped;
  return true;
}

}  // namespace sy::isolation
