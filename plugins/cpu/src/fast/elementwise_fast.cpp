// Fast elementwise kernels for the common f32 cases: both inputs of one shape, or one
// side a single element. Tight loops the compiler vectorises; everything else (other
// dtypes, general broadcasting) goes to the reference kernel of the same op.
#include "fast/fast_kernels.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

template <typename Op>
Status Binary(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& out = ctx.outputs[0];
  const int64_t n = out.count();
  const bool fits = a.dtype() == DType::kF32 && (a.count() == n || a.count() == 1) &&
                    (b.count() == n || b.count() == 1);
  if (!fits) return RefKernels().Find(ctx.op)(ctx);
  const float* x = reinterpret_cast<const float*>(a.data);
  const float* y = reinterpret_cast<const float*>(b.data);
  float* z = reinterpret_cast<float*>(out.data);
  if (a.count() == n && b.count() == n) {
    for (int64_t i = 0; i < n; ++i) z[i] = Op()(x[i], y[i]);
  } else if (a.count() == n) {
    const float s = y[0];
    for (int64_t i = 0; i < n; ++i) z[i] = Op()(x[i], s);
  } else if (b.count() == n) {
    const float s = x[0];
    for (int64_t i = 0; i < n; ++i) z[i] = Op()(s, y[i]);
  } else if (n == 1) {
    z[0] = Op()(x[0], y[0]);
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

Status Relu(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  if (x.dtype() != DType::kF32) return RefKernels().Find("relu")(ctx);
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(ctx.outputs[0].data);
  const int64_t n = x.count();
  // NaN passes through (as in the reference kernel and NumPy's maximum).
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0.0f || in[i] != in[i] ? in[i] : 0.0f;
  return Status::Ok();
}

}  // namespace

void AddElementwiseFastKernels(KernelTable& table) {
  table.Add("add", Binary<AddOp>);
  table.Add("sub", Binary<SubOp>);
  table.Add("mul", Binary<MulOp>);
  table.Add("div", Binary<DivOp>);
  table.Add("relu", Relu);
}

}  // namespace sy::cpu
