#include "cpu_executable.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "half_as_f32.h"
#include "kernel_error.h"
#include "ref/ref_kernels.h"
#include "resized_partition.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  throw sy_sdk::Error(code, message);
}

// Everything of `p` that may differ between two sets of sizes, flattened into `words`
// (cleared first): each value's dtype, rank and dims, and each node's attributes. Arrays
// are checked for NULL here since the comparison runs before plugin::Partition decodes
// (and checks) a partition; a malformed one stops the words short, differs from the
// current sizes' and is refused by that decoding.
void SizeWords(const sy_partition& p, std::vector<int64_t>& words) {
  words.clear();
  words.push_back(p.num_values);
  words.push_back(p.num_nodes);
  if (p.num_values != 0 && p.values == nullptr) return;
  if (p.num_nodes != 0 && p.nodes == nullptr) return;
  for (uint32_t v = 0; v < p.num_values; ++v) {
    const sy_tensor_type& t = p.values[v];
    words.push_back(t.dtype);
    words.push_back(t.rank);
    if (t.rank != 0 && t.dims == nullptr) return;
    words.insert(words.end(), t.dims, t.dims + t.rank);
  }
  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& node = p.nodes[n];
    words.push_back(node.num_attrs);
    if (node.num_attrs != 0 && node.attrs == nullptr) return;
    for (uint32_t a = 0; a < node.num_attrs; ++a) {
      const sy_attr& attr = node.attrs[a];
      words.push_back(attr.kind);
      words.push_back(attr.count);
      if (attr.kind == SY_ATTR_INT) words.push_back(attr.i);
      if (attr.kind == SY_ATTR_FLOAT) words.push_back(std::bit_cast<int64_t>(attr.f));
      if (attr.kind == SY_ATTR_INTS && attr.ints != nullptr) {
        words.insert(words.end(), attr.ints, attr.ints + attr.count);
      }
      if (attr.kind == SY_ATTR_FLOATS && attr.floats != nullptr) {
        for (uint32_t k = 0; k < attr.count; ++k) {
          words.push_back(std::bit_cast<int64_t>(attr.floats[k]));
        }
      }
      // Strings are never resolved against sizes: the structure check compares them.
    }
  }
}

}  // namespace

CpuExecutable::CpuExecutable(const KernelTable& table, const sy_partition& p, ThreadPool* pool)
    : CpuExecutable(table, plugin::Partition(p), pool) {
  SizeWords(p, size_words_);
}

CpuExecutable::CpuExecutable(const KernelTable& table, const plugin::Partition& partition,
                             ThreadPool* pool)
    : pool_(pool), values_(partition.values()), bound_(partition.bound()), host_values_(partition) {
  // Bound values keep the catalogue's layout (the host or another partition may read
  // them), except outputs the host marks as read by nobody outside the partition.
  std::vector<bool> layout_fixed(values_.size());
  for (uint32_t v = 0; v < values_.size(); ++v) {
    layout_fixed[v] = partition.is_bound(v) && !partition.output_internal(v);
  }
  for (size_t n = 0; n < partition.nodes().size(); ++n) {
    const plugin::Partition::Node& node = partition.nodes()[n];
    Step step;
    step.op = node.info.op;
    const KernelTable::Entry* entry = table.FindEntry(step.op);
    if (entry == nullptr) Fail(SY_ERROR_UNSUPPORTED, "no kernel for op " + step.op);
    step.kernel = entry->fn;
    step.attrs = node.info.attrs;
    step.inputs = node.inputs;
    step.outputs = node.outputs;
    for (uint32_t v : step.inputs) step.input_views.push_back({values_[v], nullptr});
    for (uint32_t v : step.outputs) step.output_views.push_back({values_[v], nullptr});
    // Constant bytes, where the host passed them: valid during this constructor only.
    std::vector<const std::byte*> in_constants;
    for (uint32_t v : step.inputs) {
      in_constants.push_back(static_cast<const std::byte*>(partition.constant_data(v)));
    }
    if (RunsHalfAsF32(*entry, node.info.inputs, node.info.outputs)) {
      step.half = std::make_unique<HalfAsF32>(node.info.inputs, node.info.outputs, in_constants);
      in_constants = step.half->Constants(in_constants);
    }
    if (entry->prepare != nullptr) {
      step.prepared = entry->prepare(
          {step.op, step.half ? step.half->inputs() : std::span<const TensorType>(node.info.inputs),
           step.half ? step.half->outputs() : std::span<const TensorType>(node.info.outputs),
           step.attrs, in_constants, pool_ != nullptr ? pool_->num_threads() : 1});
    }
    step.input_bounds.assign(step.inputs.size(), std::numeric_limits<double>::infinity());
    step.output_bounds.assign(step.outputs.size(), std::numeric_limits<double>::infinity());
    steps_.push_back(std::move(step));
  }
  ChooseLayouts(layout_fixed);
  bounds_.assign(values_.size(), std::numeric_limits<double>::infinity());
  SizeHalfScratch();
}

