// Internal: the binary graph section (docs/format.md, "Binary encoding"): a Graph as
// little-endian bytes with stable op tags (switchyard/op_tags.h) and a general attribute
// encoding, so that a new op needs no new code here. Constants are not in the section:
// each names its bytes by offset and size in a weights section beside it, which the
// single-file model (single_file_model.cpp) maps, so weights are never read or copied.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy::format {

// The version of the graph section's layout; a reader refuses any other.
inline constexpr uint32_t kGraphSectionVersion = 1;
// Where each constant's bytes start in the weights section: a multiple of this.
inline constexpr uint64_t kWeightAlignment = 64;

// A constant's bytes in the weights section.
struct WeightRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Places every constant's bytes in a weights section, in graph order, each at a multiple
// of kWeightAlignment; `size` receives the section's size. Constants stored under the
// same tensor name are refused (as SaveModel refuses them).
Expected<std::vector<WeightRange>> PlanWeights(const Graph& graph, uint64_t& size);

// The graph section for `graph`, whose constants lie at `ranges` (from PlanWeights).
// Fails for an op that has no tag.
Expected<std::string> EncodeGraph(const Graph& graph, std::span<const WeightRange> ranges);

// Pass 1 on a graph section at absolute offset `section_offset` of its file, with the
// weights section `weights` at `weights_offset`. Constants become views onto `weights`
// that hold `owner` (which must keep those bytes alive). Errors name the byte offset and
// what was expected there, or the value or node, as the JSON reader does.
Expected<Graph> DecodeGraph(std::span<const std::byte> section, uint64_t section_offset,
                            std::span<const std::byte> weights, uint64_t weights_offset,
                            std::shared_ptr<const void> owner);

}  // namespace sy::format
