#include "switchyard/tensor.h"

#include <cstring>
#include <new>

#include "switchyard/half.h"

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

double ElementAsDouble(const Tensor& t, int64_t i) {
  const std::byte* p = t.data() + i * static_cast<int64_t>(DTypeSize(t.dtype()));
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.dtype()) {
    case DType::kF32:
      return load(float{});
    case DType::kF64:
      return load(double{});
    case DType::kF16:
      return HalfToFloat(load(uint16_t{}));
    case DType::kBF16:
      return BFloat16ToFloat(load(uint16_t{}));
    case DType::kI8:
      return load(int8_t{});
    case DType::kU8:
      return load(uint8_t{});
    case DType::kI32:
      return load(int32_t{});
    case DType::kI64:
      return static_cast<double>(load(int64_t{}));
    case DType::kBool:
      return load(uint8_t{}) ? 1.0 : 0.0;
    case DType::kI16:
      return load(int16_t{});
    case DType::kU16:
      return load(uint16_t{});
    case DType::kU32:
      return load(uint32_t{});
  }
  return 0;
}

}  // namespace sy
