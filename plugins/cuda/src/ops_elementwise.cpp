// The elementwise family: unary maps (neg ... selu, clip, not), broadcasting binary ops
// (add sub mul div pow max min mod prelu), comparisons, logical ops, where and cast, for
// every dtype the catalogue gives each op. Kernels: kernels/elementwise.cu. Floats compute
// in float (f32, f16, bf16) or double (f64) and round once on store; integers compute in
// 64 bits and wrap on store, like the reference kernels (docs/ops.md).
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "../kernels/elementwise.h"
#include "cu_op.h"
#include "element_bits.h"

namespace sy::cuda {
namespace {

using plugin::IntRange;
using plugin::SaturateToInt;

using kern::BinaryOp;
using kern::UnaryOp;

void CheckLaunch(cudaError_t err, const char* kernel) {
  CheckCuda(err, std::string("launch of ") + kernel);
}

// NumPy broadcasting of `inputs` to the output, collapsed; dims beyond the parameter
// space go to device memory.
kern::Broadcast MakeBroadcast(PrepareContext& ctx, std::span<const Shape> inputs) {
  std::vector<int64_t> meta;
  const int rank = CollapseBroadcast(ctx.node().outputs[0].shape, inputs, meta);
  kern::Broadcast b;
  b.rank = rank;
  if (rank > kern::Broadcast::kMaxRank) {
    b.meta = ctx.Upload(meta);
    return b;
  }
  for (int d = 0; d < rank; ++d) {
    b.dims[d] = meta[static_cast<size_t>(d)];
    for (size_t j = 0; j < inputs.size(); ++j) {
      b.strides[j][d] = meta[(j + 1) * static_cast<size_t>(rank) + static_cast<size_t>(d)];
    }
  }
  return b;
}

// ---- unary maps -------------------------------------------------------------------------

struct UnaryDef {
  std::string_view op;
  UnaryOp code;
  bool float_only;
};

constexpr UnaryDef kUnary[] = {
    {"neg", UnaryOp::kNeg, false},
    {"abs", UnaryOp::kAbs, false},
    {"sign", UnaryOp::kSign, false},
    {"exp", UnaryOp::kExp, true},
    {"log", UnaryOp::kLog, true},
    {"sqrt", UnaryOp::kSqrt, true},
    {"reciprocal", UnaryOp::kReciprocal, true},
    {"rsqrt", UnaryOp::kRsqrt, true},
    {"sin", UnaryOp::kSin, true},
    {"cos", UnaryOp::kCos, true},
    {"tan", UnaryOp::kTan, true},
    {"asin", UnaryOp::kAsin, true},
    {"acos", UnaryOp::kAcos, true},
    {"atan", UnaryOp::kAtan, true},
    {"asinh", UnaryOp::kAsinh, true},
    {"acosh", UnaryOp::kAcosh, true},
    {"atanh", UnaryOp::kAtanh, true},
    {"erf", UnaryOp::kErf, true},
    {"tanh", UnaryOp::kTanh, true},
    {"sigmoid", UnaryOp::kSigmoid, true},
    {"relu", UnaryOp::kRelu, true},
    {"softplus", UnaryOp::kSoftplus, true},
    {"silu", UnaryOp::kSilu, true},
    {"gelu", UnaryOp::kGelu, true},
    {"leaky_relu", UnaryOp::kLeakyRelu, true},
    {"elu", UnaryOp::kElu, true},
    {"hard_sigmoid", UnaryOp::kHardSigmoid, true},
    {"hard_swish", UnaryOp::kHardSwish, true},
    {"softsign", UnaryOp::kSoftsign, true},
    {"mish", UnaryOp::kMish, true},
    {"selu", UnaryOp::kSelu, true},
    {"floor", UnaryOp::kFloor, true},
    {"ceil", UnaryOp::kCeil, true},
    {"round", UnaryOp::kRound, true},
    {"clip", UnaryOp::kClip, false},
    {"not", UnaryOp::kNot, false},
};

const UnaryDef* FindUnary(std::string_view op) {
  for (const UnaryDef& d : kUnary) {
    if (d.op == op) return &d;
  }
  return nullptr;
}

class UnaryKernelOp : public CuOp {
 public:
  explicit UnaryKernelOp(const NodeInfo& node)
      : dtype_(node.inputs[0].dtype), code_(FindUnary(node.op)->code) {
    const Attrs& a = node.attrs;
    const std::string& op = node.op;
    if (op == "gelu" && a.GetString("approximate", "none") == "tanh") code_ = UnaryOp::kGeluTanh;
    if (op == "leaky_relu") params_.p0 = a.GetFloat("alpha", 0.01);
    if (op == "elu") params_.p0 = a.GetFloat("alpha", 1.0);
    if (op == "hard_sigmoid") {
      params_.p0 = a.GetFloat("alpha", 0.2);
      params_.p1 = a.GetFloat("beta", 0.5);
    }
    if (op == "selu") {
      const double alpha = a.GetFloat("alpha", 1.67326319217681884765625);
      const double gamma = a.GetFloat("gamma", 1.05070102214813232421875);
      params_.p0 = gamma;
      params_.p1 = gamma * alpha;
    }
    if (op == "clip") {
      const bool has_min = a.Find("min") != nullptr && !std::isnan(a.GetFloat("min"));
      const bool has_max = a.Find("max") != nullptr && !std::isnan(a.GetFloat("max"));
      const double inf = std::numeric_limits<double>::infinity();
      params_.p0 = has_min ? a.GetFloat("min") : -inf;
      params_.p1 = has_max ? a.GetFloat("max") : inf;
      if (!IsFloat(dtype_)) {
        const auto [lo, hi] = IntRange(dtype_);
        params_.i0 = SaturateToInt(std::ceil(params_.p0), lo, hi);
        params_.i1 = SaturateToInt(std::floor(params_.p1), lo, hi);
      }
    }
  }

