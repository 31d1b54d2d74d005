// The elementwise family: unary maps (neg ... selu, clip, not), broadcasting binary ops
// (add sub mul div pow max min mod prelu), comparisons, logical ops, where and cast.
// Kernels: kernels/elementwise.cl (parts SY_UNARY, SY_BINARY, SY_CAST). Floats compute in
// float (f32, f16, bf16) or double (f64) and round once on store; integers compute in 64
// bits and wrap on store, like the reference kernels.
#include <cmath>
#include <limits>
#include <string>

#include "cl_op.h"
#include "element_bits.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

using plugin::IntRange;
using plugin::SaturateToInt;

bool AnyF64(std::span<const TensorType> types) {
  for (const TensorType& t : types) {
    if (t.dtype == DType::kF64) return true;
  }
  return false;
}

bool UsesF64(const NodeInfo& node) { return AnyF64(node.inputs) || AnyF64(node.outputs); }

bool Usable(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  return DTypesUsable(node.inputs, device, reason) && DTypesUsable(node.outputs, device, reason);
}

// ---- unary maps -------------------------------------------------------------------------

struct UnaryDef {
  std::string_view op;
  std::string_view fn;  // the function in elementwise.cl (SY_UNARY)
  bool float_only;
};

constexpr UnaryDef kUnary[] = {
    {"neg", "sy_neg", false},
    {"abs", "sy_abs", false},
    {"sign", "sy_sign", false},
    {"exp", "sy_exp", true},
    {"log", "sy_log", true},
    {"sqrt", "sy_sqrt", true},
    {"reciprocal", "sy_reciprocal", true},
    {"rsqrt", "sy_rsqrt", true},
    {"sin", "sy_sin", true},
    {"cos", "sy_cos", true},
    {"tan", "sy_tan", true},
    {"erf", "sy_erf", true},
    {"tanh", "sy_tanh", true},
    {"asin", "sy_asin", true},
    {"acos", "sy_acos", true},
    {"atan", "sy_atan", true},
    {"asinh", "sy_asinh", true},
    {"acosh", "sy_acosh", true},
    {"atanh", "sy_atanh", true},
    {"sigmoid", "sy_sigmoid", true},
    {"relu", "sy_relu", true},
    {"softplus", "sy_softplus", true},
    {"silu", "sy_silu", true},
    {"gelu", "sy_gelu", true},
    {"leaky_relu", "sy_leaky_relu", true},
    {"elu", "sy_elu", true},
    {"hard_sigmoid", "sy_hard_sigmoid", true},
    {"hard_swish", "sy_hard_swish", true},
    {"softsign", "sy_softsign", true},
    {"mish", "sy_mish", true},
    {"selu", "sy_selu", true},
    {"floor", "sy_floor", true},
    {"ceil", "sy_ceil", true},
    {"round", "sy_round", true},
    {"clip", "sy_clip", false},
    {"not", "sy_not", false},
    {"bitwise_not", "sy_bitwise_not", false},
};

const UnaryDef* FindUnary(std::string_view op) {
  for (const UnaryDef& d : kUnary) {
    if (d.op == op) return &d;
  }
  return nullptr;
}

