// The sampling family: `sample` (kernels/sampling.cu), one block per row of logits, every
// step in double as docs/ops.md ("Sampling") defines it, so the token is the reference's
// (plugins/cpu/src/ref/sampling_ref.cpp) up to the last bit of the device's exp. The same
// algorithm as the OpenCL plugin's.
//
// Scratch, from the executable at prepare: p for every row ([N, V] doubles) and, for the
// methods that sort (top_k with k < V, top_p), the row by p ([N, P] keys and indices).
// Data errors (a NaN logit, a uniform number outside [0, 1)) come back per row in a small
// status buffer, copied to pinned host memory on the stream after the kernel (captured in
// a CUDA graph with the rest) and checked once the stream has synchronised (CheckData),
// with the reference's messages.
#include <string>

#include "../kernels/sampling.h"
#include "cu_op.h"
#include "ops_util.h"
#include "sample_status.h"

namespace sy::cuda {
namespace {

using kern::SampleMethod;

SampleMethod MethodOf(const std::string& method) {
  if (method == "temperature") return SampleMethod::kTemperature;
  if (method == "top_k") return SampleMethod::kTopK;
  if (method == "top_p") return SampleMethod::kTopP;
  if (method == "min_p") return SampleMethod::kMinP;
  return SampleMethod::kGreedy;  // the schema allows nothing else
}

// At most 2^30 tokens a row: the sort's indices are int32, its length a power of two.
constexpr int64_t kMaxVocab = int64_t{1} << 30;

bool SupportsSample(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  // supports_node may see any node (the conformance suite's wrong arities and ranks):
  // nothing is read that the node does not have.
  if (node.inputs.empty() || node.inputs[0].shape.size() != 2 || node.outputs.size() != 1) {
    reason = "sample takes logits [N, V] and gives one output";
    return false;
  }
  if (node.inputs[0].shape[1] > kMaxVocab) {
    reason = "sample on CUDA takes at most 2^30 logits a row";
    return false;
  }
  return true;
}

class SampleOp : public CuOp {
 public:
  ~SampleOp() override {
    if (status_host_ != nullptr) (void)cudaFreeHost(status_host_);
    (void)cudaGetLastError();
  }

  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    op_ = node.op;
    logits_dtype_ = node.inputs[0].dtype;
    uniform_dtype_ = node.inputs.size() > 1 ? node.inputs[1].dtype : DType::kF64;
    n_ = node.inputs[0].shape[0];
    v_ = node.inputs[0].shape[1];
    method_ = MethodOf(node.attrs.GetString("method", "greedy"));
    temperature_ = node.attrs.GetFloat("temperature", 1.0);
    top_k_ = node.attrs.GetInt("top_k", 0);
    top_p_ = node.attrs.GetFloat("top_p", 1.0);
    min_p_ = node.attrs.GetFloat("min_p", 0.0);
    if (n_ == 0) return;
    const auto rows = static_cast<uint64_t>(n_);
    status_ = static_cast<int64_t*>(ctx.Scratch(rows * 2 * sizeof(int64_t)));
    void* host = nullptr;
    CheckCuda(cudaMallocHost(&host, rows * 2 * sizeof(int64_t)), "cudaMallocHost (sample status)");
    status_host_ = static_cast<int64_t*>(host);
    std::memset(status_host_, 0, rows * 2 * sizeof(int64_t));
    if (method_ != SampleMethod::kGreedy) {
      p_ = static_cast<double*>(ctx.Scratch(rows * static_cast<uint64_t>(v_) * sizeof(double)));
    }
    if (kern::SampleSorts(method_, top_k_, v_)) {
      const auto len = static_cast<uint64_t>(kern::SampleSortLength(v_));
      keys_ = static_cast<uint64_t*>(ctx.Scratch(rows * len * sizeof(uint64_t)));
      idx_ = static_cast<int32_t*>(ctx.Scratch(rows * len * sizeof(int32_t)));
    }
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0) return;
    const void* uniform = ctx.inputs.size() > 1 ? ctx.inputs[1].data : nullptr;
    CheckLaunch(
        kern::LaunchSample(logits_dtype_, uniform_dtype_, ctx.inputs[0].data, uniform,
                           static_cast<int64_t*>(ctx.outputs[0].data), status_, p_, keys_, idx_, n_,
                           v_, method_, temperature_, top_k_, top_p_, min_p_, ctx.stream),
        "sample");
    CheckCuda(cudaMemcpyAsync(status_host_, status_, static_cast<size_t>(n_) * 2 * sizeof(int64_t),
                              cudaMemcpyDeviceToHost, ctx.stream),
              "cudaMemcpyAsync (sample status)");
  }

  void CheckData() const override { plugin::ThrowSampleStatus(op_, status_host_, n_); }

 private:
  std::string op_;
  DType logits_dtype_ = DType::kF32, uniform_dtype_ = DType::kF64;
  int64_t n_ = 0, v_ = 1, top_k_ = 0;
  SampleMethod method_ = SampleMethod::kGreedy;
  double temperature_ = 1.0, top_p_ = 1.0, min_p_ = 0.0;
  int64_t* status_ = nullptr;       // device, 2 per row
  int64_t* status_host_ = nullptr;  // pinned, owned
  double* p_ = nullptr;
  uint64_t* keys_ = nullptr;
  int32_t* idx_ = nullptr;
};

std::unique_ptr<CuOp> CreateSample(const NodeInfo&) { return std::make_unique<SampleOp>(); }

}  // namespace

void RegisterSamplingOps(CuOpRegistry& registry) {
  registry.Add("sample", SupportsSample, CreateSample);
}

}  // namespace sy::cuda