  void Prepare(PrepareContext&) override {}

  void Enqueue(const EnqueueContext& ctx) override {
    CheckLaunch(kern::LaunchUnary(code_, dtype_, ctx.inputs[0].data, ctx.outputs[0].data,
                                  ctx.outputs[0].count(), params_, ctx.stream),
                "elementwise unary kernel");
  }

 private:
  DType dtype_;
  UnaryOp code_;
  kern::UnaryParams params_;
};

bool SupportsUnary(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  const UnaryDef* def = FindUnary(node.op);
  if (def == nullptr) {
    reason = "not a unary elementwise op";
    return false;
  }
  if (def->float_only && !node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return true;
}

std::unique_ptr<CuOp> CreateUnary(const NodeInfo& node) {
  return std::make_unique<UnaryKernelOp>(node);
}

// ---- broadcasting binary ops, comparisons, logic ------------------------------------------

struct BinaryDef {
  std::string_view op;
  BinaryOp code;
  bool float_only;
};

constexpr BinaryDef kBinary[] = {
    {"add", BinaryOp::kAdd, false},         {"sub", BinaryOp::kSub, false},
    {"mul", BinaryOp::kMul, false},         {"div", BinaryOp::kDiv, false},
    {"pow", BinaryOp::kPow, true},          {"max", BinaryOp::kMax, false},
    {"min", BinaryOp::kMin, false},         {"mod", BinaryOp::kMod, false},
    {"prelu", BinaryOp::kPrelu, true},      {"equal", BinaryOp::kEqual, false},
    {"less", BinaryOp::kLess, false},       {"less_equal", BinaryOp::kLessEqual, false},
    {"greater", BinaryOp::kGreater, false}, {"greater_equal", BinaryOp::kGreaterEqual, false},
    {"and", BinaryOp::kAnd, false},         {"or", BinaryOp::kOr, false},
    {"xor", BinaryOp::kXor, false},
};

const BinaryDef* FindBinary(std::string_view op) {
  for (const BinaryDef& d : kBinary) {
    if (d.op == op) return &d;
  }
  return nullptr;
}

class BinaryKernelOp : public CuOp {
 public:
  explicit BinaryKernelOp(const NodeInfo& node)
      : dtype_(node.inputs[0].dtype), code_(FindBinary(node.op)->code) {
    if (node.op == "mod" && node.attrs.GetInt("fmod", 0) == 1) code_ = BinaryOp::kFmod;
    check_divisor_ = (node.op == "div" || node.op == "mod") && !IsFloat(dtype_);
  }

  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    if (check_divisor_) {
      slot_ = ctx.ErrorSlot(node.Describe() + ": integer " +
                            (node.op == "div" ? "division" : "modulo") +
                            " by zero (an element of input b is 0)");
    }
    const Shape inputs[] = {node.inputs[0].shape, node.inputs[1].shape};
    shape_ = MakeBroadcast(ctx, inputs);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    int* flag = check_divisor_ ? ctx.error_flags + slot_ : nullptr;
    CheckLaunch(
        kern::LaunchBinary(code_, dtype_, ctx.inputs[0].data, ctx.inputs[1].data,
                           ctx.outputs[0].data, ctx.outputs[0].count(), shape_, flag, ctx.stream),
        "elementwise binary kernel");
  }

 private:
  DType dtype_;
  BinaryOp code_;
  bool check_divisor_ = false;
  uint32_t slot_ = 0;
  kern::Broadcast shape_;
};

bool SupportsBinary(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  const BinaryDef* def = FindBinary(node.op);
  if (def == nullptr) {
    reason = "not a binary elementwise op";
    return false;
  }
  if (def->float_only && !node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return true;
}

std::unique_ptr<CuOp> CreateBinary(const NodeInfo& node) {
  return std::make_unique<BinaryKernelOp>(node);
}

// ---- where ---------------------------------------------------------------------------------

class WhereOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    element_bytes_ = static_cast<int>(DTypeSize(node.outputs[0].dtype));
    const Shape inputs[] = {node.inputs[0].shape, node.inputs[1].shape, node.inputs[2].shape};
    shape_ = MakeBroadcast(ctx, inputs);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    CheckLaunch(kern::LaunchWhere(element_bytes_, ctx.inputs[0].data, ctx.inputs[1].data,
                                  ctx.inputs[2].data, ctx.outputs[0].data, ctx.outputs[0].count(),
                                  shape_, ctx.stream),
                "where kernel");
  }

