// Value names as file names and as printed text: nothing a model names its values can
// leave the folder, hide a file or drive the terminal, and distinct names stay distinct.
#include "switchyard/value_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace sy {
namespace {

TEST(ValueFileName, PlainNamesAreKept) {
  EXPECT_EQ(ValueFileName("logits"), "logits.npy");
  EXPECT_EQ(ValueFileName("input.1"), "input.1.npy");
  EXPECT_EQ(ValueFileName("onnx::MatMul_7"), "onnx::MatMul_7.npy");
  EXPECT_EQ(ValueFileName("gr\xc3\xb6\xc3\x9f"
                          "e"),
            "gr\xc3\xb6\xc3\x9f"
            "e.npy");  // UTF-8 stays
}

TEST(ValueFileName, NothingLeavesTheFolderOrHides) {
  EXPECT_EQ(ValueFileName("/abs/path"), "%2Fabs%2Fpath.npy");
  EXPECT_EQ(ValueFileName("../../x"), "%2E.%2F..%2Fx.npy");
  EXPECT_EQ(ValueFileName(".."), "%2E..npy");
  EXPECT_EQ(ValueFileName(".hidden"), "%2Ehidden.npy");
  EXPECT_EQ(ValueFileName("a\\b"), "a%5Cb.npy");
  EXPECT_EQ(ValueFileName("line\nbreak\x1b"), "line%0Abreak%1B.npy");
  EXPECT_EQ(ValueFileName("100%"), "100%25.npy");
  EXPECT_EQ(ValueFileName(""), "%.npy");
  EXPECT_EQ(ValueFileName(std::string("nul\0x", 5)), "nul%00x.npy");
  for (const char* name : {"/abs/path", "../../x", "..", ".", "a/b/../../c"}) {
    const std::string file = ValueFileName(name);
    EXPECT_EQ(file.find('/'), std::string::npos) << name;
    EXPECT_NE(file.front(), '.') << name;
  }
}

TEST(ValueFileName, DistinctNamesGiveDistinctFiles) {
  const char* names[] = {"a/b", "a%2Fb", "a%b", "a%25b", ".x", "%2Ex", "", "%", "%25"};
  std::set<std::string> files;
  for (const char* n : names) files.insert(ValueFileName(n));
  EXPECT_EQ(files.size(), std::size(names));
}

TEST(PrintableName, ControlCharactersAreEscaped) {
  EXPECT_EQ(PrintableName("logits"), "logits");
  EXPECT_EQ(PrintableName("x\ny\tz\r"), "x\\ny\\tz\\r");
  EXPECT_EQ(PrintableName("red\x1b[31m"), "red\\x1B[31m");
  EXPECT_EQ(PrintableName("a\\b"), "a\\\\b");
  EXPECT_EQ(PrintableName("\x7f"), "\\x7F");
  EXPECT_EQ(PrintableName("gr\xc3\xb6\xc3\x9f"
                          "e"),
            "gr\xc3\xb6\xc3\x9f"
            "e");
}

}  // namespace
}  // namespace sy
