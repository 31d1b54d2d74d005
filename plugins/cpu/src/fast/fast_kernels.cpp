#include "fast/fast_kernels.h"

#include <cstdlib>
#include <string>
#include <string_view>

#include "ref/ref_kernels.h"

namespace sy::cpu {

const KernelTable& FastKernels() {
  // A static object (destroyed when the plugin is unloaded), not a leaked heap one.
  static const KernelTable table = [] {
    KernelTable t;
    // Tuned kernels are added first so that Find() prefers them.
    AddElementwiseFastKernels(t);
    AddUnaryFastKernels(t);
    AddReductionFastKernels(t);
    AddNormalizationFastKernels(t);
    AddAttentionFastKernels(t);
    AddResizeFastKernels(t);
    AddPadFastKernels(t);
    // Under core's family name, as the reference table registers it (ref_kernels_test.cpp).
    t.AddFamily("sampling", AddSamplingFastKernels);
    AddMatmulBlasKernels(t);
    AddConvBlasKernels(t);
    AddQuantMatmulFastKernels(t);
    AddMatmulIntegerFastKernels(t);
    AttachOneDnnKernels(t);
    // matmul's prepare: the integer one with a constant b first, then oneDNN's (f32).
    static const PrepareFn onednn_matmul = t.FindEntry("matmul")->prepare;
    t.SetPrepare("matmul", [](const PrepareContext& ctx) -> std::unique_ptr<PreparedKernel> {
      if (auto integer = PrepareIntegerMatMul(ctx, onednn_matmul)) return integer;
      return onednn_matmul != nullptr ? onednn_matmul(ctx) : nullptr;
    });
    for (const KernelTable::Entry& e : RefKernels().entries()) {
      if (t.Find(e.op) == nullptr) t.Add(e.op, e.fn, e.prepare);
    }
    AttachLayoutMovementKernels(t);  // prepares on the reference's concat and slice
    return t;
  }();
  return table;
}

std::string VectorIsaName() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
  return "baseline";
}

Expected<bool> WinogradChoice() {
  const char* choice = std::getenv("SWITCHYARD_CPU_WINOGRAD");
  if (choice == nullptr || *choice == '\0' || std::string_view(choice) == "1") return true;
  if (std::string_view(choice) == "0") return false;
  return InvalidArgument(std::string("SWITCHYARD_CPU_WINOGRAD=") + choice +
                         ": expected 1 (the default: 3x3 convs on oneDNN's Winograd kernel where "
                         "it is faster) or 0 (always the direct kernel)");
}

}  // namespace sy::cpu
