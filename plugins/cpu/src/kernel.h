// The CPU plugin's kernel interface: what one op's implementation receives. Kernels are
// plain functions over contiguous row-major buffers; the plugin's executor (and the
// tests) bind buffers, so a kernel neither allocates its outputs nor sees the ABI.
//
// Inputs and outputs have the types core's shape rules inferred, and `attrs` were
// normalised by core's validation: every attribute with a default is present with its
// schema kind, so kernels read attributes without re-checking them. What validation
// cannot see (data-dependent errors: an index out of range, an integer division by
// zero) a kernel reports as an error Status naming the op, never by reading or writing
// out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/half.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy::cpu {

class ThreadPool;  // thread_pool.h

struct ConstTensorView {
  TensorType type;
  const std::byte* data = nullptr;  // ElementCount(type.shape) * DTypeSize(type.dtype) bytes

  int64_t count() const { return ElementCount(type.shape); }
  DType dtype() const { return type.dtype; }
  const Shape& shape() const { return type.shape; }
  int64_t rank() const { return type.rank(); }
};

struct TensorView {
  TensorType type;
  std::byte* data = nullptr;

  int64_t count() const { return ElementCount(type.shape); }
  DType dtype() const { return type.dtype; }
  const Shape& shape() const { return type.shape; }
  int64_t rank() const { return type.rank(); }
};

struct KernelContext {
  std::string_view op;
  std::span<const ConstTensorView> inputs;  // optional inputs that were omitted are absent
  std::span<const TensorView> outputs;
  const Attrs& attrs;
  // The context's worker threads for ParallelFor (thread_pool.h), borrowed for the call;
  // nullptr runs everything on the calling thread. Last, with a default, so that
  // `{op, inputs, outputs, attrs}` still initialises a context.
  ThreadPool* pool = nullptr;
  // Magnitude bounds, this run (empty when the caller keeps none, as the tests' direct
  // calls do). input_bounds[i]: every element of input i is finite with |v| at most this,
  // or +inf when nothing is known (a graph input, a value of a kernel that says nothing).
  // output_bounds[j] is +inf when the kernel is called; a kernel that can bound output j
  // for this run writes the bound. The oneDNN kernels use them to skip their NaN guards
  // on values another of them just produced within bounds (docs/cpu-kernels.md, "NaN
  // guards"); no kernel may write a bound its output could exceed.
  std::span<const double> input_bounds = {};
  std::span<double> output_bounds = {};
};

// The bound of input i in `ctx` (+inf when unknown).
inline double InputBound(const KernelContext& ctx, size_t i) {
  return i < ctx.input_bounds.size() ? ctx.input_bounds[i]
                                     : std::numeric_limits<double>::infinity();
}

// Records `bound` for output j when the caller keeps bounds.
inline void SetOutputBound(const KernelContext& ctx, size_t j, double bound) {
  if (j < ctx.output_bounds.size()) ctx.output_bounds[j] = bound;
}

using KernelFn = Status (*)(const KernelContext& ctx);

// The order of a tensor's bytes in its buffer. The catalogue's tensors are row-major,
// which for a conv's [N, C, spatial...] operands is NCHW. Inside one prepared partition
// the executable may store a 3- to 5-D f32 (or u8/i8) value channels-last instead (NHWC: [N,
// spatial..., C] row-major, the channel varying fastest), when every kernel that writes
// or reads it has agreed to (PreparedKernel::AcceptsChannelsLast*): oneDNN's fast
// convolutions read and write that layout, so a chain of convs then skips the NCHW <->
// NHWC reorders between them (docs/cpu-kernels.md). The value's TensorType (its NCHW
// shape) and byte size are unchanged; values bound to the host are always row-major.
enum class Layout : uint8_t { kRowMajor, kChannelsLast };

struct PrepareContext;

