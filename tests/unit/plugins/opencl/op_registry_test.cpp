// The opencl plugin's op table (plugins/opencl/src/op_registry.cpp): every op is a catalogue
// op, registered once, under the family that core's catalogue gives it
// (OpSchema::family), so src/ops_<family>.cpp holds the ops of core's
// core/src/ops/<family>_schemas.cpp. Needs no device.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cl_op.h"
#include "switchyard/op_schema.h"

namespace sy::opencl {
namespace {

TEST(ClOpRegistry, EveryOpIsRegisteredOnceUnderItsCatalogueFamily) {
  std::set<std::string> seen;
  for (const auto& entry : ClOpRegistry::Global().entries()) {
    const OpSchema* schema = OpRegistry::Global().Find(entry.op);
    ASSERT_NE(schema, nullptr) << entry.op << " is not a catalogue op";
    EXPECT_EQ(entry.family, schema->family) << entry.op;
    EXPECT_TRUE(seen.insert(std::string(entry.op)).second) << entry.op << " registered twice";
  }
  EXPECT_FALSE(seen.empty());
}

// The families the plugin offers: every op of the catalogue but the fused and selection
// families (docs/ops.md, "Op families"), sampling's `sample` included.
// linear_attention, a recurrence sequential in T, det, a pivoting elimination per
// matrix, tfidf_vectorizer and tree_ensemble (a data-dependent walk per row) are not
// offered yet (docs/opencl.md).
TEST(ClOpRegistry, EveryFamilyButFusedAndSelectionIsOffered) {
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    const bool offered = schema.family != "fused" && schema.family != "selection" &&
                         schema.name != "linear_attention" && schema.name != "det" &&
                         schema.name != "tfidf_vectorizer" && schema.name != "tree_ensemble";
    EXPECT_EQ(ClOpRegistry::Global().Find(schema.name) != nullptr, offered)
        << schema.name << " (" << schema.family << ")";
  }
  const auto* sample = ClOpRegistry::Global().Find("sample");
  ASSERT_NE(sample, nullptr);
  EXPECT_EQ(sample->family, "sampling");
}

}  // namespace
}  // namespace sy::opencl
