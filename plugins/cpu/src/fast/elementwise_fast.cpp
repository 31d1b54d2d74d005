// Fast binary elementwise kernels (add sub mul div; add sub mul on i32 too; the
// comparisons on f32, i32 and i64 and and/or/xor on bool, giving bool; not) for the common
// cases: both
// inputs of the output's shape, one side a single element, or one side broadcast as one
// block of the output's dims (BlockInner: a bias [C] added to [N, C], a per-channel
// [C, 1, 1] scale of [N, C, H, W]). Tight loops the compiler vectorises, split over the context's
// threads; everything else (other dtypes, general broadcasting) goes to the reference
// kernel of the same op. `where` on bool conditions and 4-byte values reads its three
// inputs the same ways. `pow` of f32 by one exponent that is an integer from -4 to 4 or
// 1/2 (x^2 in RMSNorm and T5's norms, x^3 in tanh-GELU) is multiplications, a division or
// a square root in double, rounded once to f32: the reference's std::pow(double, double)
// to within its last bit, so the same f32 but in the rarest ties. relu is with the unary
// kernels (unary_fast.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>

#include "fast/fast_kernels.h"
#include "fast/joined_layout.h"
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

// The `inner` of an input that broadcasts to `out` as one block of out's dims: right-
// aligned with out, its dims other than 1 are a contiguous run equal to out's there, so
// that output element i pairs with input element (i / inner) % count(in), inner being
// the product of out's dims after the run (1 for a suffix: a bias [C] added to [N, C];
// H * W for a per-channel [C, 1, 1] against [N, C, H, W]). -1 when it does not.
int64_t BlockInner(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return -1;
  const size_t pad = out.size() - in.size();
  int64_t first = -1, last = -1;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) continue;
    if (in[d] != out[d + pad] || (last >= 0 && last != static_cast<int64_t>(d) - 1)) return -1;
    if (first < 0) first = static_cast<int64_t>(d);
    last = static_cast<int64_t>(d);
  }
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(last + 1) + pad; d < out.size() && last >= 0; ++d) {
    inner *= out[d];
  }
  return inner;
}

// z[i] = op(x[i], y[(i / inner) % m]) (kRepeatB) or op(x[(i / inner) % m], y[i])
// (!kRepeatB) over [begin, end), in runs that stay inside one repetition (inner == 1) or
// one repeated element (inner > 1) so that the inner loop vectorises.
template <typename Op, bool kRepeatB, typename T, typename R>
SY_CPU_ISA_CLONES void RepeatLoop(const T* x, const T* y, R* z, int64_t m, int64_t inner,
                                  int64_t begin, int64_t end) {
  if (inner == 1) {
    for (int64_t i = begin; i < end;) {
      const int64_t j = i % m;
      const int64_t len = std::min(m - j, end - i);
      const T* xs = kRepeatB ? x + i : x + j;
      const T* ys = kRepeatB ? y + j : y + i;
      R* zs = z + i;
      for (int64_t k = 0; k < len; ++k) zs[k] = Op()(xs[k], ys[k]);
      i += len;
    }
    return;
  }
  for (int64_t i = begin; i < end;) {
    const int64_t len = std::min(inner - i % inner, end - i);
    const T v = kRepeatB ? y[(i / inner) % m] : x[(i / inner) % m];
    const T* full = (kRepeatB ? x : y) + i;
    R* zs = z + i;
    for (int64_t k = 0; k < len; ++k) zs[k] = kRepeatB ? Op()(full[k], v) : Op()(v, full[k]);
    i += len;
  }
}

// z[i] = op(x[i], y[i]) over [begin, end); kScalarX / kScalarY: x[0] / y[0] for every i.
template <typename Op, bool kScalarX, bool kScalarY, typename T, typename R>
SY_CPU_ISA_CLONES void BinaryLoop(const T* x, const T* y, R* z, int64_t begin, int64_t end) {
  const T sx = kScalarX ? x[0] : T(0), sy = kScalarY ? y[0] : T(0);
  for (int64_t i = begin; i < end; ++i) z[i] = Op()(kScalarX ? sx : x[i], kScalarY ? sy : y[i]);
}

