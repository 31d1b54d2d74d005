// matmul (NumPy semantics: 1-D promotion, broadcast batch dims) and gemm (alpha, beta,
// trans_a, trans_b, C broadcast to [M, N]). Floats go through cuBLAS (cublas_util.h:
// f32 in f32, never TF32; f16 and bf16 accumulate in f32; f64 in f64): one
// cublasGemmEx, or one strided-batched call when the batch offsets are uniform (a batch
// of a broadcast over every item of b's batch folds into M), else cublasGemmBatchedEx
// with per-batch pointers built on the device. Integer matmul (i8 u8 i32 i64) is a plain
// kernel accumulating in 64 bits and wrapping on store, like the reference
// (plugins/cpu/src/ref/linalg_ref.cpp). K = 0 writes zeros (matmul) or beta * C.
#include <algorithm>
#include <string>
#include <vector>

#include "../kernels/linalg.h"
#include "cu_op.h"
#include "cublas_util.h"
#include "ops_util.h"

namespace sy::cuda {
namespace {

// ---- matmul --------------------------------------------------------------------------------

class MatmulOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    dtype_ = node.outputs[0].dtype;
    out_bytes_ = Bytes(node.outputs[0]);
    Shape sa = node.inputs[0].shape, sb = node.inputs[1].shape;
    if (sa.size() == 1) sa.insert(sa.begin(), 1);
    if (sb.size() == 1) sb.push_back(1);
    m_ = sa[sa.size() - 2];
    k_ = sa.back();
    n_ = sb.back();
    const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
    const size_t rank = std::max(batch_a.size(), batch_b.size());
    Shape batch(rank);
    for (size_t i = 0; i < rank; ++i) {
      const size_t pa = rank - batch_a.size(), pb = rank - batch_b.size();
      const int64_t da = i < pa ? 1 : batch_a[i - pa];
      const int64_t db = i < pb ? 1 : batch_b[i - pb];
      batch[i] = da == 1 ? db : da;
    }
    batches_ = ElementCount(batch);
    if (m_ == 0 || n_ == 0 || batches_ == 0) return;  // nothing to compute
    // Per batch item, the element offsets of its a and b matrices.
    std::vector<int64_t> offsets;
    offsets.reserve(static_cast<size_t>(2 * batches_));
    {
      std::vector<int64_t> meta;
      const Shape inputs[] = {batch_a, batch_b};
      const int r = CollapseBroadcast(batch, inputs, meta);
      for (int64_t bi = 0; bi < batches_; ++bi) {
        int64_t rest = bi, oa = 0, ob = 0;
        for (int d = r - 1; d >= 0; --d) {
          const int64_t dim = meta[static_cast<size_t>(d)];
          const int64_t idx = rest % dim;
          rest /= dim;
          oa += idx * meta[static_cast<size_t>(r + d)];
          ob += idx * meta[static_cast<size_t>(2 * r + d)];
        }
        offsets.push_back(oa * m_ * k_);
        offsets.push_back(ob * k_ * n_);
      }
    }
    if (k_ == 0) return;  // zeros, written in Enqueue
    if (!IsFloat(dtype_)) {
      offsets_ = ctx.Upload(offsets);
      return;
    }
    handle_.Prepare(ctx);
    gemm_.m = m_;
    gemm_.n = n_;
    gemm_.k = k_;
    gemm_.ab_dtype = dtype_;
    gemm_.y_dtype = dtype_;
    // Uniform strides between batch items?
    const int64_t step_a = batches_ > 1 ? offsets[2] - offsets[0] : 0;
    const int64_t step_b = batches_ > 1 ? offsets[3] - offsets[1] : 0;
    bool uniform = offsets[0] == 0 && offsets[1] == 0;
    for (int64_t bi = 0; bi < batches_ && uniform; ++bi) {
      uniform = offsets[static_cast<size_t>(2 * bi)] == bi * step_a &&
                offsets[static_cast<size_t>(2 * bi + 1)] == bi * step_b;
    }
    if (uniform) {
      mode_ = Mode::kStrided;
      if (batches_ > 1 && step_b == 0 && step_a == m_ * k_) {
        gemm_.m = m_ * batches_;  // a's items are consecutive rows; b is shared
        gemm_.batch = 1;
      } else {
        gemm_.batch = batches_;
        gemm_.stride_a = step_a;
        gemm_.stride_b = step_b;
        gemm_.stride_y = m_ * n_;
      }
    } else {
      mode_ = Mode::kPointers;
      gemm_.batch = batches_;
      offsets_ = ctx.Upload(offsets);
      ptrs_ = static_cast<void**>(ctx.Scratch(static_cast<uint64_t>(3 * batches_) * sizeof(void*)));
    }
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (m_ == 0 || n_ == 0 || batches_ == 0 || out_bytes_ == 0) return;
    void* y = ctx.outputs[0].data;
    if (k_ == 0) {  // a sum of nothing
      CheckCuda(cudaMemsetAsync(y, 0, out_bytes_, ctx.stream), "cudaMemsetAsync (matmul K=0)");
      return;
    }
    const void* a = ctx.inputs[0].data;
    const void* b = ctx.inputs[1].data;
    if (!IsFloat(dtype_)) {
      CheckLaunch(
          kern::LaunchIntMatmul(dtype_, a, b, y, m_, n_, k_, batches_, offsets_, ctx.stream),
          "integer matmul");
      return;
    }
    handle_.Bind(ctx.stream);
    if (mode_ == Mode::kStrided) {
      gemm_.Run(handle_, a, b, y, 1.0, 0.0);
      return;
    }
    const int es = static_cast<int>(DTypeSize(dtype_));
    CheckLaunch(
        kern::LaunchGemmPointers(a, b, y, es, es, offsets_, batches_, m_ * n_, ptrs_, ctx.stream),
        "matmul batch pointers");
    gemm_.RunBatchedPointers(handle_, const_cast<const void* const*>(ptrs_),
                             const_cast<const void* const*>(ptrs_ + batches_), ptrs_ + 2 * batches_,
                             1.0, 0.0);
  }

