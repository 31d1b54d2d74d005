// Fast binary elementwise kernels (add sub mul div) for the common f32 cases: both
// inputs of the output's shape, one side a single element, or one side repeating along
// the leading axes (its shape, leading 1s dropped, is a suffix of the output's: a bias
// [C] added to [N, C]). Tight loops the compiler vectorises, split over the context's
// threads; everything else (other dtypes, general broadcasting) goes to the reference
// kernel of the same op. relu is with the unary kernels (unary_fast.cpp).
#include <algorithm>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

// Whether `in` broadcasts to `out` by repetition only: without its leading 1s, its shape
// is a suffix of out's, so that input element i % count(in) pairs with output element i.
bool IsSuffixOf(const Shape& in, const Shape& out) {
  size_t lead = 0;
  while (lead < in.size() && in[lead] == 1) ++lead;
  const size_t k = in.size() - lead;
  return k <= out.size() && std::equal(in.begin() + static_cast<std::ptrdiff_t>(lead), in.end(),
                                       out.end() - static_cast<std::ptrdiff_t>(k));
}

// z[i] = op(x[i], y[i % m]) (kRepeatB) or op(x[i % m], y[i]) (!kRepeatB) over [begin,
// end), in runs that stay inside one repetition so that the inner loop vectorises.
template <typename Op, bool kRepeatB>
SY_CPU_ISA_CLONES void RepeatLoop(const float* x, const float* y, float* z, int64_t m,
                                  int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end;) {
    const int64_t j = i % m;
    const int64_t len = std::min(m - j, end - i);
    const float* xs = kRepeatB ? x + i : x + j;
    const float* ys = kRepeatB ? y + j : y + i;
    float* zs = z + i;
    for (int64_t k = 0; k < len; ++k) zs[k] = Op()(xs[k], ys[k]);
    i += len;
  }
}

// z[i] = op(x[i], y[i]) over [begin, end); kScalarX / kScalarY: x[0] / y[0] for every i.
template <typename Op, bool kScalarX, bool kScalarY>
SY_CPU_ISA_CLONES void BinaryLoop(const float* x, const float* y, float* z, int64_t begin,
                                  int64_t end) {
  const float sx = kScalarX ? x[0] : 0.0f, sy = kScalarY ? y[0] : 0.0f;
  for (int64_t i = begin; i < end; ++i) z[i] = Op()(kScalarX ? sx : x[i], kScalarY ? sy : y[i]);
}

template <typename Op>
Status Binary(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& out = ctx.outputs[0];
  const int64_t n = out.count();
  const int64_t na = a.count(), nb = b.count();
  if (a.dtype() != DType::kF32 || !fast::IsF32Aligned(a.data) || !fast::IsF32Aligned(b.data) ||
      !fast::IsF32Aligned(out.data)) {
    return RefKernels().Find(ctx.op)(ctx);
  }
  const float* x = reinterpret_cast<const float*>(a.data);
  const float* y = reinterpret_cast<const float*>(b.data);
  float* z = reinterpret_cast<float*>(out.data);
  constexpr int64_t kGrain = fast::kCheapGrain;
  if (n == 0) return Status::Ok();
  if (na == n && nb == n) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z](int64_t begin, int64_t end) {
      BinaryLoop<Op, false, false>(x, y, z, begin, end);
    });
  } else if (na == n && nb == 1) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z](int64_t begin, int64_t end) {
      BinaryLoop<Op, false, true>(x, y, z, begin, end);
    });
  } else if (nb == n && na == 1) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z](int64_t begin, int64_t end) {
      BinaryLoop<Op, true, false>(x, y, z, begin, end);
    });
  } else if (na == n && IsSuffixOf(b.shape(), out.shape())) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z, nb](int64_t begin, int64_t end) {
      RepeatLoop<Op, true>(x, y, z, nb, begin, end);
    });
  } else if (nb == n && IsSuffixOf(a.shape(), out.shape())) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z, na](int64_t begin, int64_t end) {
      RepeatLoop<Op, false>(x, y, z, na, begin, end);
    });
  } else {
    return RefKernels().Find(ctx.op)(ctx);
  }
  return Status::Ok();
}

struct AddOp {
  float operator()(float a, float b) const { return a + b; }
};
struct SubOp {
  float operator()(float a, float b) const { return a - b; }
};
struct MulOp {
  float operator()(float a, float b) const { return a * b; }
};
struct DivOp {
  float operator()(float a, float b) const { return a / b; }
};

}  // namespace

void AddElementwiseFastKernels(KernelTable& table) {
  table.Add("add", Binary<AddOp>);
  table.Add("sub", Binary<SubOp>);
  table.Add("mul", Binary<MulOp>);
  table.Add("div", Binary<DivOp>);
}

}  // namespace sy::cpu
