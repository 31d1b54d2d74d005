// The oneDNN max_pool, avg_pool and global_avg_pool kernels of the `cpu` device
// (fast/onednn/onednn_pool.cpp), compared with the reference kernels
// (ref/conv_pool_ref.cpp) on seeded random inputs: strides, pads, dilations, ceil_mode,
// count_include_pad, 1-D, 2-D and 3-D, one thread and two. Each case says whether the
// oneDNN kernel must run (a prepared kernel was built) or must be declined (windows with
// no tap inside x; count_include_pad with a ceil-mode window past the padding), and NaN and
// infinities come out as the reference's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast/fast_kernels.h"
#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool OneDnnRuns() { return !OneDnnDescription().empty(); }

Tensor Random(const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<double> values(static_cast<size_t>(ElementCount(shape)));
  for (double& v : values) v = dist(rng);
  return Make(DType::kF32, shape, values);
}

// Runs `op` on the fast table (one thread and two) and the reference, and compares: NaN
// where the reference has NaN, infinities exactly, finite values within 1e-5 relative.
void ExpectMatchesRef(const std::string& op, const Tensor& x, const Attrs& attrs,
                      bool expect_onednn) {
  Expected<std::vector<Tensor>> ref = RunRef(op, {x}, attrs);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  const std::vector<double> want = Values((*ref)[0]);
  ThreadPool pool(2);
  for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
    SCOPED_TRACE(threads ? "2 threads" : "1 thread");
    bool prepared = false;
    Expected<std::vector<Tensor>> fast =
        RunPrepared(FastKernels(), op, {x}, {false}, attrs, 1, threads, &prepared);
    ASSERT_TRUE(fast.ok()) << fast.status().ToString();
    ASSERT_EQ((*fast)[0].shape(), (*ref)[0].shape());
    EXPECT_EQ(prepared, expect_onednn && OneDnnRuns())
        << (prepared ? "a oneDNN kernel ran where the reference should"
                     : "the oneDNN kernel declined the case");
    const std::vector<double> got = Values((*fast)[0]);
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i];
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << "element " << i;
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << "element " << i;
      }
    }
  }
}

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel, strides = {}, pads = {}, dilations = {};
  int64_t ceil_mode = 0;
  bool expect_onednn = true;
};

Attrs PoolAttrs(const PoolCase& c) {
  Attrs a;
  a.Set("kernel_shape", c.kernel);
  if (!c.strides.empty()) a.Set("strides", c.strides);
  if (!c.pads.empty()) a.Set("pads", c.pads);
  if (!c.dilations.empty()) a.Set("dilations", c.dilations);
  if (c.ceil_mode != 0) a.Set("ceil_mode", c.ceil_mode);
  return a;
}

std::string Describe(const PoolCase& c) {
  std::string s = "x " + ShapeToString(c.x) + " kernel " + ShapeToString(c.kernel);
  if (!c.strides.empty()) s += " strides " + ShapeToString(c.strides);
  if (!c.pads.empty()) s += " pads " + ShapeToString(c.pads);
  if (!c.dilations.empty()) s += " dilations " + ShapeToString(c.dilations);
  if (c.ceil_mode != 0) s += " ceil_mode";
  return s;
}

const std::vector<PoolCase>& Cases() {
  static const std::vector<PoolCase> cases = {
      {{1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}},  // the ResNet stem's
      {{2, 3, 9, 9}, {2, 2}},
      {{2, 5, 10, 7}, {3, 2}, {2, 1}, {1, 0, 1, 1}},
      {{1, 4, 10, 10}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {}, 1},  // ceil_mode adds a window
      {{1, 4, 8, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1},
      {{1, 4, 9, 9}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {}, 1},  // ceil_mode adds none
      // Dilated: oneDNN 2.6 has only its scalar reference implementation for these, so
      // the kernel declines them.
      {{1, 3, 11, 11}, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 0, false},
      {{2, 4, 13}, {3}, {2}, {1, 1}},                               // 1-D
      {{1, 2, 6, 7, 5}, {2, 3, 2}, {2, 1, 2}, {0, 1, 1, 1, 1, 0}},  // 3-D
      {{1, 16, 7, 7}, {7, 7}},                                      // one window
  };
  return cases;
}

TEST(PoolOneDnnTest, MaxPoolMatchesTheReference) {
  std::mt19937 rng(51);
  for (const PoolCase& c : Cases()) {
    SCOPED_TRACE(Describe(c));
    ExpectMatchesRef("max_pool", Random(c.x, rng), PoolAttrs(c), c.expect_onednn);
  }
}

TEST(PoolOneDnnTest, AvgPoolMatchesTheReferenceWithAndWithoutPadding) {
  std::mt19937 rng(52);
  for (const PoolCase& c : Cases()) {
    for (const int64_t include_pad : {0, 1}) {
      SCOPED_TRACE(Describe(c) + " count_include_pad " + std::to_string(include_pad));
      Attrs attrs = PoolAttrs(c);
      attrs.Set("count_include_pad", include_pad);
      // count_include_pad divides by the taps inside the explicit padding, which a
      // ceil-mode window can run past: oneDNN would count those too.
      const bool past_padding = c.ceil_mode != 0 && include_pad != 0 && c.x[2] != 9;
      ExpectMatchesRef("avg_pool", Random(c.x, rng), attrs, c.expect_onednn && !past_padding);
    }
  }
}

TEST(PoolOneDnnTest, WindowsWithNoTapInsideXAreDeclined) {
  std::mt19937 rng(53);
  // A dilation stepping over a 2-wide x from a padded start: the window's taps land at -1
  // and 2 (-inf for max_pool, NaN for an average that excludes padding). The catalogue
  // keeps pads below the dilated window, so dilation is the only way to such a window.
  const PoolCase c{{1, 2, 2, 2}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {3, 3}};
  SCOPED_TRACE(Describe(c));
  ExpectMatchesRef("max_pool", Random(c.x, rng), PoolAttrs(c), false);
  ExpectMatchesRef("avg_pool", Random(c.x, rng), PoolAttrs(c), false);
}

TEST(PoolOneDnnTest, GlobalAvgPoolMatchesTheReference) {
  std::mt19937 rng(54);
  for (const Shape& shape :
       std::vector<Shape>{{1, 512, 7, 7}, {2, 3, 5, 4}, {3, 7, 9}, {1, 4, 3, 2, 5}, {2, 5, 1, 1}}) {
    SCOPED_TRACE(ShapeToString(shape));
    ExpectMatchesRef("global_avg_pool", Random(shape, rng), {}, true);
  }
}

TEST(PoolOneDnnTest, NaNAndInfinitiesAsTheReference) {
  std::mt19937 rng(55);
  const PoolCase c{{1, 3, 8, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}};
  Tensor x = Random(c.x, rng);
  std::vector<double> v = Values(x);
  v[9] = kNaN;
  v[70] = kInf;
  v[130] = -kInf;
  for (int i = 160; i < 192; ++i) v[i] = -kInf;  // whole windows of -inf
  x = Make(DType::kF32, c.x, v);
  // max_pool sends such an x to the reference; the prepared kernel is still the one run.
  ExpectMatchesRef("max_pool", x, PoolAttrs(c), true);
  ExpectMatchesRef("avg_pool", x, PoolAttrs(c), true);
  ExpectMatchesRef("global_avg_pool", x, {}, true);
}

}  // namespace
}  // namespace sy::cpu::test
