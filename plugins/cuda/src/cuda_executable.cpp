#include "cuda_executable.h"

#include <algorithm>
#include <string>
#include <vector>

#include "switchyard/plugin_partition.h"

namespace sy::cuda {
namespace {

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  throw sy_sdk::Error(code, message);
}

constexpr const char* kNotYet = "not implemented in the CUDA plugin";

}  // namespace

bool SupportsNode(const Device& device, const NodeInfo& node, std::string& reason) {
  const CuOpRegistry::Entry* entry = CuOpRegistry::Global().Find(node.op);
  if (entry == nullptr) {
    reason = kNotYet;
    return false;
  }
  // A node with neither inputs nor outputs asks about the op itself (how `switchyard
  // devices` counts ops). Any other is canonical (docs/plugin-abi.md): the host has
  // checked it against the op's schema, so the op's own checks only ask what this device
  // can do; NodeInfo's checked operand access refuses a node with too few operands.
  if (node.inputs.empty() && node.outputs.empty()) return true;
  // The 16-bit integers and u32 (ONNX's INT16, UINT16, UINT32) have no CUDA kernels yet:
  // no GPU was at hand to check them.
  for (const auto* types : {&node.inputs, &node.outputs}) {
    for (const auto& t : *types) {
      if (t.dtype == DType::kI16 || t.dtype == DType::kU16 || t.dtype == DType::kU32) {
        reason = std::string(DTypeName(t.dtype)) + " is not supported by the CUDA plugin yet";
        return false;
      }
    }
  }
  return entry->supports(node, device.caps(), reason);
}

CudaExecutable::Handles::~Handles() {
  if (graph != nullptr) (void)cudaGraphExecDestroy(graph);
  if (stream != nullptr) (void)cudaStreamDestroy(stream);
  if (flags_host != nullptr) (void)cudaFreeHost(flags_host);
  (void)cudaGetLastError();
}

CudaExecutable::CudaExecutable(Device& device, const sy_partition& p) : device_(device) {
  // Checks and decodes the partition (the SDK's plugin kit); its value table is
  // authoritative for the types.
  const plugin::Partition partition(p);
  values_ = partition.values();
  bound_ = partition.bound();
  bytes_.resize(values_.size());
  data_.assign(values_.size(), nullptr);
  for (uint32_t v = 0; v < values_.size(); ++v) bytes_[v] = partition.bytes(v);

  steps_ = plugin::CreateSteps<Step>(partition, CuOpRegistry::Global(), device.caps(), "CUDA");

  UseDevice(device.ordinal);
  CheckCuda(cudaStreamCreateWithFlags(&handles_.stream, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags");
  // Prepared after every step exists, so that NodeInfo references stay put.
  for (size_t n = 0; n < steps_.size(); ++n) {
    PrepareContext ctx(device, steps_[n].node, error_messages_);
    ctx.stream_ = handles_.stream;
    steps_[n].first_slot = error_messages_.size();
    try {
      steps_[n].op->Prepare(ctx);
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), "prepare: node " + std::to_string(n) + " (" + steps_[n].node.Describe() +
                         "): " + e.what());
    }
    steps_[n].num_slots = error_messages_.size() - steps_[n].first_slot;
    owned_.insert(owned_.end(), ctx.owned_.begin(), ctx.owned_.end());
  }
  for (std::string& m : error_messages_) m = "execute: " + m;

  for (size_t v = 0; v < values_.size(); ++v) {
    if (partition.is_bound(v) || bytes_[v] == 0) continue;
    owned_.push_back(std::make_shared<DeviceBlock>(device, bytes_[v]));
    data_[v] = owned_.back()->data();
  }
  if (!error_messages_.empty()) {
    const uint64_t flag_bytes = error_messages_.size() * sizeof(int);
    flags_ = std::make_shared<DeviceBlock>(device, flag_bytes);
    void* host = nullptr;
    CheckCuda(cudaMallocHost(&host, flag_bytes), "cudaMallocHost (error flags)");
    handles_.flags_host = static_cast<int*>(host);
  }
  bool capturable = !steps_.empty();
  for (const Step& step : steps_) capturable = capturable && step.op->Capturable();
  graphs_ = capturable && EnvEnabled("SWITCHYARD_CUDA_GRAPHS");
  // Work the ops did at prepare (uploads are synchronous; a warm-up may not be).
  CheckCuda(cudaStreamSynchronize(handles_.stream), "cudaStreamSynchronize (prepare)");
}

CudaExecutable::~CudaExecutable() {
  // Nothing may still run on memory about to return to the pool (an execute that failed
  // half way may have left work queued).
  if (cudaSetDevice(device_.ordinal) == cudaSuccess && handles_.stream != nullptr) {
    (void)cudaStreamSynchronize(handles_.stream);
  }
  (void)cudaGetLastError();
}

