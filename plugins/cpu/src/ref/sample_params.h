// The `sample` op's attributes as the CPU kernels read them (docs/ops.md, "Sampling"):
// shared by the reference kernel (ref/sampling_ref.cpp) and the fast one
// (fast/sampling_fast.cpp), which must pick the same token.
#pragma once

#include <cstdint>
#include <string>

#include "switchyard/attrs.h"

namespace sy::cpu {

enum class SampleMethod { kGreedy, kTemperature, kTopK, kTopP, kMinP };

struct SampleParams {
  SampleMethod method;
  double temperature;
  int64_t top_k;
  double top_p;
  double min_p;
};

// From a node's attributes, which the op's schema has checked.
inline SampleParams ReadSampleParams(const Attrs& attrs) {
  const std::string name = attrs.GetString("method");
  SampleMethod method = SampleMethod::kGreedy;  // the schema allows nothing else
  if (name == "temperature") method = SampleMethod::kTemperature;
  if (name == "top_k") method = SampleMethod::kTopK;
  if (name == "top_p") method = SampleMethod::kTopP;
  if (name == "min_p") method = SampleMethod::kMinP;
  return {method, attrs.GetFloat("temperature"), attrs.GetInt("top_k"), attrs.GetFloat("top_p"),
          attrs.GetFloat("min_p")};
}

}  // namespace sy::cpu
