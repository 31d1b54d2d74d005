// A plugin that gets things wrong on purpose, for the conformance suite's own tests
// (tests/cli/conformance_test.sh): one CPU-like device over host memory that runs a few
// f32 ops with the reference kernels, except that
//
//   neg       crashes the process (SIGSEGV-like abort) in execute
//   abs       never returns from execute (a hang)
//   relu      adds 1 to the first element (a wrong result)
//   sigmoid   also writes one byte past the end of its output (caught by guard bytes)
//   add, mul  are correct
//
// With SY_MISBEHAVING_OP_QUERY_FAILS set, supports_node answers the op-level query (a node
// naming the op only, no inputs) with an error instead of yes or no, as a plugin that
// expects inputs would (tests/cli/cli_test.sh: `devices` warns).
//
// Everything else is declined. Never install or ship this.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "switchyard/plugin_cpp.h"
#include "test_executor.h"

namespace {

constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
    "misbehaving",          "0.0.1",
    "Switchyard tests",     "crashes, hangs and computes wrong results on purpose"};

class MisbehavingExecutable : public sy_executable {
 public:
  MisbehavingExecutable(const sy_partition& p, std::string op)
      : inner_(
            p,
            [](sy_buffer& b, uint32_t) {
              void* host = b.host_pointer();
              if (host == nullptr)
                throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, "not host memory");
              return static_cast<std::byte*>(host);
            },
            [](const sy_node&, std::string&) { return true; }),
        op_(std::move(op)) {}

  void Execute(sy_buffer* const* buffers, uint32_t count) override {
    if (op_ == "neg") std::abort();
    if (op_ == "abs") {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    inner_.Execute(buffers, count);
    sy_buffer* out = buffers[count - 1];
    auto* data = static_cast<unsigned char*>(out->host_pointer());
    if (op_ == "relu" && out->size() >= 4) {
      float v;
      std::memcpy(&v, data, 4);
      v += 1.0f;
      std::memcpy(data, &v, 4);
    }
    // One byte past the output: inside the guard region the suite put after it.
    if (op_ == "sigmoid") data[out->size()] = 0x11;
  }

 private:
  sy_test_plugin::RefExecutable inner_;
  std::string op_;
};

class MisbehavingContext : public sy_context {
 public:
  uint32_t device_count() const override { return 1; }
  void DescribeDevice(uint32_t, sy_device_info& info) const override {
    info.name = "misbehaving-device";
    info.vendor = "Switchyard tests";
    info.kind = SY_DEVICE_ACCELERATOR;
    info.flags = SY_DEVICE_FLAG_HOST_MEMORY;
    info.memory_bytes = uint64_t{1} << 30;
  }
  bool Supports(uint32_t, const sy_node& node, std::string& reason) const override {
    if (node.num_inputs == 0 && std::getenv("SY_MISBEHAVING_OP_QUERY_FAILS") != nullptr) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, "node has no inputs");
    }
    const std::string op = node.op;
    if (op != "add" && op != "mul" && op != "neg" && op != "abs" && op != "relu" &&
        op != "sigmoid") {
      reason = "op \"" + op + "\" is not implemented";
      return false;
    }
    for (uint32_t i = 0; i < node.num_inputs; ++i) {
      if (node.inputs[i].dtype != static_cast<uint32_t>(sy::DType::kF32)) {
        reason = "f32 only";
        return false;
      }
    }
    return true;
  }
  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    return std::make_unique<sy_sdk::HostBuffer>(bytes);
  }
  std::unique_ptr<sy_executable> Prepare(uint32_t, const sy_partition& p) override {
    if (p.num_nodes != 1) throw sy_sdk::Error(SY_ERROR_UNSUPPORTED, "one node per partition");
    return std::make_unique<MisbehavingExecutable>(p, p.nodes[0].op);
  }
};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<MisbehavingContext>();
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
