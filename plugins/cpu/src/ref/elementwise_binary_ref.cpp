// Reference kernels for the broadcasting elementwise ops (NumPy rules, via
// BroadcastCursor): add sub mul div pow max min mod prelu, the comparisons, and or xor,
// the bitwise ops, where.
//
// Integer arithmetic goes through uint64_t where it may overflow and wraps on store like
// NumPy. Integer div truncates toward zero; INT64_MIN / -1 wraps to INT64_MIN and
// INT64_MIN % -1 is 0 (neither traps). Integer div or mod by zero is a run-time error.
// mod with fmod 0 takes the sign of the divisor (Python's %) for integers and floats; with
// fmod 1 it is C's fmod (the sign of the dividend). max and min propagate NaN.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "ref/elementwise_ref.h"

namespace sy::cpu {
namespace {

// ---- arithmetic ----------------------------------------------------------------------

int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }

double AddF(double a, double b) { return a + b; }
int64_t AddI(int64_t a, int64_t b) { return Wrap(U(a) + U(b)); }
double SubF(double a, double b) { return a - b; }
int64_t SubI(int64_t a, int64_t b) { return Wrap(U(a) - U(b)); }
double MulF(double a, double b) { return a * b; }
int64_t MulI(int64_t a, int64_t b) { return Wrap(U(a) * U(b)); }
double DivF(double a, double b) { return a / b; }
// b != 0 (checked by the caller). Truncates toward zero; INT64_MIN / -1 wraps.
int64_t DivI(int64_t a, int64_t b) { return b == -1 ? Wrap(uint64_t{0} - U(a)) : a / b; }
double PowF(double a, double b) { return std::pow(a, b); }
// Integer pow is not in the catalogue (pow is F only); kept exact should a schema allow it.
int64_t PowI(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) != 0 ? -1 : 1) : 0);
  uint64_t result = 1;
  uint64_t base = U(a);
  for (; b > 0; b >>= 1, base *= base) {
    if ((b & 1) != 0) result *= base;
  }
  return Wrap(result);
}

double MaxF(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  return a < b ? b : a;
}
int64_t MaxI(int64_t a, int64_t b) { return a < b ? b : a; }
double MinF(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  return b < a ? b : a;
}
int64_t MinI(int64_t a, int64_t b) { return b < a ? b : a; }

// fmod 1: C's fmod, the remainder has the sign of the dividend.
double FmodF(double a, double b) { return std::fmod(a, b); }
int64_t FmodI(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }  // b != 0

// fmod 0: the remainder has the sign of the divisor (Python's %, NumPy's mod).
double ModF(double a, double b) {
  double r = std::fmod(a, b);
  if (r == 0.0) return std::copysign(0.0, b);
  if ((r < 0) != (b < 0)) r += b;  // NaN stays NaN
  return r;
}
int64_t ModI(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;  // opposite signs: cannot overflow
  return r;
}

// A broadcasting binary op with the same dtype in and out: F for floats, I for integers.
// With `nonzero_divisor`, an integer b of 0 is an error.
template <double (*F)(double, double), int64_t (*I)(int64_t, int64_t)>
Status Binary(const KernelContext& ctx, bool nonzero_divisor) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  BroadcastCursor ca(y.shape(), a.shape());
  BroadcastCursor cb(y.shape(), b.shape());
  const bool is_float = IsFloat(y.dtype());
  for (int64_t i = 0; i < y.count(); ++i, ca.Next(), cb.Next()) {
    if (is_float) {
      StoreFloat(
          y.dtype(), y.data, i,
          F(LoadFloat(a.dtype(), a.data, ca.offset()), LoadFloat(b.dtype(), b.data, cb.offset())));
      continue;
    }
    const int64_t bv = LoadInt(b.dtype(), b.data, cb.offset());
    if (nonzero_divisor && bv == 0) {
      return InvalidArgument(std::string(ctx.op) + ": integer " +
                             (ctx.op == "div" ? "division" : "modulo") + " by zero: element " +
                             std::to_string(cb.offset()) + " of input b (shape " +
                             ShapeToString(b.shape()) + ") is 0, at output element " +
                             std::to_string(i) + " (expected a nonzero divisor)");
    }
    StoreInt(y.dtype(), y.data, i, I(LoadInt(a.dtype(), a.data, ca.offset()), bv));
  }
  return Status::Ok();
}

