// The canonical form of dim expressions (ir/dim_poly.h). Expected forms are written by
// hand from the algebra: terms by degree, then by name, the constant last.
#include "ir/dim_poly.h"

#include <gtest/gtest.h>

#include <limits>

namespace sy {
namespace {

// The canonical text of a parsed expression.
std::string Canon(DimAlgebra& algebra, std::string_view text) {
  Expected<DimExpr> e = DimExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? algebra.FromExpr(*e).ToString() : "";
}

DimPoly Poly(DimAlgebra& algebra, std::string_view text) {
  Expected<DimExpr> e = DimExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? algebra.FromExpr(*e) : DimPoly();
}

TEST(DimPoly, PolynomialsHaveOneForm) {
  DimAlgebra a;
  EXPECT_EQ(Canon(a, "seq*batch"), "batch*seq");
  EXPECT_EQ(Canon(a, "seq+past"), "past+seq");
  EXPECT_EQ(Canon(a, "seq+seq"), "2*seq");
  EXPECT_EQ(Canon(a, "(batch+1)*(batch-1)"), "batch*batch-1");
  EXPECT_EQ(Canon(a, "seq-seq"), "0");
  EXPECT_EQ(Canon(a, "3*seq*4-seq"), "11*seq");
  EXPECT_EQ(Canon(a, "1-seq"), "-seq+1");
  EXPECT_EQ(Canon(a, "batch*seq*768"), "768*batch*seq");
  EXPECT_EQ(Canon(a, "7"), "7");
  EXPECT_EQ(Poly(a, "seq*batch"), Poly(a, "batch*seq"));
}

TEST(DimPoly, ExactQuotientsSimplify) {
  DimAlgebra a;
  EXPECT_EQ(Canon(a, "(2*seq)/2"), "seq");
  EXPECT_EQ(Canon(a, "seq/1"), "seq");
  EXPECT_EQ(Canon(a, "(4*seq+8)/4"), "seq+2");
  EXPECT_EQ(Canon(a, "(batch*seq*768)/(batch*12)"), "64*seq");
  EXPECT_EQ(Canon(a, "(6*seq)%3"), "0");
  EXPECT_EQ(Canon(a, "7/2"), "3");
  EXPECT_EQ(Canon(a, "0-7/2"), "-3");   // truncates toward zero, like ONNX Div
  EXPECT_EQ(Canon(a, "(0-7)%3"), "2");  // takes the divisor's sign, like ONNX Mod
  EXPECT_EQ(Canon(a, "min(seq,seq)"), "seq");
  EXPECT_EQ(Canon(a, "max(seq,seq+1)"), "seq+1");
  EXPECT_EQ(Canon(a, "min(past,past+seq)"), "past");
  EXPECT_EQ(Canon(a, "min(3,5)"), "3");
}

TEST(DimPoly, OpaqueTermsAreCanonicalAtoms) {
  DimAlgebra a;
  EXPECT_EQ(Canon(a, "seq/2"), "seq/2");
  EXPECT_EQ(Poly(a, "seq/2"), Poly(a, "(seq*1)/2"));
  EXPECT_EQ(Poly(a, "(seq+past)/2"), Poly(a, "(past+seq)/2"));
  EXPECT_EQ(Canon(a, "(seq+1)/2*2"), "2*((seq+1)/2)");
  EXPECT_EQ(Canon(a, "seq/2+seq/2"), "2*(seq/2)");
  EXPECT_EQ(Poly(a, "min(batch,seq)"), Poly(a, "min(seq,batch)"));
  EXPECT_EQ(Canon(a, "max(seq,4)"), "max(4,seq)");
  EXPECT_EQ(Canon(a, "seq%3"), "seq%3");
  EXPECT_TRUE(Poly(a, "seq/2").HasOpaque());
  EXPECT_FALSE(Poly(a, "seq*batch+2").HasOpaque());
  // An unresolved dim(V, A) is an atom of its own; a resolved one is what it resolves to.
  EXPECT_EQ(Canon(a, "dim(3,1)*2"), "2*dim(3,1)");
  Expected<DimExpr> e = DimExpr::Parse("dim(3,0)*dim(3,1)");
  ASSERT_TRUE(e.ok());
  const DimPoly resolved = a.FromExpr(*e, [](int32_t, int64_t axis) {
    return std::optional<DimPoly>(DimPoly::Atom(axis == 0 ? "batch" : "seq"));
  });
  EXPECT_EQ(resolved.ToString(), "batch*seq");
}

TEST(DimPoly, EachUnknownIsFresh) {
  DimAlgebra a;
  const DimPoly x = a.FromExpr(DimExpr::Unknown());
  const DimPoly y = a.FromExpr(DimExpr::Unknown());
  EXPECT_EQ(x.ToString(), "?");
  EXPECT_NE(x, y);
  EXPECT_EQ(Compare(x, x), DimOrder::kEqual);
  EXPECT_EQ(Compare(x, y), DimOrder::kUnknown);
  // x + 1 and x differ whatever x is.
  EXPECT_EQ(Compare(a.Plus(x, 1), x), DimOrder::kDifferent);
  EXPECT_EQ(a.Plus(x, 1).ToString(), "?+1");
}

TEST(DimPoly, Compare) {
  DimAlgebra a;
  EXPECT_EQ(Compare(Poly(a, "batch*seq"), Poly(a, "seq*batch")), DimOrder::kEqual);
  EXPECT_EQ(Compare(Poly(a, "(2*seq)/2"), Poly(a, "seq")), DimOrder::kEqual);
  // Distinct symbols are independent sizes.
  EXPECT_EQ(Compare(Poly(a, "seq"), Poly(a, "seq2")), DimOrder::kDifferent);
  EXPECT_EQ(Compare(Poly(a, "seq"), Poly(a, "5")), DimOrder::kDifferent);
  EXPECT_EQ(Compare(Poly(a, "batch"), Poly(a, "2*batch")), DimOrder::kDifferent);
  EXPECT_EQ(Compare(Poly(a, "4"), Poly(a, "5")), DimOrder::kDifferent);
  // Opaque terms leave it open, unless the difference is a constant.
  EXPECT_EQ(Compare(Poly(a, "seq/2"), Poly(a, "3")), DimOrder::kUnknown);
  EXPECT_EQ(Compare(Poly(a, "seq/2"), Poly(a, "past")), DimOrder::kUnknown);
  EXPECT_EQ(Compare(Poly(a, "seq/2+1"), Poly(a, "seq/2")), DimOrder::kDifferent);
  EXPECT_EQ(Compare(Poly(a, "seq/2"), Poly(a, "seq/2")), DimOrder::kEqual);
  EXPECT_EQ(Compare(Poly(a, "min(seq,8)"), Poly(a, "seq")), DimOrder::kUnknown);
}

TEST(DimPoly, DivideExact) {
  DimAlgebra a;
  std::optional<DimPoly> q = DivideExact(Poly(a, "6*batch*seq+3*batch"), Poly(a, "3*batch"));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->ToString(), "2*seq+1");
  EXPECT_FALSE(DivideExact(Poly(a, "batch*seq"), Poly(a, "5")));
  EXPECT_FALSE(DivideExact(Poly(a, "seq+1"), Poly(a, "seq")));
  EXPECT_FALSE(DivideExact(Poly(a, "seq"), Poly(a, "0")));
  EXPECT_FALSE(DivideExact(Poly(a, "seq*seq-seq"), Poly(a, "seq-1")));  // not one term
}

TEST(DimPoly, OverflowGivesUp) {
  DimAlgebra a;
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(Add(DimPoly(big), DimPoly(1)));
  EXPECT_FALSE(Mul(a.Times(DimPoly::Atom("seq"), big), DimPoly(2)));
  // The algebra puts an unknown in its place: an overflowed size equals nothing else.
  const DimPoly r = a.Plus(DimPoly(big), DimPoly(1));
  EXPECT_TRUE(r.HasOpaque());
  EXPECT_EQ(r.ToString(), "?");
  EXPECT_EQ(Compare(r, DimPoly(0)), DimOrder::kUnknown);
  // Division by zero stays an atom (evaluation reports it).
  EXPECT_EQ(Canon(a, "seq/0"), "seq/0");
  // An opaque term built from a long form is a fresh atom rather than a longer key.
  DimPoly sum = 0;
  for (int i = 0; i < 100; ++i) sum = a.Plus(sum, DimPoly::Atom("size_" + std::to_string(i)));
  EXPECT_EQ(sum.terms().size(), 100u);
  EXPECT_EQ(a.Div(sum, 7).ToString(), "?");
}

}  // namespace
}  // namespace sy
