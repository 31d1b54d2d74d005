#include "switchyard/tensor.h"

#include <cstring>
#include <new>

namespace sy {

Expected<Tensor> Tensor::Allocate(DType dtype, Shape shape) {
  SY_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(shape));
  const size_t bytes = static_cast<size_t>(count) * DTypeSize(dtype);
  Tensor t;
  t.type_ = {dtype, std::move(shape)};
  t.element_count_ = count;
  t.byte_size_ = bytes;
  t.writable_ = true;
  // Always allocate at least one byte so that data() is non-null even for empty tensors.
  std::byte* raw = new (std::nothrow) std::byte[bytes == 0 ? 1 : bytes]();
  if (raw == nullptr) {
    return ResourceExhausted("cannot allocate " + std::to_string(bytes) + " bytes for tensor " +
                             t.type_.ToString());
  }
  std::shared_ptr<std::byte[]> storage(raw);
  t.data_ = storage.get();
  t.owner_ = std::move(storage);
  return t;
}

Tensor Tensor::View(DType dtype, Shape shape, std::shared_ptr<const void> owner,
                    const std::byte* data) {
  Tensor t;
  t.element_count_ = ElementCount(shape);
  t.byte_size_ = static_cast<size_t>(t.element_count_) * DTypeSize(dtype);
  t.type_ = {dtype, std::move(shape)};
  t.owner_ = std::move(owner);
  t.data_ = data;
  return t;
}

Expected<Tensor> Tensor::Clone() const {
  SY_ASSIGN_OR_RETURN(Tensor copy, Allocate(type_.dtype, type_.shape));
  if (byte_size_ != 0) std::memcpy(copy.mutable_data(), data_, byte_size_);
  return copy;
}

bool Tensor::BitwiseEquals(const Tensor& other) const {
  if (type_ != other.type_) return false;
  if (byte_size_ == 0) return true;
  return std::memcmp(data_, other.data_, byte_size_) == 0;
}

}  // namespace sy
