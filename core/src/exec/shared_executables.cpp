#include "exec/shared_executables.h"

#include <algorithm>
#include <cstring>

namespace sy {

SharedExecutable::~SharedExecutable() { plugin->api()->release(handle); }

namespace {

void Append(std::string& key, const void* data, size_t bytes) {
  key.append(static_cast<const char*>(data), bytes);
}
void AppendWord(std::string& key, uint64_t word) { Append(key, &word, sizeof word); }
void AppendString(std::string& key, const char* text) {
  key.append(text);
  key.push_back('\0');
}

}  // namespace

std::string PartitionStructureKey(const Device& device, const sy_partition& p) {
  std::string key;
  AppendWord(key, reinterpret_cast<uintptr_t>(&device));
  AppendWord(key, p.num_values);
  for (uint32_t v = 0; v < p.num_values; ++v) {
    AppendWord(key, p.values[v].dtype);
    AppendWord(key, p.values[v].rank);
  }
  AppendWord(key, p.num_nodes);
  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& node = p.nodes[n];
    AppendString(key, node.op);
    AppendWord(key, node.num_inputs);
    Append(key, node.input_values, node.num_inputs * sizeof(uint32_t));
    AppendWord(key, node.num_outputs);
    Append(key, node.output_values, node.num_outputs * sizeof(uint32_t));
    AppendWord(key, node.num_attrs);
    for (uint32_t a = 0; a < node.num_attrs; ++a) {
      const sy_attr& attr = node.attrs[a];
      AppendString(key, attr.name);
      AppendWord(key, attr.kind);
      // Strings are never resolved against sizes: they are part of the structure.
      if (attr.kind == SY_ATTR_STRING) AppendString(key, attr.s);
      if (attr.kind == SY_ATTR_STRINGS) {
        AppendWord(key, attr.count);
        for (uint32_t k = 0; k < attr.count; ++k) AppendString(key, attr.strings[k]);
      }
    }
  }
  AppendWord(key, p.num_inputs);
  Append(key, p.inputs, p.num_inputs * sizeof(uint32_t));
  AppendWord(key, p.num_outputs);
  Append(key, p.outputs, p.num_outputs * sizeof(uint32_t));
  for (uint32_t i = 0; i < p.num_inputs; ++i) {
    AppendWord(key, reinterpret_cast<uintptr_t>(p.constant_data ? p.constant_data[i] : nullptr));
  }
  for (uint32_t i = 0; i < p.num_outputs; ++i) {
    key.push_back(p.outputs_internal != nullptr && p.outputs_internal[i] != 0 ? '1' : '0');
  }
  return key;
}

std::shared_ptr<SharedExecutable> ExecutableShelf::Find(const std::string& key) {
  if (std::find(declined_.begin(), declined_.end(), key) != declined_.end()) return nullptr;
  for (const auto& [stored, weak] : entries_) {
    if (stored != key) continue;
    if (std::shared_ptr<SharedExecutable> found = weak.lock()) return found;
  }
  return nullptr;
}

void ExecutableShelf::Put(const std::string& key,
                          const std::shared_ptr<SharedExecutable>& executable) {
  std::erase_if(entries_, [](const auto& entry) { return entry.second.expired(); });
  entries_.emplace_back(key, executable);
}

void ExecutableShelf::Decline(const std::string& key) {
  if (std::find(declined_.begin(), declined_.end(), key) == declined_.end()) {
    declined_.push_back(key);
  }
  std::erase_if(entries_, [&](const auto& entry) { return entry.first == key; });
}

void ExecutableShelf::InternConstants(Graph& graph) {
  for (Constant& constant : graph.constants) {
    Tensor& data = constant.data;
    if (!data.valid() || data.byte_size() > kInternBytes) continue;
    std::string_view bytes(reinterpret_cast<const char*>(data.data()), data.byte_size());
    size_t hash = std::hash<std::string_view>{}(bytes) ^ (static_cast<size_t>(data.dtype()) << 1);
    for (int64_t d : data.shape()) hash = hash * 1000003u ^ static_cast<size_t>(d);
    auto [first, last] = interned_.equal_range(hash);
    auto same = std::find_if(first, last,
                             [&](const auto& entry) { return entry.second.BitwiseEquals(data); });
    if (same != last) {
      data = same->second;
    } else {
      interned_.emplace(hash, data);
    }
  }
}

}  // namespace sy
