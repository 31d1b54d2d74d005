// The cuda plugin's op table (plugins/cuda/src/op_registry.cpp): every op is a catalogue
// op, registered once, under the family that core's catalogue gives it
// (OpSchema::family), so src/ops_<family>.cpp holds the ops of core's
// core/src/ops/<family>_schemas.cpp. Needs no device.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cu_op.h"
#include "switchyard/op_schema.h"

namespace sy::cuda {
namespace {

TEST(CuOpRegistry, EveryOpIsRegisteredOnceUnderItsCatalogueFamily) {
  std::set<std::string> seen;
  for (const auto& entry : CuOpRegistry::Global().entries()) {
    const OpSchema* schema = OpRegistry::Global().Find(entry.op);
    ASSERT_NE(schema, nullptr) << entry.op << " is not a catalogue op";
    EXPECT_EQ(entry.family, schema->family) << entry.op;
    EXPECT_TRUE(seen.insert(std::string(entry.op)).second) << entry.op << " registered twice";
  }
  EXPECT_FALSE(seen.empty());
}

}  // namespace
}  // namespace sy::cuda
