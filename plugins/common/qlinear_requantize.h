// qlinear_conv's requantization (docs/ops.md), shared by every plugin's kernel so that they
// agree on it bit for bit: the exact integer sum `acc` (bias included) of an output
// channel becomes
//   y = saturate(round_half_even(f32(acc) * multiplier) + y_zero_point)
// with multiplier = f32(f32(x_scale * w_scale) / y_scale), the channel's w_scale. This is
// ONNX Runtime's arithmetic (an f32 product of the converted sum), so a result differs
// from the exact real product only where that product lies within f32 rounding of a tie.
// Scales must be positive and finite and the multiplier finite (QLinearScaleProblem);
// kernels report a run-time error otherwise, so no NaN ever reaches a conversion.
// Kernels that cannot include C++ headers (OpenCL C) get the multipliers from their host
// code and repeat RequantizeToCode's three steps.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sy::plugin {

inline float QLinearMultiplier(float x_scale, float w_scale, float y_scale) {
  const float product = x_scale * w_scale;  // rounded to f32 before the division
  return product / y_scale;
}

// A scale as the shortest text that reads back as it (1e-30, not 0.000000).
inline std::string ShowScale(float s) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(s));
    if (std::isnan(s) || std::strtof(text, nullptr) == s) break;
  }
  return text;
}

// Empty when the scales of one output channel are usable, else what is wrong with them.
inline std::string QLinearScaleProblem(float x_scale, float w_scale, float y_scale) {
  const auto bad = [](float s) { return !(s > 0.0f) || !std::isfinite(s); };
  const auto say = [](const char* name, float s) {
    return std::string(name) + " is " + ShowScale(s) + " but scales must be positive and finite";
  };
  if (bad(x_scale)) return say("x_scale", x_scale);
  if (bad(w_scale)) return say("w_scale", w_scale);
  if (bad(y_scale)) return say("y_scale", y_scale);
  if (!std::isfinite(QLinearMultiplier(x_scale, w_scale, y_scale))) {
    return "x_scale * w_scale / y_scale overflows f32 (" + ShowScale(x_scale) + " * " +
           ShowScale(w_scale) + " / " + ShowScale(y_scale) + ")";
  }
  return {};
}

// The code of sum `acc` for a finite multiplier, saturated to [lo, hi] (the output type's
// range: 0..255 for u8, -128..127 for i8).
inline int32_t RequantizeToCode(int64_t acc, float multiplier, int32_t zero_point, int32_t lo,
                                int32_t hi) {
  const float product = static_cast<float>(acc) * multiplier;
  const double code = static_cast<double>(std::nearbyint(product)) + zero_point;
  if (code <= lo) return lo;
  if (code >= hi) return hi;
  return static_cast<int32_t>(code);
}

}  // namespace sy::plugin
