// qlinear_conv's multiplier on the device (kernels/conv_pool.cl, sy_q_multiplier): computed
// in integers so that it equals the host's f32 arithmetic (QLinearMultiplier,
// plugins/common/qlinear_requantize.h) bit for bit on any device, whatever the accuracy of
// its float division or its support for subnormals. Checked against the host on scales
// across the whole positive f32 range, on realistic ones, on ties of the product, on
// quotients a hair from a tie, on roundings into the subnormals, and on the scales
// QLinearScaleProblem refuses (for which the kernel uses 0, so that no NaN reaches a
// conversion).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_sources.h"
#include "opencl_test_util.h"
#include "program_cache.h"
#include "qlinear_requantize.h"
#include "switchyard/dtype.h"
#include "test_util.h"

namespace sy::opencl {
namespace {

uint32_t Bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return u;
}
float Float(uint32_t u) {
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

// The host's answer for one triple: the multiplier's bits, or 0 for refused scales.
uint32_t HostMultiplier(uint32_t x, uint32_t w, uint32_t y) {
  if (!plugin::QLinearScaleProblem(Float(x), Float(w), Float(y)).empty()) return 0;
  return Bits(plugin::QLinearMultiplier(Float(x), Float(w), Float(y)));
}

TEST(QLinearConvMultiplier, EqualsTheHostsF32ArithmeticBitForBit) {
  SY_REQUIRE_OPENCL_DEVICE();
  sy::test::TempDir dir;
  std::unique_ptr<Device> device = test::OpenFirstDevice((dir / "cache").string());
  ASSERT_NE(device, nullptr);

  std::vector<uint32_t> triples;
  const auto add = [&](uint32_t x, uint32_t w, uint32_t y) {
    triples.insert(triples.end(), {x, w, y});
  };
  const uint32_t one = Bits(1.0f), two = Bits(2.0f), largest = 0x7f7fffffu;
  // Ties: (1 + 2^-23) * 1.5 lies halfway between two f32 (to even); in the subnormals,
  // 3 * 2^-149 * 0.5 and 3 * 2^-149 / 2 (1.5 units: up to 2), 5 * 2^-149 / 2 (2.5: down
  // to 2), 2^-149 / 2 (0.5: down to 0) and 2^-149 / (2 - 2^-23) (just above: up to 1).
  add(0x3f800001u, Bits(1.5f), one);
  add(3, Bits(0.5f), one);
  add(3, one, two);
  add(5, one, two);
  add(1, one, two);
  add(1, one, 0x3fffffffu);
  add(1, one, Bits(4.0f));
  // The largest subnormal over 1 - 2^-23 rounds up to the smallest normal; the largest
  // f32 stays finite over 1 and overflows over 0.5 (refused); 2^-149 times itself is 0.
  add(0x007fffffu, one, 0x3f7ffffeu);
  add(largest, one, one);
  add(largest, one, Bits(0.5f));
  add(1, 1, one);
  add(largest, largest, largest);
  // Refused scales: zero, negative, infinite, NaN, in each position.
  for (const float bad : {0.0f, -0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()}) {
    add(Bits(bad), one, one);
    add(one, Bits(bad), one);
    add(one, one, Bits(bad));
  }
  std::mt19937_64 rng(20261207);
  // Products exactly halfway between two f32, both ways to even: significands 2^(23 - k)
  // a and 2^k b (a, b odd) multiply to 2^23 a b, a tie where that has 48 bits.
  const auto normal = [&](uint64_t significand, uint32_t biased) {
    return (biased << 23) | static_cast<uint32_t>(significand & 0x7fffffu);
  };
  for (int found = 0; found < 256;) {
    const int k = static_cast<int>(rng() % 24);
    const uint64_t a = (uint64_t{1} << k) | (rng() & ((uint64_t{1} << k) - 1)) | 1;
    const uint64_t b = (uint64_t{1} << (23 - k)) | (rng() & ((uint64_t{1} << (23 - k)) - 1)) | 1;
    if (((a << (23 - k)) * (b << k)) >> 47 == 0) continue;  // 47 bits: exact
    add(normal(a << (23 - k), 100 + rng() % 50), normal(b << k, 100 + rng() % 50), one);
    ++found;
  }
  // Quotients within 2^-40 of a tie (every 65536th pair of significands or so): where the
  // division's remainder alone says which way to round.
  for (int found = 0; found < 256;) {
    const uint64_t a = (uint64_t{1} << 23) | (rng() & 0x7fffffu);
    const uint64_t b = (uint64_t{1} << 23) | (rng() & 0x7fffffu);
    const uint64_t q = (a << 40) / b;
    const int shift = q >> 40 != 0 ? 17 : 16;
    if ((q & ((uint64_t{1} << shift) - 1)) != uint64_t{1} << (shift - 1)) continue;
    add(normal(a, 100 + rng() % 50), one, normal(b, 100 + rng() % 50));
    ++found;
  }
  // Any positive finite f32 (most products overflow or vanish), then exponents kept near
  // each other (products and quotients land anywhere, the subnormals included), then
  // scales as quantized models have them.
  std::uniform_int_distribution<uint32_t> any(1, largest);
  for (int i = 0; i < 65536; ++i) add(any(rng), any(rng), any(rng));
  std::uniform_int_distribution<uint32_t> fraction(0, 0x7fffffu), exponent(0, 80);
  const auto near = [&](uint32_t base) { return ((base + exponent(rng)) << 23) | fraction(rng); };
  for (int i = 0; i < 65536; ++i) add(near(0), near(10), near(70));
  for (int i = 0; i < 65536; ++i) add(near(40), near(40), near(150));
  std::uniform_real_distribution<float> realistic(1e-4f, 0.2f);
  for (int i = 0; i < 65536; ++i)
    add(Bits(realistic(rng)), Bits(realistic(rng)), Bits(realistic(rng)));

  const std::string defines = SlotDefines('A', DType::kU8) + SlotDefines('B', DType::kI8) +
                              SlotDefines('Y', DType::kU8) +
                              "#define Y_LO 0.0f\n#define Y_HI 255.0f\n#define QLINEAR_CONV 1\n";
  const std::string source =
      AssembleProgram("conv_pool", defines, false) +
      "\n__kernel void sy_test_multiplier(__global const uint* s, __global uint* m) {\n"
      "  const size_t i = get_global_id(0);\n"
      "  m[i] = as_uint(sy_q_multiplier(s[3 * i], s[3 * i + 1], s[3 * i + 2]));\n"
      "}\n";
  cl_program program = device->programs->Get(source, BuildOptions(*device));
  cl_int err = CL_SUCCESS;
  UniqueKernel kernel(clCreateKernel(program, "sy_test_multiplier", &err));
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t count = triples.size() / 3;
  ClBuffer in(*device, triples.size() * 4), out(*device, count * 4);
  in.CopyFromHost(0, triples.data(), triples.size() * 4);
  cl_mem in_mem = in.mem(), out_mem = out.mem();
  ASSERT_EQ(clSetKernelArg(kernel.get(), 0, sizeof in_mem, &in_mem), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel.get(), 1, sizeof out_mem, &out_mem), CL_SUCCESS);
  ASSERT_EQ(clEnqueueNDRangeKernel(device->queue.get(), kernel.get(), 1, nullptr, &count, nullptr,
                                   0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<uint32_t> got(count);
  out.CopyToHost(0, got.data(), count * 4);

  int failures = 0, valid = 0, subnormal = 0;
  for (size_t i = 0; i < count && failures < 10; ++i) {
    const uint32_t x = triples[3 * i], w = triples[3 * i + 1], y = triples[3 * i + 2];
    const uint32_t want = HostMultiplier(x, w, y);
    valid += want != 0 ? 1 : 0;
    subnormal += want != 0 && want < 0x00800000u ? 1 : 0;
    if (got[i] != want) {
      ++failures;
      ADD_FAILURE() << std::hex << "scales 0x" << x << " 0x" << w << " 0x" << y << ": got 0x"
                    << got[i] << ", want 0x" << want;
    }
  }
  // The triples reach every kind of result.
  EXPECT_GT(valid, 100000);
  EXPECT_GT(subnormal, 1000);
  // The hand-picked ones, spelled out.
  EXPECT_EQ(got[0], 0x3fc00002u);  // 1.5 + 1.5 * 2^-23: to even
  EXPECT_EQ(got[1], 2u);
  EXPECT_EQ(got[2], 2u);
  EXPECT_EQ(got[3], 2u);
  EXPECT_EQ(got[4], 0u);
  EXPECT_EQ(got[5], 1u);
  EXPECT_EQ(got[6], 0u);
  EXPECT_EQ(got[7], 0x00800000u);
  EXPECT_EQ(got[8], largest);
  EXPECT_EQ(got[9], 0u);  // overflows: refused
}

}  // namespace
}  // namespace sy::opencl
