// Placeholder until this family's schemas land.
#include "ops/op_families.h"

namespace sy::ops {

void AddMovementSchemas(std::vector<OpSchema>& out) { (void)out; }

}  // namespace sy::ops
