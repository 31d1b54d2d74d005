// Reference kernels for the fused ops (core/src/ops/fused_schemas.cpp; docs/ops.md, "Fused
// ops"): fused_matmul, fused_conv and add_layer_norm.
//
// Each fused op is defined as the chain of catalogue ops it stands for, so each kernel here
// runs that chain through the catalogue's own reference kernels (RefKernels()) rather than
// restating their arithmetic: matmul, conv, add, layer_norm and the activations cannot
// drift apart from their fused forms, NaN and infinity behaviour included.
//
// fused_matmul and fused_conv keep the product in double (the matmul or conv kernel writes
// an f64 scratch tensor, which it rounds to nothing), add bias and residual in double, and
// the activation's kernel reads that double tensor and rounds once, into the output's
// dtype: one rounding for the whole chain, like every other reference kernel.
//
// add_layer_norm rounds a + b to the dtype before normalising: the sum is the op's second
// output, and y must be exactly layer_norm of that stored sum (the chain it replaces, add
// then layer_norm, does the same), so a graph reading both sees consistent values. Where
// a + b has a large mean next to its spread, normalising the unrounded sum would differ
// from the chain by far more than one rounding.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

// Runs the reference kernel of catalogue op `op`.
Status CallRef(std::string_view op, std::span<const ConstTensorView> inputs,
               std::span<const TensorView> outputs, const Attrs& attrs) {
  const KernelFn fn = RefKernels().Find(op);
  if (fn == nullptr) return Internal("the reference kernel of " + std::string(op) + " is missing");
  return fn(KernelContext{op, inputs, outputs, attrs});
}

// A row-major f64 tensor owned by a kernel: the double intermediate of a chain.
class Scratch {
 public:
  explicit Scratch(const Shape& shape)
      : shape_(shape), values_(static_cast<size_t>(ElementCount(shape))) {}
  TensorView view() {
    return {{DType::kF64, shape_}, reinterpret_cast<std::byte*>(values_.data())};
  }
  ConstTensorView const_view() const {
    return {{DType::kF64, shape_}, reinterpret_cast<const std::byte*>(values_.data())};
  }
  double& operator[](int64_t i) { return values_[static_cast<size_t>(i)]; }

 private:
  Shape shape_;
  std::vector<double> values_;
};

// y = act(x): the catalogue op named by the `activation` attribute (with its attributes
// mapped from activation_alpha, clip_min and clip_max) runs on x and stores into y's dtype.
Status ApplyActivation(const Attrs& attrs, const ConstTensorView& x, const TensorView& y) {
  const std::string activation = attrs.GetString("activation", "none");
  if (activation == "none") {
    for (int64_t i = 0; i < y.count(); ++i) {
      StoreFloat(y.dtype(), y.data, i, LoadFloat(x.dtype(), x.data, i));
    }
    return Status::Ok();
  }
  std::string_view op = activation;
  Attrs op_attrs;
  if (activation == "leaky_relu") {
    op_attrs.Set("alpha", attrs.GetFloat("activation_alpha", 0.01));
  } else if (activation == "clip") {
    // An absent bound is unbounded, as for clip itself.
    if (attrs.Has("clip_min")) op_attrs.Set("min", attrs.GetFloat("clip_min"));
    if (attrs.Has("clip_max")) op_attrs.Set("max", attrs.GetFloat("clip_max"));
  } else if (activation == "gelu" || activation == "gelu_tanh") {
    op = "gelu";
    op_attrs.Set("approximate", std::string(activation == "gelu" ? "none" : "tanh"));
  } else if (activation != "relu" && activation != "silu" && activation != "sigmoid" &&
             activation != "tanh") {
    return InvalidArgument("activation \"" + activation +
                           "\" is not one of none relu leaky_relu clip gelu gelu_tanh silu "
                           "sigmoid tanh");
  }
  const ConstTensorView in[] = {x};
  const TensorView out[] = {y};
  return CallRef(op, in, out, op_attrs);
}

