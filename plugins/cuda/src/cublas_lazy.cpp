// cuBLAS, loaded when first used (SY_CUDA_LAZY_CUBLAS, the default; CMakeLists.txt).
//
// Linking libcublas makes every process that loads this plugin map cuBLAS and cuBLASLt
// (over 500 MB of shared objects): about 0.1 s and 200 MB of resident memory, measured on
// the development machine, in every `switchyard` command on every machine, GPU or not.
// Instead the plugin defines the cuBLAS functions it calls (below, with the prototypes of
// <cublas_api.h>, so a mismatch does not compile); each loads libcublas on its first call
// (dlopen, never closed) and forwards to the real function. A machine without a GPU never
// loads cuBLAS at all.
//
// Using another cuBLAS function: add a SY_CUBLAS_FORWARD line (the link fails with an
// undefined reference to it until then; -Wl,--no-undefined).
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

#if SY_CUDA_LAZY_CUBLAS

namespace {

#ifndef SY_CUBLAS_SONAME
#define SY_CUBLAS_SONAME "libcublas.so"
#endif
#ifndef SY_CUBLAS_PATH
#define SY_CUBLAS_PATH SY_CUBLAS_SONAME
#endif

struct Library {
  void* handle = nullptr;
  std::string error;
};

// The loader cache first, then the toolkit this plugin was built against.
const Library& Cublas() {
  static const Library library = [] {
    Library l;
    for (const char* name : {SY_CUBLAS_SONAME, SY_CUBLAS_PATH}) {
      l.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
      if (l.handle != nullptr) return l;
      const char* why = dlerror();
      l.error += std::string(l.error.empty() ? "" : "; ") + (why != nullptr ? why : name);
    }
    return l;
  }();
  return library;
}

void* Resolve(const char* name) {
  const Library& l = Cublas();
  return l.handle != nullptr ? dlsym(l.handle, name) : nullptr;
}

}  // namespace

// Defines `name` with the parameter list `params`, forwarding `args` to libcublas's.
#define SY_CUBLAS_FORWARD(name, params, args)                  \
  extern "C" cublasStatus_t CUBLASWINAPI name params {         \
    using Fn = cublasStatus_t(CUBLASWINAPI*) params;           \
    static const Fn fn = reinterpret_cast<Fn>(Resolve(#name)); \
    if (fn == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;   \
    return fn args;                                            \
  }

SY_CUBLAS_FORWARD(cublasCreate_v2, (cublasHandle_t * handle), (handle))
SY_CUBLAS_FORWARD(cublasDestroy_v2, (cublasHandle_t handle), (handle))
SY_CUBLAS_FORWARD(cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t streamId),
                  (handle, streamId))
SY_CUBLAS_FORWARD(cublasSetWorkspace_v2,
                  (cublasHandle_t handle, void* workspace, size_t workspaceSizeInBytes),
                  (handle, workspace, workspaceSizeInBytes))
SY_CUBLAS_FORWARD(cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
SY_CUBLAS_FORWARD(cublasGemmEx,
                  (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                   int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                   const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,
                   cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                   cublasGemmAlgo_t algo),
                  (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                   Ctype, ldc, computeType, algo))
SY_CUBLAS_FORWARD(cublasGemmBatchedEx,
                  (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                   int n, int k, const void* alpha, const void* const Aarray[], cudaDataType Atype,
                   int lda, const void* const Barray[], cudaDataType Btype, int ldb,
                   const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
                   int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
                  (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb,
                   beta, Carray, Ctype, ldc, batchCount, computeType, algo))
SY_CUBLAS_FORWARD(cublasGemmBatchedEx_64,
                  (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                   int64_t m, int64_t n, int64_t k, const void* alpha, const void* const Aarray[],
                   cudaDataType Atype, int64_t lda, const void* const Barray[], cudaDataType Btype,
                   int64_t ldb, const void* beta, void* const Carray[], cudaDataType Ctype,
                   int64_t ldc, int64_t batchCount, cublasComputeType_t computeType,
                   cublasGemmAlgo_t algo),
                  (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb,
                   beta, Carray, Ctype, ldc, batchCount, computeType, algo))
SY_CUBLAS_FORWARD(cublasGemmStridedBatchedEx,
                  (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                   int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                   long long int strideA, const void* B, cudaDataType Btype, int ldb,
                   long long int strideB, const void* beta, void* C, cudaDataType Ctype, int ldc,
                   long long int strideC, int batchCount, cublasComputeType_t computeType,
                   cublasGemmAlgo_t algo),
                  (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                   strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo))
SY_CUBLAS_FORWARD(cublasGemmStridedBatchedEx_64,
                  (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                   int64_t m, int64_t n, int64_t k, const void* alpha, const void* A,
                   cudaDataType Atype, int64_t lda, long long int strideA, const void* B,
                   cudaDataType Btype, int64_t ldb, long long int strideB, const void* beta,
                   void* C, cudaDataType Ctype, int64_t ldc, long long int strideC,
                   int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
                  (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                   strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo))

// The status texts work without the library; a failed load is reported through them.
extern "C" const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  using Fn = const char*(CUBLASWINAPI*)(cublasStatus_t);
  static const Fn fn = reinterpret_cast<Fn>(Resolve("cublasGetStatusName"));
  if (fn != nullptr) return fn(status);
  return status == CUBLAS_STATUS_NOT_INITIALIZED ? "CUBLAS_STATUS_NOT_INITIALIZED"
                                                 : "CUBLAS_STATUS_(unknown)";
}

extern "C" const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  using Fn = const char*(CUBLASWINAPI*)(cublasStatus_t);
  static const Fn fn = reinterpret_cast<Fn>(Resolve("cublasGetStatusString"));
  if (fn != nullptr) return fn(status);
  static const std::string text = "cuBLAS could not be loaded: " + Cublas().error;
  return text.c_str();
}

#endif  // SY_CUDA_LAZY_CUBLAS
