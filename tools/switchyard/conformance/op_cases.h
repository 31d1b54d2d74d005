// The op cases of the conformance suite: for every op of the catalogue, the input types,
// value domains and attributes of each case, and the tolerance a plugin's result must
// meet against cpu-ref. The runner (conformance_runner.cpp) builds a one-node graph per
// case, infers its outputs with the op's schema, fills inputs from a seeded generator
// and compares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/graph.h"
#include "switchyard/shape.h"

namespace sy::conformance {

// How the values of one input are drawn (deterministically, from the case's seed).
enum class Domain : uint8_t {
  kAny,               // floats uniform in [-2, 2); integers in [-20, 20]; bool 0/1
  kPositive,          // floats in [0.1, 4); integers in [1, 20] (divisors, log/sqrt arguments)
  kUnit,              // floats in (-0.99, 0.99) (asin, atanh, ...)
  kAtLeastOne,        // floats in [1, 5) (acosh); integers as kPositive
  kIndex,             // integers in [-index_limit, index_limit): valid indices
  kNonNegativeIndex,  // integers in [0, index_limit)
  kSmall,             // floats in [-0.5, 0.5), integers in [0, 4): keeps exp and pow tame
  kProbability,       // floats in [0, 1) after rounding to the dtype (sample's uniform);
                      // integers as kSmall
};

struct CaseInput {
  TensorType type;
  Domain domain = Domain::kAny;
  int64_t index_limit = 0;  // for kIndex / kNonNegativeIndex
  // kIndex with tuple_dims (gather_nd, scatter_nd): the innermost dim holds tuples whose
  // entry c indexes a dim of size tuple_dims[c], each drawn in [-size, size). With
  // distinct_tuples > 0, every run of that many consecutive tuples (a whole number of
  // runs) names distinct positions, so that scatters without a reduction never write one
  // element twice.
  std::vector<int64_t> tuple_dims;
  int64_t distinct_tuples = 0;
  // When not empty, the input holds these values in order (repeated to fill it),
  // converted to its dtype, instead of drawn from `domain`: data a case must choose (a
  // requantization's scales, whose multiplier decides whether results saturate or tie).
  std::vector<double> values;
};

// How a result is compared with cpu-ref's.
struct Tolerance {
  bool exact = false;  // bit-exact (data movement, integer, bool and comparison results;
                       // NaN matches NaN)
  double max_ulp = 0;  // else each element within max_ulp units in the last place of the
  double abs = 0;      // output dtype, or within abs + rel * |expected|,
  double rel = 0;
  double rel_l2 = 0;  // and ||got - want||2 <= rel_l2 * ||want||2 (0 = not checked)
};
struct OpCase {
  std::string op;
  // Short, unique among the op's cases: "f32 broadcast [2,3]+[3]", "i32 empty", "f32 1M".
  std::string label;
  std::vector<CaseInput> inputs;  // omitted optional inputs are absent (only trailing ones)
  Attrs attrs;                    // only what differs from the schema defaults is needed
  int num_outputs = 1;
  // Replace some elements of kAny float inputs with NaN, +-inf, -0, +-1e30 and
  // denormals (about one in eight, at seeded positions).
  bool special_values = false;
  // Part of the "mandatory" scope (the rest is "all"): every op has mandatory cases in
  // f32 and in each integer dtype it takes; f16/bf16/f64 and the 1M-element cases are
  // mandatory too only for the ops where `mandatory` is set on them.
  bool mandatory = true;
  // Where the op's attributes let a backend compute less exactly than the op's tier
  // (quant_matmul at accuracy_level 4), the tolerance of this case; else ToleranceFor's.
  std::optional<Tolerance> tolerance;
};

// Every case of `op`, covering each dtype the op's schema allows: a scalar (rank 0)
// where the op takes one, an empty tensor, broadcasting where the op broadcasts, odd
// sizes (1x1x7x13), one case of about 1M elements, non-default attributes, and float
// special values. Empty for an unknown op.
std::vector<OpCase> CasesFor(std::string_view op);

// The one-node graph of a case, validated (outputs typed by the op's shape rule): its
// inputs are graph inputs named in0, in1, ...; its outputs out0, ...
Expected<Graph> CaseGraph(const OpCase& c);

// The tolerance for `op` producing `dtype` (docs/conformance.md lists them).
Tolerance ToleranceFor(std::string_view op, DType dtype);

}  // namespace sy::conformance