class UnaryOp : public ClOp {
 public:
  explicit UnaryOp(const NodeInfo& node) : dtype_(node.inputs[0].dtype) {
    fn_ = std::string(FindUnary(node.op)->fn);
    const Attrs& a = node.attrs;
    const std::string& op = node.op;
    if (op == "gelu" && a.GetString("approximate", "none") == "tanh") fn_ = "sy_gelu_tanh";
    if (op == "leaky_relu") p0_ = a.GetFloat("alpha", 0.01);
    if (op == "elu") p0_ = a.GetFloat("alpha", 1.0);
    if (op == "hard_sigmoid") p0_ = a.GetFloat("alpha", 0.2), p1_ = a.GetFloat("beta", 0.5);
    if (op == "selu") {
      const double alpha = a.GetFloat("alpha", 1.67326319217681884765625);
      const double gamma = a.GetFloat("gamma", 1.05070102214813232421875);
      p0_ = gamma;
      p1_ = gamma * alpha;
    }
    if (op == "clip") {
      const bool has_min = a.Find("min") != nullptr && !std::isnan(a.GetFloat("min"));
      const bool has_max = a.Find("max") != nullptr && !std::isnan(a.GetFloat("max"));
      const double inf = std::numeric_limits<double>::infinity();
      p0_ = has_min ? a.GetFloat("min") : -inf;
      p1_ = has_max ? a.GetFloat("max") : inf;
      if (!IsFloat(dtype_)) {
        const auto [lo, hi] = IntRange(dtype_);
        i0_ = SaturateToInt(std::ceil(p0_), lo, hi);
        i1_ = SaturateToInt(std::floor(p1_), lo, hi);
      }
    }
  }

  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const std::string defines = SlotDefines('A', node.inputs[0].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define UNARY_OP " +
                                fn_ + "\n";
    kernel_ = ctx.Kernel("elementwise", defines + "#define SY_UNARY\n", UsesF64(node), "sy_unary");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.outputs[0]).Add(static_cast<cl_ulong>(n));
    if (IsFloat(dtype_)) {
      args.Scalar(dtype_, p0_).Scalar(dtype_, p1_);
    } else {
      args.IntScalar(dtype_, i0_).IntScalar(dtype_, i1_);
    }
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  DType dtype_;
  std::string fn_;
  double p0_ = 0, p1_ = 0;
  int64_t i0_ = 0, i1_ = 0;
  UniqueKernel kernel_;
};

bool SupportsUnary(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  const UnaryDef* def = FindUnary(node.op);
  if (def == nullptr) {
    reason = "not a unary elementwise op";
    return false;
  }
  if (def->float_only && !node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return Usable(node, device, reason);
}

std::unique_ptr<ClOp> CreateUnary(const NodeInfo& node) { return std::make_unique<UnaryOp>(node); }

// ---- broadcasting binary ops --------------------------------------------------------------

struct BinaryDef {
  std::string_view op;
  std::string_view fn;  // in elementwise.cl (SY_BINARY)
  bool float_only;
};

constexpr BinaryDef kBinary[] = {
    {"add", "sy_add", false},
    {"sub", "sy_sub", false},
    {"mul", "sy_mul", false},
    {"div", "sy_div", false},
    {"pow", "sy_pow", true},
    {"max", "sy_max", false},
    {"min", "sy_min", false},
    {"mod", "sy_mod", false},
    {"prelu", "sy_prelu", true},
    {"equal", "sy_equal", false},
    {"less", "sy_less", false},
    {"less_equal", "sy_less_equal", false},
    {"greater", "sy_greater", false},
    {"greater_equal", "sy_greater_equal", false},
    {"and", "sy_and", false},
    {"or", "sy_or", false},
    {"xor", "sy_xor", false},
    {"bitwise_and", "sy_bitwise_and", false},
    {"bitwise_or", "sy_bitwise_or", false},
    {"bitwise_xor", "sy_bitwise_xor", false},
    {"bit_shift", "sy_shift_left", false},
};

const BinaryDef* FindBinary(std::string_view op) {
  for (const BinaryDef& d : kBinary) {
    if (d.op == op) return &d;
  }
  return nullptr;
}

class BinaryOp : public ClOp {
 public:
  explicit BinaryOp(const NodeInfo& node) {
    fn_ = std::string(FindBinary(node.op)->fn);
    if (node.op == "mod" && node.attrs.GetInt("fmod", 0) == 1) fn_ = "sy_fmod";
    const DType dtype = node.inputs[0].dtype;
    if (node.op == "bit_shift") {
      if (node.attrs.GetString("direction") == "right") fn_ = "sy_shift_right";
      shift_bits_ = static_cast<int>(8 * DTypeSize(dtype));
    }
    check_divisor_ = (node.op == "div" || node.op == "mod") && !IsFloat(dtype);
  }

  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    std::string defines =
        SlotDefines('A', node.inputs[0].dtype) + SlotDefines('B', node.inputs[1].dtype) +
        SlotDefines('Y', node.outputs[0].dtype) + "#define BINARY_OP " + fn_ + "\n";
    if (shift_bits_ != 0) defines += "#define SHIFT_BITS " + std::to_string(shift_bits_) + "\n";
    if (check_divisor_) {
      defines += "#define CHECK_DIVISOR 1\n";
      slot_ = ctx.ErrorSlot(node.Describe() + ": integer " +
                            (node.op == "div" ? "division" : "modulo") +
                            " by zero (an element of input b is 0)");
    }
    kernel_ =
        ctx.Kernel("elementwise", defines + "#define SY_BINARY\n", UsesF64(node), "sy_binary");
    std::vector<int64_t> meta;
    const Shape inputs[] = {node.inputs[0].shape, node.inputs[1].shape};
    rank_ = CollapseBroadcast(node.outputs[0].shape, inputs, meta);
    meta_ = ctx.Upload(meta);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  std::string fn_;
  int shift_bits_ = 0;  // bit_shift: the dtype's width
  bool check_divisor_ = false;
  uint32_t slot_ = 0;
  int rank_ = 1;
  UniqueKernel kernel_;
  UniqueMem meta_;
};

bool SupportsBinary(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  const BinaryDef* def = FindBinary(node.op);
  if (def == nullptr) {
    reason = "not a binary elementwise op";
    return false;
  }
  if (def->float_only && !node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return Usable(node, device, reason);
}

std::unique_ptr<ClOp> CreateBinary(const NodeInfo& node) {
  return std::make_unique<BinaryOp>(node);
}

// ---- where ---------------------------------------------------------------------------------

class WhereOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const std::string defines = SlotDefines('Y', node.outputs[0].dtype) + "#define WHERE_OP 1\n";
    kernel_ = ctx.Kernel("elementwise", defines + "#define SY_BINARY\n", false, "sy_where");
    std::vector<int64_t> meta;
    const Shape inputs[] = {node.inputs[0].shape, node.inputs[1].shape, node.inputs[2].shape};
    rank_ = CollapseBroadcast(node.outputs[0].shape, inputs, meta);
    meta_ = ctx.Upload(meta);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int rank_ = 1;
  UniqueKernel kernel_;
  UniqueMem meta_;
};

// Arity and types were validated by the host (and are checked again at prepare).
bool SupportsWhere(const NodeInfo&, const DeviceCaps&, std::string&) {
  return true;  // bit copies: f64 needs no cl_khr_fp64
}

std::unique_ptr<ClOp> CreateWhere(const NodeInfo&) { return std::make_unique<WhereOp>(); }

// ---- cast ----------------------------------------------------------------------------------

std::string_view StorageName(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return "char";
    case DType::kU8:
    case DType::kBool:
      return "uchar";
    case DType::kI32:
      return "int";
    default:
      return "long";
  }
}