 private:
  enum class Mode { kStrided, kPointers };
  DType dtype_ = DType::kF32;
  uint64_t out_bytes_ = 0;
  int64_t m_ = 0, n_ = 0, k_ = 0, batches_ = 0;
  Mode mode_ = Mode::kStrided;
  const int64_t* offsets_ = nullptr;
  void** ptrs_ = nullptr;
  CublasHandle handle_;
  RowMajorGemm gemm_;
};

bool SupportsMatmul(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) {
    reason = "matmul takes two inputs and one output";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (dt == DType::kBool) return DeclineDType(node, dt, reason, "matmul does not take bool");
  if (node.inputs[1].dtype != dt || node.outputs[0].dtype != dt) {
    reason = "matmul needs a, b and y of one dtype";
    return false;
  }
  return true;
}

std::unique_ptr<CuOp> CreateMatmul(const NodeInfo&) { return std::make_unique<MatmulOp>(); }

// ---- gemm ----------------------------------------------------------------------------------

class GemmOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    dtype_ = node.outputs[0].dtype;
    const bool trans_a = node.attrs.GetInt("trans_a", 0) != 0;
    const bool trans_b = node.attrs.GetInt("trans_b", 0) != 0;
    m_ = node.outputs[0].shape[0];
    n_ = node.outputs[0].shape[1];
    k_ = node.inputs[0].shape[trans_a ? 0 : 1];
    alpha_ = node.attrs.GetFloat("alpha", 1.0);
    beta_ = node.attrs.GetFloat("beta", 1.0);
    has_c_ = node.inputs.size() > 2;
    out_bytes_ = Bytes(node.outputs[0]);
    if (m_ == 0 || n_ == 0) return;
    if (has_c_) {
      std::vector<int64_t> meta;
      const Shape inputs[] = {node.inputs[2].shape};
      c_rank_ = CollapseBroadcast(node.outputs[0].shape, inputs, meta);
      c_meta_ = ctx.Upload(meta);
    }
    if (k_ == 0) return;
    handle_.Prepare(ctx);
    gemm_.trans_a = trans_a;
    gemm_.trans_b = trans_b;
    gemm_.m = m_;
    gemm_.n = n_;
    gemm_.k = k_;
    gemm_.ab_dtype = dtype_;
    gemm_.y_dtype = dtype_;
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (m_ == 0 || n_ == 0 || out_bytes_ == 0) return;
    void* y = ctx.outputs[0].data;
    const int64_t count = m_ * n_;
    if (k_ == 0) {  // alpha * 0 + beta * C
      if (has_c_) {
        CheckLaunch(kern::LaunchBroadcastScale(dtype_, ctx.inputs[2].data, y, count, c_rank_,
                                               c_meta_, beta_, ctx.stream),
                    "gemm C");
      } else {
        CheckCuda(cudaMemsetAsync(y, 0, out_bytes_, ctx.stream), "cudaMemsetAsync (gemm K=0)");
      }
      return;
    }
    double beta = 0.0;
    if (has_c_ && beta_ != 0.0) {
      // y = broadcast(C), then cuBLAS computes alpha * op(A) op(B) + beta * y.
      CheckLaunch(kern::LaunchBroadcastScale(dtype_, ctx.inputs[2].data, y, count, c_rank_, c_meta_,
                                             1.0, ctx.stream),
                  "gemm C");
      beta = beta_;
    }
    handle_.Bind(ctx.stream);
    gemm_.Run(handle_, ctx.inputs[0].data, ctx.inputs[1].data, y, alpha_, beta);
  }

 private:
  DType dtype_ = DType::kF32;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  double alpha_ = 1.0, beta_ = 1.0;
  bool has_c_ = false;
  uint64_t out_bytes_ = 0;
  int c_rank_ = 1;
  const int64_t* c_meta_ = nullptr;
  CublasHandle handle_;
  RowMajorGemm gemm_;
};

bool SupportsGemm(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1 || node.outputs[0].shape.size() != 2) {
    reason = "gemm takes a, b, an optional c and one 2-D output";
    return false;
  }
  for (const TensorType& t : node.inputs) {
    if (!IsFloat(t.dtype)) return DeclineDType(node, t.dtype, reason, "gemm is float only");
    if (t.dtype != node.outputs[0].dtype) {
      reason = "gemm needs every input and the output of one dtype";
      return false;
    }
  }
  return true;
}

std::unique_ptr<CuOp> CreateGemm(const NodeInfo&) { return std::make_unique<GemmOp>(); }

}  // namespace

void RegisterLinalgOps(CuOpRegistry& registry) {
  registry.Add("matmul", SupportsMatmul, CreateMatmul);
  registry.Add("gemm", SupportsGemm, CreateGemm);
}

}  // namespace sy::cuda
