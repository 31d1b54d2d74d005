// Writing a file so that readers see the old contents or the new, never a mix: the bytes
// go to a fresh temporary file in the same folder (created with O_EXCL), which is synced
// and renamed over `path`. A rename replaces the name, so a symbolic or hard link planted
// where the file goes is replaced, never written through, and concurrent writers leave
// one whole file. Used by the safetensors writer and the .npy writer.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

#include "switchyard/status.h"

namespace sy::format {

// Calls write(fd) on the temporary file (it returns 0 or an errno value), then puts the
// file in place. Every failure removes the temporary file and names `path` and the step.
Status WriteFileAtomically(const std::filesystem::path& path,
                           const std::function<int(int fd)>& write);

// Writes `size` bytes at `data` to `fd` whole: 0, or the errno value of the failure.
int WriteAll(int fd, const std::byte* data, size_t size);

}  // namespace sy::format