bool CpuExecutable::RunsHalfAsF32(const KernelTable::Entry& entry,
                                  std::span<const TensorType> inputs,
                                  std::span<const TensorType> outputs) {
  // Only where the table has a kernel other than the reference one (so never on cpu-ref,
  // whose kernels are the reference), for an op of a family that computes in its float
  // type; the family is the reference table's (the fast table adds its kernels unsorted).
  const KernelTable::Entry* reference = RefKernels().FindEntry(entry.op);
  if (reference == nullptr || (entry.fn == reference->fn && entry.prepare == reference->prepare)) {
    return false;
  }
  return ComputesInItsFloatType(reference->family) && HalfAsF32::Applies(inputs, outputs);
}

void CpuExecutable::SizeHalfScratch() {
  size_t bytes = 0;
  for (const Step& step : steps_) {
    if (step.half) bytes = std::max(bytes, step.half->scratch_bytes());
  }
  // 64 bytes more, to start at a 64-byte boundary; grown only (execute_resized). A growth
  // that fails leaves it as it was: the steps it is too small for then fail their runs
  // with a clear error (HalfAsF32::Run), and a resize stays all-or-nothing.
  if (bytes != 0 && bytes + 64 > half_scratch_.size()) {
    try {
      half_scratch_.resize(bytes + 64);
    } catch (const std::bad_alloc&) {
    }
  }
}

std::byte* CpuExecutable::HalfScratch() {
  const auto address = reinterpret_cast<uintptr_t>(half_scratch_.data());
  return half_scratch_.data() + ((64 - address % 64) % 64);
}

size_t CpuExecutable::HalfScratchCapacity() {
  const auto skipped = static_cast<size_t>(HalfScratch() - half_scratch_.data());
  return half_scratch_.size() > skipped ? half_scratch_.size() - skipped : 0;
}

// A step whose kernel computes element i of its outputs from element i of its inputs alone,
// whatever the layout: an op of the elementwise family (pointwise with broadcasting) whose
// inputs each have the output's shape or a single element. Its values can be stored
// channels-last together.
bool CpuExecutable::LayoutTransparent(const Step& step) const {
  const KernelTable::Entry* reference = RefKernels().FindEntry(step.op);
  if (reference == nullptr || reference->family != "elementwise" || step.outputs.empty()) {
    return false;
  }
  const Shape& shape = values_[step.outputs[0]].shape;
  for (uint32_t v : step.outputs) {
    if (values_[v].shape != shape) return false;
  }
  for (uint32_t v : step.inputs) {
    if (values_[v].shape != shape && ElementCount(values_[v].shape) != 1) return false;
  }
  return true;
}

