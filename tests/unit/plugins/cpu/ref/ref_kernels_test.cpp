// The reference kernel table (plugins/cpu/src/ref/ref_kernels.cpp): every catalogue op has
// a reference kernel, registered under the family that core's catalogue gives it
// (OpSchema::family), so ref/<family>_ref.cpp holds the ops of core's
// core/src/ops/<family>_schemas.cpp.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ref/ref_kernels.h"
#include "switchyard/op_schema.h"

namespace sy::cpu {
namespace {

TEST(RefKernels, EveryOpIsRegisteredUnderItsCatalogueFamily) {
  std::set<std::string> seen;
  for (const KernelTable::Entry& entry : RefKernels().entries()) {
    const OpSchema* schema = OpRegistry::Global().Find(entry.op);
    ASSERT_NE(schema, nullptr) << entry.op << " is not a catalogue op";
    EXPECT_EQ(entry.family, schema->family) << entry.op;
    EXPECT_TRUE(seen.insert(std::string(entry.op)).second) << entry.op << " registered twice";
  }
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    EXPECT_TRUE(seen.contains(std::string(schema.name))) << schema.name << " has no reference";
  }
}

}  // namespace
}  // namespace sy::cpu
