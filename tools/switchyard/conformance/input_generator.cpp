#include "conformance/input_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "switchyard/half.h"

namespace sy::conformance {
namespace {

// The largest number of a float dtype below 1: 1 - 2^-p, p its significant bits.
double BelowOne(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 1.0 - 0x1p-24;
    case DType::kF16:
      return 1.0 - 0x1p-11;
    case DType::kBF16:
      return 1.0 - 0x1p-8;
    default:
      return 1.0 - 0x1p-53;
  }
}

void StoreDouble(DType dtype, std::byte* p, double v) {
  switch (dtype) {
    case DType::kF32: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case DType::kF64:
      std::memcpy(p, &v, 8);
      return;
    case DType::kF16: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::kBF16: {
      const uint16_t h = FloatToBFloat16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    default:
      return;
  }
}

void StoreInteger(DType dtype, std::byte* p, int64_t v) {
  switch (dtype) {
    case DType::kI8: {
      const int8_t x = static_cast<int8_t>(v);
      std::memcpy(p, &x, 1);
      return;
    }
    case DType::kU8:
    case DType::kBool: {
      const uint8_t x = static_cast<uint8_t>(dtype == DType::kBool ? (v != 0) : v);
      std::memcpy(p, &x, 1);
      return;
    }
    case DType::kI32: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::kI64:
      std::memcpy(p, &v, 8);
      return;
    case DType::kI16:
    case DType::kU16: {
      const auto x = static_cast<uint16_t>(static_cast<uint64_t>(v));
      std::memcpy(p, &x, 2);
      return;
    }
    case DType::kU32: {
      const auto x = static_cast<uint32_t>(static_cast<uint64_t>(v));
      std::memcpy(p, &x, 4);
      return;
    }
    default:
      return;
  }
}

// CaseInput::tuple_dims: tuples over the innermost dim, entry c in [-size, size) of the
// dim of size tuple_dims[c] it indexes. With distinct_tuples, each run of that many tuples
// is a random selection without repetition of the positions (a partial shuffle), each
// entry then written as its negative alias half of the time.
void FillIndexTuples(const CaseInput& input, std::mt19937_64& rng, Tensor& t) {
  const std::vector<int64_t>& dims = input.tuple_dims;
  const auto k = static_cast<int64_t>(dims.size());
  const int64_t tuples = t.element_count() / k;
  const DType dtype = input.type.dtype;
  const size_t size = DTypeSize(dtype);
  std::byte* data = t.mutable_data();
  int64_t positions = 1;
  for (int64_t d : dims) positions *= d;
  std::vector<int64_t> order;
  for (int64_t j = 0; j < tuples; ++j) {
    std::vector<int64_t> coords(dims.size(), 0);
    if (input.distinct_tuples > 0 && positions > 0) {
      const int64_t r = j % input.distinct_tuples;
      if (r == 0) {
        order.resize(static_cast<size_t>(positions));
        for (int64_t p = 0; p < positions; ++p) order[static_cast<size_t>(p)] = p;
      }
      // Fisher-Yates step r (runs longer than `positions` repeat: the case is wrong).
      const int64_t slot = r % positions;
      const auto pick = static_cast<size_t>(
          slot + static_cast<int64_t>(rng() % static_cast<uint64_t>(positions - slot)));
      std::swap(order[static_cast<size_t>(slot)], order[pick]);
      int64_t pos = order[static_cast<size_t>(slot)];
      for (int64_t c = k - 1; c >= 0; --c) {
        const int64_t dim = dims[static_cast<size_t>(c)];
        coords[static_cast<size_t>(c)] = pos % dim - ((rng() & 1) != 0 ? dim : 0);
        pos /= dim;
      }
    } else {
      for (int64_t c = 0; c < k; ++c) {
        const int64_t dim = dims[static_cast<size_t>(c)];
        coords[static_cast<size_t>(c)] =
            dim > 0 ? -dim + static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * dim)) : 0;
      }
    }
    for (int64_t c = 0; c < k; ++c) {
      StoreInteger(dtype, data + static_cast<size_t>(j * k + c) * size,
                   coords[static_cast<size_t>(c)]);
    }
  }
}

}  // namespace

