// The CPU plugin behind the C ABI: two devices over host memory.
//   device 0, "cpu":     the fast kernels (FastKernels(): tuned kernels where they exist,
//                        the reference kernel otherwise)
//   device 1, "cpu-ref": the reference kernels, flagged SY_DEVICE_FLAG_REFERENCE so that
//                        the host never picks it unless asked; the oracle of the
//                        conformance suite
#include <unistd.h>

#include <string>
#include <vector>

#include "cpu_executable.h"
#include "fast/fast_kernels.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_cpp.h"

namespace sy::cpu {
namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "cpu",
                                  "0.1.0",
                                  "Switchyard",
                                  "host CPU: fast kernels (OpenBLAS) and reference kernels"};

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * page_size : 0;
}

class CpuContext : public sy_context {
 public:
  explicit CpuContext(const sy_init_options& options) : num_threads_(options.num_threads) {}

  uint32_t device_count() const override { return 2; }

  void DescribeDevice(uint32_t device, sy_device_info& info) const override {
    info.name = device == 0 ? "cpu" : "cpu-ref";
    info.vendor = "host";
    info.kind = SY_DEVICE_CPU;
    info.flags = SY_DEVICE_FLAG_HOST_MEMORY | SY_DEVICE_FLAG_F16 | SY_DEVICE_FLAG_F64 |
                 (device == 1 ? SY_DEVICE_FLAG_REFERENCE : 0u);
    info.memory_bytes = PhysicalMemoryBytes();
  }

  bool Supports(uint32_t device, const sy_node& node, std::string& reason) const override {
    if (Table(device).Find(node.op) != nullptr) return true;
    reason = std::string("no kernel for op ") + node.op;
    return false;
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    return std::make_unique<sy_sdk::HostBuffer>(bytes);
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t device, const sy_partition& p) override {
    return std::make_unique<CpuExecutable>(Table(device), p);
  }

 private:
  static const KernelTable& Table(uint32_t device) {
    return device == 0 ? FastKernels() : RefKernels();
  }
  uint32_t num_threads_;  // reserved for the threaded fast kernels
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options& options) {
  return std::make_unique<CpuContext>(options);
}

}  // namespace
}  // namespace sy::cpu

SY_SDK_DEFINE_PLUGIN(sy::cpu::kInfo, sy::cpu::CreateContext)
