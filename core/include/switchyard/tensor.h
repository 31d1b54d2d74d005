// Tensor: a dtype, a static shape and a contiguous row-major byte buffer.
//
// Storage is shared and reference counted. A tensor either owns a heap buffer it
// allocated (writable) or is a read-only view onto bytes owned by someone else, most
// often a memory-mapped safetensors file; the view keeps that owner alive through a
// shared_ptr, so weights stay mapped for as long as any tensor refers to them.
// Copying a Tensor copies the handle, not the bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "switchyard/dtype.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy {

class Tensor {
 public:
  Tensor() = default;  // an empty f32 scalar with no storage; valid() is false

  // A zero-filled, writable, owned tensor. Fails on overflow or when allocation fails.
  static Expected<Tensor> Allocate(DType dtype, Shape shape);

  // A read-only view onto `data`, which must hold ElementCount(shape) * DTypeSize(dtype)
  // bytes and stay valid while `owner` is alive. The tensor holds `owner`.
  static Tensor View(DType dtype, Shape shape, std::shared_ptr<const void> owner,
                     const std::byte* data);

  // False only for a default-constructed tensor (allocated and viewed ones, even empty
  // ones, have storage).
  bool valid() const { return data_ != nullptr || owner_ != nullptr; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  const TensorType& type() const { return type_; }
  int64_t element_count() const { return element_count_; }
  size_t byte_size() const { return byte_size_; }
  bool writable() const { return writable_; }

  const std::byte* data() const { return data_; }
  // Null for read-only views; callers that need to write copy first (Clone).
  std::byte* mutable_data() { return writable_ ? const_cast<std::byte*>(data_) : nullptr; }

  template <typename T>
  std::span<const T> values() const {
    return {reinterpret_cast<const T*>(data_), static_cast<size_t>(element_count_)};
  }
  template <typename T>
  std::span<T> mutable_values() {
    return {reinterpret_cast<T*>(mutable_data()),
            writable_ ? static_cast<size_t>(element_count_) : size_t{0}};
  }

  // A writable deep copy.
  Expected<Tensor> Clone() const;

  // True when dtype, shape and bytes are all equal (NaNs compare by bit pattern).
  bool BitwiseEquals(const Tensor& other) const;

 private:
  TensorType type_;
  int64_t element_count_ = 1;
  size_t byte_size_ = 0;
  bool writable_ = false;
  std::shared_ptr<const void> owner_;
  const std::byte* data_ = nullptr;
};

// Element i (row-major) of `tensor` as a double: floats widened, bools 0 or 1, integers
// exact up to 2^53. For messages, comparisons and tools, not for kernels.
double ElementAsDouble(const Tensor& tensor, int64_t i);

}  // namespace sy