void CudaExecutable::EnqueueAll(const std::vector<cudaEvent_t>* after) {
  cudaStream_t stream = handles_.stream;
  int* flags = flags_ != nullptr ? static_cast<int*>(flags_->data()) : nullptr;
  const uint64_t flag_bytes = error_messages_.size() * sizeof(int);
  if (flags != nullptr) {
    CheckCuda(cudaMemsetAsync(flags, 0, flag_bytes, stream), "cudaMemsetAsync (error flags)");
  }
  for (size_t n = 0; n < steps_.size(); ++n) {
    Step& step = steps_[n];
    try {
      step.op->Enqueue({stream, step.input_tensors, step.output_tensors, flags});
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(),
           "execute: node " + std::to_string(n) + " (" + step.node.Describe() + "): " + e.what());
    }
    if (after != nullptr) CheckCuda(cudaEventRecord((*after)[n], stream), "cudaEventRecord");
  }
  if (flags != nullptr) {
    CheckCuda(
        cudaMemcpyAsync(handles_.flags_host, flags, flag_bytes, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (error flags)");
  }
}

bool CudaExecutable::Capture() {
  cudaStream_t stream = handles_.stream;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    (void)cudaGetLastError();
    graphs_ = false;
    return false;
  }
  cudaGraph_t graph = nullptr;
  bool enqueued = true;
  try {
    EnqueueAll();
  } catch (...) {
    enqueued = false;  // the direct run that follows reports the error, if it is one
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (!enqueued || ended != cudaSuccess || graph == nullptr) {
    // An op did something a capture cannot hold (a synchronous call, an allocation:
    // cudaErrorStreamCaptureInvalidated): run this executable without graphs from now on.
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    graphs_ = false;
    return false;
  }
  struct GraphDeleter {
    cudaGraph_t g;
    ~GraphDeleter() { (void)cudaGraphDestroy(g); }
  } deleter{graph};
  size_t nodes = 0;
  CheckCuda(cudaGraphGetNodes(graph, nullptr, &nodes), "cudaGraphGetNodes");
  graph_empty_ = nodes == 0;
  if (graph_empty_) return true;
  if (handles_.graph != nullptr) {
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(handles_.graph, graph, &info) == cudaSuccess) return true;
    (void)cudaGetLastError();
    (void)cudaGraphExecDestroy(handles_.graph);
    handles_.graph = nullptr;
  }
  CheckCuda(cudaGraphInstantiate(&handles_.graph, graph, 0), "cudaGraphInstantiate");
  return true;
}

void CudaExecutable::Bind(sy_buffer* const* buffers, uint32_t count) {
  plugin::BindBuffers<CudaBuffer>(
      buffers, count, bound_, bytes_, "CUDA",
      [&](const CudaBuffer& b) { return &b.device() == &device_; },
      [&](uint32_t v, CudaBuffer& b) { data_[v] = bytes_[v] != 0 ? b.data() : nullptr; });
  for (Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      step.input_tensors[i] = {data_[step.inputs[i]], &values_[step.inputs[i]]};
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_tensors[i] = {data_[step.outputs[i]], &values_[step.outputs[i]]};
    }
  }
}

void CudaExecutable::CheckFlags() const {
  for (const Step& step : steps_) {
    for (size_t s = step.first_slot; s < step.first_slot + step.num_slots; ++s) {
      if (handles_.flags_host[s] != 0) Fail(SY_ERROR_DATA, error_messages_[s]);
    }
    try {
      step.op->CheckData();
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), std::string("execute: ") + e.what());
    }
  }
}

void CudaExecutable::ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                                  uint32_t num_times) {
  if (times == nullptr || num_times != steps_.size()) {
    Execute(buffers, count);
    return;
  }
  Bind(buffers, count);
  UseDevice(device_.ordinal);
  cudaStream_t stream = handles_.stream;
  // Events for this call only (profiling is not the fast path): one before the first
  // node, one after each; destroyed however the call ends.
  struct Events {
    std::vector<cudaEvent_t> list;
    ~Events() {
      for (cudaEvent_t e : list) (void)cudaEventDestroy(e);
    }
  } events;
  events.list.resize(steps_.size() + 1, nullptr);
  for (cudaEvent_t& e : events.list) CheckCuda(cudaEventCreate(&e), "cudaEventCreate");
  const std::vector<cudaEvent_t> after(events.list.begin() + 1, events.list.end());
  CheckCuda(cudaEventRecord(events.list[0], stream), "cudaEventRecord");
  EnqueueAll(&after);
  last_mode_ = Mode::kDirect;
  CheckCuda(cudaStreamSynchronize(stream), "execute: cudaStreamSynchronize");
  CheckFlags();
  // Node n ran between the event before it and the one after it.
  for (size_t n = 0; n < steps_.size(); ++n) {
    float start_ms = 0, end_ms = 0;
    CheckCuda(cudaEventElapsedTime(&start_ms, events.list[0], events.list[n]),
              "cudaEventElapsedTime");
    CheckCuda(cudaEventElapsedTime(&end_ms, events.list[0], events.list[n + 1]),
              "cudaEventElapsedTime");
    // {0, 0} means "not measured": the first node starts at 1 ns.
    times[n] = sy_node_time{std::max<uint64_t>(1, static_cast<uint64_t>(start_ms * 1e6)),
                            std::max<uint64_t>(1, static_cast<uint64_t>(end_ms * 1e6))};
  }
}

void CudaExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  Bind(buffers, count);
  UseDevice(device_.ordinal);
  cudaStream_t stream = handles_.stream;

  bool launched = false;
  if (graphs_) {
    std::vector<void*> addresses;
    addresses.reserve(bound_.size());
    for (uint32_t v : bound_) addresses.push_back(data_[v]);
    const bool fresh = (handles_.graph == nullptr && !graph_empty_) || addresses != captured_;
    if (!fresh || Capture()) {
      if (fresh) captured_ = std::move(addresses);
      if (!graph_empty_) CheckCuda(cudaGraphLaunch(handles_.graph, stream), "cudaGraphLaunch");
      last_mode_ = fresh ? Mode::kCaptured : Mode::kReplayed;
      launched = true;
    }
  }
  if (!launched) {
    EnqueueAll();
    last_mode_ = Mode::kDirect;
  }
  CheckCuda(cudaStreamSynchronize(stream), "execute: cudaStreamSynchronize");
  CheckFlags();
}

}  // namespace sy::cuda
