#include "switchyard/attrs.h"

#include <gtest/gtest.h>

namespace sy {
namespace {

TEST(Attrs, TypedAccessAndFallbacks) {
  Attrs a;
  a.Set("axis", int64_t{-1});
  a.Set("alpha", 0.5);
  a.Set("mode", std::string("DCR"));
  a.Set("perm", std::vector<int64_t>{1, 0});
  a.Set("scales", std::vector<double>{1.0, 2.0});
  a.Set("names", std::vector<std::string>{"a", "b"});
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(a.GetInt("axis"), -1);
  EXPECT_EQ(a.GetFloat("alpha"), 0.5);
  EXPECT_EQ(a.GetString("mode"), "DCR");
  EXPECT_EQ(a.GetInts("perm"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(a.GetFloats("scales"), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(a.GetStrings("names"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.GetInt("missing", 7), 7);
  EXPECT_EQ(a.GetInt("alpha", 9), 9);  // kind mismatch falls back
  EXPECT_TRUE(a.Erase("axis"));
  EXPECT_FALSE(a.Erase("axis"));
  EXPECT_FALSE(a.Has("axis"));
}

TEST(Attrs, IterationIsSortedByName) {
  Attrs a;
  a.Set("z", int64_t{1});
  a.Set("a", int64_t{2});
  a.Set("m", int64_t{3});
  std::string order;
  for (const auto& [name, value] : a) order += name;
  EXPECT_EQ(order, "amz");
}

TEST(Attrs, ToString) {
  EXPECT_EQ(AttrValueToString(int64_t{3}), "3");
  EXPECT_EQ(AttrValueToString(0.25), "0.25");
  EXPECT_EQ(AttrValueToString(std::string("tanh")), "\"tanh\"");
  EXPECT_EQ(AttrValueToString(std::vector<int64_t>{1, 2}), "[1, 2]");
  EXPECT_EQ(AttrValueToString(std::vector<double>{}), "[]");
  EXPECT_EQ(AttrValueToString(std::vector<std::string>{"x"}), "[\"x\"]");
  EXPECT_EQ(AttrKindName(AttrKind::kFloats), "floats");
}

}  // namespace
}  // namespace sy
