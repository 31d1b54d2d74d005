// The mapping table against the generated schema table (tools/onnx_import/op_mapping.h,
// onnx_schemas.h): every version of a mapped op that the ONNX specification defines is
// claimed by exactly one mapping, every mapping names an op the specification has, and
// the look-ups answer as the specification's version history says.
#include <gtest/gtest.h>

#include "onnx_schemas.h"
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  const size_t colon = key.rfind(':');
  if (colon == std::string::npos) return {"", key};
  return {key.substr(0, colon), key.substr(colon + 1)};
}

TEST(OpCoverage, EveryTabledVersionOfAMappedOpIsClaimedOnce) {
  std::vector<std::string> unclaimed, twice, unknown;
  for (const std::string& key : Mappings().Keys()) {
    const auto [domain, op] = SplitKey(key);
    const auto versions = OnnxSchemaVersions(domain, op);
    if (versions.empty()) unknown.push_back(key);
    for (const OnnxSchema& s : versions) {
      int claims = 0;
      for (const VersionRange& r : Mappings().Ranges(key)) claims += r.Contains(s.since_version);
      if (claims == 0) unclaimed.push_back(s.Label());
      if (claims > 1) twice.push_back(s.Label());
    }
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string text;
    for (const std::string& s : v) text += s + " ";
    return text;
  };
  // A version listed here is one a regenerated table added: check what it changed, then
  // widen the mapping's range or register a mapping for it.
  EXPECT_TRUE(unclaimed.empty()) << "versions no mapping claims: " << join(unclaimed);
  EXPECT_TRUE(twice.empty()) << "versions claimed twice: " << join(twice);
  EXPECT_TRUE(unknown.empty()) << "mapped ops the schema table does not know: " << join(unknown);
}

// The one-to-one ops take their catalogue names from the catalogue's schemas
// (OpSchema::onnx_name): each must find one.
TEST(OpCoverage, EveryDirectOpNamesACatalogueOp) {
  std::vector<std::string> unresolved;
  for (const auto& [onnx, op] : DirectOps()) {
    if (op.empty()) unresolved.push_back(onnx);
  }
  EXPECT_TRUE(unresolved.empty()) << "no catalogue schema has onnx_name " << unresolved.front();
  EXPECT_EQ(DirectOps().at("Add"), "add");
  EXPECT_EQ(DirectOps().at("HardSwish"), "hard_swish");
  EXPECT_EQ(DirectOps().at("BitwiseNot"), "bitwise_not");
}

TEST(OpCoverage, LookupsFollowTheSpecificationsVersionHistory) {
  // ReduceMean: 1, 11, 13, 18 (axes became an input at 18).
  ASSERT_NE(FindOnnxSchema("", "ReduceMean", 17), nullptr);
  EXPECT_EQ(FindOnnxSchema("", "ReduceMean", 17)->since_version, 13);
  const OnnxSchema* reduce = FindOnnxSchema("ai.onnx", "ReduceMean", 28);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->since_version, 18);
  ASSERT_EQ(reduce->Inputs().size(), 2u);
  EXPECT_EQ(reduce->Inputs()[1].name, "axes");
  EXPECT_EQ(reduce->Inputs()[1].option, OnnxFormalOption::kOptional);
  EXPECT_EQ(reduce->Label(), "ReduceMean-18");
  const OnnxAttrSpec* keepdims = reduce->FindAttribute("keepdims");
  ASSERT_NE(keepdims, nullptr);
  EXPECT_FALSE(keepdims->required);
  EXPECT_FALSE(keepdims->default_value.empty());
  // Attention exists from opset 23 on; Swish from 24, with a body.
  EXPECT_EQ(FindOnnxSchema("", "Attention", 22), nullptr);
  EXPECT_NE(FindOnnxSchema("", "Attention", 23), nullptr);
  ASSERT_NE(FindOnnxSchema("", "Swish", 24), nullptr);
  EXPECT_NE(FindOnnxSchema("", "Swish", 24)->BodyFor(28), nullptr);
  EXPECT_EQ(FindOnnxSchema("", "Swish", 24)->BodyFor(23), nullptr);
  // ONNX Runtime's contrib ops, domain com.microsoft, version 1.
  const OnnxSchema* skip = FindOnnxSchema("com.microsoft", "SkipLayerNormalization", 1);
  ASSERT_NE(skip, nullptr);
  EXPECT_EQ(skip->min_inputs, 3);
  EXPECT_EQ(skip->Label(), "com.microsoft:SkipLayerNormalization-1");
  EXPECT_GE(NewestOnnxOpset(""), 28);
  EXPECT_EQ(NewestOnnxOpset("no.such.domain"), 0);
  EXPECT_EQ(OnnxTypesAllowed((uint64_t{1} << 1) | (uint64_t{1} << 7)), "float, int64");
}

}  // namespace
}  // namespace sy::onnx_import
