#include "format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <system_error>

namespace sy {
namespace {

// strerror, but thread-safe.
std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// Closes a descriptor on every return path.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Expected<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::filesystem::path& path) {
  const std::string name = path.string();
  // O_NONBLOCK so that opening a FIFO by mistake fails below instead of hanging here; it
  // has no effect on regular files.
  int raw_fd;
  do {
    raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  } while (raw_fd < 0 && errno == EINTR);
  if (raw_fd < 0) {
    const int error = errno;
    std::string message = "cannot open " + name + ": " + ErrnoText(error);
    if (error == ENOENT) return NotFound(std::move(message));
    return IoError(std::move(message));
  }
  FdGuard fd(raw_fd);

  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return IoError("cannot stat " + name + ": " + ErrnoText(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return IoError("cannot map " + name + ": not a regular file");
  }
  if (st.st_size < 0 || static_cast<uintmax_t>(st.st_size) > std::numeric_limits<size_t>::max()) {
    return IoError("cannot map " + name + ": file size " + std::to_string(st.st_size) +
                   " does not fit in memory");
  }
  const size_t size = static_cast<size_t>(st.st_size);

  const std::byte* data = nullptr;
  if (size != 0) {
    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (addr == MAP_FAILED) {
      return IoError("cannot map " + name + ": " + ErrnoText(errno));
    }
    data = static_cast<const std::byte*>(addr);
  }
  // The descriptor closes here (FdGuard); the mapping stays valid without it.

  MappedFile* file = nullptr;
  try {
    file = new MappedFile(path, data, size);
    return std::shared_ptr<const MappedFile>(file);
  } catch (const std::bad_alloc&) {
    // The shared_ptr constructor deletes `file` itself when it throws.
    if (file == nullptr && data != nullptr) ::munmap(const_cast<std::byte*>(data), size);
    return ResourceExhausted("cannot map " + name + ": out of memory");
  }
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace sy
