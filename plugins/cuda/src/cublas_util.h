// cuBLAS for the op families that multiply matrices (ops_linalg.cpp, ops_conv_pool.cpp):
// a handle per op, bound to the executable's stream and a workspace from
// PrepareContext::Scratch on every enqueue (so that a captured CUDA graph never asks
// cuBLAS to allocate), and row-major GEMM on top of cuBLAS's column-major API.
//
// Precision: f32 products use CUBLAS_COMPUTE_32F (never TF32), f16/bf16 products
// accumulate in f32 (CUBLAS_COMPUTE_32F, reductions in f32 too:
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), f64 in f64.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string_view>

#include "cu_op.h"
#include "switchyard/dtype.h"

namespace sy::cuda {

// Throws sy_sdk::Error naming `what` and the cuBLAS status unless it is success
// (CUBLAS_STATUS_ALLOC_FAILED becomes SY_ERROR_RESOURCE_EXHAUSTED, the rest INTERNAL).
void CheckCublas(cublasStatus_t status, std::string_view what);

// The cuBLAS data type of a float dtype.
cudaDataType CublasDataType(DType dtype);

class CublasHandle {
 public:
  CublasHandle() = default;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle();

  // Creates the handle on the current device and takes a workspace from ctx.Scratch
  // (the size cuBLAS recommends for the device's architecture). Call in Prepare.
  void Prepare(PrepareContext& ctx);
  // Sets the stream and, after it (cublasSetStream resets it), the workspace. Call at
  // the start of every Enqueue that uses the handle.
  void Bind(cudaStream_t stream);
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

// Y[b] = alpha * op(A[b]) * op(B[b]) + beta * Y[b] for b < batch, every matrix row-major:
// op(A) is [m, k] (A stored [m, k], or [k, m] when trans_a), op(B) is [k, n] (B stored
// [k, n], or [n, k] when trans_b), Y is [m, n] with leading dimension ldy (elements).
// Strides are in elements between consecutive batch items (0: the same matrix for all).
struct RowMajorGemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldy = 0;  // 0: the dense default (k or m, n or k, n)
  int64_t stride_a = 0, stride_b = 0, stride_y = 0;
  int64_t batch = 1;
  DType ab_dtype = DType::kF32;  // A and B
  DType y_dtype = DType::kF32;   // Y (f32 with f16/bf16 A and B is allowed)

  // Enqueues the product on the handle's stream (alpha and beta converted to the compute
  // type: float, or double for f64). Nothing happens when m, n or batch is 0; k = 0
  // must be handled by the caller (cuBLAS's result for it is not relied on).
  void Run(const CublasHandle& handle, const void* a, const void* b, void* y, double alpha,
           double beta) const;

  // The same with device arrays of per-batch pointers (cublasGemmBatchedEx); strides
  // are ignored.
  void RunBatchedPointers(const CublasHandle& handle, const void* const* a, const void* const* b,
                          void* const* y, double alpha, double beta) const;
};

}  // namespace sy::cuda
