// Op cases of the broadcasting elementwise ops: arithmetic (add sub mul div pow max min
// mod), prelu, the comparisons, the logical and bitwise ops, bit_shift and where.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// The shapes of a and b in one broadcasting case.
struct Pair {
  std::string label;
  Shape a, b;
};

// Same shapes (2-D, 4-D, 1-D odd sizes), NumPy broadcasting in both directions and on
// both sides at once, scalars against tensors, and empty results.
const std::vector<Pair>& BinaryShapes() {
  static const std::vector<Pair> kPairs = {
      {"[3,5]", {3, 5}, {3, 5}},
      {"[1,1,7,13]", {1, 1, 7, 13}, {1, 1, 7, 13}},
      {"[1031]", {1031}, {1031}},
      {"broadcast [2,3]+[3]", {2, 3}, {3}},
      {"broadcast [3]+[2,3]", {3}, {2, 3}},
      {"broadcast [4,1,5]+[3,1]", {4, 1, 5}, {3, 1}},
      {"broadcast [1,5]+[4,1]", {1, 5}, {4, 1}},
      {"broadcast [2,1,3,1]+[5,1,4]", {2, 1, 3, 1}, {5, 1, 4}},
      {"scalar []+[]", {}, {}},
      {"scalar []+[3,5]", {}, {3, 5}},
      {"scalar [3,5]+[]", {3, 5}, {}},
      {"empty [0,4]+[4]", {0, 4}, {4}},
      {"empty [2,0]+[2,1]", {2, 0}, {2, 1}},
      {"empty []+[0]", {}, {0}},
  };
  return kPairs;
}

// Special values (floats): same shapes and a broadcast row.
const std::vector<Pair>& SpecialShapes() {
  static const std::vector<Pair> kPairs = {
      {"special [9,13]", {9, 13}, {9, 13}},
      {"special broadcast [9,13]+[13]", {9, 13}, {13}},
  };
  return kPairs;
}

// Value domains of a and b in the normal cases. Integer divisors (div, mod) are
// positive: integer division by zero is a run-time error. pow takes a positive base
// (a negative one gives NaN for most exponents) and a small exponent.
std::pair<Domain, Domain> Domains(std::string_view op, DType dtype) {
  if (op == "pow") return {Domain::kPositive, Domain::kSmall};
  if ((op == "div" || op == "mod") && !IsFloat(dtype)) return {Domain::kAny, Domain::kPositive};
  return {Domain::kAny, Domain::kAny};
}

void AddPairs(CaseBuilder& b, DType d, const std::vector<Pair>& pairs, Domain da, Domain db,
              const std::string& tag = "", const Attrs& attrs = {}) {
  for (const Pair& p : pairs) {
    b.Add(d, tag.empty() ? p.label : tag + " " + p.label, {In(d, p.a, da), In(d, p.b, db)}, attrs);
  }
}

void AddSpecial(CaseBuilder& b, DType d, const std::string& tag = "", const Attrs& attrs = {}) {
  if (!IsFloat(d)) return;
  for (const Pair& p : SpecialShapes()) {
    b.Special(d, tag.empty() ? p.label : tag + " " + p.label, {In(d, p.a), In(d, p.b)}, attrs);
  }
}

// add sub mul div pow max min mod, the comparisons and the logical ops.
std::vector<OpCase> BroadcastingCases(std::string_view op) {
  CaseBuilder b(op);
  const bool is_comparison = op == "equal" || op == "less" || op == "less_equal" ||
                             op == "greater" || op == "greater_equal";
  DType large = DType::kF32;
  for (DType d : SchemaDTypes(op)) {
    if (d == DType::kBool && SchemaDTypes(op).size() == 1) large = DType::kBool;
    const auto [da, db] = Domains(op, d);
    AddPairs(b, d, BinaryShapes(), da, db);
    AddSpecial(b, d);
    if (op == "mod") {
      // C fmod: the remainder takes the dividend's sign (negative dividends above).
      const Attrs fmod = A({{"fmod", I(1)}});
      b.Add(d, "fmod=1 [3,5]", {In(d, {3, 5}, da), In(d, {3, 5}, db)}, fmod);
      b.Add(d, "fmod=1 broadcast [4,1,5]+[3,1]", {In(d, {4, 1, 5}, da), In(d, {3, 1}, db)}, fmod);
      b.Add(d, "fmod=1 [1031]", {In(d, {1031}, da), In(d, {1031}, db)}, fmod);
      AddSpecial(b, d, "fmod=1", fmod);
    }
    if (is_comparison && IsInteger(d)) {
      // Values in [0, 4): mostly ties, the boundary of every comparison.
      b.Add(d, "ties [3,5]", {In(d, {3, 5}, Domain::kSmall), In(d, {3, 5}, Domain::kSmall)});
      b.Add(d, "ties [1031]", {In(d, {1031}, Domain::kSmall), In(d, {1031}, Domain::kSmall)});
    }
  }
  const auto [da, db] = Domains(op, large);
  if (op.substr(0, 8) == "bitwise_") large = DType::kI32;
  b.Large(large, "1M [1024,1025]", {In(large, {1024, 1025}, da), In(large, {1024, 1025}, db)});
  return b.Take();
}