// R: the output's element type (T, or uint8_t for the comparisons' bool).
template <typename Op, typename T, typename R = T>
Status BinaryAs(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& out = ctx.outputs[0];
  const int64_t n = out.count();
  const int64_t na = a.count(), nb = b.count();
  const auto aligned = [](const void* p) {
    return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
  };
  if (!aligned(a.data) || !aligned(b.data) || !aligned(out.data)) {
    return RefKernels().Find(ctx.op)(ctx);
  }
  const T* x = reinterpret_cast<const T*>(a.data);
  const T* y = reinterpret_cast<const T*>(b.data);
  R* z = reinterpret_cast<R*>(out.data);
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
  } else if (const int64_t inner = na == n ? BlockInner(b.shape(), out.shape()) : -1; inner > 0) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z, nb, inner](int64_t begin, int64_t end) {
      RepeatLoop<Op, true>(x, y, z, nb, inner, begin, end);
    });
  } else if (const int64_t inner_a = nb == n ? BlockInner(a.shape(), out.shape()) : -1;
             inner_a > 0) {
    ParallelFor(ctx.pool, n, kGrain, [x, y, z, na, inner_a](int64_t begin, int64_t end) {
      RepeatLoop<Op, false>(x, y, z, na, inner_a, begin, end);
    });
  } else {
    return RefKernels().Find(ctx.op)(ctx);
  }
  return Status::Ok();
}

// i32 (a quantized model's zero-point shifts and accumulators) wraps around as the
// reference does, through uint32 arithmetic; div stays f32 only (integer division has its
// zero and rounding rules in the reference).
struct AddOp {
  float operator()(float a, float b) const { return a + b; }
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
};
struct SubOp {
  float operator()(float a, float b) const { return a - b; }
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
};
struct MulOp {
  float operator()(float a, float b) const { return a * b; }
  int32_t operator()(int32_t a, int32_t b) const {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
};
struct DivOp {
  float operator()(float a, float b) const { return a / b; }
};

// Comparisons (f32 as IEEE compares them, NaN unordered; i32 and i64) and logic on bool
// (nonzero is true), each giving 0 or 1: the reference's results.
template <typename Cmp>
struct CompareOp {
  template <typename T>
  uint8_t operator()(T a, T b) const {
    return Cmp()(a, b);
  }
};
template <typename Op>
struct LogicOp {
  uint8_t operator()(uint8_t a, uint8_t b) const { return Op()(a != 0, b != 0); }
};

template <typename Op>
Status Comparison(const KernelContext& ctx) {
  switch (ctx.inputs[0].dtype()) {
    case DType::kF32:
      return BinaryAs<Op, float, uint8_t>(ctx);
    case DType::kI32:
      return BinaryAs<Op, int32_t, uint8_t>(ctx);
    case DType::kI64:
      return BinaryAs<Op, int64_t, uint8_t>(ctx);
    default:
      return RefKernels().Find(ctx.op)(ctx);
  }
}

template <typename Op>
Status Logic(const KernelContext& ctx) {
  if (ctx.inputs[0].dtype() != DType::kBool) return RefKernels().Find(ctx.op)(ctx);
  return BinaryAs<Op, uint8_t>(ctx);
}

SY_CPU_ISA_CLONES void NotLoop(const uint8_t* x, uint8_t* z, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) z[i] = x[i] == 0;
}

// not on bool.
Status Not(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  if (a.dtype() != DType::kBool) return RefKernels().Find(ctx.op)(ctx);
  const auto* x = reinterpret_cast<const uint8_t*>(a.data);
  auto* z = reinterpret_cast<uint8_t*>(ctx.outputs[0].data);
  ParallelFor(ctx.pool, ctx.outputs[0].count(), fast::kCheapGrain,
              [x, z](int64_t begin, int64_t end) { NotLoop(x, z, begin, end); });
  return Status::Ok();
}

