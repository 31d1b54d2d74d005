// The vendor's compute kernels: six elementwise ops on f32, with NumPy broadcasting for
// the binary ones. Nothing here knows about the plugin ABI; a real accelerator plugin
// would have its device's kernels (or a call into its runtime) here instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vendor {

enum class Op { kAdd, kSub, kMul, kRelu, kSigmoid, kTanh };

// The op for a catalogue name ("add", "relu", ...), or nullopt when we do not run it.
std::optional<Op> OpFromName(std::string_view name);
bool IsBinary(Op op);

using Dims = std::vector<int64_t>;

// How a binary op walks its inputs, computed once at prepare time: the output dims and,
// per input, the element stride along each output dim (0 where that input is
// broadcast, i.e. its dim is 1 or missing).
struct BinaryLayout {
  Dims out_dims;
  Dims a_strides;
  Dims b_strides;
  bool same_shapes = false;  // no broadcasting: one flat loop
};
BinaryLayout MakeBinaryLayout(const Dims& a, const Dims& b, const Dims& out);

// y[i] = op(x[i]) for `count` elements.
void RunUnary(Op op, const float* x, float* y, int64_t count);
// y = op(a, b) over layout.out_dims.
void RunBinary(Op op, const BinaryLayout& layout, const float* a, const float* b, float* y);

// The number of elements of a tensor with these dims (1 for a scalar, whose dims are
// empty).
int64_t ElementCount(const Dims& dims);

}  // namespace vendor
