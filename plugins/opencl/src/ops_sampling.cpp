// The sampling family: random_uniform and random_normal (kernels/random.cl, at the end),
// and `sample` (kernels/sampling.cl sy_sample), one work-group per row of
// logits, every step in double as docs/ops.md ("Sampling") defines it, so the token is the
// reference's (plugins/cpu/src/ref/sampling_ref.cpp) up to the last bit of the device's
// exp. Needs cl_khr_fp64.
//
// Scratch, allocated at prepare: p for every row ([N, V] doubles) and, for the methods that
// sort (top_k with k < V, top_p), the row by p ([N, P] keys and indices, P the power of
// two >= V). Data errors (a NaN logit, a uniform number outside [0, 1)) come back per row
// in a small status buffer, read without waiting after the kernel and checked once the
// queue has finished (CheckData), with the reference's messages.
#include <string>
#include <vector>

#include "cl_op.h"
#include "kernel_sources.h"
#include "sample_status.h"
#include "switchyard/shape.h"

namespace sy::opencl {
namespace {

// The kernel's method codes (kernels/sampling.cl).
int MethodCode(const std::string& method) {
  if (method == "temperature") return 1;
  if (method == "top_k") return 2;
  if (method == "top_p") return 3;
  if (method == "min_p") return 4;
  return 0;  // greedy: the schema allows nothing else
}

// At most 2^30 tokens a row: the sort's indices are ints, its length a power of two.
constexpr int64_t kMaxVocab = int64_t{1} << 30;

bool SupportsSample(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!device.fp64) {
    reason =
        "sample computes in double (docs/ops.md, \"Sampling\"), which needs cl_khr_fp64, "
        "which this OpenCL device lacks";
    return false;
  }
  // supports_node may see any node (the conformance suite's wrong arities and ranks):
  // nothing is read that the node does not have.
  if (node.inputs.empty() || node.inputs[0].shape.size() != 2 || node.outputs.size() != 1) {
    reason = "sample takes logits [N, V] and gives one output";
    return false;
  }
  if (node.inputs[0].shape[1] > kMaxVocab) {
    reason = "sample on OpenCL takes at most 2^30 logits a row";
    return false;
  }
  return true;
}

class SampleOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    op_ = node.op;
    n_ = node.inputs[0].shape[0];
    v_ = node.inputs[0].shape[1];
    method_ = MethodCode(node.attrs.GetString("method", "greedy"));
    temperature_ = node.attrs.GetFloat("temperature", 1.0);
    top_k_ = node.attrs.GetInt("top_k", 0);
    top_p_ = node.attrs.GetFloat("top_p", 1.0);
    min_p_ = node.attrs.GetFloat("min_p", 0.0);
    p2_ = 1;
    while (p2_ < v_) p2_ *= 2;
    // Work-group: a power of two up to 256, within the device's limit.
    wg_ = 1;
    while (wg_ * 2 <= 256 && wg_ * 2 <= ctx.device().max_work_group_size) wg_ *= 2;

    const bool has_uniform = node.inputs.size() > 1;
    std::string defines = SlotDefines('A', node.inputs[0].dtype);
    if (has_uniform) defines += SlotDefines('U', node.inputs[1].dtype) + "#define HAS_UNIFORM 1\n";
    kernel_ = ctx.Kernel("sampling", defines, true, "sy_sample");
    size_t kernel_wg = 0;
    CheckCl(clGetKernelWorkGroupInfo(kernel_.get(), ctx.device().id, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kernel_wg, &kernel_wg, nullptr),
            "clGetKernelWorkGroupInfo(sy_sample)");
    while (wg_ > 1 && wg_ > kernel_wg) wg_ /= 2;