uint64_t CaseSeed(std::string_view op, std::string_view label, size_t input) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) {
    for (char c : s) {
      h ^= static_cast<uint8_t>(c);
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  };
  mix(op);
  mix(label);
  h ^= input;
  h *= 1099511628211ull;
  return h;
}

Expected<Tensor> GenerateInput(const CaseInput& input, uint64_t seed, bool special_values) {
  SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(input.type.dtype, input.type.shape));
  std::mt19937_64 rng(seed);
  const DType dtype = input.type.dtype;
  const size_t size = DTypeSize(dtype);
  std::byte* data = t.mutable_data();
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0));
  };
  auto integer = [&](int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  if (!input.values.empty()) {
    for (int64_t i = 0; i < t.element_count(); ++i) {
      const double v = input.values[static_cast<size_t>(i) % input.values.size()];
      std::byte* p = data + i * static_cast<int64_t>(size);
      if (IsFloat(dtype)) {
        StoreDouble(dtype, p, v);
      } else {
        StoreInteger(dtype, p, static_cast<int64_t>(v));
      }
    }
    return t;
  }
  if (!input.tuple_dims.empty() && IsInteger(dtype)) {
    FillIndexTuples(input, rng, t);
    return t;
  }
  static const double kSpecials[] = {std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     -0.0,
                                     0.0,
                                     1e30,
                                     -1e30,
                                     1e-40,
                                     65504.0,
                                     -3.0e38};
  for (int64_t i = 0; i < t.element_count(); ++i) {
    std::byte* p = data + i * static_cast<int64_t>(size);
    if (dtype == DType::kBool) {
      StoreInteger(dtype, p, static_cast<int64_t>(rng() & 1));
      continue;
    }
    if (IsFloat(dtype)) {
      double v = 0;
      switch (input.domain) {
        case Domain::kPositive:
          v = uniform(0.1, 4.0);
          break;
        case Domain::kUnit:
          v = uniform(-0.99, 0.99);
          break;
        case Domain::kAtLeastOne:
          v = uniform(1.0, 5.0);
          break;
        case Domain::kSmall:
          v = uniform(-0.5, 0.5);
          break;
        case Domain::kProbability:
          // At most the dtype's largest number below 1, so that rounding to it never
          // makes a 1 (f32 has 24 significant bits, f16 11, bf16 8).
          v = std::min(uniform(0.0, 1.0), BelowOne(dtype));
          break;
        case Domain::kIndex:
        case Domain::kNonNegativeIndex:
          v = static_cast<double>(integer(0, std::max<int64_t>(0, input.index_limit - 1)));
          break;
        case Domain::kAny:
          v = uniform(-2.0, 2.0);
          break;
      }
      if (special_values && input.domain == Domain::kAny && rng() % 8 == 0) {
        v = kSpecials[rng() % (sizeof kSpecials / sizeof kSpecials[0])];
      }
      StoreDouble(dtype, p, v);
      continue;
    }
    // Integers, kept inside the dtype's range (the unsigned ones have no negatives).
    const bool is_unsigned = !IsSigned(dtype);
    int64_t v = 0;
    switch (input.domain) {
      case Domain::kPositive:
      case Domain::kAtLeastOne:
        v = integer(1, 20);
        break;
      case Domain::kSmall:
      case Domain::kProbability:
        v = integer(0, 3);
        break;
      case Domain::kIndex:
        v = input.index_limit > 0 ? integer(-input.index_limit, input.index_limit - 1) : 0;
        break;
      case Domain::kNonNegativeIndex:
        v = input.index_limit > 0 ? integer(0, input.index_limit - 1) : 0;
        break;
      case Domain::kUnit:
      case Domain::kAny:
        v = is_unsigned ? integer(0, 40) : integer(-20, 20);
        break;
    }
    StoreInteger(dtype, p, v);
  }
  return t;
}

}  // namespace sy::conformance