// The expression turning LOAD_A's value v into what STORE_Y takes (elementwise.cl, SY_CAST).
std::string CastExpr(DType from, DType to) {
  const bool narrow = to == DType::kF16 || to == DType::kBF16;
  if (IsFloat(from)) {
    if (IsFloat(to)) {
      if (narrow && from == DType::kF64) return "sy_double_to_float_odd(v)";
      if (to == DType::kF64) return "((double)(v))";
      return "((float)(v))";  // one rounding on store (f32 -> f16 / bf16), or exact
    }
    if (to == DType::kBool) return "((v) != 0)";
    return "convert_" + std::string(StorageName(to)) + "_sat_rtz(v)";
  }
  if (to == DType::kF64) return "convert_double(v)";
  if (to == DType::kF32) return "convert_float(v)";
  if (narrow) return "sy_long_to_float_odd(v)";
  return "(v)";  // integers wrap on store; bool stores v != 0
}

class CastOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const DType from = node.inputs[0].dtype, to = node.outputs[0].dtype;
    const std::string defines = SlotDefines('A', from) + SlotDefines('Y', to) +
                                "#define CAST_EXPR(v) " + CastExpr(from, to) + "\n";
    kernel_ = ctx.Kernel("elementwise", defines + "#define SY_CAST\n", UsesF64(node), "sy_cast");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  UniqueKernel kernel_;
};

bool SupportsCast(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  return Usable(node, device, reason);
}

std::unique_ptr<ClOp> CreateCast(const NodeInfo&) { return std::make_unique<CastOp>(); }

}  // namespace

void RegisterElementwiseOps(ClOpRegistry& registry) {
  for (const UnaryDef& d : kUnary) registry.Add(d.op, SupportsUnary, CreateUnary);
  for (const BinaryDef& d : kBinary) registry.Add(d.op, SupportsBinary, CreateBinary);
  registry.Add("where", SupportsWhere, CreateWhere);
  registry.Add("cast", SupportsCast, CreateCast);
}

}  // namespace sy::opencl
