#include "plugin/isolation/wire.h"

namespace sy::isolation {

MessageWriter& MessageWriter::PutString(std::string_view s) {
  Put(static_cast<uint32_t>(s.size()));
  bytes_.append(s);
  return *this;
}

MessageWriter& MessageWriter::PutBytes(const void* data, size_t size) {
  Put(static_cast<uint64_t>(size));
  bytes_.append(static_cast<const char*>(data), size);
  return *this;
}

bool MessageReader::Take(size_t n) {
  if (!ok_ || bytes_.size() - at_ < n) {
    ok_ = false;
    return false;
  }
  at_ += n;
  return true;
}

std::string MessageReader::GetString() {
  const uint32_t size = Get<uint32_t>();
  if (!Take(size)) return {};
  return std::string(bytes_.substr(at_ - size, size));
}

std::string_view MessageReader::GetBytes() {
  const uint64_t size = Get<uint64_t>();
  if (size > bytes_.size() || !Take(static_cast<size_t>(size))) {
    ok_ = false;
    return {};
  }
  return bytes_.substr(at_ - size, size);
}

uint32_t MessageReader::GetCount(size_t item_size) {
  const uint32_t count = Get<uint32_t>();
  if (!ok_ || (item_size > 0 && count > (bytes_.size() - at_) / item_size)) {
    ok_ = false;
    return 0;
  }
  return count;
}

namespace {

void GetTensorType(MessageReader& r, std::deque<std::vector<int64_t>>& dims, sy_tensor_type& t) {
  t.dtype = r.Get<uint32_t>();
  const uint32_t rank = r.GetCount(sizeof(int64_t));
  std::vector<int64_t>& d = dims.emplace_back(rank);
  for (int64_t& v : d) v = r.Get<int64_t>();
  t.rank = rank;
  t.dims = d.empty() ? nullptr : d.data();
}

}  // namespace

void PutTensorType(MessageWriter& w, const sy_tensor_type& t) {
  w.Put(t.dtype).Put(t.rank);
  for (uint32_t i = 0; i < t.rank; ++i) w.Put(t.dims[i]);
}

void PutNode(MessageWriter& w, const sy_node& node, bool with_values) {
  w.PutString(node.op ? node.op : "").PutString(node.name ? node.name : "");
  w.Put(node.num_inputs);
  for (uint32_t i = 0; i < node.num_inputs; ++i) PutTensorType(w, node.inputs[i]);
  w.Put(node.num_outputs);
  for (uint32_t i = 0; i < node.num_outputs; ++i) PutTensorType(w, node.outputs[i]);
  w.Put(node.num_attrs);
  for (uint32_t i = 0; i < node.num_attrs; ++i) {
    const sy_attr& a = node.attrs[i];
    w.PutString(a.name ? a.name : "").Put(a.kind);
    switch (a.kind) {
      case SY_ATTR_INT:
        w.Put(a.i);
        break;
      case SY_ATTR_FLOAT:
        w.Put(a.f);
        break;
      case SY_ATTR_STRING:
        w.PutString(a.s ? a.s : "");
        break;
      case SY_ATTR_INTS:
        w.Put(a.count);
        for (uint32_t k = 0; k < a.count; ++k) w.Put(a.ints[k]);
        break;
      case SY_ATTR_FLOATS:
        w.Put(a.count);
        for (uint32_t k = 0; k < a.count; ++k) w.Put(a.floats[k]);
        break;
      case SY_ATTR_STRINGS:
        w.Put(a.count);
        for (uint32_t k = 0; k < a.count; ++k) w.PutString(a.strings[k] ? a.strings[k] : "");
        break;
      default:
        break;
    }
  }
  if (with_values) {
    for (uint32_t i = 0; i < node.num_inputs; ++i) w.Put(node.input_values[i]);
    for (uint32_t i = 0; i < node.num_outputs; ++i) w.Put(node.output_values[i]);
  }
}

Status GetNode(MessageReader& r, bool with_values, uint32_t num_values, DecodedNode& out) {
  out.op = r.GetString();
  out.name = r.GetString();
  // Each tensor type is at least 8 bytes (dtype and rank).
  const uint32_t num_inputs = r.GetCount(8);
  out.inputs.resize(num_inputs);
  for (sy_tensor_type& t : out.inputs) GetTensorType(r, out.dims, t);
  const uint32_t num_outputs = r.GetCount(8);
  out.outputs.resize(num_outputs);
  for (sy_tensor_type& t : out.outputs) GetTensorType(r, out.dims, t);
  const uint32_t num_attrs = r.GetCount(8);  // a name's length and a kind, at least
  out.attrs.resize(num_attrs);
  for (sy_attr& a : out.attrs) {
    a = sy_attr{};
    a.name = out.strings.emplace_back(r.GetString()).c_str();
    a.kind = r.Get<uint32_t>();
    switch (a.kind) {
      case SY_ATTR_INT:
        a.i = r.Get<int64_t>();
        break;
      case SY_ATTR_FLOAT:
        a.f = r.Get<double>();
        break;
      case SY_ATTR_STRING:
        a.s = out.strings.emplace_back(r.GetString()).c_str();
        break;
      case SY_ATTR_INTS: {
        a.count = r.GetCount(sizeof(int64_t));
        std::vector<int64_t>& v = out.int_lists.emplace_back(a.count);
        for (int64_t& x : v) x = r.Get<int64_t>();
        a.ints = v.data();
        break;
      }
      case SY_ATTR_FLOATS: {
        a.count = r.GetCount(sizeof(double));
        std::vector<double>& v = out.float_lists.emplace_back(a.count);
        for (double& x : v) x = r.Get<double>();
        a.floats = v.data();
        break;
      }
      case SY_ATTR_STRINGS: {
        a.count = r.GetCount(sizeof(uint32_t));
        std::vector<const char*>& v = out.string_lists.emplace_back(a.count);
        for (const char*& s : v) s = out.strings.emplace_back(r.GetString()).c_str();
        a.strings = v.data();
        break;
      }
      default:
        return InvalidArgument("node \"" + out.name + "\": attribute of unknown kind " +
                               std::to_string(a.kind));
    }
  }
  if (with_values) {
    out.input_values.resize(num_inputs);
    out.output_values.resize(num_outputs);
    for (uint32_t& v : out.input_values) v = r.Get<uint32_t>();
    for (uint32_t& v : out.output_values) v = r.Get<uint32_t>();
    for (const std::vector<uint32_t>* list : {&out.input_values, &out.output_values}) {
      for (uint32_t v : *list) {
        if (v >= num_values) {
          return InvalidArgument("node \"" + out.name + "\": value index " + std::to_string(v) +
                                 " is past the partition's " + std::to_string(num_values));
        }
      }
    }
  }
  if (!r.ok()) return InvalidArgument("malformed node message");
  out.node = sy_node{};
  out.node.struct_size = sizeof(sy_node);
  out.node.abi_version = SY_PLUGIN_ABI_VERSION;
  out.node.op = out.op.c_str();
  out.node.name = out.name.c_str();
  out.node.num_inputs = num_inputs;
  out.node.num_outputs = num_outputs;
  out.node.inputs = out.inputs.data();
  out.node.outputs = out.outputs.data();
  out.node.num_attrs = num_attrs;
  out.node.attrs = out.attrs.data();
  out.node.input_values = with_values ? out.input_values.data() : nullptr;
  out.node.output_values = with_values ? out.output_values.data() : nullptr;
  return Status::Ok();
}

void PutPartition(MessageWriter& w, const sy_partition& partition) {
  w.Put(partition.num_values);
  for (uint32_t i = 0; i < partition.num_values; ++i) PutTensorType(w, partition.values[i]);
  w.Put(partition.num_nodes);
  for (uint32_t i = 0; i < partition.num_nodes; ++i) PutNode(w, partition.nodes[i], true);
  w.Put(partition.num_inputs);
  for (uint32_t i = 0; i < partition.num_inputs; ++i) w.Put(partition.inputs[i]);
  w.Put(partition.num_outputs);
  for (uint32_t i = 0; i < partition.num_outputs; ++i) w.Put(partition.outputs[i]);
  const bool has_internal = partition.struct_size >= offsetof(sy_partition, outputs_internal) +
                                                         sizeof(partition.outputs_internal) &&
                            partition.outputs_internal != nullptr;
  w.Put(static_cast<uint8_t>(has_internal));
  if (has_internal) {
    for (uint32_t i = 0; i < partition.num_outputs; ++i) w.Put(partition.outputs_internal[i]);
  }
}

Status GetPartition(MessageReader& r, DecodedPartition& out) {
  const uint32_t num_values = r.GetCount(8);
  out.values.resize(num_values);
  for (sy_tensor_type& t : out.values) GetTensorType(r, out.dims, t);
  const uint32_t num_nodes = r.GetCount(8);
  for (uint32_t i = 0; i < num_nodes; ++i) {
    SY_RETURN_IF_ERROR(GetNode(r, true, num_values, out.node_storage.emplace_back()));
  }
  for (const DecodedNode& n : out.node_storage) out.nodes.push_back(n.node);
  const uint32_t num_inputs = r.GetCount(sizeof(uint32_t));
  out.inputs.resize(num_inputs);
  for (uint32_t& v : out.inputs) v = r.Get<uint32_t>();
  const uint32_t num_outputs = r.GetCount(sizeof(uint32_t));
  out.outputs.resize(num_outputs);
  for (uint32_t& v : out.outputs) v = r.Get<uint32_t>();
  if (r.Get<uint8_t>() != 0) {
    out.outputs_internal.resize(num_outputs);
    for (uint8_t& v : out.outputs_internal) v = r.Get<uint8_t>();
  }
  if (!r.ok()) return InvalidArgument("malformed partition message");
  for (const std::vector<uint32_t>* list : {&out.inputs, &out.outputs}) {
    for (uint32_t v : *list) {
      if (v >= num_values) return InvalidArgument("partition value index out of range");
    }
  }
  out.constant_data.assign(num_inputs, nullptr);
  out.partition = sy_partition{};
  out.partition.struct_size = sizeof(sy_partition);
  out.partition.abi_version = SY_PLUGIN_ABI_VERSION;
  out.partition.num_values = num_values;
  out.partition.num_nodes = num_nodes;
  out.partition.values = out.values.data();
  out.partition.nodes = out.nodes.data();
  out.partition.num_inputs = num_inputs;
  out.partition.num_outputs = num_outputs;
  out.partition.inputs = out.inputs.data();
  out.partition.outputs = out.outputs.data();
  out.partition.constant_data = out.constant_data.data();
  out.partition.outputs_internal =
      out.outputs_internal.empty() ? nullptr : out.outputs_internal.data();
  return Status::Ok();
}

}  // namespace sy::isolation
