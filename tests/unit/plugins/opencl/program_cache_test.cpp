// The program cache: built once per context, loaded from disk by a second context,
// keyed by source and options, robust to corrupt files and unwritable directories.
#include "program_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "opencl_test_util.h"
#include "test_util.h"

namespace sy::opencl {
namespace {

namespace fs = std::filesystem;

std::string Source(int value) {
  return "__kernel void fill(__global int* p) { p[get_global_id(0)] = " + std::to_string(value) +
         "; }\n";
}

int CountBinaries(const fs::path& dir) {
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().extension() == ".clbin";
  return n;
}

// Runs kernel "fill" of `program` over 4 ints and returns the first.
int RunFill(Device& device, cl_program program) {
  cl_int err = CL_SUCCESS;
  UniqueKernel kernel(clCreateKernel(program, "fill", &err));
  EXPECT_EQ(err, CL_SUCCESS);
  ClBuffer buffer(device, 16);
  cl_mem mem = buffer.mem();
  EXPECT_EQ(clSetKernelArg(kernel.get(), 0, sizeof mem, &mem), CL_SUCCESS);
  const size_t global = 4;
  EXPECT_EQ(clEnqueueNDRangeKernel(device.queue.get(), kernel.get(), 1, nullptr, &global, nullptr,
                                   0, nullptr, nullptr),
            CL_SUCCESS);
  int out[4] = {};
  buffer.CopyToHost(0, out, sizeof out);
  return out[3];
}

TEST(ProgramCache, SecondContextLoadsTheBinaryFromDisk) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  const std::string cache = (dir / "cache").string();
  {
    auto first = test::OpenFirstDevice(cache);
    cl_program p = first->programs->Get(Source(42), "");
    EXPECT_EQ(RunFill(*first, p), 42);
    EXPECT_EQ(first->programs->Get(Source(42), ""), p);  // in memory
    const ProgramCacheStats s = first->programs->stats();
    EXPECT_EQ(s.source_builds, 1);
    EXPECT_EQ(s.memory_hits, 1);
    EXPECT_EQ(s.disk_loads, 0);
    EXPECT_EQ(s.disk_writes, 1);
  }
  EXPECT_EQ(CountBinaries(cache), 1);
  auto second = test::OpenFirstDevice(cache);  // a new context
  cl_program p = second->programs->Get(Source(42), "");
  EXPECT_EQ(RunFill(*second, p), 42);
  const ProgramCacheStats s = second->programs->stats();
  EXPECT_EQ(s.disk_loads, 1);
  EXPECT_EQ(s.source_builds, 0);
}

TEST(ProgramCache, SourceAndOptionsAreBothPartOfTheKey) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  auto device = test::OpenFirstDevice(dir.path().string());
  cl_program a = device->programs->Get(Source(1), "");
  cl_program b = device->programs->Get(Source(2), "");
  cl_program c = device->programs->Get(Source(1), "-cl-std=CL1.2");
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(RunFill(*device, a), 1);
  EXPECT_EQ(RunFill(*device, b), 2);
  EXPECT_EQ(device->programs->stats().source_builds, 3);
  EXPECT_EQ(CountBinaries(dir.path()), 3);
}

TEST(ProgramCache, CorruptOrForeignFilesAreRebuilt) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  {
    auto device = test::OpenFirstDevice(dir.path().string());
    device->programs->Get(Source(7), "");
  }
  ASSERT_EQ(CountBinaries(dir.path()), 1);
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "garbage";
  }
  auto device = test::OpenFirstDevice(dir.path().string());
  EXPECT_EQ(RunFill(*device, device->programs->Get(Source(7), "")), 7);
  EXPECT_EQ(device->programs->stats().disk_loads, 0);
  EXPECT_EQ(device->programs->stats().source_builds, 1);
  // And the file was rewritten: a third context loads it.
  auto third = test::OpenFirstDevice(dir.path().string());
  third->programs->Get(Source(7), "");
  EXPECT_EQ(third->programs->stats().disk_loads, 1);
}

TEST(ProgramCache, UnwritableDirectoryWarnsOnceAndStillWorks) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  // A directory below a regular file cannot be created, even by root.
  sy::test::WriteFile(dir / "file", "x");
  const std::string cache = (dir / "file" / "cache").string();
  auto device = test::OpenFirstDevice(cache);
  testing::internal::CaptureStderr();
  cl_program a = device->programs->Get(Source(3), "");
  cl_program b = device->programs->Get(Source(4), "");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(RunFill(*device, a), 3);
  EXPECT_EQ(RunFill(*device, b), 4);
  EXPECT_NE(err.find("warning"), std::string::npos) << err;
  EXPECT_NE(err.find(cache), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "warned more than once: " << err;
  EXPECT_EQ(device->programs->stats().disk_writes, 0);
}

TEST(ProgramCache, BuildErrorsCarryTheBuildLog) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  auto device = test::OpenFirstDevice(dir.path().string());
  try {
    device->programs->Get("__kernel void broken(__global int* p) { p[0] = undeclared_name; }", "");
    FAIL() << "expected a build error";
  } catch (const sy_sdk::Error& e) {
    EXPECT_EQ(e.code(), SY_ERROR_INTERNAL);
    const std::string what = e.what();
    EXPECT_NE(what.find("building an OpenCL program failed"), std::string::npos) << what;
    EXPECT_NE(what.find("undeclared_name"), std::string::npos) << what;
  }
  EXPECT_EQ(CountBinaries(dir.path()), 0);
}

TEST(ProgramCache, DefaultDirectoryFromTheEnvironment) {
  const auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto cache = saved("SWITCHYARD_OPENCL_CACHE"), xdg = saved("XDG_CACHE_HOME"),
             home = saved("HOME");
  setenv("SWITCHYARD_OPENCL_CACHE", "/a/b", 1);
  setenv("XDG_CACHE_HOME", "/x", 1);
  setenv("HOME", "/h", 1);
  EXPECT_EQ(ProgramCache::DefaultDirectory(), "/a/b");
  unsetenv("SWITCHYARD_OPENCL_CACHE");
  EXPECT_EQ(ProgramCache::DefaultDirectory(), "/x/switchyard/opencl");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(ProgramCache::DefaultDirectory(), "/h/.cache/switchyard/opencl");
  const auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v) {
      setenv(name, v->c_str(), 1);
    } else {
      unsetenv(name);
    }
  };
  restore("SWITCHYARD_OPENCL_CACHE", cache);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

}  // namespace
}  // namespace sy::opencl