// acc += bias (broadcast to acc's shape) and residual (acc's shape exactly), each optional.
void AddBiasAndResidual(Scratch& acc, const Shape& shape, const ConstTensorView* bias,
                        const ConstTensorView* residual) {
  const int64_t count = ElementCount(shape);
  if (bias != nullptr) {
    BroadcastCursor cursor(shape, bias->shape());
    for (int64_t i = 0; i < count; ++i) {
      acc[i] += LoadFloat(bias->dtype(), bias->data, cursor.offset());
      cursor.Next();
    }
  }
  if (residual != nullptr) {
    for (int64_t i = 0; i < count; ++i) acc[i] += LoadFloat(residual->dtype(), residual->data, i);
  }
}

const ConstTensorView* OptionalInput(const KernelContext& ctx, size_t index) {
  return ctx.inputs.size() > index ? &ctx.inputs[index] : nullptr;
}

}  // namespace

// fused_matmul(a, b[, bias[, residual]]) = act(matmul(a, trans_b ? swap_last_two(b) : b)
// + bias + residual).
Status FusedMatmulRef(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  // trans_b: b [..., N, K] copied (exactly, into f64) as [..., K, N]. The schema
  // guarantees rank >= 2 then.
  const bool trans_b = ctx.attrs.GetInt("trans_b", 0) != 0;
  Shape bt_shape = trans_b ? b.shape() : Shape{0};
  if (trans_b) std::swap(bt_shape[bt_shape.size() - 1], bt_shape[bt_shape.size() - 2]);
  Scratch bt(bt_shape);
  ConstTensorView b_operand = b;
  if (trans_b) {
    const int64_t k = bt_shape[bt_shape.size() - 2];
    const int64_t n = bt_shape.back();
    const int64_t batches = k * n == 0 ? 0 : b.count() / (k * n);
    for (int64_t s = 0; s < batches; ++s) {
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          bt[(s * k + i) * n + j] = LoadFloat(b.dtype(), b.data, (s * n + j) * k + i);
        }
      }
    }
    b_operand = bt.const_view();
  }
  Scratch acc(y.shape());
  const ConstTensorView operands[] = {a, b_operand};
  const TensorView product[] = {acc.view()};
  SY_RETURN_IF_ERROR(CallRef("matmul", operands, product, Attrs{}));
  AddBiasAndResidual(acc, y.shape(), OptionalInput(ctx, 2), OptionalInput(ctx, 3));
  return ApplyActivation(ctx.attrs, acc.const_view(), y);
}

// fused_conv(x, w[, bias[, residual]]) = act(conv(x, w, bias) + residual).
Status FusedConvRef(const KernelContext& ctx) {
  const TensorView& y = ctx.outputs[0];
  Scratch acc(y.shape());
  const TensorView conv_out[] = {acc.view()};
  // conv reads strides, pads, dilations and group and ignores the activation attributes.
  SY_RETURN_IF_ERROR(CallRef("conv", ctx.inputs.first(std::min<size_t>(ctx.inputs.size(), 3)),
                             conv_out, ctx.attrs));
  AddBiasAndResidual(acc, y.shape(), nullptr, OptionalInput(ctx, 3));
  return ApplyActivation(ctx.attrs, acc.const_view(), y);
}

// add_layer_norm(a, b, scale[, bias]) = layer_norm(a + b, scale, bias)[, a + b].
Status AddLayerNormRef(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  // The sum goes to the second output when there is one, else to a buffer of a's type.
  std::vector<std::byte> own;
  TensorView sum = ctx.outputs.size() > 1 ? ctx.outputs[1] : TensorView{a.type, nullptr};
  if (ctx.outputs.size() < 2) {
    own.resize(static_cast<size_t>(a.count()) * DTypeSize(a.dtype()));
    sum.data = own.data();
  }
  const TensorView sum_out[] = {sum};
  SY_RETURN_IF_ERROR(CallRef("add", ctx.inputs.first(2), sum_out, Attrs{}));
  std::vector<ConstTensorView> norm_in = {ConstTensorView{sum.type, sum.data}};
  for (size_t i = 2; i < ctx.inputs.size(); ++i) norm_in.push_back(ctx.inputs[i]);
  return CallRef("layer_norm", norm_in, ctx.outputs.first(1), ctx.attrs);
}

void AddFusedRefKernels(KernelTable& table) {
  table.Add("fused_matmul", FusedMatmulRef);
  table.Add("fused_conv", FusedConvRef);
  table.Add("add_layer_norm", AddLayerNormRef);
}

}  // namespace sy::cpu
