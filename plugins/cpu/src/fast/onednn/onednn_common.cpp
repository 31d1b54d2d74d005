#include "fast/onednn/onednn_common.h"

#include <dlfcn.h>
#include <omp.h>

#include "fast/fast_kernels.h"

namespace sy::cpu::onednn {
namespace {

const char* IsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "baseline";
  }
}

// oneDNN and the OpenMP runtime are not unload-safe: OpenMP's worker threads stay parked
// inside libgomp, and oneDNN keeps its JIT code and primitive cache in globals. Marking
// both RTLD_NODELETE keeps them mapped when the host unloads this plugin, so the threads
// never run unmapped code and a later load finds them initialised.
void PinRuntimeLibraries() {
  for (const char* name : {"libdnnl.so.2", "libgomp.so.1"}) {
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

}  // namespace

const dnnl::engine& Engine() {
  static const dnnl::engine engine = [] {
    PinRuntimeLibraries();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

void UseThreads(int num_threads) { omp_set_num_threads(num_threads < 1 ? 1 : num_threads); }

std::string Description() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + ", isa " + IsaName(dnnl::get_effective_cpu_isa());
}

dnnl::memory::dims Dims(const Shape& shape) {
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::desc PlainF32(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

bool Selected() {
  // An invalid value never gets here: the context refuses to initialise with one.
  static const bool selected = [] {
    const Expected<GemmLibrary> choice = GemmChoice();
    return choice.ok() && *choice != GemmLibrary::kOpenBlas;
  }();
  return selected;
}

}  // namespace sy::cpu::onednn