template <typename Op>
Status Binary(const KernelContext& ctx) {
  const DType dtype = ctx.inputs[0].dtype();
  if (dtype == DType::kF32) return BinaryAs<Op, float>(ctx);
  if (dtype == DType::kI32 && !std::is_same_v<Op, DivOp>) return BinaryAs<Op, int32_t>(ctx);
  return RefKernels().Find(ctx.op)(ctx);
}

// How `where` reads one input of `count` elements for an output of `n`: element i itself,
// element 0 for every i, or element i % count (a suffix repeating along leading axes).
struct Reading {
  enum Kind { kFull, kScalar, kRepeat } kind = kFull;
  int64_t period = 1;
};

bool ReadingOf(const ConstTensorView& in, const Shape& out, int64_t n, Reading& r) {
  const int64_t count = in.count();
  if (count == n) {
    r = {Reading::kFull, n};
  } else if (count == 1) {
    r = {Reading::kScalar, 1};
  } else if (count > 0 && IsSuffixOf(in.shape(), out)) {
    r = {Reading::kRepeat, count};
  } else {
    return false;
  }
  return true;
}

// where(cond, a, b) for bool conditions and 4-byte values (f32, i32) whose inputs are
// each whole, one element, or a repeating suffix: an attention mask [1, 1, 1, L] choosing
// between scores [1, H, 1, L] and one fill value, which the reference's general
// broadcasting cursor runs at about 11 ns an element. Runs that stay inside one
// repetition of every repeating input, so that the inner loop is a plain strided select.
Status Where(const KernelContext& ctx) {
  const ConstTensorView& cond = ctx.inputs[0];
  const ConstTensorView& a = ctx.inputs[1];
  const ConstTensorView& b = ctx.inputs[2];
  const TensorView& out = ctx.outputs[0];
  const int64_t n = out.count();
  Reading rc, ra, rb;
  if (cond.dtype() != DType::kBool || DTypeSize(out.dtype()) != 4 || !fast::IsF32Aligned(a.data) ||
      !fast::IsF32Aligned(b.data) || !fast::IsF32Aligned(out.data) ||
      !ReadingOf(cond, out.shape(), n, rc) || !ReadingOf(a, out.shape(), n, ra) ||
      !ReadingOf(b, out.shape(), n, rb)) {
    return RefKernels().Find("where")(ctx);
  }
  const auto* c = reinterpret_cast<const uint8_t*>(cond.data);
  const auto* x = reinterpret_cast<const uint32_t*>(a.data);
  const auto* y = reinterpret_cast<const uint32_t*>(b.data);
  auto* z = reinterpret_cast<uint32_t*>(out.data);
  // Element i's index into an input, and how many elements from i it goes on linearly.
  const auto at = [](const Reading& r, int64_t i) {
    return r.kind == Reading::kFull ? i : r.kind == Reading::kScalar ? 0 : i % r.period;
  };
  const auto room = [](const Reading& r, int64_t i, int64_t end) {
    return r.kind == Reading::kRepeat ? std::min(end, i + r.period - i % r.period) : end;
  };
  ParallelFor(ctx.pool, n, fast::kCheapGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      const int64_t stop = std::min({room(rc, i, end), room(ra, i, end), room(rb, i, end)});
      const uint8_t* cs = c + at(rc, i);
      const uint32_t* xs = x + at(ra, i);
      const uint32_t* ys = y + at(rb, i);
      const int64_t sc = rc.kind != Reading::kScalar, sa = ra.kind != Reading::kScalar,
                    sb = rb.kind != Reading::kScalar;
      uint32_t* zs = z + i;
      for (int64_t k = 0; k < stop - i; ++k) {
        zs[k] = cs[k * sc] != 0 ? xs[k * sa] : ys[k * sb];
      }
      i = stop;
    }
  });
  return Status::Ok();
}

