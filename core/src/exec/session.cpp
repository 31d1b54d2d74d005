#include "switchyard/session.h"

#include <cstring>
#include <unordered_map>

namespace sy {

// A device buffer of the session's plugin, freed with it.
struct Session::Buffer {
  const Plugin* plugin = nullptr;
  sy_buffer* handle = nullptr;
  uint64_t bytes = 0;
  ~Buffer() {
    if (handle != nullptr) plugin->api()->buffer_free(handle);
  }
};

namespace {

// Owns the C structures describing one partition while it is being prepared.
struct PartitionBuilder {
  std::vector<sy_tensor_type> values;
  std::vector<sy_node> nodes;
  std::vector<std::vector<sy_tensor_type>> node_inputs, node_outputs;
  std::vector<std::vector<uint32_t>> input_ids, output_ids;
  std::vector<std::vector<sy_attr>> attrs;
  std::vector<std::vector<std::vector<const char*>>> string_lists;
  std::vector<uint32_t> inputs, outputs;
};

sy_tensor_type ToC(const TensorType& t) {
  return {static_cast<uint32_t>(t.dtype), static_cast<uint32_t>(t.shape.size()), t.shape.data()};
}

// Fills `out` with views of `attrs` (which must outlive `out`).
void AttrsToC(const Attrs& attrs, std::vector<sy_attr>& out,
              std::vector<std::vector<const char*>>& string_lists) {
  for (const auto& [name, value] : attrs) {
    sy_attr a{};
    a.name = name.c_str();
    a.kind = static_cast<uint32_t>(KindOf(value));
    switch (KindOf(value)) {
      case AttrKind::kInt: a.i = std::get<int64_t>(value); break;
      case AttrKind::kFloat: a.f = std::get<double>(value); break;
      case AttrKind::kString: a.s = std::get<std::string>(value).c_str(); break;
      case AttrKind::kInts: {
        const auto& v = std::get<std::vector<int64_t>>(value);
        a.count = static_cast<uint32_t>(v.size());
        a.ints = v.data();
        break;
      }
      case AttrKind::kFloats: {
        const auto& v = std::get<std::vector<double>>(value);
        a.count = static_cast<uint32_t>(v.size());
        a.floats = v.data();
        break;
      }
      case AttrKind::kStrings: {
        const auto& v = std::get<std::vector<std::string>>(value);
        std::vector<const char*> ptrs;
        for (const std::string& s : v) ptrs.push_back(s.c_str());
        string_lists.push_back(std::move(ptrs));
        a.count = static_cast<uint32_t>(v.size());
        a.strings = string_lists.back().data();
        break;
      }
    }
    out.push_back(a);
  }
}

}  // namespace

Session::~Session() {
  // Executable and buffers go back to the plugin before the session forgets it.
  if (executable_ != nullptr) plugin_->api()->release(executable_);
  buffers_.clear();
}

Expected<std::unique_ptr<Session>> Session::Create(const Graph& graph, const Device& device) {
  auto session = std::unique_ptr<Session>(new Session());
  session->device_ = &device;
  session->plugin_ = device.plugin;
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();

  PartitionBuilder b;
  for (const Value& v : graph.values) b.values.push_back(ToC(v.type));
  const size_t n = graph.nodes.size();
  b.node_inputs.resize(n);
  b.node_outputs.resize(n);
  b.input_ids.resize(n);
  b.output_ids.resize(n);
  b.attrs.resize(n);
  b.string_lists.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    for (ValueId id : node.inputs) {
      b.node_inputs[i].push_back(ToC(graph.values[id].type));
      b.input_ids[i].push_back(static_cast<uint32_t>(id));
    }
    for (ValueId id : node.outputs) {
      b.node_outputs[i].push_back(ToC(graph.values[id].type));
      b.output_ids[i].push_back(static_cast<uint32_t>(id));
    }
    AttrsToC(node.attrs, b.attrs[i], b.string_lists[i]);
    sy_node c{};
    c.struct_size = sizeof(sy_node);
    c.abi_version = SY_PLUGIN_ABI_VERSION;
    c.op = node.op.c_str();
    c.name = node.name.c_str();
    c.num_inputs = static_cast<uint32_t>(node.inputs.size());
    c.num_outputs = static_cast<uint32_t>(node.outputs.size());
    c.inputs = b.node_inputs[i].data();
    c.outputs = b.node_outputs[i].data();
    c.num_attrs = static_cast<uint32_t>(b.attrs[i].size());
    c.attrs = b.attrs[i].data();
    // Ask first, so that a decline is reported per node with the plugin's reason.
    uint32_t supported = 0;
    char reason[256] = {0};
    SY_RETURN_IF_ERROR(plugin.TakeError(
        api->supports_node(plugin.context(), device.index, &c, &supported, reason, sizeof reason),
        "supports_node"));
    if (!supported) {
      return Unsupported(graph.DescribeNode(i) + ": device " + device.Spec() + " (" + device.name +
                         ") declines it: " + reason);
    }
    c.input_values = b.input_ids[i].data();
    c.output_values = b.output_ids[i].data();
    b.nodes.push_back(c);
  }

