#include "format/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <system_error>
#include <utility>

namespace sy::format {
namespace {

std::string ErrnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// Creates a fresh temporary file next to `path`: same directory, so rename is atomic.
Expected<std::pair<int, std::filesystem::path>> CreateTemp(const std::filesystem::path& path) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  // Cut long names so that the temporary name stays under NAME_MAX.
  const std::string base = path.filename().string().substr(0, 100);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::filesystem::path temp =
        dir / ("." + base + ".tmp." + std::to_string(::getpid()) + "." +
               std::to_string(counter.fetch_add(1, std::memory_order_relaxed)));
    int fd;
    do {
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) return std::make_pair(fd, temp);
    if (errno != EEXIST) {
      return IoError("cannot create temporary file " + temp.string() + ": " + ErrnoText(errno));
    }
  }
  return IoError("cannot create a temporary file in " + dir.string());
}

}  // namespace

int WriteAll(int fd, const std::byte* data, size_t size) {
  while (size > 0) {
    const size_t chunk = std::min<size_t>(size, size_t{1} << 30);
    const ssize_t written = ::write(fd, data, chunk);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (written == 0) return EIO;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return 0;
}

Status WriteFileAtomically(const std::filesystem::path& path,
                           const std::function<int(int fd)>& write) {
  const std::string context = "cannot write " + path.string();
  const std::string base = path.filename().string();
  if (base.empty() || base == "." || base == "..") {
    return InvalidArgument(context + ": not a file name");
  }
  Expected<std::pair<int, std::filesystem::path>> created = CreateTemp(path);
  if (!created.ok()) return created.status().WithContext(context);
  int fd = created->first;
  const std::filesystem::path temp = std::move(created->second);
  // From here on every failure removes the temporary file.
  auto fail = [&](std::string what, int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    return IoError(context + ": " + what + ": " + ErrnoText(error));
  };
  if (const int error = write(fd); error != 0) return fail("writing " + temp.string(), error);
  if (::fsync(fd) != 0) return fail("syncing " + temp.string(), errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("closing " + temp.string(), errno);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    return fail("renaming " + temp.string() + " into place", errno);
  }
  // Best effort: make the rename itself durable.
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::Ok();
}

}  // namespace sy::format
