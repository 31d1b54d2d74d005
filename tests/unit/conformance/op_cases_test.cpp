// The conformance suite's op cases (tools/switchyard/conformance/op_cases*.cpp): every op
// of the catalogue has cases, every case passes its op's schema, labels are unique, every
// dtype a schema allows is covered, the suite's size stays within what cpu-ref runs in
// well under a minute, and tolerances are exact where results have one right answer.
#include "conformance/op_cases.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../../graph_diff.h"
#include "conformance/input_generator.h"
#include "switchyard/half.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"
#include "test_util.h"

namespace sy::conformance {
namespace {

// Every op's cases, computed once.
const std::map<std::string, std::vector<OpCase>>& AllCases() {
  static const auto* cases = [] {
    auto* m = new std::map<std::string, std::vector<OpCase>>();
    for (const OpSchema& schema : OpRegistry::Global().schemas()) {
      (*m)[std::string(schema.name)] = CasesFor(schema.name);
    }
    return m;
  }();
  return *cases;
}

// The output types of a case, per its op's schema (empty on an error, which
// EveryCasePassesItsSchema reports).
std::vector<TensorType> Outputs(const OpCase& c) {
  const OpSchema* schema = OpRegistry::Global().Find(c.op);
  if (schema == nullptr) return {};
  std::vector<TensorType> types;
  for (const CaseInput& in : c.inputs) types.push_back(in.type);
  Attrs attrs = c.attrs;
  Expected<std::vector<TensorType>> out = InferOutputTypes(*schema, types, attrs, c.num_outputs);
  return out.ok() ? *out : std::vector<TensorType>{};
}

int64_t Elements(const OpCase& c) {
  int64_t n = 0;
  for (const CaseInput& in : c.inputs) n += ElementCount(in.type.shape);
  for (const TensorType& t : Outputs(c)) n += ElementCount(t.shape);
  return n;
}

bool IsLarge(const OpCase& c) { return c.label.find(" 1M") != std::string::npos; }

// The dtype a label starts with: "f32 [3,5]" and "f32->i8 [3,5]" give f32.
std::optional<DType> LabelDType(const std::string& label) {
  const size_t end = std::min(label.find(' '), label.find("->"));
  return ParseDTypeName(label.substr(0, end));
}

// The type variable input `i` of `schema` is bound to (the last spec repeats when
// variadic).
int TypeVarOf(const OpSchema& schema, size_t i) {
  return schema.inputs[std::min(i, schema.inputs.size() - 1)].type_var;
}

TEST(OpCases, EveryOpHasCases) {
  EXPECT_GE(OpRegistry::Global().schemas().size(), 90u);
  for (const auto& [op, cases] : AllCases()) {
    EXPECT_GE(cases.size(), 7u) << op;
    // cast: four cases for each of the 12 x 12 pairs of dtypes, and special values.
    EXPECT_LE(cases.size(), op == "cast" ? 720u : 400u) << op;
    for (const OpCase& c : cases) EXPECT_EQ(c.op, op) << c.label;
  }
  EXPECT_TRUE(CasesFor("no_such_op").empty());
}

TEST(OpCases, EveryCasePassesItsSchema) {
  for (const auto& [op, cases] : AllCases()) {
    const OpSchema* schema = OpRegistry::Global().Find(op);
    ASSERT_NE(schema, nullptr) << op;
    for (const OpCase& c : cases) {
      std::vector<TensorType> types;
      for (const CaseInput& in : c.inputs) types.push_back(in.type);
      Attrs attrs = c.attrs;
      Expected<std::vector<TensorType>> out =
          InferOutputTypes(*schema, types, attrs, c.num_outputs);
      EXPECT_TRUE(out.ok()) << op << " \"" << c.label << "\": " << out.status().ToString();
      if (out.ok()) {
        EXPECT_EQ(out->size(), static_cast<size_t>(c.num_outputs));
      }
    }
  }
}

TEST(OpCases, LabelsAreUniqueShortAndStartWithTheDType) {
  for (const auto& [op, cases] : AllCases()) {
    std::set<std::string> seen;
    for (const OpCase& c : cases) {
      EXPECT_TRUE(seen.insert(c.label).second) << op << ": duplicate label \"" << c.label << "\"";
      EXPECT_LE(c.label.size(), 80u) << op << " \"" << c.label << "\"";
      EXPECT_EQ(c.label.find("  "), std::string::npos) << op << " \"" << c.label << "\"";
      const std::optional<DType> dtype = LabelDType(c.label);
      ASSERT_TRUE(dtype.has_value()) << op << " \"" << c.label << "\"";
      if (!c.inputs.empty()) {
        // The label's dtype is the dtype of the op's main type variable: that of the
        // first input bound to variable 0, or (where) to the data variable.
        const OpSchema& schema = *OpRegistry::Global().Find(op);
        const int main_var = op == "where" ? 1 : 0;
        for (size_t i = 0; i < c.inputs.size(); ++i) {
          if (TypeVarOf(schema, i) == main_var) {
            EXPECT_EQ(c.inputs[i].type.dtype, *dtype) << op << " \"" << c.label << "\"";
            break;
          }
        }
      } else {
        EXPECT_EQ(c.attrs.GetString("dtype"), DTypeName(*dtype)) << op << " \"" << c.label << "\"";
      }
    }
  }
}

TEST(OpCases, EverySchemaDTypeIsCovered) {
  for (const auto& [op, cases] : AllCases()) {
    const OpSchema& schema = *OpRegistry::Global().Find(op);
    std::vector<std::set<DType>> covered(schema.type_vars.size());
    std::set<DType> labelled;
    for (const OpCase& c : cases) {
      labelled.insert(*LabelDType(c.label));
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        covered[TypeVarOf(schema, i)].insert(c.inputs[i].type.dtype);
      }
    }
    for (size_t v = 0; v < schema.type_vars.size(); ++v) {
      const bool has_inputs =
          std::any_of(schema.inputs.begin(), schema.inputs.end(),
                      [&](const InputSpec& in) { return in.type_var == int(v); });
      const std::set<DType>& got = has_inputs ? covered[v] : labelled;  // range: by label
      for (int d = 0; d < kNumDTypes; ++d) {
        const auto dtype = static_cast<DType>(d);
        EXPECT_EQ(schema.type_vars[v].allowed.contains(dtype), got.count(dtype) == 1)
            << op << " type variable " << schema.type_vars[v].name << " dtype " << DTypeName(dtype);
      }
    }
  }
  // cast: every target as well as every source.
  std::set<std::string> targets;
  for (const OpCase& c : AllCases().at("cast")) targets.insert(c.attrs.GetString("to"));
  EXPECT_EQ(targets.size(), static_cast<size_t>(kNumDTypes));
}

TEST(OpCases, EveryOpHasOneLargeCaseAndSmallOtherwise) {
  for (const auto& [op, cases] : AllCases()) {
    int large = 0;
    for (const OpCase& c : cases) {
      const int64_t n = Elements(c);
      if (IsLarge(c)) {
        ++large;
        EXPECT_FALSE(c.mandatory) << op << " \"" << c.label << "\"";
        int64_t biggest = 0;
        for (const CaseInput& in : c.inputs) {
          biggest = std::max(biggest, ElementCount(in.type.shape));
        }
        for (const TensorType& t : Outputs(c)) biggest = std::max(biggest, ElementCount(t.shape));
        EXPECT_GE(biggest, 1000000) << op << " \"" << c.label << "\"";
        EXPECT_LE(n, 4200000) << op << " \"" << c.label << "\"";
      } else {
        EXPECT_LE(n, 20000) << op << " \"" << c.label << "\"";
      }
    }
    EXPECT_EQ(large, 1) << op;
  }
}

TEST(OpCases, EveryOpHasEmptyAndMostHaveScalarCases) {
  std::set<std::string> with_scalar;
  for (const auto& [op, cases] : AllCases()) {
    bool empty = false;
    for (const OpCase& c : cases) {
      for (const TensorType& t : Outputs(c)) empty = empty || ElementCount(t.shape) == 0;
      for (const CaseInput& in : c.inputs) {
        if (in.type.rank() == 0 && c.label.find("scalar") != std::string::npos) {
          with_scalar.insert(op);
        }
      }
    }
    EXPECT_TRUE(empty) << op << " has no case with an empty output";
  }
  // Ops that take rank 0 (elementwise, and the movement ops and reductions whose
  // attributes allow it) have scalar cases.
  for (std::string_view op :
       {"neg", "exp",   "gelu",       "clip",        "not",    "cast",    "add",       "pow",
        "mod", "equal", "and",        "where",       "prelu",  "reshape", "transpose", "expand",
        "pad", "tile",  "reduce_sum", "reduce_prod", "resize", "gather"}) {
    EXPECT_EQ(with_scalar.count(std::string(op)), 1u) << op;
  }
}

TEST(OpCases, MandatoryScopeIsF32IntegersAndBool) {
  for (const auto& [op, cases] : AllCases()) {
    int mandatory = 0;
    for (const OpCase& c : cases) {
      const DType dtype = *LabelDType(c.label);
      if (dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF64) {
        EXPECT_FALSE(c.mandatory) << op << " \"" << c.label << "\"";
      }
      mandatory += c.mandatory ? 1 : 0;
    }
    EXPECT_GE(mandatory, 5) << op;
  }
}

TEST(OpCases, SpecialValuesOnlyWhereAFloatInputTakesThem) {
  int special = 0;
  for (const auto& [op, cases] : AllCases()) {
    for (const OpCase& c : cases) {
      if (!c.special_values) continue;
      ++special;
      EXPECT_NE(c.label.find("special"), std::string::npos) << op << " \"" << c.label << "\"";
      const bool takes = std::any_of(c.inputs.begin(), c.inputs.end(), [](const CaseInput& in) {
        return IsFloat(in.type.dtype) && in.domain == Domain::kAny;
      });
      EXPECT_TRUE(takes) << op << " \"" << c.label << "\"";
    }
  }
  EXPECT_GE(special, 300);
  // Every elementwise float op has special-values cases in every float dtype.
  for (std::string_view op : {"exp", "log", "sqrt", "add", "div", "pow", "max", "less", "where",
                              "reduce_max", "softmax", "cast"}) {
    std::set<DType> dtypes;
    for (const OpCase& c : AllCases().at(std::string(op))) {
      if (c.special_values) dtypes.insert(*LabelDType(c.label));
    }
    EXPECT_EQ(dtypes.size(), 4u) << op;
  }
}

// Index inputs name valid positions of the axis they index (out of range is a run-time
// error of cpu-ref, not a result), and integer divisors are never zero.
TEST(OpCases, DataDependentErrorsCannotHappen) {
  for (std::string_view op : {"gather", "gather_elements", "scatter_elements"}) {
    for (const OpCase& c : AllCases().at(std::string(op))) {
      ASSERT_GE(c.inputs.size(), 2u);
      const CaseInput& data = c.inputs[0];
      const CaseInput& indices = c.inputs[1];
      EXPECT_TRUE(indices.type.dtype == DType::kI32 || indices.type.dtype == DType::kI64);
      EXPECT_TRUE(indices.domain == Domain::kIndex || indices.domain == Domain::kNonNegativeIndex)
          << op << " \"" << c.label << "\"";
      int64_t axis = c.attrs.GetInt("axis", 0);
      if (axis < 0) axis += data.type.rank();
      EXPECT_EQ(indices.index_limit, data.type.shape[static_cast<size_t>(axis)])
          << op << " \"" << c.label << "\"";
    }
  }
  // gather_nd / scatter_nd: each entry of an index tuple is drawn for the dim it indexes;
  // scatter_nd without a reduction never names one position twice.
  for (std::string_view op : {"gather_nd", "scatter_nd"}) {
    for (const OpCase& c : AllCases().at(std::string(op))) {
      ASSERT_GE(c.inputs.size(), 2u);
      const Shape& data = c.inputs[0].type.shape;
      const CaseInput& indices = c.inputs[1];
      EXPECT_EQ(indices.domain, Domain::kIndex) << op << " \"" << c.label << "\"";
      const auto b = static_cast<size_t>(c.attrs.GetInt("batch_dims", 0));
      const auto k = static_cast<size_t>(indices.type.shape.back());
      EXPECT_EQ(indices.tuple_dims, Shape(data.begin() + b, data.begin() + b + k))
          << op << " \"" << c.label << "\"";
      if (op == "scatter_nd" && c.attrs.GetString("reduction", "none") == "none") {
        const int64_t tuples = ElementCount(indices.type.shape) / static_cast<int64_t>(k);
        EXPECT_GE(indices.distinct_tuples, tuples) << c.label;
        EXPECT_LE(tuples, ElementCount(indices.tuple_dims)) << c.label;
      }
    }
  }
  for (std::string_view op : {"div", "mod"}) {
    for (const OpCase& c : AllCases().at(std::string(op))) {
      if (!IsFloat(c.inputs[1].type.dtype)) {
        EXPECT_EQ(c.inputs[1].domain, Domain::kPositive) << op << " \"" << c.label << "\"";
      }
    }
  }
  for (std::string_view op : {"log", "sqrt", "rsqrt"}) {
    for (const OpCase& c : AllCases().at(std::string(op))) {
      if (!c.special_values) {
        EXPECT_EQ(c.inputs[0].domain, Domain::kPositive) << c.label;
      }
    }
  }
  // The inverse maps' normal cases stay inside their domains (outside is NaN on both
  // sides, which the special-values cases cover).
  for (std::string_view op : {"asin", "acos", "atanh", "acosh"}) {
    const Domain domain = op == "acosh" ? Domain::kAtLeastOne : Domain::kUnit;
    for (const OpCase& c : AllCases().at(std::string(op))) {
      if (!c.special_values) {
        EXPECT_EQ(c.inputs[0].domain, domain) << op << " \"" << c.label << "\"";
      }
    }
  }
}

// The generated index tuples of gather_nd / scatter_nd are in range for the dim each entry
// indexes, use negative aliases too, and are distinct where the case asks.
TEST(OpCases, IndexTuplesAreValidAndDistinctWhereAsked) {
  for (std::string_view op : {"gather_nd", "scatter_nd"}) {
    bool negative = false;
    for (const OpCase& c : AllCases().at(std::string(op))) {
      const CaseInput& in = c.inputs[1];
      Expected<Tensor> t = GenerateInput(in, CaseSeed(c.op, c.label, 1), c.special_values);
      SY_ASSERT_OK(t);
      const size_t k = in.tuple_dims.size();
      std::set<std::vector<int64_t>> seen;
      for (int64_t j = 0; j < t->element_count() / static_cast<int64_t>(k); ++j) {
        std::vector<int64_t> tuple;
        for (size_t e = 0; e < k; ++e) {
          const int64_t i = j * static_cast<int64_t>(k) + static_cast<int64_t>(e);
          const int64_t v =
              in.type.dtype == DType::kI32 ? t->values<int32_t>()[i] : t->values<int64_t>()[i];
          const int64_t dim = in.tuple_dims[e];
          ASSERT_TRUE(v >= -dim && v < dim) << op << " \"" << c.label << "\": " << v;
          negative = negative || v < 0;
          tuple.push_back(v < 0 ? v + dim : v);
        }
        if (in.distinct_tuples > 0) {
          EXPECT_TRUE(seen.insert(tuple).second) << op << " \"" << c.label << "\" tuple " << j;
        }
      }
    }
    EXPECT_TRUE(negative) << op;
  }
}

// sample's uniform numbers lie in [0, 1) in their own dtype (a 1 would be a data error of
// cpu-ref, not a result): drawn from kProbability, which stops below 1 before rounding.
TEST(OpCases, SampleUniformNumbersAreBelowOne) {
  int drawn = 0;
  for (const OpCase& c : AllCases().at("sample")) {
    if (c.inputs.size() < 2) {
      EXPECT_EQ(c.attrs.GetString("method", "greedy"), "greedy") << c.label;
      continue;
    }
    const CaseInput& in = c.inputs[1];
    EXPECT_EQ(in.domain, Domain::kProbability) << c.label;
    Expected<Tensor> t = GenerateInput(in, CaseSeed(c.op, c.label, 1), c.special_values);
    SY_ASSERT_OK(t);
    for (int64_t i = 0; i < t->element_count(); ++i, ++drawn) {
      const double u =
          in.type.dtype == DType::kF32 ? t->values<float>()[i] : t->values<double>()[i];
      ASSERT_TRUE(u >= 0.0 && u < 1.0) << c.label << ": " << u;
    }
  }
  EXPECT_GT(drawn, 500);
  // The largest numbers the generator draws still round below 1 in every float dtype.
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    CaseInput in{TensorType{d, {4096}}, Domain::kProbability};
    Expected<Tensor> t = GenerateInput(in, 7, false);
    SY_ASSERT_OK(t);
    for (int64_t i = 0; i < t->element_count(); ++i) {
      const double u = d == DType::kF32   ? t->values<float>()[i]
                       : d == DType::kF64 ? t->values<double>()[i]
                       : d == DType::kF16 ? HalfToFloat(t->values<uint16_t>()[i])
                                          : BFloat16ToFloat(t->values<uint16_t>()[i]);
      ASSERT_TRUE(u >= 0.0 && u < 1.0) << DTypeName(d) << ": " << u;
    }
  }
}