  // Bound values: graph inputs, then constants, then graph outputs produced by nodes.
  std::vector<bool> is_input(graph.values.size(), false);
  for (ValueId id : graph.inputs) {
    is_input[id] = true;
    session->input_slots_.push_back(b.inputs.size());
    session->input_names_.push_back(graph.values[id].name);
    session->input_types_.push_back(graph.values[id].type);
    b.inputs.push_back(static_cast<uint32_t>(id));
  }
  std::unordered_map<ValueId, const Constant*> constants;
  for (const Constant& c : graph.constants) {
    constants[c.value] = &c;
    b.inputs.push_back(static_cast<uint32_t>(c.value));
  }
  for (ValueId id : graph.outputs) {
    Output out;
    out.name = graph.values[id].name;
    out.type = graph.values[id].type;
    if (is_input[id]) {
      for (size_t k = 0; k < graph.inputs.size(); ++k) {
        if (graph.inputs[k] == id) out.from_input = static_cast<int64_t>(k);
      }
    } else if (auto it = constants.find(id); it != constants.end()) {
      out.fixed = it->second->data;
    } else {
      out.slot = static_cast<int64_t>(b.inputs.size() + b.outputs.size());
      b.outputs.push_back(static_cast<uint32_t>(id));
    }
    session->outputs_.push_back(std::move(out));
  }

  // Buffers for every bound value; constants are uploaded now, once.
  for (uint32_t id : b.inputs) {
    session->bound_.push_back(nullptr);
    (void)id;
  }
  auto allocate = [&](uint32_t id) -> Expected<sy_buffer*> {
    auto buffer = std::make_unique<Buffer>();
    buffer->plugin = &plugin;
    buffer->bytes = static_cast<uint64_t>(ElementCount(graph.values[id].type.shape)) *
                    DTypeSize(graph.values[id].type.dtype);
    SY_RETURN_IF_ERROR(plugin.TakeError(
        api->buffer_alloc(plugin.context(), device.index, buffer->bytes, &buffer->handle),
        "buffer_alloc for " + graph.DescribeValue(static_cast<ValueId>(id))));
    sy_buffer* handle = buffer->handle;
    session->buffers_.push_back(std::move(buffer));
    return handle;
  };
  session->bound_.clear();
  for (uint32_t id : b.inputs) {
    SY_ASSIGN_OR_RETURN(sy_buffer * handle, allocate(id));
    session->bound_.push_back(handle);
    if (auto it = constants.find(static_cast<ValueId>(id)); it != constants.end()) {
      const Tensor& data = it->second->data;
      SY_RETURN_IF_ERROR(plugin.TakeError(
          api->copy_host_to_device(handle, 0, data.data(), data.byte_size()),
          "uploading constant " + graph.DescribeValue(static_cast<ValueId>(id))));
    }
  }
  for (uint32_t id : b.outputs) {
    SY_ASSIGN_OR_RETURN(sy_buffer * handle, allocate(id));
    session->bound_.push_back(handle);
  }

  sy_partition partition{};
  partition.struct_size = sizeof partition;
  partition.abi_version = SY_PLUGIN_ABI_VERSION;
  partition.num_values = static_cast<uint32_t>(b.values.size());
  partition.values = b.values.data();
  partition.num_nodes = static_cast<uint32_t>(b.nodes.size());
  partition.nodes = b.nodes.data();
  partition.num_inputs = static_cast<uint32_t>(b.inputs.size());
  partition.inputs = b.inputs.data();
  partition.num_outputs = static_cast<uint32_t>(b.outputs.size());
  partition.outputs = b.outputs.data();
  SY_RETURN_IF_ERROR(plugin.TakeError(
      api->prepare(plugin.context(), device.index, &partition, &session->executable_), "prepare"));
  return session;
}

Expected<std::map<std::string, Tensor>> Session::Run(const std::map<std::string, Tensor>& inputs) {
  const sy_plugin_api* api = plugin_->api();
  for (const auto& [name, tensor] : inputs) {
    bool known = false;
    for (const std::string& n : input_names_) known = known || n == name;
    if (!known) {
      std::string list;
      for (const std::string& n : input_names_) list += (list.empty() ? "" : ", ") + n;
      return InvalidArgument("unknown input \"" + name + "\" (the model's inputs are: " +
                             (list.empty() ? "none" : list) + ")");
    }
  }
  for (size_t k = 0; k < input_names_.size(); ++k) {
    auto it = inputs.find(input_names_[k]);
    if (it == inputs.end()) {
      return InvalidArgument("missing input \"" + input_names_[k] + "\" (" +
                             input_types_[k].ToString() + ")");
    }
    if (it->second.type() != input_types_[k]) {
      return InvalidArgument("input \"" + input_names_[k] + "\" is " + it->second.type().ToString() +
                             " but the model expects " + input_types_[k].ToString());
    }
    SY_RETURN_IF_ERROR(plugin_->TakeError(
        api->copy_host_to_device(bound_[input_slots_[k]], 0, it->second.data(),
                                 it->second.byte_size()),
        "copying input \"" + input_names_[k] + "\""));
  }
  SY_RETURN_IF_ERROR(plugin_->TakeError(
      api->execute(executable_, static_cast<uint32_t>(bound_.size()), bound_.data()), "execute"));
  std::map<std::string, Tensor> results;
  for (const Output& out : outputs_) {
    if (out.from_input >= 0) {
      results[out.name] = inputs.at(input_names_[out.from_input]);
      continue;
    }
    if (out.slot < 0) {
      results[out.name] = out.fixed;
      continue;
    }
    SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(out.type.dtype, out.type.shape));
    SY_RETURN_IF_ERROR(plugin_->TakeError(
        api->copy_device_to_host(bound_[out.slot], 0, tensor.mutable_data(), tensor.byte_size()),
        "copying output \"" + out.name + "\""));
    results[out.name] = std::move(tensor);
  }
  return results;
}

}  // namespace sy
