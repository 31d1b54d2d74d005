// A working test plugin for the multi-device scheduler's tests: one accelerator,
// "partial-accel", over host memory, that runs only a subset of ops and dtypes (with the
// CPU plugin's reference kernels), so that a graph must be split between it and another
// device. Configured from the environment when the host initialises it:
//
//   SY_TEST_PARTIAL_OPS     comma list of ops (default "add,mul,relu,sigmoid,matmul,softmax")
//   SY_TEST_PARTIAL_DTYPES  comma list of dtypes; every input and output of a node must
//                           have one of them (default "f32")
//   SY_TEST_PARTIAL_MEMORY  bytes the device declares and allocates at most (default 1 GiB)
//   SY_TEST_PARTIAL_FALLBACK  "1": the device declares SY_DEVICE_FLAG_FALLBACK (a test of
//                           the host finding its fallback by capability, not by name)
//   SY_TEST_PARTIAL_WRAP_HOST "1": buffer_wrap_host works (it declines by default), so
//                           values reach the device from the CPU by pointer
//
// Allocations past the declared memory fail with SY_ERROR_RESOURCE_EXHAUSTED, as on a
// real device. prepare is strict: a node outside the subset is SY_ERROR_UNSUPPORTED.
#include <atomic>
#include <string>

#include "switchyard/plugin_cpp.h"
#include "test_executor.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info),
                                  SY_PLUGIN_ABI_VERSION,
                                  "partial",
                                  "0.0.1",
                                  "Switchyard tests",
                                  "an accelerator that runs a subset of ops and dtypes"};

constexpr uint64_t kGiB = uint64_t{1} << 30;

// Host memory counted against the device's declared memory. `used` is the context's
// counter; the context outlives its buffers (the ABI's unloading order).
class PartialBuffer : public sy_sdk::HostBuffer {
 public:
  PartialBuffer(uint64_t bytes, std::atomic<uint64_t>& used) : HostBuffer(bytes), used_(used) {}
  ~PartialBuffer() override { used_ -= size(); }
  PartialBuffer(const PartialBuffer&) = delete;
  PartialBuffer& operator=(const PartialBuffer&) = delete;

 private:
  std::atomic<uint64_t>& used_;
};

class PartialContext : public sy_context {
 public:
  PartialContext()
      : filter_("SY_TEST_PARTIAL_OPS", "add,mul,relu,sigmoid,matmul,softmax",
                "SY_TEST_PARTIAL_DTYPES", "f32"),
        memory_(sy_test_plugin::EnvBytes("SY_TEST_PARTIAL_MEMORY", kGiB)) {}

  uint32_t device_count() const override { return 1; }

  void DescribeDevice(uint32_t, sy_device_info& info) const override {
    info.name = "partial-accel";
    info.vendor = "Switchyard tests";
    info.kind = SY_DEVICE_ACCELERATOR;
    info.flags =
        SY_DEVICE_FLAG_HOST_MEMORY |
        (filter_.has_dtype(sy::DType::kF16) ? SY_DEVICE_FLAG_F16 : 0u) |
        (filter_.has_dtype(sy::DType::kF64) ? SY_DEVICE_FLAG_F64 : 0u) |
        (sy_test_plugin::EnvOr("SY_TEST_PARTIAL_FALLBACK", "0") == "1" ? SY_DEVICE_FLAG_FALLBACK
                                                                       : 0u);
    info.memory_bytes = memory_;
  }

  bool Supports(uint32_t, const sy_node& node, std::string& reason) const override {
    return filter_.Supports(node, reason);
  }

  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    // Reserve first, so that concurrent allocations cannot together pass the limit.
    const uint64_t before = used_.fetch_add(bytes);
    if (before + bytes < before || before + bytes > memory_) {
      used_ -= bytes;
      throw sy_sdk::Error(SY_ERROR_RESOURCE_EXHAUSTED,
                          "partial-accel: out of device memory: " + std::to_string(bytes) +
                              " bytes asked, " + std::to_string(before) + " of " +
                              std::to_string(memory_) + " in use");
    }
    try {
      return std::make_unique<PartialBuffer>(bytes, used_);
    } catch (...) {
      used_ -= bytes;
      throw;
    }
  }

  std::unique_ptr<sy_buffer> WrapHost(uint32_t device, void* host, uint64_t bytes) override {
    if (sy_test_plugin::EnvOr("SY_TEST_PARTIAL_WRAP_HOST", "0") != "1") {
      return sy_context::WrapHost(device, host, bytes);  // declines
    }
    return std::make_unique<sy_sdk::WrappedHostBuffer>(host, bytes);
  }

  std::unique_ptr<sy_executable> Prepare(uint32_t, const sy_partition& p) override {
    // Any host-memory buffer will do (ours, or a view of ours); a buffer without host
    // bytes cannot be ours.
    auto resolve = [](sy_buffer& buffer, uint32_t index) {
      void* host = buffer.host_pointer();
      if (host == nullptr && buffer.size() != 0) {
        throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                            "execute: buffer " + std::to_string(index) + " is not host memory");
      }
      return static_cast<std::byte*>(host);
    };
    const sy_test_plugin::OpFilter& filter = filter_;
    return std::make_unique<sy_test_plugin::RefExecutable>(
        p, resolve, [&filter](const sy_node& node, std::string& reason) {
          return filter.Supports(node, reason);
        });
  }

 private:
  sy_test_plugin::OpFilter filter_;
  uint64_t memory_;
  std::atomic<uint64_t> used_{0};
};

std::unique_ptr<sy_context> CreateContext(const sy_init_options&) {
  return std::make_unique<PartialContext>();
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, CreateContext)