template <double (*F)(double, double), int64_t (*I)(int64_t, int64_t)>
Status Plain(const KernelContext& ctx) {
  return Binary<F, I>(ctx, false);
}

template <double (*F)(double, double), int64_t (*I)(int64_t, int64_t)>
Status Divisor(const KernelContext& ctx) {
  return Binary<F, I>(ctx, true);
}

Status Mod(const KernelContext& ctx) {
  if (ctx.attrs.GetInt("fmod", 0) == 1) return Binary<FmodF, FmodI>(ctx, true);
  return Binary<ModF, ModI>(ctx, true);
}

// x < 0 ? slope * x : x, with slope broadcast to x's shape (which is the output's).
Status Prelu(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& slope = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  BroadcastCursor cs(y.shape(), slope.shape());
  for (int64_t i = 0; i < y.count(); ++i, cs.Next()) {
    const double v = LoadFloat(x.dtype(), x.data, i);
    const double s = LoadFloat(slope.dtype(), slope.data, cs.offset());
    StoreFloat(y.dtype(), y.data, i, v < 0 ? s * v : v);
  }
  return Status::Ok();
}

// ---- comparisons and logic -----------------------------------------------------------

// Output bool. Floats compare as doubles (NaN: only "not equal" is true, which no op
// here asks), integers and bool as int64_t.
template <typename Cmp>
Status Compare(const KernelContext& ctx, Cmp cmp) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  BroadcastCursor ca(y.shape(), a.shape());
  BroadcastCursor cb(y.shape(), b.shape());
  const bool is_float = IsFloat(a.dtype());
  for (int64_t i = 0; i < y.count(); ++i, ca.Next(), cb.Next()) {
    bool r;
    if (is_float) {
      r = cmp(LoadFloat(a.dtype(), a.data, ca.offset()), LoadFloat(b.dtype(), b.data, cb.offset()));
    } else {
      int64_t av = LoadInt(a.dtype(), a.data, ca.offset());
      int64_t bv = LoadInt(b.dtype(), b.data, cb.offset());
      if (a.dtype() == DType::kBool) {
        av = av != 0;
        bv = bv != 0;
      }
      r = cmp(av, bv);
    }
    StoreInt(DType::kBool, y.data, i, r ? 1 : 0);
  }
  return Status::Ok();
}

Status Equal(const KernelContext& ctx) { return Compare(ctx, std::equal_to<>{}); }
Status Less(const KernelContext& ctx) { return Compare(ctx, std::less<>{}); }
Status LessEqual(const KernelContext& ctx) { return Compare(ctx, std::less_equal<>{}); }
Status Greater(const KernelContext& ctx) { return Compare(ctx, std::greater<>{}); }
Status GreaterEqual(const KernelContext& ctx) { return Compare(ctx, std::greater_equal<>{}); }

template <typename Op>
Status Logic(const KernelContext& ctx, Op op) {
  return Compare(ctx, [op](auto a, auto b) { return op(a != 0, b != 0); });
}

Status And(const KernelContext& ctx) { return Logic(ctx, std::logical_and<>{}); }
Status Or(const KernelContext& ctx) { return Logic(ctx, std::logical_or<>{}); }
Status Xor(const KernelContext& ctx) { return Logic(ctx, std::not_equal_to<>{}); }

// ---- bitwise (integers only) -------------------------------------------------------------