TEST(OpCases, SuiteSizeIsBounded) {
  size_t total = 0;
  int64_t elements = 0;
  int64_t small_elements = 0;
  for (const auto& [op, cases] : AllCases()) {
    total += cases.size();
    for (const OpCase& c : cases) {
      const int64_t n = Elements(c);
      elements += n;
      if (!IsLarge(c)) small_elements += n;
    }
  }
  EXPECT_GE(total, 5000u);
  EXPECT_LE(total, 12500u);  // 12 dtypes (i16 u16 u32 added 1,800 or so)
  // About 90 cases of ~1M elements (inputs plus outputs) dominate; the rest is small.
  EXPECT_LE(elements, 300000000);
  EXPECT_LE(small_elements, 20000000);
  std::printf("op cases: %zu, elements (inputs + outputs): %lld, without the 1M cases: %lld\n",
              total, static_cast<long long>(elements), static_cast<long long>(small_elements));
}

// The fused ops' cases take every activation their schema allows in every dtype, with
// bias and residual each present and absent; add_layer_norm's ask for one output and two.
TEST(OpCases, FusedOpsCoverEveryActivationAndOptionalInput) {
  for (std::string_view op : {"fused_matmul", "fused_conv"}) {
    const OpSchema& schema = *OpRegistry::Global().Find(op);
    std::vector<std::string_view> activations;
    for (const AttrSpec& spec : schema.attrs) {
      if (spec.name == "activation") activations = spec.allowed;
    }
    ASSERT_GE(activations.size(), 9u) << op;
    std::map<DType, std::set<std::string>> seen;
    std::set<size_t> arities;
    for (const OpCase& c : AllCases().at(std::string(op))) {
      seen[c.inputs[0].type.dtype].insert(c.attrs.GetString("activation", "none"));
      arities.insert(c.inputs.size());
    }
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      for (std::string_view act : activations) {
        EXPECT_EQ(seen[dtype].count(std::string(act)), 1u)
            << op << " " << DTypeName(dtype) << " " << act;
      }
    }
    EXPECT_EQ(arities, (std::set<size_t>{2, 3, 4})) << op;
  }
  std::set<int> outputs;
  std::set<size_t> arities;
  for (const OpCase& c : AllCases().at("add_layer_norm")) {
    outputs.insert(c.num_outputs);
    arities.insert(c.inputs.size());
  }
  EXPECT_EQ(outputs, (std::set<int>{1, 2}));
  EXPECT_EQ(arities, (std::set<size_t>{3, 4}));
}

