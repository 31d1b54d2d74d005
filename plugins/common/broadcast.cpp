#include "broadcast.h"

namespace sy::plugin {

int CollapseBroadcast(std::span<const int64_t> out, std::span<const Shape> inputs,
                      std::vector<int64_t>& meta) {
  const size_t rank = out.size();
  const size_t k = inputs.size();
  // Per input, the element stride of each output dim (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides(k, std::vector<int64_t>(rank, 0));
  for (size_t j = 0; j < k; ++j) {
    const Shape& in = inputs[j];
    const size_t lead = rank - in.size();
    int64_t stride = 1;
    for (size_t d = in.size(); d-- > 0;) {
      strides[j][lead + d] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> merged(k);
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t j = 0; j < k && merge; ++j) {
      merge = merged[j].back() == strides[j][d] * out[d];
    }
    if (merge) {
      dims.back() *= out[d];
      for (size_t j = 0; j < k; ++j) merged[j].back() = strides[j][d];
    } else {
      dims.push_back(out[d]);
      for (size_t j = 0; j < k; ++j) merged[j].push_back(strides[j][d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t j = 0; j < k; ++j) merged[j].push_back(0);
  }
  meta = dims;
  for (size_t j = 0; j < k; ++j) meta.insert(meta.end(), merged[j].begin(), merged[j].end());
  return static_cast<int>(dims.size());
}

}  // namespace sy::plugin
