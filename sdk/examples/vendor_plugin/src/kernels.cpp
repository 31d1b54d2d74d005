#include "kernels.h"

#include <cmath>

namespace vendor {

std::optional<Op> OpFromName(std::string_view name) {
  if (name == "add") return Op::kAdd;
  if (name == "sub") return Op::kSub;
  if (name == "mul") return Op::kMul;
  if (name == "relu") return Op::kRelu;
  if (name == "sigmoid") return Op::kSigmoid;
  if (name == "tanh") return Op::kTanh;
  return std::nullopt;
}

bool IsBinary(Op op) { return op == Op::kAdd || op == Op::kSub || op == Op::kMul; }

int64_t ElementCount(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;  // the host has checked that shapes do not overflow
  return n;
}

namespace {

// Element strides of `in` (row-major, contiguous) seen through `out`'s dims: 0 along
// every dim where `in` is broadcast.
Dims BroadcastStrides(const Dims& in, const Dims& out) {
  Dims strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t d_in = in.size() - 1 - i;
    const size_t d_out = out.size() - 1 - i;
    strides[d_out] = in[d_in] == 1 ? 0 : stride;
    stride *= in[d_in];
  }
  return strides;
}

// The scalar functions. Transcendental ones are computed in double and rounded once,
// which keeps them within an ulp of the reference device (cpu-ref) that the
// conformance suite compares against. NaN propagates through all of them.
inline float Relu(float x) { return x < 0.0f ? 0.0f : x; }
inline float Sigmoid(float x) {
  const double d = x;
  if (d >= 0) return static_cast<float>(1.0 / (1.0 + std::exp(-d)));
  const double e = std::exp(d);  // no overflow for negative d; NaN takes this branch too
  return static_cast<float>(e / (1.0 + e));
}
inline float Tanh(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }

struct AddFn {
  float operator()(float a, float b) const { return a + b; }
};
struct SubFn {
  float operator()(float a, float b) const { return a - b; }
};
struct MulFn {
  float operator()(float a, float b) const { return a * b; }
};

// One loop per op (the switch is outside it, so the compiler can vectorise).
template <typename Fn>
void UnaryLoop(Fn fn, const float* x, float* y, int64_t count) {
  for (int64_t i = 0; i < count; ++i) y[i] = fn(x[i]);
}

template <typename Fn>
void BinaryLoop(Fn fn, const BinaryLayout& layout, const float* a, const float* b, float* y) {
  const int64_t total = ElementCount(layout.out_dims);
  if (total == 0) return;  // an empty tensor: nothing to read or write
  if (layout.same_shapes) {
    for (int64_t i = 0; i < total; ++i) y[i] = fn(a[i], b[i]);
    return;
  }
  // The innermost dim is a plain loop with the inputs' strides (each 0 or 1); the outer
  // dims advance like an odometer, moving each input's offset by its stride.
  const size_t rank = layout.out_dims.size();  // >= 1 here: a scalar has same_shapes
  const int64_t inner = layout.out_dims[rank - 1];
  const int64_t sa = layout.a_strides[rank - 1];
  const int64_t sb = layout.b_strides[rank - 1];
  Dims index(rank, 0);
  int64_t offset_a = 0, offset_b = 0;
  for (int64_t start = 0; start < total; start += inner) {
    for (int64_t i = 0; i < inner; ++i)
      y[start + i] = fn(a[offset_a + i * sa], b[offset_b + i * sb]);
    for (size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      offset_a += layout.a_strides[d];
      offset_b += layout.b_strides[d];
      if (index[d] < layout.out_dims[d]) break;
      offset_a -= layout.a_strides[d] * layout.out_dims[d];
      offset_b -= layout.b_strides[d] * layout.out_dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

BinaryLayout MakeBinaryLayout(const Dims& a, const Dims& b, const Dims& out) {
  BinaryLayout layout;
  layout.out_dims = out;
  layout.a_strides = BroadcastStrides(a, out);
  layout.b_strides = BroadcastStrides(b, out);
  layout.same_shapes = a == out && b == out;
  return layout;
}

void RunUnary(Op op, const float* x, float* y, int64_t count) {
  switch (op) {
    case Op::kRelu:
      return UnaryLoop(Relu, x, y, count);
    case Op::kSigmoid:
      return UnaryLoop(Sigmoid, x, y, count);
    case Op::kTanh:
      return UnaryLoop(Tanh, x, y, count);
    default:
      return;  // binary ops never get here (prepare checked the arity)
  }
}

void RunBinary(Op op, const BinaryLayout& layout, const float* a, const float* b, float* y) {
  switch (op) {
    case Op::kAdd:
      return BinaryLoop(AddFn{}, layout, a, b, y);
    case Op::kSub:
      return BinaryLoop(SubFn{}, layout, a, b, y);
    case Op::kMul:
      return BinaryLoop(MulFn{}, layout, a, b, y);
    default:
      return;
  }
}

}  // namespace vendor