TEST(Tolerance, ExactForIntegerAndBoolResults) {
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    for (DType dtype : {DType::kI8, DType::kU8, DType::kI32, DType::kI64, DType::kBool}) {
      EXPECT_TRUE(ToleranceFor(schema.name, dtype).exact) << schema.name;
    }
  }
}

TEST(Tolerance, PerOpClasses) {
  for (std::string_view op :
       {"reshape", "transpose", "gather", "concat", "pad", "where", "cast", "depth_to_space"}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      EXPECT_TRUE(ToleranceFor(op, dtype).exact) << op;
    }
  }
  // Exactly determined values: no ulp, no absolute or relative slack.
  for (std::string_view op : {"relu", "abs", "neg", "max", "min", "reduce_max", "max_pool"}) {
    const Tolerance t = ToleranceFor(op, DType::kF32);
    EXPECT_FALSE(t.exact) << op;  // -0 and +0 compare equal
    EXPECT_EQ(t.max_ulp, 0) << op;
    EXPECT_EQ(t.abs, 0) << op;
    EXPECT_EQ(t.rel, 0) << op;
  }
  EXPECT_EQ(ToleranceFor("add", DType::kF32).max_ulp, 1);
  EXPECT_GE(ToleranceFor("exp", DType::kF32).max_ulp, 2);
  EXPECT_LE(ToleranceFor("exp", DType::kF32).max_ulp, 8);
  for (std::string_view op : {"matmul", "conv", "reduce_sum", "layer_norm", "softmax",
                              "fused_matmul", "fused_conv", "add_layer_norm"}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      const Tolerance t = ToleranceFor(op, dtype);
      EXPECT_FALSE(t.exact) << op;
      EXPECT_GT(t.rel_l2, 0) << op;
      EXPECT_GT(t.rel, 0) << op;
    }
    EXPECT_LT(ToleranceFor(op, DType::kF64).rel_l2, ToleranceFor(op, DType::kF32).rel_l2);
    EXPECT_LT(ToleranceFor(op, DType::kF32).rel_l2, ToleranceFor(op, DType::kF16).rel_l2);
    EXPECT_LE(ToleranceFor(op, DType::kF32).rel_l2, 1e-5);
    EXPECT_LE(ToleranceFor(op, DType::kBF16).rel_l2, 1e-2);
  }
  // Every float op of the registry has a bound: exact, value-exact or a positive slack.
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    const Tolerance t = ToleranceFor(schema.name, DType::kF32);
    EXPECT_TRUE(t.exact || t.max_ulp >= 0) << schema.name;
  }
}

