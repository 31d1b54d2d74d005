// The table of mappings (op_mapping.h): versioned entries per (domain, op), and the
// whole table built once from every family's file.
#include <algorithm>

#include "onnx_schemas.h"
#include "op_mapping.h"

namespace sy::onnx_import {

OpMapping& MappingTable::At(std::string_view op, VersionRange versions) {
  auto& list = entries_[std::string(op)];
  for (auto& [range, mapping] : list) {
    if (range.first == versions.first && range.last == versions.last) return mapping;
  }
  list.emplace_back(versions, OpMapping{});
  return list.back().second;
}

const OpMapping* MappingTable::Find(std::string_view key, int64_t since_version) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  for (const auto& [range, mapping] : it->second) {
    if (range.Contains(since_version)) return &mapping;
  }
  return nullptr;
}

std::vector<VersionRange> MappingTable::Ranges(std::string_view key) const {
  std::vector<VersionRange> ranges;
  if (const auto it = entries_.find(key); it != entries_.end()) {
    for (const auto& entry : it->second) ranges.push_back(entry.first);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const VersionRange& a, const VersionRange& b) { return a.first < b.first; });
  return ranges;
}

std::vector<std::string> MappingTable::Keys() const {
  std::vector<std::string> keys;
  for (const auto& entry : entries_) keys.push_back(entry.first);
  return keys;
}

std::string MappingKey(std::string_view domain, std::string_view op) {
  if (CanonicalOnnxDomain(domain).empty()) return std::string(op);
  return std::string(domain) + ":" + std::string(op);
}

const MappingTable& Mappings() {
  static const MappingTable table = [] {
    MappingTable t;
    AddShapeFolds(t);
    AddElementwiseMappings(t);
    AddMovementMappings(t);
    AddReductionMappings(t);
    AddNeuralMappings(t);
    AddAttentionMappings(t);
    AddFlexAttentionMappings(t);
    AddRandomMappings(t);
    AddTrainingMappings(t);
    AddImageMappings(t);
    AddScatterLikeMappings(t);
    AddGeometryMappings(t);
    AddConvPoolMappings(t);
    AddLossMappings(t);
    AddQuantizationMappings(t);
    AddEinsumMappings(t);
    AddRecurrentMappings(t);
    AddSelectionMappings(t);
    AddContribMappings(t);
    AddContribAttentionMappings(t);
    AddSpectralMappings(t);
    AddControlFlowMappings(t);
    AddMlMappings(t);
    return t;
  }();
  return table;
}

}  // namespace sy::onnx_import
