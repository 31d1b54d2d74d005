// Compiled OpenCL programs of one context (one device), cached in memory and on disk.
//
// A program is identified by its full source and build options. In memory, each is
// built once per context and shared by every executable. On disk, its binary
// (CL_PROGRAM_BINARIES) is stored under a file named by a 64-bit hash of (device name,
// vendor, driver version, device version, platform, platform version, source, options);
// the file repeats the whole key, which is compared on load, so a hash collision or a
// driver update only means a rebuild. The directory is SWITCHYARD_OPENCL_CACHE, else
// $XDG_CACHE_HOME/switchyard/opencl, else ~/.cache/switchyard/opencl. A directory that
// cannot be created or written costs one warning on stderr per cache and never fails a
// build; a file that does not load is rebuilt from source.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cl_runtime.h"

namespace sy::opencl {

struct ProgramCacheStats {
  int memory_hits = 0;    // Get() answered from memory
  int disk_loads = 0;     // built from a binary on disk
  int source_builds = 0;  // compiled from source
  int disk_writes = 0;    // binaries written to disk
};

class ProgramCache {
 public:
  // `directory` empty: DefaultDirectory(). `identity`: the device's, see Device::Identity.
  ProgramCache(cl_context context, cl_device_id device, std::string identity,
               std::string directory = "");
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // The built program for `source` and `options`, owned by the cache (valid until it is
  // destroyed). Throws sy_sdk::Error (SY_ERROR_INTERNAL) with the build log when the
  // source does not compile. Safe to call from several threads.
  cl_program Get(const std::string& source, const std::string& options);

  ProgramCacheStats stats() const;
  const std::string& directory() const { return directory_; }

  // The location from the environment, as documented above ("" when none applies).
  static std::string DefaultDirectory();
  // FNV-1a, 64 bits.
  static uint64_t Hash(std::string_view text);

 private:
  cl_program LoadFromDisk(const std::string& key, const std::string& path,
                          const std::string& options);
  void StoreToDisk(cl_program program, const std::string& key, const std::string& path);
  void Warn(const std::string& message);

  cl_context context_;
  cl_device_id device_;
  std::string identity_;
  std::string directory_;
  mutable std::mutex mutex_;
  std::map<std::string, UniqueProgram> programs_;  // key: options + '\0' + source
  ProgramCacheStats stats_;
  bool warned_ = false;
};

}  // namespace sy::opencl
