#include "format/inline_data.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "format/json_util.h"
#include "switchyard/half.h"

namespace sy {
namespace {

template <typename Int>
Status StoreInt(const boost::json::value& v, size_t index, std::byte* out) {
  const std::optional<int64_t> i = json::AsInt64(v);
  if (!i || *i < static_cast<int64_t>(std::numeric_limits<Int>::min()) ||
      *i > static_cast<int64_t>(std::numeric_limits<Int>::max())) {
    return InvalidModel("data[" + std::to_string(index) + "] is " +
                        (v.is_number() ? json::Describe(v) : std::string(json::KindName(v))) +
                        ", expected an integer in [" +
                        std::to_string(std::numeric_limits<Int>::min()) + ", " +
                        std::to_string(std::numeric_limits<Int>::max()) + "]");
  }
  const Int value = static_cast<Int>(*i);
  std::memcpy(out + index * sizeof(Int), &value, sizeof(Int));
  return Status::Ok();
}

// `store` converts and stores a finite double; it returns false when the value overflows
// the dtype (becomes infinite), which JSON data cannot have meant.
template <typename Store>
Status StoreFloat(const boost::json::value& v, size_t index, DType dtype, Store store) {
  const std::optional<double> d = json::AsDouble(v);
  if (!d) {
    return InvalidModel("data[" + std::to_string(index) + "] is " + std::string(json::KindName(v)) +
                        ", expected a number");
  }
  if (!std::isfinite(*d) || !store(*d)) {
    return InvalidModel("data[" + std::to_string(index) + "] is " + json::Describe(v) +
                        ", out of the range of " + std::string(DTypeName(dtype)) +
                        " (expected a finite number)");
  }
  return Status::Ok();
}

constexpr bool HalfIsFinite(uint16_t bits) { return (bits & 0x7c00u) != 0x7c00u; }
constexpr bool BFloat16IsFinite(uint16_t bits) { return (bits & 0x7f80u) != 0x7f80u; }

Status StoreElement(const boost::json::value& v, size_t i, DType dtype, std::byte* out) {
  switch (dtype) {
    case DType::kF32:
      return StoreFloat(v, i, dtype, [&](double d) {
        const float f = static_cast<float>(d);
        std::memcpy(out + i * 4, &f, 4);
        return std::isfinite(f);
      });
    case DType::kF64:
      return StoreFloat(v, i, dtype, [&](double d) {
        std::memcpy(out + i * 8, &d, 8);
        return true;
      });
    case DType::kF16:
      return StoreFloat(v, i, dtype, [&](double d) {
        const float f = static_cast<float>(d);
        const uint16_t h = FloatToHalf(f);
        std::memcpy(out + i * 2, &h, 2);
        return std::isfinite(f) && HalfIsFinite(h);
      });
    case DType::kBF16:
      return StoreFloat(v, i, dtype, [&](double d) {
        const float f = static_cast<float>(d);
        const uint16_t h = FloatToBFloat16(f);
        std::memcpy(out + i * 2, &h, 2);
        return std::isfinite(f) && BFloat16IsFinite(h);
      });
    case DType::kI8:
      return StoreInt<int8_t>(v, i, out);
    case DType::kU8:
      return StoreInt<uint8_t>(v, i, out);
    case DType::kI32:
      return StoreInt<int32_t>(v, i, out);
    case DType::kI64:
      return StoreInt<int64_t>(v, i, out);
    case DType::kI16:
      return StoreInt<int16_t>(v, i, out);
    case DType::kU16:
      return StoreInt<uint16_t>(v, i, out);
    case DType::kU32:
      return StoreInt<uint32_t>(v, i, out);
    case DType::kBool: {
      std::optional<int64_t> b;
      if (const bool* p = v.if_bool()) b = *p ? 1 : 0;
      if (!b) b = json::AsInt64(v);
      if (!b || (*b != 0 && *b != 1)) {
        return InvalidModel("data[" + std::to_string(i) + "] is " +
                            (v.is_number() ? json::Describe(v) : std::string(json::KindName(v))) +
                            ", expected true, false, 0 or 1");
      }
      out[i] = static_cast<std::byte>(*b);
      return Status::Ok();
    }
  }
  return Internal("unhandled dtype");
}

template <typename T>
T Load(const std::byte* data, size_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

Expected<Tensor> InlineDataToTensor(const boost::json::array& data, const TensorType& type) {
  SY_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(type.shape));
  if (static_cast<uint64_t>(count) != data.size()) {
    return InvalidModel("data has " + std::to_string(data.size()) + " elements but " +
                        type.ToString() + " needs " + std::to_string(count));
  }
  SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(type.dtype, type.shape));
  std::byte* out = tensor.mutable_data();
  for (size_t i = 0; i < data.size(); ++i) {
    SY_RETURN_IF_ERROR(StoreElement(data[i], i, type.dtype, out));
  }
  return tensor;
}

Expected<boost::json::array> TensorToInlineData(const Tensor& tensor) {
  boost::json::array out;
  const size_t n = static_cast<size_t>(tensor.element_count());
  out.reserve(n);
  const std::byte* data = tensor.data();
  for (size_t i = 0; i < n; ++i) {
    double d = 0;
    switch (tensor.dtype()) {
      case DType::kF32:
        d = Load<float>(data, i);
        break;
      case DType::kF64:
        d = Load<double>(data, i);
        break;
      case DType::kF16:
        d = HalfToFloat(Load<uint16_t>(data, i));
        break;
      case DType::kBF16:
        d = BFloat16ToFloat(Load<uint16_t>(data, i));
        break;
      case DType::kI8:
        out.emplace_back(Load<int8_t>(data, i));
        continue;
      case DType::kU8:
        out.emplace_back(Load<uint8_t>(data, i));
        continue;
      case DType::kI32:
        out.emplace_back(Load<int32_t>(data, i));
        continue;
      case DType::kI64:
        out.emplace_back(Load<int64_t>(data, i));
        continue;
      case DType::kBool:
        out.emplace_back(data[i] != std::byte{0});
        continue;
      case DType::kI16:
        out.emplace_back(Load<int16_t>(data, i));
        continue;
      case DType::kU16:
        out.emplace_back(Load<uint16_t>(data, i));
        continue;
      case DType::kU32:
        out.emplace_back(Load<uint32_t>(data, i));
        continue;
    }
    if (!std::isfinite(d)) {
      return InvalidArgument("element " + std::to_string(i) + " is " + std::to_string(d) +
                             ", which JSON cannot hold; store the constant in safetensors");
    }
    out.emplace_back(d);
  }
  return out;
}

}  // namespace sy