void CpuExecutable::ChooseLayouts(const std::vector<bool>& layout_fixed) {
  layouts_.assign(values_.size(), Layout::kRowMajor);
  // Components: values joined by layout-transparent steps (a QDQ model's dequantize and
  // quantize passes, an add the fusion pass left), which must share one layout. A
  // component is stored channels-last when every value of it qualifies and some prepared
  // kernel that reads or writes it asked for that layout.
  std::vector<uint32_t> parent(values_.size());
  for (uint32_t v = 0; v < values_.size(); ++v) parent[v] = v;
  const auto root = [&parent](uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::vector<bool> transparent(steps_.size(), false), joins(steps_.size(), false);
  for (size_t n = 0; n < steps_.size(); ++n) {
    const Step& step = steps_[n];
    transparent[n] = LayoutTransparent(step);
    if (transparent[n]) {
      const Shape& shape = values_[step.outputs[0]].shape;
      for (uint32_t v : step.inputs) {
        if (values_[v].shape == shape) parent[root(v)] = root(step.outputs[0]);
      }
      for (uint32_t v : step.outputs) parent[root(v)] = root(step.outputs[0]);
      continue;
    }
    // A joining kernel: what it accepts channels-last shares one component.
    joins[n] = step.prepared != nullptr && step.prepared->JoinsLayouts();
    if (!joins[n]) continue;
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.prepared->AcceptsChannelsLastInput(i)) {
        parent[root(step.inputs[i])] = root(step.outputs[0]);
      }
    }
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      if (step.prepared->AcceptsChannelsLastOutput(j)) {
        parent[root(step.outputs[j])] = root(step.outputs[0]);
      }
    }
  }
  // Per value: whether it qualifies (one producing step, not fixed by the host, rank 3 to
  // 5, every prepared kernel touching it accepts channels-last, every other step touching
  // it transparent), and whether a prepared kernel asked for it.
  std::vector<int> producers(values_.size(), 0);
  std::vector<bool> qualifies(values_.size(), true), asked(values_.size(), false);
  // The dtypes prepared kernels take channels-last: f32 (f16 run as f32, half_as_f32.h:
  // widening and rounding are elementwise, so the f16 bytes keep the f32 kernel's order),
  // and u8/i8 (qlinear_conv's codes).
  const auto kernel_dtype = [this](uint32_t v, const Step& step) {
    const DType d = values_[v].dtype;
    return d == DType::kF32 || (d == DType::kF16 && step.half != nullptr) ||
           ((d == DType::kU8 || d == DType::kI8) && step.half == nullptr);
  };
  for (size_t n = 0; n < steps_.size(); ++n) {
    const Step& step = steps_[n];
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      const uint32_t v = step.outputs[j];
      ++producers[v];
      if (transparent[n]) continue;
      if (step.prepared != nullptr && kernel_dtype(v, step) &&
          step.prepared->AcceptsChannelsLastOutput(j)) {
        asked[v] = asked[v] || !joins[n];
      } else {
        qualifies[v] = false;
      }
    }
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const uint32_t v = step.inputs[i];
      if (transparent[n]) continue;  // reads it whole, or as its one element
      if (step.prepared != nullptr && kernel_dtype(v, step) &&
          step.prepared->AcceptsChannelsLastInput(i)) {
        asked[v] = asked[v] || !joins[n];
      } else {
        qualifies[v] = false;
      }
    }
  }
  std::vector<bool> component_qualifies(values_.size(), true),
      component_asked(values_.size(), false);
  for (uint32_t v = 0; v < values_.size(); ++v) {
    const bool ok = qualifies[v] && !layout_fixed[v] && producers[v] == 1 &&
                    values_[v].rank() >= 3 && values_[v].rank() <= 5;
    const uint32_t r = root(v);
    component_qualifies[r] = component_qualifies[r] && ok;
    component_asked[r] = component_asked[r] || asked[v];
  }
  for (uint32_t v = 0; v < values_.size(); ++v) {
    const uint32_t r = root(v);
    if (component_qualifies[r] && component_asked[r]) layouts_[v] = Layout::kChannelsLast;
  }
  // Commit: each kernel learns the layouts of its own tensors (a transparent step's never
  // needs to: it reads and writes whole tensors in whatever order they are).
  std::vector<Layout> in, out;
  for (size_t n = 0; n < steps_.size(); ++n) {
    Step& step = steps_[n];
    if (step.prepared == nullptr || transparent[n]) continue;
    in.clear();
    out.clear();
    bool any = false;
    for (uint32_t v : step.inputs) {
      in.push_back(layouts_[v]);
      any |= layouts_[v] == Layout::kChannelsLast;
    }
    for (uint32_t v : step.outputs) {
      out.push_back(layouts_[v]);
      any |= layouts_[v] == Layout::kChannelsLast;
    }
    if (any) step.prepared->UseLayouts(in, out);
  }
}

void CpuExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  Run(buffers, count, nullptr);
}

void CpuExecutable::ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                                 uint32_t num_times) {
  Run(buffers, count, num_times == steps_.size() ? times : nullptr);
}

void CpuExecutable::ExecuteResized(const sy_partition& partition, sy_buffer* const* buffers,
                                   uint32_t count) {
  SizeWords(partition, size_scratch_);
  if (size_scratch_ != size_words_) {
    const plugin::Partition decoded(partition);
    CheckSameStructure(decoded);
    // Every prepared kernel at the new sizes first, so that one that declines leaves the
    // executable as it was (still right for the sizes it last ran).
    std::vector<std::unique_ptr<PreparedKernel>> resized(steps_.size());
    size_t most_inputs = 1;  // a node may read one value several times
    for (const plugin::Partition::Node& node : decoded.nodes()) {
      most_inputs = std::max(most_inputs, node.info.inputs.size());
    }
    const std::vector<const std::byte*> no_constants(most_inputs, nullptr);
    for (size_t n = 0; n < steps_.size(); ++n) {
      const Step& step = steps_[n];
      if (step.prepared == nullptr) continue;
      const plugin::Partition::Node& node = decoded.nodes()[n];
      // A step run in f32 (half_as_f32.h) is resized at its f32 types.
      std::optional<HalfAsF32> widened;
      if (step.half)
        widened.emplace(node.info.inputs, node.info.outputs, std::span<const std::byte* const>());
      resized[n] = step.prepared->Resized(
          {step.op, widened ? widened->inputs() : std::span<const TensorType>(node.info.inputs),
           widened ? widened->outputs() : std::span<const TensorType>(node.info.outputs),
           node.info.attrs,
           std::span<const std::byte* const>(no_constants.data(), node.info.inputs.size()),
           pool_ != nullptr ? pool_->num_threads() : 1});
      if (resized[n] == nullptr) {
        Fail(SY_ERROR_UNSUPPORTED, "node " + step.op +
                                       " runs a kernel prepared for the partition's sizes; "
                                       "prepare the partition for the new ones");
      }
    }
    Resize(decoded);
    for (size_t n = 0; n < steps_.size(); ++n) {
      if (resized[n] != nullptr) steps_[n].prepared = std::move(resized[n]);
    }
    size_words_.swap(size_scratch_);
  }
  Run(buffers, count, nullptr);
}