// A kernel that does its expensive set-up once, when the partition is prepared: a
// library primitive built (and JIT-compiled) for these shapes, weights reordered into the
// layout the primitive reads fastest. Owned by the executable's step; lives as long as
// the executable. Run() sees the same types as the prepare did.
class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual Status Run(const KernelContext& ctx) = 0;

  // Layout negotiation, the second half of prepare (CpuExecutable::ChooseLayouts). Once
  // every step of the partition is prepared, the executable asks each prepared kernel
  // which of its inputs and outputs (by index, as in the contexts) it could take
  // channels-last; a value is stored channels-last only when its producer and all its
  // readers say yes. Asking commits nothing. The default declines everything, so a
  // kernel that does not override these sees row-major tensors only.
  virtual bool AcceptsChannelsLastInput(size_t /*index*/) const { return false; }
  virtual bool AcceptsChannelsLastOutput(size_t /*index*/) const { return false; }
  // True for a kernel that only moves or scales what it reads (concat, slice, a
  // per-channel affine): the tensors it accepts channels-last then take one layout
  // together, as a pointwise step's do, rather than each its own, which would make it
  // transpose between them on every run. Its accepting asks for nothing by itself: a conv
  // or pool next to the component does.
  virtual bool JoinsLayouts() const { return false; }
  // Called at most once, after the questions and before the first Run, and only when some
  // entry is kChannelsLast (each of them one the kernel accepted); one entry per input
  // and per output. Cannot fail: a kernel that might not honour a layout declines it
  // when asked. Every Run after it, its own fallback paths included, must read and write
  // those tensors in those layouts.
  virtual void UseLayouts(std::span<const Layout> /*inputs*/, std::span<const Layout> /*outputs*/) {
  }

  // The library code path that runs the node, as the library names it (oneDNN's
  // "brgconv:avx512_core"), or "" where there is nothing to say. Tests check with it
  // which path a case took.
  virtual std::string Implementation() const { return {}; }

  // execute_resized (CpuExecutable::ExecuteResized): the same node at the sizes `ctx`
  // gives, keeping what does not depend on them (weights packed at prepare), or nullptr
  // when the kernel cannot (the default: the partition is then prepared again). `ctx`
  // has no constant bytes (they are bound at execute as at prepare); `this` is left as it
  // was, so that a partition whose other kernels decline keeps running at its old sizes.
  virtual std::unique_ptr<PreparedKernel> Resized(const PrepareContext& /*ctx*/) const {
    return nullptr;
  }
};

// What a kernel may look at when a partition is prepared.
struct PrepareContext {
  std::string_view op;
  std::span<const TensorType> inputs;  // optional inputs that were omitted are absent
  std::span<const TensorType> outputs;
  const Attrs& attrs;
  // Per input: the bytes of that input when it is a constant of the model (its weights),
  // else nullptr. Valid during the prepare call only: a kernel that keeps them (reordered,
  // say) copies them. At execute the same bytes are bound for that input.
  std::span<const std::byte* const> constant_inputs;
  int num_threads = 1;  // threads the kernel may use (the context's pool size)
};

// Returns a prepared kernel for the case described, or nullptr when the case is not one
// it handles (the plain KernelFn of the same table entry then runs it). Never throws.
using PrepareFn = std::unique_ptr<PreparedKernel> (*)(const PrepareContext& ctx);

// Op name -> kernel. Built once, read-only afterwards (safe to share between threads).
class KernelTable {
 public:
  void Add(std::string_view op, KernelFn fn, PrepareFn prepare = nullptr) {
    entries_.push_back({op, fn, prepare, family_});
  }
  // Adds one op family's kernels: `add` (the family file's Add*Kernels) calls Add for each.
  // `family` is core's name for it (OpSchema::family), so that a test can check that the
  // plugin groups its ops as the catalogue does.
  void AddFamily(std::string_view family, void (*add)(KernelTable& table)) {
    family_ = family;
    add(*this);
    family_ = {};
  }
  // Gives the entry of `op` (which must exist) a prepare step; its kernel stays.
  void SetPrepare(std::string_view op, PrepareFn prepare) {
    for (auto& e : entries_) {
      if (e.op == op) e.prepare = prepare;
    }
  }
  KernelFn Find(std::string_view op) const {
    const Entry* e = FindEntry(op);
    return e != nullptr ? e->fn : nullptr;
  }
  struct Entry {
    std::string_view op;
    KernelFn fn;
    PrepareFn prepare;        // may be nullptr
    std::string_view family;  // set while AddFamily runs; empty otherwise
  };
  const Entry* FindEntry(std::string_view op) const {
    for (const auto& e : entries_) {
      if (e.op == op) return &e;
    }
    return nullptr;
  }
  std::span<const Entry> entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  std::string_view family_;  // while AddFamily runs
};

// Element access for reference kernels, which compute floats in double and integers in
// int64_t (then store with the usual C++ narrowing: integers wrap, as in NumPy). Floats
// are rounded to the storage type once, on store.
inline double LoadFloat(DType dtype, const std::byte* data, int64_t i) {
  switch (dtype) {
    case DType::kF32: {
      float v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    case DType::kF64: {
      double v;
      std::memcpy(&v, data + i * 8, 8);
      return v;
    }
    case DType::kF16: {
      uint16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return HalfToFloat(v);
    }
    case DType::kBF16: {
      uint16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return BFloat16ToFloat(v);
    }
    default:
      return 0.0;
  }
}

// double -> float rounding to odd (truncate, then set the last bit when inexact). Going
// on to f16/bf16 from such a float rounds exactly as one direct rounding from double
// would, because float keeps more than two extra bits; plain double -> float -> half
// rounds twice and can land one unit off at near-ties.
inline float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (f - f == 0.0f && static_cast<double>(f) != d) {  // finite and inexact
    uint32_t bits = FloatBits(f);
    if ((d < 0 ? -static_cast<double>(f) : static_cast<double>(f)) > (d < 0 ? -d : d)) --bits;
    f = BitsToFloat(bits | 1u);
  }
  return f;
}

