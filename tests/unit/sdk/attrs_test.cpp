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
  // Long values are cut: a model's 3-million-entry attribute made a 9 MB message.
  std::vector<int64_t> many(3000000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i);
  EXPECT_EQ(AttrValueToString(many),
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, ..., 2999998, 2999999] "
            "(3000000 entries)");
  EXPECT_EQ(AttrValueToString(std::vector<int64_t>(16, 7)),
            "[7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]");
  const std::string text = AttrValueToString(std::string(5000, 'a'));
  EXPECT_EQ(text, "\"" + std::string(200, 'a') + "...\" (5000 bytes)");
  EXPECT_EQ(AttrKindName(AttrKind::kFloats), "floats");
}

}  // namespace
}  // namespace sy
