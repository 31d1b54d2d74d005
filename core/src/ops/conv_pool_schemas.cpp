// Placeholder until this family's schemas land.
#include "ops/op_families.h"

namespace sy::ops {

void AddConvPoolSchemas(std::vector<OpSchema>& out) { (void)out; }

}  // namespace sy::ops
