#include "program_cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

namespace sy::opencl {
namespace {

constexpr char kMagic[] = "SWITCHYARD-OPENCL-PROGRAM-1\n";

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return log;
}

void AppendU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

bool ReadU64(const std::string& in, size_t& pos, uint64_t& v) {
  if (in.size() - pos < 8 || pos > in.size()) return false;
  v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

}  // namespace

uint64_t ProgramCache::Hash(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string ProgramCache::DefaultDirectory() {
  std::string dir = Env("SWITCHYARD_OPENCL_CACHE");
  if (!dir.empty()) return dir;
  const std::string xdg = Env("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/switchyard/opencl";
  const std::string home = Env("HOME");
  if (!home.empty()) return home + "/.cache/switchyard/opencl";
  return "";
}

ProgramCache::ProgramCache(cl_context context, cl_device_id device, std::string identity,
                           std::string directory)
    : context_(context),
      device_(device),
      identity_(std::move(identity)),
      directory_(directory.empty() ? DefaultDirectory() : std::move(directory)) {}

ProgramCache::~ProgramCache() = default;

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void ProgramCache::Warn(const std::string& message) {
  if (warned_) return;
  warned_ = true;
  std::cerr << "switchyard opencl: warning: " << message
            << "; kernels are compiled from source instead (set SWITCHYARD_OPENCL_CACHE to a "
               "writable directory)\n";
}

cl_program ProgramCache::Get(const std::string& source, const std::string& options) {
  // One lock over the whole build: concurrent prepares of the same program build it
  // once, and OpenCL compilers are not all re-entrant.
  std::lock_guard<std::mutex> lock(mutex_);
  std::string memory_key = options;
  memory_key.push_back('\0');
  memory_key += source;
  auto it = programs_.find(memory_key);
  if (it != programs_.end()) {
    ++stats_.memory_hits;
    return it->second.get();
  }

  const std::string key = identity_ + "\noptions=" + options + "\nsource=\n" + source;
  std::string path;
  if (!directory_.empty()) {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.clbin", static_cast<unsigned long long>(Hash(key)));
    path = directory_ + "/" + name;
    if (cl_program loaded = LoadFromDisk(key, path, options)) {
      ++stats_.disk_loads;
      programs_.emplace(memory_key, UniqueProgram(loaded));
      return loaded;
    }
  }

  cl_int err = CL_SUCCESS;
  const char* text = source.c_str();
  const size_t length = source.size();
  UniqueProgram program(clCreateProgramWithSource(context_, 1, &text, &length, &err));
  CheckCl(err, "clCreateProgramWithSource");
  err = clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    throw sy_sdk::Error(SY_ERROR_INTERNAL, "building an OpenCL program failed (" +
                                               ClErrorName(err) + ", options \"" + options +
                                               "\"): " + BuildLog(program.get(), device_));
  }
  ++stats_.source_builds;
  if (!path.empty()) StoreToDisk(program.get(), key, path);
  cl_program result = program.get();
  programs_.emplace(memory_key, std::move(program));
  return result;
}

cl_program ProgramCache::LoadFromDisk(const std::string& key, const std::string& path,
                                      const std::string& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string data = buffer.str();
  const size_t magic_len = sizeof kMagic - 1;
  if (data.compare(0, magic_len, kMagic) != 0) return nullptr;
  size_t pos = magic_len;
  uint64_t key_len = 0, bin_len = 0;
  if (!ReadU64(data, pos, key_len) || data.size() - pos < key_len) return nullptr;
  if (data.compare(pos, key_len, key) != 0 || key_len != key.size()) return nullptr;
  pos += key_len;
  if (!ReadU64(data, pos, bin_len) || data.size() - pos != bin_len || bin_len == 0) return nullptr;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data() + pos);
  const size_t size = static_cast<size_t>(bin_len);
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  UniqueProgram program(
      clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &status, &err));
  if (err != CL_SUCCESS || status != CL_SUCCESS) return nullptr;
  if (clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    return nullptr;
  }
  return program.release();  // the caller keeps it in programs_
}

void ProgramCache::StoreToDisk(cl_program program, const std::string& key,
                               const std::string& path) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return;  // this driver keeps no binary: nothing to cache
  }
  std::vector<unsigned char> binary(size);
  unsigned char* pointer = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr) !=
      CL_SUCCESS) {
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) {
    Warn("cannot create the OpenCL program cache directory " + directory_ + ": " + ec.message());
    return;
  }
  std::string data(kMagic, sizeof kMagic - 1);
  AppendU64(data, key.size());
  data += key;
  AppendU64(data, size);
  data.append(reinterpret_cast<const char*>(binary.data()), size);
  // Write a temporary file and rename it: readers never see a partial file, and
  // concurrent writers of the same program (several processes) both succeed.
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." +
                           std::to_string(reinterpret_cast<uintptr_t>(this));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(data.data(), static_cast<std::streamsize>(data.size())) ||
        !out.flush()) {
      out.close();
      std::filesystem::remove(temp, ec);
      Warn("cannot write to the OpenCL program cache directory " + directory_);
      return;
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    Warn("cannot write to the OpenCL program cache directory " + directory_);
    return;
  }
  ++stats_.disk_writes;
}

}  // namespace sy::opencl
