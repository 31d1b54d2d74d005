// Half-precision steps run on the f32 kernels.
//
// The CPU's fast kernels (oneDNN, OpenBLAS, the vectorised loops) are written for f32; on
// f16 their table entries fall back to the reference kernels, which compute element by
// element in double (a ResNet-18 converted to f16 ran at 381x ONNX Runtime's time). A step
// whose op has a fast kernel, belongs to a family that computes in its operands' float
// type (ComputesInItsFloatType) and whose float values are all f16 runs instead on the f32
// kernel: its f16 inputs are widened into scratch (exactly: every f16 is an f32), the
// kernel runs, and its f32 outputs are rounded to f16 (nearest even) into the buffers the
// host bound. So each step's output is rounded to f16 once, as the catalogue's f16
// semantics ask; what differs from the reference kernels is only the precision of the
// arithmetic inside one op (f32 instead of double), within the f16 tolerances of
// docs/conformance.md. f16 constants (weights) are widened once, at prepare, and the f32
// kernel's own prepare sees the widened copy (oneDNN packs it as it would f32 weights).
//
// Owned by the executable's step; lives as long as the executable. Not thread-safe (an
// executable runs one execute at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernel.h"

namespace sy::cpu {

// Converts `n` values between IEEE binary16 bits and f32, rounding to nearest even (the
// CPU's F16C instructions where it has them, else half.h's scalar conversions; both give
// the same bits, NaN payloads aside). Neither buffer need be aligned for its type.
void HalfToF32(const uint16_t* in, float* out, int64_t n);
void F32ToHalf(const float* in, uint16_t* out, int64_t n);
// "F16C" or "scalar": which of the two the conversions use on this CPU (`devices`).
const char* HalfConversionName();

// Whether a family's ops compute in their operands' float type, so that running them in
// f32 and rounding the result once is their f16 semantics: elementwise math, linalg,
// reductions, normalization, conv and pooling, the neural ops and the fused ones. Not the
// movement, indexing and selection ops (they copy bytes, for which the dtype's size is
// what matters) nor sampling (whose draws are specified on the given dtype).
bool ComputesInItsFloatType(std::string_view family);

class HalfAsF32 {
 public:
  // Whether a step with these types qualifies: some value is f16 and no value has another
  // float dtype (a cast between float types keeps its own kernel: it is the rounding).
  static bool Applies(std::span<const TensorType> inputs, std::span<const TensorType> outputs);

  // `constant_inputs` (per input: its bytes when a constant of the model, else nullptr;
  // valid during this call) as a prepare sees them; f16 constants are widened and kept.
  HalfAsF32(std::span<const TensorType> inputs, std::span<const TensorType> outputs,
            std::span<const std::byte* const> constant_inputs);

  // The types the f32 kernel sees: the step's, f16 replaced by f32.
  std::span<const TensorType> inputs() const { return in_types_; }
  std::span<const TensorType> outputs() const { return out_types_; }
  // The constant bytes the f32 kernel's prepare sees: the widened copies of f16
  // constants, the others as given. Valid as long as this object.
  std::vector<const std::byte*> Constants(std::span<const std::byte* const> given) const;

  // The step at other sizes (execute_resized): its new types. Constants keep their shapes.
  void Resize(std::span<const TensorType> inputs, std::span<const TensorType> outputs);

  // Bytes of scratch one run needs (the widened non-constant inputs and the f32 outputs).
  size_t scratch_bytes() const;

  // Runs `run` (the step's f32 kernel) on f32 views of `ctx`'s tensors: widens the
  // non-constant f16 inputs into `scratch` (`capacity` bytes, 64-byte aligned), calls it,
  // then rounds its f32 outputs into `ctx`'s f16 buffers. Input bounds pass through (the
  // widening is exact); output bounds of rounded outputs stay unknown (rounding can
  // overflow to infinity). A scratch smaller than scratch_bytes() (its growth failed at a
  // resize) is an error, never an overrun.
  template <typename RunF32>
  Status Run(const KernelContext& ctx, std::byte* scratch, size_t capacity, RunF32&& run) {
    if (scratch_bytes() > capacity) {
      return ResourceExhausted(std::string(ctx.op) +
                               ": no memory for the f32 copies of its f16 tensors");
    }
    Widen(ctx, scratch);
    const KernelContext f32{ctx.op,   in_views_,        out_views_, ctx.attrs,
                            ctx.pool, ctx.input_bounds, out_bounds_};
    Status status = run(f32);
    if (status.ok()) Narrow(ctx);
    return status;
  }

 private:
  void Widen(const KernelContext& ctx, std::byte* scratch);
  void Narrow(const KernelContext& ctx);

  std::vector<TensorType> in_types_, out_types_;  // as the f32 kernel sees them
  std::vector<bool> in_half_, out_half_;          // which were f16
  std::vector<std::vector<float>> constants_;     // per input: widened f16 constant, or empty
  std::vector<ConstTensorView> in_views_;         // rebuilt by each run
  std::vector<TensorView> out_views_;
  std::vector<double> out_bounds_;  // what the f32 kernel writes; not passed on
};

}  // namespace sy::cpu
