// The kernel sources embedded at build time (cmake/EmbedKernels.cmake) and the program
// text assembled from them.
#include "kernel_sources.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "switchyard/plugin_cpp.h"
#include "test_util.h"

namespace sy::opencl {
namespace {

const std::filesystem::path kKernelDir =
    std::filesystem::path(SY_SOURCE_DIR) / "plugins" / "opencl" / "kernels";

TEST(KernelSources, EveryFileIsEmbeddedByteForByte) {
  std::set<std::string> embedded;
  for (const EmbeddedKernelSource& s : EmbeddedKernelSources()) {
    embedded.insert(std::string(s.name));
    const std::filesystem::path file = kKernelDir / (std::string(s.name) + ".cl");
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    EXPECT_EQ(s.text, sy::test::ReadFile(file)) << s.name;
  }
  for (const auto& entry : std::filesystem::directory_iterator(kKernelDir)) {
    if (entry.path().extension() != ".cl") continue;
    EXPECT_TRUE(embedded.count(entry.path().stem().string()))
        << entry.path() << " is not embedded: add it to SY_OPENCL_KERNELS";
  }
  // Large files survive the split into several raw string literals.
  EXPECT_GT(KernelSource("elementwise").size(), 1000u);
}

TEST(KernelSources, UnknownNameIsAnError) {
  EXPECT_THROW(KernelSource("no_such_family"), sy_sdk::Error);
}

TEST(KernelSources, SlotDefines) {
  const std::string f16 = SlotDefines('A', DType::kF16);
  EXPECT_NE(f16.find("#define ST_A half"), std::string::npos) << f16;
  EXPECT_NE(f16.find("#define CT_A float"), std::string::npos) << f16;
  EXPECT_NE(f16.find("vload_half"), std::string::npos) << f16;
  const std::string i8 = SlotDefines('Y', DType::kI8);
  EXPECT_NE(i8.find("#define ST_Y char"), std::string::npos) << i8;
  EXPECT_NE(i8.find("#define CT_Y long"), std::string::npos) << i8;
  EXPECT_NE(i8.find("#define IS_FLOAT_Y 0"), std::string::npos) << i8;
  EXPECT_NE(SlotDefines('B', DType::kBF16).find("sy_float_to_bf16"), std::string::npos);
}

TEST(KernelSources, AssembledProgramEnablesFp64OnlyWhenAsked) {
  const std::string plain = AssembleProgram("elementwise", SlotDefines('A', DType::kF32), false);
  EXPECT_EQ(plain.find("cl_khr_fp64"), std::string::npos);
  EXPECT_NE(plain.find(std::string(KernelSource("common"))), std::string::npos);
  EXPECT_NE(plain.find(std::string(KernelSource("elementwise"))), std::string::npos);
  const std::string f64 = AssembleProgram("elementwise", SlotDefines('A', DType::kF64), true);
  EXPECT_EQ(f64.rfind("#pragma OPENCL EXTENSION cl_khr_fp64 : enable", 0), 0u);
}

}  // namespace
}  // namespace sy::opencl