// ---- per-channel operands, in either layout ------------------------------------------
//
// A squeeze-excite block scales a conv's output [N, C, H, W] by one value per sample and
// channel ([N, C, 1, 1] or [1, C, 1, 1]), and the next conv reads the product. Through the
// plain kernel both would be row-major, costing the convs on either side a reorder. This
// prepared kernel also takes the full-size operand and the output channels-last (NHWC),
// both alike (JoinedLayoutKernel), where the per-channel operand repeats along the
// innermost dim; the arithmetic per element is the same, so the results are identical in
// either layout.
template <typename Op>
class ChannelBinary final : public JoinedLayoutKernel {
 public:
  ChannelBinary(size_t full, int64_t batch, int64_t channels, int64_t spatial, bool per_sample)
      : full_(full),
        batch_(batch),
        channels_(channels),
        spatial_(spatial),
        per_sample_(per_sample) {}

  // The kernel for an f32 output of rank 3 to 5, one operand of its shape and the other
  // [N or 1, C, 1...] (right-aligned, ones dropped in front); nullptr for anything else,
  // which the plain kernel runs.
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (ctx.inputs.size() != 2 || ctx.outputs[0].dtype != DType::kF32 ||
        ctx.inputs[0].dtype != DType::kF32 || ctx.inputs[1].dtype != DType::kF32) {
      return nullptr;
    }
    const Shape& out = ctx.outputs[0].shape;
    if (out.size() < 3 || out.size() > 5 || ElementCount(out) == 0) return nullptr;
    for (size_t full = 0; full < 2; ++full) {
      const Shape& small = ctx.inputs[1 - full].shape;
      if (ctx.inputs[full].shape != out || small.size() > out.size()) continue;
      const size_t pad = out.size() - small.size();
      bool fits = true, per_sample = false;
      for (size_t d = 0; d < out.size() && fits; ++d) {
        const int64_t s = d < pad ? 1 : small[d - pad];
        if (d == 0) {
          per_sample = s != 1;
          fits = s == 1 || s == out[0];
        } else {
          fits = s == (d == 1 ? out[1] : 1);
        }
      }
      if (!fits) continue;
      return std::make_unique<ChannelBinary>(full, out[0], out[1],
                                             ElementCount(out) / (out[0] * out[1]), per_sample);
    }
    return nullptr;
  }

  bool AcceptsChannelsLastInput(size_t index) const override { return index == full_; }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayout(Prepare(ctx));
  }

  Status Run(const KernelContext& ctx) override {
    if (!channels_last_) return BinaryAs<Op, float>(ctx);
    const float* full = reinterpret_cast<const float*>(ctx.inputs[full_].data);
    const float* small = reinterpret_cast<const float*>(ctx.inputs[1 - full_].data);
    float* out = reinterpret_cast<float*>(ctx.outputs[0].data);
    const int64_t c = channels_;
    const bool full_first = full_ == 0;
    ParallelFor(ctx.pool, batch_ * spatial_, fast::RowGrain(fast::kCheapGrain, c),
                [&](int64_t p0, int64_t p1) {
                  for (int64_t p = p0; p < p1; ++p) {
                    const float* s = small + (per_sample_ ? (p / spatial_) * c : 0);
                    if (full_first) {
                      BinaryLoop<Op, false, false>(full + p * c, s, out + p * c, 0, c);
                    } else {
                      BinaryLoop<Op, false, false>(s, full + p * c, out + p * c, 0, c);
                    }
                  }
                });
    return Status::Ok();
  }

 private:
  size_t full_;
  int64_t batch_, channels_, spatial_;
  bool per_sample_;
};

}  // namespace

