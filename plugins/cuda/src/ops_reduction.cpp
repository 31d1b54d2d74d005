// reduce_sum reduce_mean reduce_max reduce_min reduce_prod (any axes, keepdims; floats and
// integers) and argmax argmin (axis, keepdims, select_last_index): kernels/reduction.cu.
// One thread, one warp or one block per output element (kern::PlanReduce picks), with the
// semantics of plugins/cpu/src/ref/reduction_ref.cpp (see kernels/reduction.h); cumsum
// (exclusive, reverse) and topk (always sorted) likewise.
#include <string>
#include <vector>

#include "../kernels/reduction.h"
#include "cu_op.h"
#include "ops_util.h"

namespace sy::cuda {
namespace {

kern::ReduceKind KindOf(std::string_view op) {
  if (op == "reduce_mean") return kern::ReduceKind::kMean;
  if (op == "reduce_max") return kern::ReduceKind::kMax;
  if (op == "reduce_min") return kern::ReduceKind::kMin;
  if (op == "reduce_prod") return kern::ReduceKind::kProd;
  return kern::ReduceKind::kSum;
}

class ReduceOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    std::vector<bool> reduced(s.size(), false);
    const std::vector<int64_t> axes = node.attrs.GetInts("axes");
    if (axes.empty()) reduced.assign(s.size(), true);
    for (int64_t a : axes) reduced[static_cast<size_t>(NormAxis(a, s.size()))] = true;
    plan_ = kern::PlanReduce(s, reduced);
    kind_ = KindOf(node.op);
    dtype_ = node.inputs[0].dtype;
    if (ElementCount(node.outputs[0].shape) != plan_.n_out) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          node.Describe() + ": output element count does not match the axes");
    }
    meta_ = ctx.Upload(plan_.meta);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (plan_.n_out == 0) return;
    CheckLaunch(kern::LaunchReduce(kind_, dtype_, ctx.inputs[0].data, ctx.outputs[0].data, plan_,
                                   meta_, ctx.stream),
                "reduce");
  }

 private:
  kern::ReducePlan plan_;
  kern::ReduceKind kind_ = kern::ReduceKind::kSum;
  DType dtype_ = DType::kF32;
  const int64_t* meta_ = nullptr;
};

bool SupportsReduce(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) {
    reason = node.op + " takes one input and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (dt == DType::kBool) return DeclineDType(node, dt, reason, "reductions take F and I");
  if (node.outputs[0].dtype != dt) {
    reason = node.op + " needs the output in the input's dtype";
    return false;
  }
  return true;
}

std::unique_ptr<CuOp> CreateReduce(const NodeInfo&) { return std::make_unique<ReduceOp>(); }

class ArgOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    split_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    last_ = node.attrs.GetInt("select_last_index", 0) == 1;
    is_max_ = node.op == "argmax";
    dtype_ = node.inputs[0].dtype;
    out_count_ = ElementCount(node.outputs[0].shape);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (out_count_ == 0 || split_.n == 0) return;  // n = 0 only with an empty output
    CheckLaunch(kern::LaunchArgReduce(is_max_, last_, dtype_, ctx.inputs[0].data,
                                      static_cast<int64_t*>(ctx.outputs[0].data), split_.outer,
                                      split_.n, split_.inner, ctx.stream),
                "argmax/argmin");
  }

 private:
  AxisSplit split_;
  bool last_ = false, is_max_ = true;
  DType dtype_ = DType::kF32;
  int64_t out_count_ = 0;
};

bool SupportsArg(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) {
    reason = node.op + " takes one input and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (dt == DType::kBool) return DeclineDType(node, dt, reason, "argmax/argmin take F and I");
  if (node.outputs[0].dtype != DType::kI64) {
    reason = node.op + " produces i64";
    return false;
  }
  return true;
}

std::unique_ptr<CuOp> CreateArg(const NodeInfo&) { return std::make_unique<ArgOp>(); }

// ---- cumsum, topk ----------------------------------------------------------------------------

class CumsumOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    split_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    exclusive_ = node.attrs.GetInt("exclusive", 0) == 1;
    reverse_ = node.attrs.GetInt("reverse", 0) == 1;
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (ctx.outputs[0].count() == 0) return;
    CheckLaunch(kern::LaunchCumsum(dtype_, ctx.inputs[0].data, ctx.outputs[0].data, split_.outer,
                                   split_.n, split_.inner, exclusive_, reverse_, ctx.stream),
                "cumsum");
  }

 private:
  AxisSplit split_;
  bool exclusive_ = false, reverse_ = false;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateCumsum(const NodeInfo&) { return std::make_unique<CumsumOp>(); }

class TopkOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t axis = NormAxis(node.attrs.GetInt("axis", -1), s.size());
    split_ = SplitAxis(s, axis);
    k_ = node.outputs[0].shape[static_cast<size_t>(axis)];
    largest_ = node.attrs.GetInt("largest", 1) == 1;
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (ctx.outputs[0].count() == 0 || split_.n == 0) return;
    CheckLaunch(kern::LaunchTopk(dtype_, ctx.inputs[0].data, ctx.outputs[0].data,
                                 static_cast<int64_t*>(ctx.outputs[1].data), split_.outer, split_.n,
                                 split_.inner, k_, largest_, ctx.stream),
                "topk");
  }

 private:
  AxisSplit split_;
  int64_t k_ = 0;
  bool largest_ = true;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateTopk(const NodeInfo&) { return std::make_unique<TopkOp>(); }

bool SupportsNumeric(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.empty() || node.outputs.empty()) {
    reason = node.op + ": missing inputs or outputs";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (dt == DType::kBool) return DeclineDType(node, dt, reason, "it takes F and I");
  if (node.outputs[0].dtype != dt) {
    reason = node.op + " needs its (first) output in the input's dtype";
    return false;
  }
  if (node.op == "topk") {
    if (node.outputs.size() != 2 || node.outputs[1].dtype != DType::kI64 ||
        node.inputs[0].shape.empty()) {
      reason = "topk takes x of rank >= 1 and produces values and i64 indices";
      return false;
    }
  }
  return true;
}

}  // namespace

void RegisterReductionOps(CuOpRegistry& registry) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"}) {
    registry.Add(op, SupportsReduce, CreateReduce);
  }
  registry.Add("argmax", SupportsArg, CreateArg);
  registry.Add("argmin", SupportsArg, CreateArg);
  registry.Add("cumsum", SupportsNumeric, CreateCumsum);
  registry.Add("topk", SupportsNumeric, CreateTopk);
}

}  // namespace sy::cuda