// bit_shift, both directions: shifts in [0, 4) on every shape, then shifts of any value
// (mostly outside [0, width): 0, or -1 for a right shift of a negative).
std::vector<OpCase> BitShiftCases() {
  CaseBuilder b("bit_shift");
  for (const char* direction : {"left", "right"}) {
    const Attrs attrs = A({{"direction", Str(direction)}});
    for (DType d : SchemaDTypes("bit_shift")) {
      AddPairs(b, d, BinaryShapes(), Domain::kAny, Domain::kSmall, direction, attrs);
      b.Add(d, std::string(direction) + " any shift [3,5]",
            {In(d, {3, 5}, Domain::kAny), In(d, {3, 5}, Domain::kAny)}, attrs);
    }
  }
  b.Large(DType::kI32, "left 1M [1024,1025]",
          {In(DType::kI32, {1024, 1025}), In(DType::kI32, {1024, 1025}, Domain::kSmall)},
          A({{"direction", Str("left")}}));
  return b.Take();
}

// prelu: slope broadcasts to x (one way): per element, per channel, a scalar.
std::vector<OpCase> PreluCases() {
  CaseBuilder b("prelu");
  for (DType d : SchemaDTypes("prelu")) {
    const std::vector<Pair> pairs = {
        {"[3,5]", {3, 5}, {3, 5}},
        {"[1031]", {1031}, {1031}},
        {"slope [3,5]+[5]", {3, 5}, {5}},
        {"slope [3,5]+[1]", {3, 5}, {1}},
        {"slope [2,4,7,13]+[4,1,1]", {2, 4, 7, 13}, {4, 1, 1}},
        {"slope [1,1,7,13]+[]", {1, 1, 7, 13}, {}},
        {"scalar []+[]", {}, {}},
        {"empty [0,4]+[4]", {0, 4}, {4}},
    };
    AddPairs(b, d, pairs, Domain::kAny, Domain::kAny);
    b.Special(d, "special [9,13]", {In(d, {9, 13}), In(d, {9, 13})});
    b.Special(d, "special slope [9,13]+[13]", {In(d, {9, 13}), In(d, {13})});
  }
  b.Large(DType::kF32, "1M [1024,1025]+[1025]",
          {In(DType::kF32, {1024, 1025}), In(DType::kF32, {1025})});
  return b.Take();
}

// where(cond, a, b): cond bool; a and b of every dtype; all three broadcast.
std::vector<OpCase> WhereCases() {
  CaseBuilder b("where");
  struct Triple {
    std::string label;
    Shape cond, a, b;
  };
  const std::vector<Triple> triples = {
      {"[3,5]", {3, 5}, {3, 5}, {3, 5}},
      {"[1,1,7,13]", {1, 1, 7, 13}, {1, 1, 7, 13}, {1, 1, 7, 13}},
      {"[1031]", {1031}, {1031}, {1031}},
      {"broadcast [3],[2,3],[2,1]", {3}, {2, 3}, {2, 1}},
      {"broadcast [2,1],[3],[]", {2, 1}, {3}, {}},
      {"broadcast [4,1,5],[3,1],[1,5]", {4, 1, 5}, {3, 1}, {1, 5}},
      {"scalar [],[],[]", {}, {}, {}},
      {"scalar [],[3,5],[3,5]", {}, {3, 5}, {3, 5}},
      {"empty [0,4],[4],[0,4]", {0, 4}, {4}, {0, 4}},
      {"empty [2,0],[2,1],[]", {2, 0}, {2, 1}, {}},
  };
  const DType kB = DType::kBool;
  for (DType d : SchemaDTypes("where", 1)) {
    for (const Triple& t : triples) b.Add(d, t.label, {In(kB, t.cond), In(d, t.a), In(d, t.b)});
    if (IsFloat(d)) {
      b.Special(d, "special [9,13]", {In(kB, {9, 13}), In(d, {9, 13}), In(d, {9, 13})});
    }
  }
  b.Large(DType::kF32, "1M [1024,1025]",
          {In(kB, {1024, 1025}), In(DType::kF32, {1024, 1025}), In(DType::kF32, {1024, 1025})});
  return b.Take();
}

}  // namespace

std::vector<OpCase> BinaryCases(std::string_view op) {
  if (op == "prelu") return PreluCases();
  if (op == "where") return WhereCases();
  if (op == "bit_shift") return BitShiftCases();
  static constexpr std::string_view kOps[] = {
      "add", "sub",   "mul",         "div",        "pow",        "max",           "min",
      "mod", "equal", "less",        "less_equal", "greater",    "greater_equal", "and",
      "or",  "xor",   "bitwise_and", "bitwise_or", "bitwise_xor"};
  for (std::string_view name : kOps) {
    if (name == op) return BroadcastingCases(op);
  }
  return {};
}

}  // namespace sy::conformance::detail