    const uint64_t rows = static_cast<uint64_t>(n_ > 0 ? n_ : 1);
    const bool sorts = method_ == 3 || (method_ == 2 && top_k_ < v_);
    status_ = std::make_unique<ClBuffer>(ctx.device(), rows * 2 * 8);
    status_host_.assign(rows * 2, 0);
    if (method_ != 0 && n_ > 0) {
      p_ = std::make_unique<ClBuffer>(ctx.device(), rows * static_cast<uint64_t>(v_) * 8);
    }
    if (sorts && n_ > 0) {
      keys_ = std::make_unique<ClBuffer>(ctx.device(), rows * static_cast<uint64_t>(p2_) * 8);
      idx_ = std::make_unique<ClBuffer>(ctx.device(), rows * static_cast<uint64_t>(p2_) * 4);
    }
  }

  void Enqueue(const EnqueueContext& ctx) override {
    ran_ = n_ > 0;
    if (!ran_) return;
    const ClTensor& logits = ctx.inputs[0];
    const ClTensor& uniform = ctx.inputs.size() > 1 ? ctx.inputs[1] : logits;  // unread if absent
    // Buffers a method does not use are passed as the status buffer (never read).
    cl_mem status = status_->mem();
    cl_mem p = p_ ? p_->mem() : status;
    KernelArgs(kernel_.get())
        .Tensor(logits)
        .Tensor(uniform)
        .Tensor(ctx.outputs[0])
        .Add(status)
        .Add(p)
        .Add(keys_ ? keys_->mem() : status)
        .Add(idx_ ? idx_->mem() : status)
        .Add(static_cast<cl_long>(v_))
        .Add(static_cast<cl_long>(p2_))
        .Add(static_cast<cl_int>(method_))
        .Add(static_cast<cl_double>(temperature_))
        .Add(static_cast<cl_long>(top_k_))
        .Add(static_cast<cl_double>(top_p_))
        .Add(static_cast<cl_double>(min_p_))
        .Local(wg_ * sizeof(cl_double))
        .Local(wg_ * sizeof(cl_long))
        .Local(wg_ * sizeof(cl_long));
    const size_t global = static_cast<size_t>(n_) * wg_;
    const size_t local = wg_;
    CheckCl(clEnqueueNDRangeKernel(ctx.queue, kernel_.get(), 1, nullptr, &global, &local, 0,
                                   nullptr, nullptr),
            "clEnqueueNDRangeKernel(sy_sample)");
    CheckCl(
        clEnqueueReadBuffer(ctx.queue, status, CL_FALSE, 0, status_host_.size() * sizeof(cl_long),
                            status_host_.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer (sample status)");
  }

  void CheckData() const override {
    if (!ran_) return;
    static_assert(sizeof(cl_long) == sizeof(int64_t));
    plugin::ThrowSampleStatus(op_, reinterpret_cast<const int64_t*>(status_host_.data()), n_);
  }

 private:
  std::string op_;
  int64_t n_ = 0, v_ = 1, p2_ = 1, top_k_ = 0;
  int method_ = 0;
  double temperature_ = 1.0, top_p_ = 1.0, min_p_ = 0.0;
  size_t wg_ = 1;
  bool ran_ = false;
  UniqueKernel kernel_;
  std::unique_ptr<ClBuffer> status_, p_, keys_, idx_;
  std::vector<cl_long> status_host_;
};

std::unique_ptr<ClOp> CreateSample(const NodeInfo&) { return std::make_unique<SampleOp>(); }

// random_uniform / random_normal: one work-item per element, in double as the reference.
bool SupportsRandom(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!device.fp64) {
    reason = node.op + " computes in double (as its reference), which needs cl_khr_fp64";
    return false;
  }
  if (node.outputs.size() != 1) {
    reason = node.op + " gives one output";
    return false;
  }
  return true;
}

class RandomOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const bool normal = node.op == "random_normal";
    n_ = static_cast<uint64_t>(ElementCount(node.outputs[0].shape));
    seed_ = static_cast<uint64_t>(node.attrs.GetInt("seed", 0));
    a_ = node.attrs.GetFloat(normal ? "mean" : "low", 0.0);
    b_ = node.attrs.GetFloat(normal ? "scale" : "high", 1.0);
    const std::string defines =
        SlotDefines('Y', node.outputs[0].dtype) + "#define NORMAL " + (normal ? "1" : "0") + "\n";
    kernel_ = ctx.Kernel("random", defines, true, "sy_random");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_))
        .Add(static_cast<cl_ulong>(seed_))
        .Add(static_cast<cl_double>(a_))
        .Add(static_cast<cl_double>(b_));
    Launch1D(ctx.queue, kernel_.get(), n_);
  }

 private:
  uint64_t n_ = 0, seed_ = 0;
  double a_ = 0, b_ = 1;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateRandom(const NodeInfo&) { return std::make_unique<RandomOp>(); }

}  // namespace

void RegisterSamplingOps(ClOpRegistry& registry) {
  registry.Add("sample", SupportsSample, CreateSample);
  registry.Add("random_uniform", SupportsRandom, CreateRandom);
  registry.Add("random_normal", SupportsRandom, CreateRandom);
}

}  // namespace sy::opencl
