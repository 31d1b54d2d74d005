// Internal: a read-only memory-mapped file.
//
// The whole file is mapped PROT_READ / MAP_PRIVATE and the descriptor is closed right
// after mapping; the mapping lives until the last shared_ptr to the MappedFile goes.
// An empty file is not mapped at all (mmap of length 0 fails) and has empty bytes().
//
// Like every mapping, the bytes are only as stable as the file: if another process
// truncates the file while it is mapped, touching the lost pages raises SIGBUS. Files
// written by WriteSafetensors are replaced by rename, never truncated in place, so
// readers that already mapped the old file keep seeing it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "switchyard/status.h"

namespace sy {

class MappedFile {
 public:
  // Opens and maps `path`. kNotFound when it does not exist, kIoError when it cannot be
  // opened, is not a regular file, or cannot be mapped; messages name the path and the
  // operating system's reason.
  static Expected<std::shared_ptr<const MappedFile>> Open(const std::filesystem::path& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile(std::filesystem::path path, const std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;  // null for an empty file
  size_t size_ = 0;
};

}  // namespace sy
