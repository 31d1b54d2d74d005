// Deterministic inputs for op cases: values drawn from each input's domain with a seed
// derived from the case, and float special values (NaN, infinities, -0, huge and
// denormal magnitudes) mixed in when the case asks.
#pragma once

#include <cstdint>

#include "conformance/op_cases.h"
#include "switchyard/tensor.h"

namespace sy::conformance {

Expected<Tensor> GenerateInput(const CaseInput& input, uint64_t seed, bool special_values);

// A stable 64-bit seed from a case's op, label and input index (FNV-1a).
uint64_t CaseSeed(std::string_view op, std::string_view label, size_t input);

}  // namespace sy::conformance