 private:
  int element_bytes_ = 4;
  kern::Broadcast shape_;
};

// Arity and types were validated against the schema (and are checked again at prepare).
bool SupportsAny(const NodeInfo&, const DeviceCaps&, std::string&) { return true; }

std::unique_ptr<CuOp> CreateWhere(const NodeInfo&) { return std::make_unique<WhereOp>(); }

// ---- cast ----------------------------------------------------------------------------------

class CastOp : public CuOp {
 public:
  explicit CastOp(const NodeInfo& node) : from_(node.inputs[0].dtype), to_(node.outputs[0].dtype) {}
  void Prepare(PrepareContext&) override {}
  void Enqueue(const EnqueueContext& ctx) override {
    CheckLaunch(kern::LaunchCast(from_, to_, ctx.inputs[0].data, ctx.outputs[0].data,
                                 ctx.outputs[0].count(), ctx.stream),
                "cast kernel");
  }

 private:
  DType from_, to_;
};

std::unique_ptr<CuOp> CreateCast(const NodeInfo& node) { return std::make_unique<CastOp>(node); }

}  // namespace

void RegisterElementwiseOps(CuOpRegistry& registry) {
  for (const UnaryDef& d : kUnary) registry.Add(d.op, SupportsUnary, CreateUnary);
  for (const BinaryDef& d : kBinary) registry.Add(d.op, SupportsBinary, CreateBinary);
  registry.Add("where", SupportsAny, CreateWhere);
  registry.Add("cast", SupportsAny, CreateCast);
}

}  // namespace sy::cuda
