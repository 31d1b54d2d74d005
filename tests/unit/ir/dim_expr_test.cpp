// DimExpr: hand-derived values of the text form, the constant simplification and
// evaluation (docs/dynamic-shapes.md).
#include "switchyard/dim_expr.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

DimExpr P(std::string_view text) {
  Expected<DimExpr> e = DimExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? *e : DimExpr(-999);
}

int64_t Eval(std::string_view text, const std::map<std::string, int64_t, std::less<>>& symbols) {
  Expected<int64_t> v = P(text).Evaluate({&symbols, nullptr});
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : -999;
}

TEST(DimExpr, ParsesAndPrintsBack) {
  for (const char* text : {"batch", "seq*12", "past+seq", "batch*seq/4", "dim(17,1)", "max(seq,1)",
                           "min(a,b+1)", "a-(b-c)", "(a+b)*c", "a%3", "?"}) {
    EXPECT_EQ(P(text).ToString(), text);
  }
  EXPECT_EQ(P(" batch * ( seq ) ").ToString(), "batch*seq");
  EXPECT_EQ(P("a - b - c").ToString(), "a-b-c");  // left-associative: no brackets
}

TEST(DimExpr, FoldsConstants) {
  EXPECT_TRUE(P("2*3+1").is_const());
  EXPECT_EQ(P("2*3+1").value(), 7);
  EXPECT_EQ(P("seq*1").ToString(), "seq");
  EXPECT_EQ(P("0+seq").ToString(), "seq");
  EXPECT_EQ(P("seq/1").ToString(), "seq");
  EXPECT_EQ(P("-3").value(), -3);
  // Every constant prints as text that parses back to it, the most negative included.
  const DimExpr lowest = P("0-9223372036854775807-1");
  ASSERT_TRUE(lowest.is_const());
  EXPECT_EQ(P(lowest.ToString()).value(), lowest.value());
  EXPECT_EQ(P((DimExpr::Symbol("a") + lowest).ToString()).ToString(),
            (DimExpr::Symbol("a") + lowest).ToString());
  EXPECT_EQ((DimExpr::Symbol("a") * 2 + 0).ToString(), "a*2");
  // An undefined constant operation stays in the tree so that evaluation reports it.
  EXPECT_FALSE(P("1/0").is_const());
}

TEST(DimExpr, EvaluatesLikeOnnxIntegerOps) {
  const std::map<std::string, int64_t, std::less<>> s{{"a", 7}, {"b", -2}, {"c", 3}};
  EXPECT_EQ(Eval("a*c-1", s), 20);
  EXPECT_EQ(Eval("a/c", s), 2);
  EXPECT_EQ(Eval("(0-a)/c", s), -2);  // truncates toward zero, like ONNX Div on integers
  EXPECT_EQ(Eval("a%b", s), -1);      // the divisor's sign, like ONNX Mod
  EXPECT_EQ(Eval("(0-a)%c", s), 2);
  EXPECT_EQ(Eval("max(a,c)+min(a,c)", s), 10);
  std::map<std::string, int64_t, std::less<>> none;
  auto dims = [](int32_t id, int64_t axis) -> Expected<int64_t> { return id * 10 + axis; };
  Expected<int64_t> v = P("dim(4,2)*2").Evaluate({&none, dims});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 84);
}

TEST(DimExpr, EvaluationErrorsNameTheExpression) {
  const std::map<std::string, int64_t, std::less<>> s{{"a", 0}, {"big", int64_t{1} << 62}};
  SY_EXPECT_ERROR(P("4/a").Evaluate({&s, nullptr}), "4/a is 4 / 0: division by zero");
  SY_EXPECT_ERROR(P("big*4").Evaluate({&s, nullptr}), "out of the int64 range");
  SY_EXPECT_ERROR(P("seq+1").Evaluate({&s, nullptr}), "dim symbol 'seq' has no value");
  SY_EXPECT_ERROR(P("?").Evaluate({&s, nullptr}), "an unknown dim '?' cannot be computed");
  SY_EXPECT_ERROR(P("dim(3,0)").Evaluate({&s, nullptr}), "no value dims to read");
}

TEST(DimExpr, ParseErrorsSayWhere) {
  SY_EXPECT_ERROR(DimExpr::Parse("seq+"), "dim expression \"seq+\": unexpected end at offset 4");
  SY_EXPECT_ERROR(DimExpr::Parse("seq$2"), "unexpected '$' at offset 3");
  SY_EXPECT_ERROR(DimExpr::Parse("f(2)"), "unknown function 'f'");
  SY_EXPECT_ERROR(DimExpr::Parse("dim(1)"), "expected ',' in dim(VALUE, AXIS)");
  SY_EXPECT_ERROR(DimExpr::Parse("99999999999999999999"), "integer out of range");
  SY_EXPECT_ERROR(DimExpr::Parse("?+1"), "expected nothing after '?'");
  SY_EXPECT_ERROR(DimExpr::Parse(std::string(100, '(') + "1" + std::string(100, ')')),
                  "nesting deeper than 64");
  SY_EXPECT_ERROR(DimExpr::Parse(std::string(129, 'a')), "a symbol longer than 128 characters");
  std::string chain = "a";
  while (chain.size() < 2000) chain += "+a";
  SY_EXPECT_ERROR(DimExpr::Parse(chain), "characters long (at most 1024)");
}

TEST(DimExpr, KnowsWhatIsNeverNegative) {
  EXPECT_TRUE(P("batch*seq+1").NonNegative());
  EXPECT_TRUE(P("dim(3,1)/2").NonNegative());
  EXPECT_FALSE(P("seq-1").NonNegative());
  EXPECT_FALSE(P("?").NonNegative());
  EXPECT_TRUE(P("seq").SameAs(P("seq*1")));
  EXPECT_FALSE(P("?").SameAs(P("?")));  // two unknown dims need not be equal
}

TEST(DimExpr, DepthAndSizeCountSharedSubtreesEachTime) {
  DimExpr e = DimExpr::Symbol("a");
  EXPECT_EQ(e.depth(), 1u);
  for (int i = 0; i < 10; ++i) e = e * e;  // shared, but printed (and walked) 2^10 times
  EXPECT_EQ(e.depth(), 11u);
  EXPECT_EQ(e.size(), 2047u);
  for (int i = 0; i < 40; ++i) e = e * e;
  EXPECT_EQ(e.size(), uint32_t{1} << 31);  // saturated
}

TEST(DimExpr, SymbolNames) {
  EXPECT_TRUE(IsSymbolName("batch_size"));
  EXPECT_TRUE(IsSymbolName("past.len"));
  EXPECT_FALSE(IsSymbolName("2x"));
  EXPECT_FALSE(IsSymbolName("a b"));
  EXPECT_FALSE(IsSymbolName("dim"));
  EXPECT_FALSE(IsSymbolName(""));
}

}  // namespace
}  // namespace sy
