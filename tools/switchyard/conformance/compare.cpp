#include "conformance/compare.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "switchyard/half.h"

namespace sy::conformance {
namespace {

double Load(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::kF32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::kF64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::kF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return HalfToFloat(v);
    }
    case DType::kBF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return BFloat16ToFloat(v);
    }
    case DType::kI8:
      return static_cast<double>(static_cast<int8_t>(*p));
    case DType::kU8:
    case DType::kBool:
      return static_cast<double>(static_cast<uint8_t>(*p));
    case DType::kI32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::kI64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::kI16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::kU16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::kU32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
  return 0;
}

// A float's bits mapped so that consecutive representable values are consecutive
// integers (negative values mirrored below zero).
int64_t OrderedBits(DType dtype, double v) {
  int64_t bits = 0, sign = 0;
  switch (dtype) {
    case DType::kF32: {
      const float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      sign = u >> 31;
      bits = u & 0x7fffffffu;
      break;
    }
    case DType::kF16: {
      const uint16_t u = FloatToHalf(static_cast<float>(v));
      sign = u >> 15;
      bits = u & 0x7fffu;
      break;
    }
    case DType::kBF16: {
      const uint16_t u = FloatToBFloat16(static_cast<float>(v));
      sign = u >> 15;
      bits = u & 0x7fffu;
      break;
    }
    default: {
      uint64_t u;
      std::memcpy(&u, &v, 8);
      sign = static_cast<int64_t>(u >> 63);
      bits = static_cast<int64_t>(u & 0x7fffffffffffffffull);
      break;
    }
  }
  return sign ? -bits : bits;
}

std::string Number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

}  // namespace

double UlpDistance(DType dtype, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<double>::infinity();
  }
  // In integers: f64 bit patterns do not fit a double's 53-bit mantissa, and a
  // difference across zero can exceed int64_t.
  const int64_t x = OrderedBits(dtype, a), y = OrderedBits(dtype, b);  // |x|, |y| < 2^63
  const auto magnitude = [](int64_t v) { return static_cast<uint64_t>(v < 0 ? -v : v); };
  const uint64_t distance =
      (x < 0) == (y < 0) ? (x > y ? static_cast<uint64_t>(x - y) : static_cast<uint64_t>(y - x))
                         : magnitude(x) + magnitude(y);
  return static_cast<double>(distance);
}

std::string Compare(const Tensor& got, const Tensor& want, const Tolerance& tolerance) {
  if (got.type() != want.type()) {
    return "output is " + got.type().ToString() + ", expected " + want.type().ToString();
  }
  const DType dtype = want.dtype();
  const size_t size = DTypeSize(dtype);
  const bool exact = tolerance.exact || !IsFloat(dtype);
  int64_t bad = 0, first_bad = -1;
  double first_got = 0, first_want = 0, worst_ulp = 0;
  double diff_sq = 0, want_sq = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const std::byte* g = got.data() + i * static_cast<int64_t>(size);
    const std::byte* w = want.data() + i * static_cast<int64_t>(size);
    bool ok;
    const double gv = Load(dtype, g), wv = Load(dtype, w);
    if (exact) {
      ok = std::memcmp(g, w, size) == 0 || (IsFloat(dtype) && std::isnan(gv) && std::isnan(wv));
    } else {
      const double ulp = UlpDistance(dtype, gv, wv);
      ok = ulp <= tolerance.max_ulp ||
           (std::isfinite(wv) &&
            std::fabs(gv - wv) <= tolerance.abs + tolerance.rel * std::fabs(wv));
      if (std::isfinite(ulp)) worst_ulp = std::max(worst_ulp, ulp);
      if (std::isfinite(gv) && std::isfinite(wv)) {
        diff_sq += (gv - wv) * (gv - wv);
        want_sq += wv * wv;
      }
    }
    if (!ok) {
      if (first_bad < 0) {
        first_bad = i;
        first_got = gv;
        first_want = wv;
      }
      ++bad;
    }
  }
  std::string problem;
  if (bad > 0) {
    problem = std::to_string(bad) + " of " + std::to_string(want.element_count()) +
              " elements differ; first at " + std::to_string(first_bad) + ": got " +
              Number(first_got) + ", expected " + Number(first_want);
    if (!exact) {
      problem += " (" + Number(UlpDistance(dtype, first_got, first_want)) + " ulp; allowed " +
                 Number(tolerance.max_ulp) + " ulp or " + Number(tolerance.abs) + " + " +
                 Number(tolerance.rel) + " * |expected|)";
    }
    return problem;
  }
  if (!exact && tolerance.rel_l2 > 0 && want_sq > 0) {
    const double rel_l2 = std::sqrt(diff_sq / want_sq);
    if (rel_l2 > tolerance.rel_l2) {
      return "relative error norm " + Number(rel_l2) + " exceeds " + Number(tolerance.rel_l2) +
             " (worst element " + Number(worst_ulp) + " ulp)";
    }
  }
  return "";
}

}  // namespace sy::conformance
