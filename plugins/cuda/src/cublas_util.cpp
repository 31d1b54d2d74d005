#include "cublas_util.h"

#include <climits>
#include <string>

namespace sy::cuda {

namespace {

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

cublasOperation_t Op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void CheckCublas(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const std::string message = std::string(what) + " failed: " + cublasGetStatusName(status) + " (" +
                              cublasGetStatusString(status) + ")";
  throw sy_sdk::Error(
      status == CUBLAS_STATUS_ALLOC_FAILED ? SY_ERROR_RESOURCE_EXHAUSTED : SY_ERROR_INTERNAL,
      message);
}

cudaDataType CublasDataType(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return CUDA_R_16F;
    case DType::kBF16:
      return CUDA_R_16BF;
    case DType::kF64:
      return CUDA_R_64F;
    default:
      return CUDA_R_32F;
  }
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

void CublasHandle::Prepare(PrepareContext& ctx) {
  if (handle_ == nullptr) {
    CheckCublas(cublasCreate(&handle_), "cublasCreate");
    // Never TF32 for f32 (the compute type says so too); reductions of split-K products
    // in the compute type, not in f16/bf16.
    CheckCublas(cublasSetMathMode(handle_, static_cast<cublasMath_t>(
                                               CUBLAS_DEFAULT_MATH |
                                               CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
                "cublasSetMathMode");
  }
  if (workspace_ == nullptr) {
    // cuBLAS's recommendation: 32 MiB on Hopper and later, 4 MiB before.
    int device = 0, major = 0;
    CheckCuda(cudaGetDevice(&device), "cudaGetDevice");
    CheckCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
              "cudaDeviceGetAttribute");
    workspace_bytes_ = (major >= 9 ? 32u : 4u) << 20;
    workspace_ = ctx.Scratch(workspace_bytes_);
  }
}

void CublasHandle::Bind(cudaStream_t stream) {
  CheckCublas(cublasSetStream(handle_, stream), "cublasSetStream");
  CheckCublas(cublasSetWorkspace(handle_, workspace_, workspace_bytes_), "cublasSetWorkspace");
}

namespace {

struct Resolved {
  cublasOperation_t op_first, op_second;  // cuBLAS's A is our B, its B our A
  int64_t m, n, k, ld_first, ld_second, ldy;
  cudaDataType ab_type, y_type;
  cublasComputeType_t compute;
  bool f64;
  bool fits32;
};

Resolved Resolve(const RowMajorGemm& g) {
  Resolved r{};
  // Row-major Y = op(A) op(B) is column-major Y^T = op(B)^T op(A)^T: cuBLAS's first
  // operand is our B, its second our A, and its m, n are our n, m.
  r.op_first = Op(g.trans_b);
  r.op_second = Op(g.trans_a);
  r.m = g.n;
  r.n = g.m;
  r.k = g.k;
  r.ld_first = g.ldb != 0 ? g.ldb : (g.trans_b ? g.k : g.n);
  r.ld_second = g.lda != 0 ? g.lda : (g.trans_a ? g.m : g.k);
  r.ldy = g.ldy != 0 ? g.ldy : g.n;
  // cuBLAS wants leading dimensions of at least 1 even for empty operands.
  if (r.ld_first < 1) r.ld_first = 1;
  if (r.ld_second < 1) r.ld_second = 1;
  if (r.ldy < 1) r.ldy = 1;
  r.ab_type = CublasDataType(g.ab_dtype);
  r.y_type = CublasDataType(g.y_dtype);
  r.f64 = g.ab_dtype == DType::kF64;
  r.compute = r.f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  r.fits32 = FitsInt(r.m) && FitsInt(r.n) && FitsInt(r.k) && FitsInt(r.ld_first) &&
             FitsInt(r.ld_second) && FitsInt(r.ldy) && FitsInt(g.batch);
  return r;
}

}  // namespace

void RowMajorGemm::Run(const CublasHandle& handle, const void* a, const void* b, void* y,
                       double alpha, double beta) const {
  if (m == 0 || n == 0 || batch == 0) return;
  const Resolved r = Resolve(*this);
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* pa = r.f64 ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* pb = r.f64 ? static_cast<const void*>(&beta) : &beta_f;
  cublasHandle_t h = handle.get();
  if (batch == 1 && r.fits32) {
    CheckCublas(
        cublasGemmEx(h, r.op_first, r.op_second, static_cast<int>(r.m), static_cast<int>(r.n),
                     static_cast<int>(r.k), pa, b, r.ab_type, static_cast<int>(r.ld_first), a,
                     r.ab_type, static_cast<int>(r.ld_second), pb, y, r.y_type,
                     static_cast<int>(r.ldy), r.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  } else if (r.fits32) {
    CheckCublas(cublasGemmStridedBatchedEx(h, r.op_first, r.op_second, static_cast<int>(r.m),
                                           static_cast<int>(r.n), static_cast<int>(r.k), pa, b,
                                           r.ab_type, static_cast<int>(r.ld_first), stride_b, a,
                                           r.ab_type, static_cast<int>(r.ld_second), stride_a, pb,
                                           y, r.y_type, static_cast<int>(r.ldy), stride_y,
                                           static_cast<int>(batch), r.compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx");
  } else {
    CheckCublas(cublasGemmStridedBatchedEx_64(h, r.op_first, r.op_second, r.m, r.n, r.k, pa, b,
                                              r.ab_type, r.ld_first, stride_b, a, r.ab_type,
                                              r.ld_second, stride_a, pb, y, r.y_type, r.ldy,
                                              stride_y, batch, r.compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx_64");
  }
}

void RowMajorGemm::RunBatchedPointers(const CublasHandle& handle, const void* const* a,
                                      const void* const* b, void* const* y, double alpha,
                                      double beta) const {
  if (m == 0 || n == 0 || batch == 0) return;
  const Resolved r = Resolve(*this);
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* pa = r.f64 ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* pb = r.f64 ? static_cast<const void*>(&beta) : &beta_f;
  if (r.fits32) {
    CheckCublas(
        cublasGemmBatchedEx(handle.get(), r.op_first, r.op_second, static_cast<int>(r.m),
                            static_cast<int>(r.n), static_cast<int>(r.k), pa, b, r.ab_type,
                            static_cast<int>(r.ld_first), a, r.ab_type,
                            static_cast<int>(r.ld_second), pb, y, r.y_type, static_cast<int>(r.ldy),
                            static_cast<int>(batch), r.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmBatchedEx");
  } else {
    CheckCublas(cublasGemmBatchedEx_64(handle.get(), r.op_first, r.op_second, r.m, r.n, r.k, pa, b,
                                       r.ab_type, r.ld_first, a, r.ab_type, r.ld_second, pb, y,
                                       r.y_type, r.ldy, batch, r.compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmBatchedEx_64");
  }
}

}  // namespace sy::cuda
