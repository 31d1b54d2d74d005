// The CPU plugin behind the C ABI: two devices over host memory.
//   device 0, "cpu":     the fast kernels (FastKernels(): tuned kernels where they exist,
//                        the reference kernel otherwise)
//   device 1, "cpu-ref": the reference kernels, flagged SY_DEVICE_FLAG_REFERENCE so that
//                        the host never picks it unless asked; the oracle of the
//                        conformance suite
//
// Threads: sy_init_options.num_threads (0 = the cores this process may use) sizes the
// context's ThreadPool, which the `cpu` device's kernels split their loops over. When it
// is given explicitly it also sets OpenBLAS's thread count, which is process-wide: the
// last context initialised with an explicit count wins for every BLAS call in the
// process. `cpu-ref` always runs on the calling thread.
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cpu_executable.h"
#include "fast/fast_kernels.h"
#include "half_as_f32.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_cpp.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info),
    SY_PLUGIN_ABI_VERSION,
    "cpu",
    "0.1.0",
    "Switchyard",
    "host CPU: fast kernels (oneDNN, OpenBLAS) and reference kernels"};

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * page_size : 0;
}

// The requested thread count (capped at ThreadPool::kMaxThreads), or the default.
int ThreadCount(const sy_init_options& options) {
  if (options.num_threads == 0) return DefaultThreadCount();
  return static_cast<int>(
      std::min<uint32_t>(options.num_threads, static_cast<uint32_t>(ThreadPool::kMaxThreads)));
}

class CpuContext : public sy_context {
 public:
  explicit CpuContext(const sy_init_options& options) : pool_(ThreadCount(options)) {
    const Expected<GemmLibrary> choice = GemmChoice();
    if (!choice.ok()) throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, choice.status().message());
    const Expected<bool> winograd = WinogradChoice();
    if (!winograd.ok()) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, winograd.status().message());
    }
    const std::string onednn = OneDnnDescription();
    if (onednn.empty() && *choice == GemmLibrary::kOneDnn) {
      throw sy_sdk::Error(SY_ERROR_UNSUPPORTED,
                          "SWITCHYARD_CPU_GEMM=onednn: this build of the cpu plugin has no oneDNN");
    }
    if (options.num_threads > 0) SetBlasThreadCount(ThreadCount(options));
    const std::string threads = std::to_string(pool_.num_threads()) + " threads";
    const std::string blas = BlasDescription();
    details_fast_ =
        (onednn.empty() ? "matmul/gemm/conv f32: " + blas
                        : "matmul/gemm/conv f32: " + onednn +
                              (*winograd ? ", 3x3 conv Winograd where faster" : ", Winograd off") +
                              "; f64: " + blas) +
        "; elementwise, reductions, norms, attention: vectorised C++ (" + VectorIsaName() + "); " +
        "f16: on the f32 kernels, rounded per op (" + HalfConversionName() + "); " + threads;
    details_ref_ = "reference kernels (double accumulation), 1 thread";
  }

  uint32_t device_count() const override { return 2; }

  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    info.name = device == 0 ? "cpu" : "cpu-ref";
    info.vendor = "host";
    info.kind = SY_DEVICE_CPU;
    // "cpu" runs every op of the catalogue (the fast kernel or the reference one), so it
    // is the host's fallback device; "cpu-ref" is used only when asked for. Both take a
    // reshape in place (its kernel leaves an output bound to its input's bytes alone), and
    // both run a partition at other sizes where no kernel of it was prepared for its sizes
    // (CpuExecutable::ExecuteResized: always on cpu-ref; on cpu, partitions without a
    // library primitive or packed weights). cache_write bound to its cache's own buffer
    // writes only the update (decoding state in place).
    info.flags = SY_DEVICE_FLAG_HOST_MEMORY | SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64 |
                 SY_DEVICE_FLAG_RESHAPE_IN_PLACE | SY_DEVICE_FLAG_RESIZABLE |
                 SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE |
                 (device == 1 ? SY_DEVICE_FLAG_REFERENCE : SY_DEVICE_FLAG_FALLBACK);
    info.memory_bytes = PhysicalMemoryBytes();
    info.details = device == 0 ? details_fast_.c_str() : details_ref_.c_str();
  }

  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    if (Table(device).Find(node.op) != nullptr) return true;
    reason = std::string("no kernel for op ") + node.op;
    return false;
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    return std::make_unique<sy_sdk::HostBuffer>(bytes);
  }

  // Graph inputs are read where the caller keeps them: no copy.
  std::unique_ptr<sy_buffer> WrapHost(uint32_t, void* host, uint64_t bytes) override {
    return std::make_unique<sy_sdk::WrappedHostBuffer>(host, bytes);
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    return std::make_unique<CpuExecutable>(Table(device), p, device == 0 ? &pool_ : nullptr);
  }

 private:
  static const KernelTable& Table(uint32_t device) {
    return device == 0 ? FastKernels() : RefKernels();
  }
  // Shared by every executable of this context (ParallelFor is safe for concurrent
  // callers); destroyed, its workers joined, after them (the host releases executables
  // before shutdown).
  ThreadPool pool_;
  std::string details_fast_, details_ref_;  // device_info.details; live as long as the context
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options& options) {
  plugin::RequireCanonicalNodes(options, kInfo.name);  // its kernels read canonical attributes
  return std::make_unique<CpuContext>(options);
}

}  // namespace
}  // namespace sy::cpu

SY_SDK_DEFINE_PLUGIN(sy::cpu::kInfo, sy::cpu::CreateContext)