inline void StoreFloat(DType dtype, std::byte* data, int64_t i, double value) {
  switch (dtype) {
    case DType::kF32: {
      const float v = static_cast<float>(value);
      std::memcpy(data + i * 4, &v, 4);
      return;
    }
    case DType::kF64:
      std::memcpy(data + i * 8, &value, 8);
      return;
    case DType::kF16: {
      const uint16_t v = FloatToHalf(DoubleToFloatRoundToOdd(value));
      std::memcpy(data + i * 2, &v, 2);
      return;
    }
    case DType::kBF16: {
      const uint16_t v = FloatToBFloat16(DoubleToFloatRoundToOdd(value));
      std::memcpy(data + i * 2, &v, 2);
      return;
    }
    default:
      return;
  }
}

// Integers and bool (0/1) as int64_t.
inline int64_t LoadInt(DType dtype, const std::byte* data, int64_t i) {
  switch (dtype) {
    case DType::kI8:
      return static_cast<int8_t>(data[i]);
    case DType::kU8:
    case DType::kBool:
      return static_cast<uint8_t>(data[i]);
    case DType::kI32: {
      int32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    case DType::kI64: {
      int64_t v;
      std::memcpy(&v, data + i * 8, 8);
      return v;
    }
    case DType::kI16: {
      int16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return v;
    }
    case DType::kU16: {
      uint16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return v;
    }
    case DType::kU32: {
      uint32_t v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    default:
      return 0;
  }
}

// Stores the low bits (two's complement wrap-around); bool stores value != 0.
inline void StoreInt(DType dtype, std::byte* data, int64_t i, int64_t value) {
  switch (dtype) {
    case DType::kI8:
    case DType::kU8:
      data[i] = static_cast<std::byte>(static_cast<uint64_t>(value) & 0xffu);
      return;
    case DType::kBool:
      data[i] = static_cast<std::byte>(value != 0 ? 1 : 0);
      return;
    case DType::kI32: {
      const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(value)));
      std::memcpy(data + i * 4, &v, 4);
      return;
    }
    case DType::kI64:
      std::memcpy(data + i * 8, &value, 8);
      return;
    case DType::kI16:
    case DType::kU16: {
      const auto v = static_cast<uint16_t>(static_cast<uint64_t>(value) & 0xffffu);
      std::memcpy(data + i * 2, &v, 2);
      return;
    }
    case DType::kU32: {
      const auto v = static_cast<uint32_t>(static_cast<uint64_t>(value));
      std::memcpy(data + i * 4, &v, 4);
      return;
    }
    default:
      return;
  }
}

// An ints attribute resized to `size` (missing entries `fill`), or `size` copies of
// `fill` when the attribute is absent: conv's strides, pads and dilations.
inline std::vector<int64_t> IntsOr(const Attrs& attrs, std::string_view name, size_t size,
                                   int64_t fill) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  values.resize(size, fill);
  return values;
}

// Row-major strides (in elements) of a shape.
inline std::vector<int64_t> Strides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

// For NumPy broadcasting: the element offset into an input of shape `in` for each
// multi-index of `out` (right-aligned; size-1 dims repeat). Iterate with Next().
class BroadcastCursor {
 public:
  BroadcastCursor(std::span<const int64_t> out, std::span<const int64_t> in)
      : out_(out.begin(), out.end()), index_(out.size(), 0), stride_(out.size(), 0) {
    const std::vector<int64_t> in_strides = Strides(in);
    const size_t offset = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) {
      stride_[offset + d] = in[d] == 1 ? 0 : in_strides[d];
    }
  }
  int64_t offset() const { return offset_; }
  // Advances to the next output element in row-major order.
  void Next() {
    for (size_t d = out_.size(); d-- > 0;) {
      offset_ += stride_[d];
      if (++index_[d] < out_[d]) return;
      offset_ -= stride_[d] * out_[d];
      index_[d] = 0;
    }
  }

 private:
  std::vector<int64_t> out_, index_, stride_;
  int64_t offset_ = 0;
};

}  // namespace sy::cpu
