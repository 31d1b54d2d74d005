// Which keys an attention query row excludes (docs/ops.md, "attention"), shared by every
// plugin's attention kernel so that they agree on it: a key in the row's causal future, a
// false in a bool mask, a bias of -inf, and a bias at or below kExcludedBias when the row
// has some key whose bias is above kDominantBias. The last is the large finite fill of
// exporters (finfo(f32).min, -1e38): beside a key 9e29 higher, its weight
// e^(score difference - 9e29) is zero in every floating-point type for any score a model
// computes. An excluded key is never read: whatever its k and v hold (NaN included), it
// adds nothing. Kernels that cannot include C++ headers (OpenCL C) get these values as
// defines from their host code.
#pragma once

#include <limits>

namespace sy::plugin {

inline constexpr double kAttentionExcludedBias = -1e30;
inline constexpr double kAttentionDominantBias = -1e29;

// Whether a key of this bias makes its row's fill excludable (some key of the row does).
template <typename T>
constexpr bool AttentionBiasDominates(T bias) {
  return bias > T(kAttentionDominantBias);
}

// Whether a row excludes a key of this bias; `dominant`: some key of the row dominates.
template <typename T>
constexpr bool AttentionKeyExcluded(T bias, bool dominant) {
  return bias == -std::numeric_limits<T>::infinity() ||
         (dominant && bias <= T(kAttentionExcludedBias));
}

}  // namespace sy::plugin