void CpuExecutable::CheckSameStructure(const plugin::Partition& partition) const {
  plugin::CheckSameStructure(partition, values_, steps_, bound_,
                             [](const Step& step) -> const std::string& { return step.op; });
}

void CpuExecutable::Resize(const plugin::Partition& partition) {
  // Built aside, then swapped in: an allocation that fails leaves the executable as it was.
  std::vector<TensorType> values = partition.values();
  plugin::HostValues host_values(partition);
  std::vector<Attrs> attrs(steps_.size());
  std::vector<std::vector<ConstTensorView>> inputs(steps_.size());
  std::vector<std::vector<TensorView>> outputs(steps_.size());
  for (size_t n = 0; n < steps_.size(); ++n) {
    attrs[n] = partition.nodes()[n].info.attrs;
    for (uint32_t v : steps_[n].inputs) inputs[n].push_back({values[v], nullptr});
    for (uint32_t v : steps_[n].outputs) outputs[n].push_back({values[v], nullptr});
  }
  values_.swap(values);
  host_values_ = std::move(host_values);
  for (size_t n = 0; n < steps_.size(); ++n) {
    steps_[n].attrs = std::move(attrs[n]);
    steps_[n].input_views.swap(inputs[n]);
    steps_[n].output_views.swap(outputs[n]);
    if (steps_[n].half) {
      steps_[n].half->Resize(partition.nodes()[n].info.inputs, partition.nodes()[n].info.outputs);
    }
  }
  SizeHalfScratch();
}

void CpuExecutable::Run(sy_buffer* const* buffers, uint32_t count, sy_node_time* times) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = times != nullptr ? Clock::now() : Clock::time_point();
  const auto since_start = [&start] {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  };
  host_values_.Bind(buffers, count);
  // Nothing is known of the inputs' magnitudes; each step's kernel may bound its outputs.
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  std::fill(bounds_.begin(), bounds_.end(), kUnknown);
  for (size_t s = 0; s < steps_.size(); ++s) {
    Step& step = steps_[s];
    const uint64_t step_start = times != nullptr ? since_start() : 0;
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      step.input_views[i].data = host_values_.data(step.inputs[i]);
      step.input_bounds[i] = bounds_[step.inputs[i]];
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_views[i].data = host_values_.data(step.outputs[i]);
      step.output_bounds[i] = kUnknown;
    }
    const KernelContext ctx{step.op, step.input_views,  step.output_views, step.attrs,
                            pool_,   step.input_bounds, step.output_bounds};
    const auto run = [&step](const KernelContext& c) {
      return step.prepared ? step.prepared->Run(c) : step.kernel(c);
    };
    const Status status =
        step.half ? step.half->Run(ctx, HalfScratch(), HalfScratchCapacity(), run) : run(ctx);
    if (!status.ok()) Fail(KernelErrorCode(status.code()), status.message());
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      bounds_[step.outputs[i]] = step.output_bounds[i];
    }
    if (times != nullptr) times[s] = sy_node_time{step_start, since_start()};
  }
}

}  // namespace sy::cpu

namespace sy::cpu {

size_t CpuExecutable::prepared_step_count() const {
  size_t count = 0;
  for (const Step& step : steps_) count += step.prepared != nullptr ? 1 : 0;
  return count;
}

std::vector<uint32_t> CpuExecutable::channels_last_values() const {
  std::vector<uint32_t> values;
  for (uint32_t v = 0; v < layouts_.size(); ++v) {
    if (layouts_[v] == Layout::kChannelsLast) values.push_back(v);
  }
  return values;
}

}  // namespace sy::cpu