// x^e for a fixed e, in double (x^2 is exact there: 48 bits), rounded once to f32.
template <int kExponent>
SY_CPU_ISA_CLONES void PowLoop(const float* x, float* z, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const double d = x[i];
    double r;
    if constexpr (kExponent == 0) {
      r = 1.0;  // pow(x, 0) is 1 for every x, NaN included
    } else if constexpr (kExponent == 1) {
      r = d;
    } else if constexpr (kExponent == 2) {
      r = d * d;
    } else if constexpr (kExponent == 3) {
      r = (d * d) * d;
    } else if constexpr (kExponent == 4) {
      r = (d * d) * (d * d);
    } else if constexpr (kExponent == -1) {
      r = 1.0 / d;
    } else if constexpr (kExponent == -2) {
      r = 1.0 / (d * d);
    } else if constexpr (kExponent == -3) {
      r = 1.0 / ((d * d) * d);
    } else if constexpr (kExponent == -4) {
      r = 1.0 / ((d * d) * (d * d));
    } else {  // 1/2 (kExponent 100): pow's square root, +0 for -0 and +inf for -inf
      r = d == 0.0 ? 0.0 : (d == -std::numeric_limits<double>::infinity() ? -d : std::sqrt(d));
    }
    z[i] = static_cast<float>(r);
  }
}

// pow(a, b) with b one f32 element whose value PowLoop takes; anything else runs the
// reference kernel.
Status Pow(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& out = ctx.outputs[0];
  const KernelFn reference = RefKernels().Find(ctx.op);
  if (a.dtype() != DType::kF32 || b.dtype() != DType::kF32 || b.count() != 1 ||
      a.count() != out.count() || !fast::IsF32Aligned(a.data) || !fast::IsF32Aligned(b.data) ||
      !fast::IsF32Aligned(out.data)) {
    return reference(ctx);
  }
  const float e = *reinterpret_cast<const float*>(b.data);
  void (*loop)(const float*, float*, int64_t, int64_t) = nullptr;
  switch (e == 0.5f ? 100 : (e == std::floor(e) && std::fabs(e) <= 4 ? static_cast<int>(e) : 99)) {
    case -4:
      loop = PowLoop<-4>;
      break;
    case -3:
      loop = PowLoop<-3>;
      break;
    case -2:
      loop = PowLoop<-2>;
      break;
    case -1:
      loop = PowLoop<-1>;
      break;
    case 0:
      loop = PowLoop<0>;
      break;
    case 1:
      loop = PowLoop<1>;
      break;
    case 2:
      loop = PowLoop<2>;
      break;
    case 3:
      loop = PowLoop<3>;
      break;
    case 4:
      loop = PowLoop<4>;
      break;
    case 100:
      loop = PowLoop<100>;
      break;
    default:
      return reference(ctx);
  }
  const float* x = reinterpret_cast<const float*>(a.data);
  float* z = reinterpret_cast<float*>(out.data);
  ParallelFor(ctx.pool, out.count(), fast::kCheapGrain,
              [x, z, loop](int64_t begin, int64_t end) { loop(x, z, begin, end); });
  return Status::Ok();
}

void AddElementwiseFastKernels(KernelTable& table) {
  table.Add("add", Binary<AddOp>, ChannelBinary<AddOp>::Prepare);
  table.Add("sub", Binary<SubOp>, ChannelBinary<SubOp>::Prepare);
  table.Add("mul", Binary<MulOp>, ChannelBinary<MulOp>::Prepare);
  table.Add("div", Binary<DivOp>, ChannelBinary<DivOp>::Prepare);
  table.Add("where", Where);
  table.Add("pow", Pow);
  table.Add("equal", Comparison<CompareOp<std::equal_to<>>>);
  table.Add("less", Comparison<CompareOp<std::less<>>>);
  table.Add("less_equal", Comparison<CompareOp<std::less_equal<>>>);
  table.Add("greater", Comparison<CompareOp<std::greater<>>>);
  table.Add("greater_equal", Comparison<CompareOp<std::greater_equal<>>>);
  table.Add("and", Logic<LogicOp<std::bit_and<>>>);
  table.Add("or", Logic<LogicOp<std::bit_or<>>>);
  table.Add("xor", Logic<LogicOp<std::bit_xor<>>>);
  table.Add("not", Not);
}

}  // namespace sy::cpu
