// The catalogue's random numbers (random_uniform, random_normal; docs/ops.md, "Sampling"),
// for every backend to compute the same way: number i of seed s is the i-th output of a
// splitmix64 generator started at s, which is a function of (s, i) alone, so each element
// is computed independently (in any order, on any thread or work-item) and every platform
// gets the same bits. The decoder's sampler draws its numbers from the same stream.
#pragma once

#include <cmath>
#include <cstdint>

namespace sy {

inline constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ull;

// splitmix64's output function of its state.
inline uint64_t SplitMixOutput(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The i-th number (from 0) of the stream of `seed`, as a double in [0, 1) with 53 bits.
inline double StreamUniform(uint64_t seed, uint64_t i) {
  return static_cast<double>(SplitMixOutput(seed + (i + 1) * kSplitMixGamma) >> 11) * 0x1.0p-53;
}

// Element i of random_uniform: low + (high - low) * u in double (the caller rounds it once
// to the output's dtype).
inline double RandomUniformAt(uint64_t seed, uint64_t i, double low, double high) {
  return low + (high - low) * StreamUniform(seed, i);
}

// Element i of random_normal: Box-Muller's cosine branch over numbers 2i and 2i + 1,
// mean + scale * sqrt(-2 ln(1 - u1)) cos(2 pi u2) in double (1 - u1 is never 0).
inline double RandomNormalAt(uint64_t seed, uint64_t i, double mean, double scale) {
  const double u1 = StreamUniform(seed, 2 * i);
  const double u2 = StreamUniform(seed, 2 * i + 1);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return mean + scale * std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(kTwoPi * u2);
}

}  // namespace sy
