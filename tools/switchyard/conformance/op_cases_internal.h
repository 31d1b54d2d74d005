// Internal to the op cases (op_cases*.cpp): the builder every family file uses to write
// its cases, and the family entry points CasesFor dispatches to.
//
// Conventions every family follows (op_cases.h says what a case is):
//  - Each op gets cases for every dtype its schema allows for its main type variable,
//    read from the registry (so a schema that grows a dtype grows cases), and for both
//    index dtypes where it has an index type variable.
//  - Labels start with the dtype ("f32 [3,5]", "i64 empty [0,4]", "f32->i8 [3,5]") and
//    are unique among the op's cases; shapes are written without spaces.
//  - Odd sizes ([3,5], [1,1,7,13], [1031]) so that vector tails and tiling remainders
//    are exercised; one case of about 1M elements per op, in f32 (1024 x 1025 where the
//    op allows: odd, so that no kernel gets a multiple of its vector width for free).
//  - `mandatory` is false for f16, bf16 and f64 and for the 1M cases (op_cases.h).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/op_cases.h"
#include "switchyard/op_schema.h"

namespace sy::conformance::detail {

// One input of `dtype` and `shape` drawn from `domain` (kIndex / kNonNegativeIndex need
// `limit`: the size of the axis they index).
inline CaseInput In(DType dtype, Shape shape, Domain domain = Domain::kAny, int64_t limit = 0) {
  return CaseInput{TensorType{dtype, std::move(shape)}, domain, limit};
}

// "[3,5]", "[]" for a scalar: the shape as labels write it.
std::string ShapeLabel(const Shape& shape);
// "[1,-1]" for attribute lists in labels.
std::string IntsLabel(const std::vector<int64_t>& values);

// Attribute values and sets: A({{"axis", I(-1)}, {"mode", "tanh"}}).
inline AttrValue I(int64_t v) { return AttrValue{v}; }
inline AttrValue F(double v) { return AttrValue{v}; }
inline AttrValue Ints(std::vector<int64_t> v) { return AttrValue{std::move(v)}; }
inline AttrValue Floats(std::vector<double> v) { return AttrValue{std::move(v)}; }
inline AttrValue Str(std::string v) { return AttrValue{std::move(v)}; }
Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items);
// Window attributes of conv, fused_conv, conv_transpose and the pools; empty lists and
// group 1 are left out.
Attrs Window(std::vector<int64_t> strides, std::vector<int64_t> pads,
             std::vector<int64_t> dilations, int64_t group = 1);

// The dtypes type variable `var` of `op`'s schema allows, in enum order (empty for an
// unknown op or variable).
std::vector<DType> SchemaDTypes(std::string_view op, size_t var = 0);

inline constexpr DType kIndexDTypes[] = {DType::kI32, DType::kI64};

// Whether `dtype` is in the mandatory scope (f32, integers, bool).
bool MandatoryDType(DType dtype);

// Collects the cases of one op.
class CaseBuilder {
 public:
  explicit CaseBuilder(std::string_view op) : op_(op) {}

  // Adds a case labelled "<dtype> <rest>" (just "<dtype>" when rest is empty); mandatory
  // unless `dtype` is f16, bf16 or f64. Returns it for further settings.
  OpCase& Add(DType dtype, std::string_view rest, std::vector<CaseInput> inputs, Attrs attrs = {},
              int num_outputs = 1);
  // Adds a case with special_values set (floats only: the caller checks).
  OpCase& Special(DType dtype, std::string_view rest, std::vector<CaseInput> inputs,
                  Attrs attrs = {}, int num_outputs = 1);
  // Adds the op's large case (about 1M elements; its label says "1M"); never mandatory.
  OpCase& Large(DType dtype, std::string_view rest, std::vector<CaseInput> inputs, Attrs attrs = {},
                int num_outputs = 1);

  const std::string& op() const { return op_; }
  std::vector<OpCase> Take() { return std::move(cases_); }

 private:
  std::string op_;
  std::vector<OpCase> cases_;
};

// The family entry points: the cases of `op` when the family owns it, else empty.
std::vector<OpCase> UnaryCases(std::string_view op);          // op_cases_unary.cpp
std::vector<OpCase> BinaryCases(std::string_view op);         // op_cases_binary.cpp
std::vector<OpCase> MovementCases(std::string_view op);       // op_cases_movement.cpp
std::vector<OpCase> IndexingCases(std::string_view op);       // op_cases_indexing.cpp
std::vector<OpCase> ReductionCases(std::string_view op);      // op_cases_reduction.cpp
std::vector<OpCase> LinalgConvCases(std::string_view op);     // op_cases_linalg_conv.cpp
std::vector<OpCase> NormalizationCases(std::string_view op);  // op_cases_normalization.cpp
std::vector<OpCase> NeuralCases(std::string_view op);         // op_cases_neural.cpp
std::vector<OpCase> FusedCases(std::string_view op);          // op_cases_fused.cpp
std::vector<OpCase> SelectionCases(std::string_view op);      // op_cases_selection.cpp
std::vector<OpCase> SamplingCases(std::string_view op);       // op_cases_sampling.cpp

}  // namespace sy::conformance::detail