// A broadcasting op on two integers of the output's dtype, wrapping on store.
template <typename Op>
Status IntBinary(const KernelContext& ctx, Op op) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  BroadcastCursor ca(y.shape(), a.shape());
  BroadcastCursor cb(y.shape(), b.shape());
  for (int64_t i = 0; i < y.count(); ++i, ca.Next(), cb.Next()) {
    StoreInt(y.dtype(), y.data, i,
             op(LoadInt(a.dtype(), a.data, ca.offset()), LoadInt(b.dtype(), b.data, cb.offset())));
  }
  return Status::Ok();
}

Status BitwiseAnd(const KernelContext& ctx) {
  return IntBinary(ctx, [](int64_t a, int64_t b) { return a & b; });
}
Status BitwiseOr(const KernelContext& ctx) {
  return IntBinary(ctx, [](int64_t a, int64_t b) { return a | b; });
}
Status BitwiseXor(const KernelContext& ctx) {
  return IntBinary(ctx, [](int64_t a, int64_t b) { return a ^ b; });
}

// bit_shift: a shifted by b bits. A shift outside [0, width) gives 0, or for a right
// shift of a negative a, -1 (all its bits shifted out: ONNX's reference). Right shifts of
// signed types are arithmetic; left shifts wrap (the bits of the unsigned type).
Status BitShift(const KernelContext& ctx) {
  const bool left = ctx.attrs.GetString("direction") == "left";
  const auto width = static_cast<int64_t>(8 * DTypeSize(ctx.outputs[0].dtype()));
  return IntBinary(ctx, [left, width](int64_t a, int64_t b) -> int64_t {
    if (b < 0 || b >= width) return left ? 0 : (a < 0 ? -1 : 0);
    // Loaded values are sign- or zero-extended, so shifting the 64-bit value and storing
    // the low bits is the shift in the narrow type.
    return left ? static_cast<int64_t>(static_cast<uint64_t>(a) << b) : a >> b;
  });
}

// cond ? a : b, all three broadcast; copies elements bit for bit (any dtype).
Status Where(const KernelContext& ctx) {
  const ConstTensorView& cond = ctx.inputs[0];
  const ConstTensorView& a = ctx.inputs[1];
  const ConstTensorView& b = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const auto size = static_cast<int64_t>(DTypeSize(y.dtype()));
  BroadcastCursor cc(y.shape(), cond.shape());
  BroadcastCursor ca(y.shape(), a.shape());
  BroadcastCursor cb(y.shape(), b.shape());
  for (int64_t i = 0; i < y.count(); ++i, cc.Next(), ca.Next(), cb.Next()) {
    const bool take_a = LoadInt(cond.dtype(), cond.data, cc.offset()) != 0;
    const std::byte* src = take_a ? a.data + ca.offset() * size : b.data + cb.offset() * size;
    std::memcpy(y.data + i * size, src, static_cast<size_t>(size));
  }
  return Status::Ok();
}

}  // namespace

void AddElementwiseBinaryRefKernels(KernelTable& table) {
  table.Add("add", Plain<AddF, AddI>);
  table.Add("sub", Plain<SubF, SubI>);
  table.Add("mul", Plain<MulF, MulI>);
  table.Add("div", Divisor<DivF, DivI>);
  table.Add("pow", Plain<PowF, PowI>);
  table.Add("max", Plain<MaxF, MaxI>);
  table.Add("min", Plain<MinF, MinI>);
  table.Add("mod", Mod);
  table.Add("prelu", Prelu);
  table.Add("equal", Equal);
  table.Add("less", Less);
  table.Add("less_equal", LessEqual);
  table.Add("greater", Greater);
  table.Add("greater_equal", GreaterEqual);
  table.Add("and", And);
  table.Add("or", Or);
  table.Add("xor", Xor);
  table.Add("bitwise_and", BitwiseAnd);
  table.Add("bitwise_or", BitwiseOr);
  table.Add("bitwise_xor", BitwiseXor);
  table.Add("bit_shift", BitShift);
  table.Add("where", Where);
}

}  // namespace sy::cpu