// Every case's graph survives the single-file encoding (docs/format.md) bit for bit: the
// same graph back, and the same bytes when encoded again (issue 38: every conformance
// model round-trips).
TEST(OpCases, EveryCaseGraphRoundTripsThroughTheSingleFile) {
  size_t checked = 0;
  for (const auto& [op, cases] : AllCases()) {
    for (const OpCase& c : cases) {
      Expected<Graph> graph = CaseGraph(c);
      if (!graph.ok()) continue;  // EveryCasePassesItsSchema reports it
      Expected<std::string> bytes = EncodeSingleFileModel(*graph);
      ASSERT_TRUE(bytes.ok()) << op << " \"" << c.label << "\": " << bytes.status().message();
      auto owner = std::make_shared<std::string>(*bytes);
      Expected<Graph> decoded = ParseSingleFileModel(
          {reinterpret_cast<const std::byte*>(owner->data()), owner->size()}, owner);
      ASSERT_TRUE(decoded.ok()) << op << " \"" << c.label << "\": " << decoded.status().message();
      ASSERT_TRUE(ValidateGraphTypes(*decoded).ok()) << op << " \"" << c.label << "\"";
      ASSERT_EQ(test::GraphDiff(*graph, *decoded), "") << op << " \"" << c.label << "\"";
      Expected<std::string> again = EncodeSingleFileModel(*decoded);
      ASSERT_TRUE(again.ok() && *again == *bytes) << op << " \"" << c.label << "\"";
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace sy::conformance
