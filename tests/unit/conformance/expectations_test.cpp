// The expectations file: entries with globs and reasons, comments, and errors that name
// the line.
#include "conformance/expectations.h"

#include <gtest/gtest.h>

namespace sy::conformance {
namespace {

TEST(ExpectationsTest, MatchesOpAndLabelGlobs) {
  Expected<Expectations> e = Expectations::Parse(
      "# comment\n\n* f16*: runs f32 only\nconv f32 dilation *: not yet: ticket 12\r\n", "x.txt");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->size(), 2u);
  const Expectation* half = e->Find("add", "f16 [3,5]");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->reason, "runs f32 only");
  EXPECT_EQ(half->line, 3);
  const Expectation* conv = e->Find("conv", "f32 dilation 2");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->reason, "not yet: ticket 12");  // only the first ": " separates
  EXPECT_EQ(e->Find("conv", "f32 [3,5]"), nullptr);
  EXPECT_EQ(e->Find("add", "f32 [3,5]"), nullptr);
}

TEST(ExpectationsTest, MalformedLinesNameTheLine) {
  Expected<Expectations> e = Expectations::Parse("add f32: ok\nrelu\n", "x.txt");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("x.txt:2: expected"), std::string::npos)
      << e.status().message();
  EXPECT_FALSE(Expectations::Parse("add f32:   \n", "x.txt").ok());
  EXPECT_FALSE(Expectations::Load("/nonexistent/expectations.txt").ok());
}

}  // namespace
}  // namespace sy::conformance
