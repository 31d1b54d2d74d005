// One end of the connection between the host and an isolated plugin's worker: a Unix
// stream socket carrying length-prefixed frames, with file descriptors (shared-memory
// regions) passed alongside a frame. Every wait has a deadline, so that a worker that
// hangs, or stops reading, cannot hang the host; and a wait can watch the peer process
// too (WatchPeer), so that a peer that dies while another process holds its end of the
// socket open is seen at once rather than at the deadline.
//
// Ownership: the Channel owns its socket and closes it when destroyed. File descriptors
// received belong to the caller.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace sy {
class ChildProcess;
}

namespace sy::isolation {

class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // kPeerExited: the watched peer process exited with the frame incomplete (its socket
  // may still be open in a process it forked).
  enum class Result { kOk, kClosed, kTimedOut, kError, kPeerExited };

  // Every later wait also ends when `peer` (which must outlive the channel) has exited.
  void WatchPeer(const ChildProcess* peer) { peer_ = peer; }

  // Sends one frame, with `fds` attached to its first byte. A timeout of 0 or less waits
  // as long as it takes.
  Result Send(const std::string& body, std::span<const int> fds, double timeout_seconds,
              std::string* error);
  // Receives one frame of at most `max_size` bytes (a larger one is kError), and the
  // descriptors that came with it (at most 4).
  Result Receive(std::string* body, std::vector<int>* fds, double timeout_seconds, size_t max_size,
                 std::string* error);

  int fd() const { return fd_; }

 private:
  int fd_;
  const ChildProcess* peer_ = nullptr;
};

// A shared-memory region: an anonymous file (memfd) of `size` bytes mapped read-write.
// Owns the mapping and the descriptor; the worker maps the same file through the
// descriptor passed to it.
class SharedRegion {
 public:
  SharedRegion() = default;
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  // Creates a region (`name` shows in /proc/<pid>/fd); false with `error` set on failure.
  bool Create(const char* name, size_t size, std::string* error);
  // Maps a region received as `fd` (taking ownership of it), expecting `size` bytes: a
  // file shorter than that is refused rather than mapped past its end.
  bool Adopt(int fd, size_t size, std::string* error);

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace sy::isolation
