// Shared by the working test plugins (partial_plugin.cpp, remote_plugin.cpp): an
// executable that runs a partition with the CPU plugin's reference kernels, and the
// helpers both plugins use to read their configuration from the environment.
//
// The executor is modelled on plugins/cpu/src/cpu_executable.cpp but does not assume
// host-memory buffers: the plugin passes a resolver that maps each bound sy_buffer to the
// host bytes that hold its value (a HostBuffer's host_pointer(), a remote buffer's
// private storage), and that throws sy_sdk::Error for a buffer the plugin does not own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel.h"
#include "switchyard/dtype.h"
#include "switchyard/plugin_cpp.h"

namespace sy_test_plugin {

// Maps bound buffer `index` (the position in execute's `buffers`) to its bytes. Called on
// every execute; the pointer is used only during that execute. Throws sy_sdk::Error
// (SY_ERROR_INVALID_ARGUMENT) for a buffer the plugin cannot use.
using BufferResolver = std::function<std::byte*(sy_buffer& buffer, uint32_t index)>;

// Whether a device runs `node`: true, or false with a reason (the plugin's Supports).
using NodeFilter = std::function<bool(const sy_node& node, std::string& reason)>;

class RefExecutable : public sy_executable {
 public:
  // Decodes and copies `partition` (borrowed for this call only) and allocates the
  // intermediates (values neither input nor output of the partition) in host memory,
  // owned by the executable. Throws sy_sdk::Error: SY_ERROR_INVALID_ARGUMENT for a
  // malformed partition, SY_ERROR_UNSUPPORTED for a node that `filter` declines or that
  // has no reference kernel.
  RefExecutable(const sy_partition& partition, BufferResolver resolve, const NodeFilter& filter);

  void Execute(sy_buffer* const* buffers, uint32_t count) override;

 private:
  struct Step {
    std::string op;
    sy::cpu::KernelFn kernel = nullptr;
    sy::Attrs attrs;
    std::vector<uint32_t> inputs;   // value indices
    std::vector<uint32_t> outputs;  // value indices
    // Built once; execute refreshes only the data pointers.
    std::vector<sy::cpu::ConstTensorView> input_views;
    std::vector<sy::cpu::TensorView> output_views;
  };

  BufferResolver resolve_;
  std::vector<sy::TensorType> values_;
  std::vector<Step> steps_;
  std::vector<uint32_t> bound_;                    // partition inputs, then outputs
  std::vector<std::unique_ptr<sy_buffer>> owned_;  // intermediates' storage
  std::vector<std::byte*> data_;                   // per value: where its bytes are
  std::vector<uint64_t> bytes_;                    // per value: its byte size
};

// --- configuration from the environment (read by the plugins at initialize) ---

// The variable's value, or `fallback` when it is unset.
std::string EnvOr(const char* name, std::string_view fallback);

// "a, b,,c" -> {"a", "b", "c"}: split at commas, spaces trimmed, empty entries dropped.
std::vector<std::string> SplitList(std::string_view list);

// A byte count from `name` (decimal digits only), or `fallback` when unset. Throws
// sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) naming the variable when malformed.
uint64_t EnvBytes(const char* name, uint64_t fallback);

// Which nodes a device accepts: ops by catalogue name (those without a reference kernel
// are always declined) and dtypes, each of which every input and output must have.
class OpFilter {
 public:
  OpFilter() = default;
  // `ops_var`/`dtypes_var`: comma lists from the environment, with defaults; an empty
  // `default_ops` means every op of the reference kernel table. Throws
  // sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) for an unknown dtype name.
  OpFilter(const char* ops_var, std::string_view default_ops, const char* dtypes_var,
           std::string_view default_dtypes);

  bool Supports(const sy_node& node, std::string& reason) const;
  bool has_dtype(sy::DType dtype) const { return dtypes_.contains(dtype); }

 private:
  std::vector<std::string> ops_;
  sy::DTypeSet dtypes_;
};

}  // namespace sy_test_plugin
