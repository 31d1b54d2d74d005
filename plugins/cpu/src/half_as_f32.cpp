#include "half_as_f32.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#include <immintrin.h>
#define SY_HALF_F16C 1
#endif

namespace sy::cpu {
namespace {

constexpr size_t kAlign = 64;

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// One element through memcpy: a buffer the host bound need not be aligned for its dtype.
void WidenOne(const uint16_t* in, float* out, int64_t i) {
  uint16_t h;
  std::memcpy(&h, in + i, sizeof h);
  const float f = HalfToFloat(h);
  std::memcpy(out + i, &f, sizeof f);
}
void NarrowOne(const float* in, uint16_t* out, int64_t i) {
  float f;
  std::memcpy(&f, in + i, sizeof f);
  const uint16_t h = FloatToHalf(f);
  std::memcpy(out + i, &h, sizeof h);
}

#ifdef SY_HALF_F16C
// Chosen once, when the plugin loads: GCC's __builtin_cpu_supports reads CPUID (and the
// OS's AVX state) for F16C.
const bool kHasF16c = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
}();

__attribute__((target("avx,f16c"))) void HalfToF32F16c(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) WidenOne(in, out, i);
}

__attribute__((target("avx,f16c"))) void F32ToHalfF16c(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) NarrowOne(in, out, i);
}
#endif

}  // namespace

void HalfToF32(const uint16_t* in, float* out, int64_t n) {
#ifdef SY_HALF_F16C
  if (kHasF16c) return HalfToF32F16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) WidenOne(in, out, i);
}

void F32ToHalf(const float* in, uint16_t* out, int64_t n) {
#ifdef SY_HALF_F16C
  if (kHasF16c) return F32ToHalfF16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) NarrowOne(in, out, i);
}

const char* HalfConversionName() {
#ifdef SY_HALF_F16C
  if (kHasF16c) return "F16C";
#endif
  return "scalar";
}

bool ComputesInItsFloatType(std::string_view family) {
  return family == "elementwise" || family == "linalg" || family == "reduction" ||
         family == "normalization" || family == "conv_pool" || family == "neural" ||
         family == "fused";
}

bool HalfAsF32::Applies(std::span<const TensorType> inputs, std::span<const TensorType> outputs) {
  bool any_half = false;
  for (std::span<const TensorType> types : {inputs, outputs}) {
    for (const TensorType& t : types) {
      if (t.dtype == DType::kF16) {
        any_half = true;
      } else if (IsFloat(t.dtype)) {
        return false;
      }
    }
  }
  return any_half;
}

HalfAsF32::HalfAsF32(std::span<const TensorType> inputs, std::span<const TensorType> outputs,
                     std::span<const std::byte* const> constant_inputs)
    : constants_(inputs.size()) {
  Resize(inputs, outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!in_half_[i] || i >= constant_inputs.size() || constant_inputs[i] == nullptr) continue;
    const int64_t n = ElementCount(inputs[i].shape);
    constants_[i].resize(static_cast<size_t>(n));
    HalfToF32(reinterpret_cast<const uint16_t*>(constant_inputs[i]), constants_[i].data(), n);
  }
  in_views_.resize(inputs.size());
  out_views_.resize(outputs.size());
  out_bounds_.assign(outputs.size(), std::numeric_limits<double>::infinity());
}

void HalfAsF32::Resize(std::span<const TensorType> inputs, std::span<const TensorType> outputs) {
  in_types_.assign(inputs.begin(), inputs.end());
  out_types_.assign(outputs.begin(), outputs.end());
  in_half_.assign(inputs.size(), false);
  out_half_.assign(outputs.size(), false);
  for (size_t i = 0; i < in_types_.size(); ++i) {
    in_half_[i] = in_types_[i].dtype == DType::kF16;
    if (in_half_[i]) in_types_[i].dtype = DType::kF32;
  }
  for (size_t j = 0; j < out_types_.size(); ++j) {
    out_half_[j] = out_types_[j].dtype == DType::kF16;
    if (out_half_[j]) out_types_[j].dtype = DType::kF32;
  }
}

std::vector<const std::byte*> HalfAsF32::Constants(std::span<const std::byte* const> given) const {
  std::vector<const std::byte*> constants(given.begin(), given.end());
  for (size_t i = 0; i < constants.size() && i < constants_.size(); ++i) {
    if (!constants_[i].empty())
      constants[i] = reinterpret_cast<const std::byte*>(constants_[i].data());
  }
  return constants;
}

size_t HalfAsF32::scratch_bytes() const {
  size_t bytes = 0;
  for (size_t i = 0; i < in_types_.size(); ++i) {
    if (in_half_[i] && constants_[i].empty()) {
      bytes += AlignUp(static_cast<size_t>(ElementCount(in_types_[i].shape)) * sizeof(float));
    }
  }
  for (size_t j = 0; j < out_types_.size(); ++j) {
    if (out_half_[j]) {
      bytes += AlignUp(static_cast<size_t>(ElementCount(out_types_[j].shape)) * sizeof(float));
    }
  }
  return bytes;
}

void HalfAsF32::Widen(const KernelContext& ctx, std::byte* scratch) {
  size_t offset = 0;
  for (size_t i = 0; i < in_types_.size(); ++i) {
    in_views_[i] = {in_types_[i], ctx.inputs[i].data};
    if (!in_half_[i]) continue;
    if (!constants_[i].empty()) {
      // The widened copy of what prepare saw: the host binds the same constant bytes.
      in_views_[i].data = reinterpret_cast<const std::byte*>(constants_[i].data());
      continue;
    }
    const int64_t n = ElementCount(in_types_[i].shape);
    auto* widened = reinterpret_cast<float*>(scratch + offset);
    HalfToF32(reinterpret_cast<const uint16_t*>(ctx.inputs[i].data), widened, n);
    in_views_[i].data = scratch + offset;
    offset += AlignUp(static_cast<size_t>(n) * sizeof(float));
  }
  for (size_t j = 0; j < out_types_.size(); ++j) {
    out_views_[j] = {out_types_[j], ctx.outputs[j].data};
    out_bounds_[j] = std::numeric_limits<double>::infinity();
    if (!out_half_[j]) continue;
    out_views_[j].data = scratch + offset;
    offset += AlignUp(static_cast<size_t>(ElementCount(out_types_[j].shape)) * sizeof(float));
  }
}

void HalfAsF32::Narrow(const KernelContext& ctx) {
  for (size_t j = 0; j < out_types_.size(); ++j) {
    if (!out_half_[j]) {
      // Not rounded: the kernel's bound holds as it wrote it.
      if (j < ctx.output_bounds.size()) ctx.output_bounds[j] = out_bounds_[j];
      continue;
    }
    F32ToHalf(reinterpret_cast<const float*>(out_views_[j].data),
              reinterpret_cast<uint16_t*>(ctx.outputs[j].data), ElementCount(out_types_[j].shape));
  }
}

}  // namespace sy::cpu
