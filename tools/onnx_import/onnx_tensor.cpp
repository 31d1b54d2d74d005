#include "onnx_tensor.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "switchyard/half.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

using onnx::TensorProto;

// ONNX element counts beyond this are refused (2^40 elements is far past any real model
// and keeps byte sizes well inside size_t).
constexpr int64_t kMaxElements = int64_t{1} << 40;

std::string Describe(const TensorProto& proto) {
  return proto.name().empty() ? std::string("tensor") : "tensor '" + proto.name() + "'";
}

// Copies `count` values of a repeated field into `out` converted to Dst.
template <typename Dst, typename Field>
void CopyConverted(const Field& field, std::byte* out) {
  Dst* dst = reinterpret_cast<Dst*>(out);
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<Dst>(field.Get(i));
}

Status ReadExternal(const TensorProto& proto, const std::filesystem::path& base_dir, std::byte* out,
                    size_t bytes) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  // offset and length: decimal digits only, the whole string (std::stoll read "0abc" as 0
  // and "1e3" as 1).
  const auto whole_number = [](const std::string& text, int64_t& out) {
    if (text.empty() || text.size() > 18) return false;
    int64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    out = v;
    return true;
  };
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if ((entry.key() == "offset" && !whole_number(entry.value(), offset)) ||
               (entry.key() == "length" && !whole_number(entry.value(), length))) {
      return InvalidModel(Describe(proto) + ": external data " + entry.key() + " '" +
                          entry.value() + "' is not a non-negative decimal integer");
    }
  }
  if (location.empty()) {
    return InvalidModel(Describe(proto) + ": external data has no 'location'");
  }
  const std::filesystem::path relative(location);
  if (relative.is_absolute() || relative.lexically_normal().string().starts_with("..")) {
    return InvalidModel(Describe(proto) + ": external data location '" + location +
                        "' must be a path inside the model's folder");
  }
  if (offset < 0 || (length >= 0 && static_cast<uint64_t>(length) != bytes)) {
    return InvalidModel(Describe(proto) + ": external data offset " + std::to_string(offset) +
                        " and length " + std::to_string(length) + " do not describe " +
                        std::to_string(bytes) + " bytes");
  }
  // The file, with every symbolic link resolved, must still be a regular file inside the
  // model's folder: a link placed there could otherwise import any file the user can read.
  const std::filesystem::path path = base_dir / relative;
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
  if (ec) {
    return IoError(Describe(proto) + ": cannot open external data file " + path.string() + ": " +
                   ec.message());
  }
  // A model named without a folder ("model.onnx") has its data in the working folder.
  const std::filesystem::path root =
      std::filesystem::canonical(base_dir.empty() ? std::filesystem::path(".") : base_dir, ec);
  const std::filesystem::path inside =
      ec ? std::filesystem::path("..") : resolved.lexically_relative(root);
  if (inside.empty() || inside.begin()->string() == "..") {
    return InvalidModel(Describe(proto) + ": external data location '" + location + "' leads to " +
                        resolved.string() +
                        " (through a symbolic link), outside the model's folder");
  }
  if (!std::filesystem::is_regular_file(resolved, ec)) {
    return InvalidModel(Describe(proto) + ": external data location '" + location +
                        "' is not a regular file");
  }
  std::ifstream file(resolved, std::ios::binary);
  if (!file) {
    return IoError(Describe(proto) + ": cannot open external data file " + path.string());
  }
  const uint64_t size = std::filesystem::file_size(resolved, ec);
  if (ec || static_cast<uint64_t>(offset) > size || size - static_cast<uint64_t>(offset) < bytes) {
    return InvalidModel(Describe(proto) + ": external data file " + path.string() + " holds " +
                        std::to_string(size) + " bytes, too few for " + std::to_string(bytes) +
                        " bytes at offset " + std::to_string(offset));
  }
  file.seekg(offset);
  file.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(bytes));
  if (!file)
    return IoError(Describe(proto) + ": reading external data " + path.string() + " failed");
  return Status::Ok();
}

}  // namespace

std::optional<DType> DTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      return DType::kF32;
    case TensorProto::FLOAT16:
      return DType::kF16;
    case TensorProto::BFLOAT16:
      return DType::kBF16;
    case TensorProto::DOUBLE:
      return DType::kF64;
    case TensorProto::INT8:
      return DType::kI8;
    case TensorProto::UINT8:
      return DType::kU8;
    case TensorProto::INT32:
      return DType::kI32;
    case TensorProto::INT64:
      return DType::kI64;
    case TensorProto::BOOL:
      return DType::kBool;
    case TensorProto::INT16:
      return DType::kI16;
    case TensorProto::UINT16:
      return DType::kU16;
    case TensorProto::UINT32:
      return DType::kU32;
    default:
      return std::nullopt;
  }
}

int32_t OnnxTypeOf(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return TensorProto::FLOAT;
    case DType::kF16:
      return TensorProto::FLOAT16;
    case DType::kBF16:
      return TensorProto::BFLOAT16;
    case DType::kF64:
      return TensorProto::DOUBLE;
    case DType::kI8:
      return TensorProto::INT8;
    case DType::kU8:
      return TensorProto::UINT8;
    case DType::kI32:
      return TensorProto::INT32;
    case DType::kI64:
      return TensorProto::INT64;
    case DType::kBool:
      return TensorProto::BOOL;
    case DType::kI16:
      return TensorProto::INT16;
    case DType::kU16:
      return TensorProto::UINT16;
    case DType::kU32:
      return TensorProto::UINT32;
  }
  return TensorProto::UNDEFINED;
}

std::string NoDTypeReason(int32_t onnx_type) {
  std::string why =
      ", which rml-graph has no dtype for (it has " + DTypeSet::All().ToString() + ")";
  if (onnx_type == TensorProto::UINT64) {
    why +=
        "; u64 is left out because values above 2^63 would not survive the kernels' "
        "64-bit signed integer arithmetic";
  }
  return why;
}

std::string OnnxTypeName(int32_t onnx_type) {
  if (TensorProto::DataType_IsValid(onnx_type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type));
  }
  return "type " + std::to_string(onnx_type);
}

namespace {

// An INT4 or UINT4 tensor (two values a byte, the first in the low nibble; in raw_data,
// external data, or int32_data one packed byte an entry) widened to i8 or u8, INT4 sign-
// extended: rml-graph has no 4-bit dtype, and the weights that carry 4-bit values (a
// QDQ model's DequantizeLinear inputs) are dequantized at prepare anyway. (quant_matmul
// keeps MatMulNBits' packed bytes as they are.)
Expected<Tensor> FourBitFromProto(const TensorProto& proto, const std::filesystem::path& base_dir,
                                  const Shape& shape, int64_t count) {
  const bool is_signed = proto.data_type() == TensorProto::INT4;
  const size_t packed = static_cast<size_t>((count + 1) / 2);
  std::vector<uint8_t> bytes(packed);
  if (proto.data_location() == TensorProto::EXTERNAL) {
    SY_RETURN_IF_ERROR(
        ReadExternal(proto, base_dir, reinterpret_cast<std::byte*>(bytes.data()), packed));
  } else if (proto.has_raw_data()) {
    if (proto.raw_data().size() != packed) {
      return InvalidModel(Describe(proto) + " of type " + OnnxTypeName(proto.data_type()) +
                          " and shape " + ShapeToString(shape) + " needs " +
                          std::to_string(packed) +
                          " bytes of raw_data (two values a byte) but has " +
                          std::to_string(proto.raw_data().size()));
    }
    if (packed > 0) std::memcpy(bytes.data(), proto.raw_data().data(), packed);
  } else {
    if (static_cast<size_t>(proto.int32_data_size()) != packed) {
      return InvalidModel(Describe(proto) + " of shape " + ShapeToString(shape) + " needs " +
                          std::to_string(packed) +
                          " packed bytes (two values each) but its int32_data holds " +
                          std::to_string(proto.int32_data_size()));
    }
    for (size_t i = 0; i < packed; ++i)
      bytes[i] = static_cast<uint8_t>(proto.int32_data(static_cast<int>(i)));
  }
  SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(is_signed ? DType::kI8 : DType::kU8, shape));
  auto* out = reinterpret_cast<uint8_t*>(tensor.mutable_data());
  for (int64_t i = 0; i < count; ++i) {
    int v = (bytes[static_cast<size_t>(i / 2)] >> (4 * (i % 2))) & 0xF;
    if (is_signed && v >= 8) v -= 16;
    out[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
  }
  return tensor;
}

}  // namespace

Expected<Tensor> TensorFromProto(const TensorProto& proto, const std::filesystem::path& base_dir) {
  const bool four_bit =
      proto.data_type() == TensorProto::INT4 || proto.data_type() == TensorProto::UINT4;
  const std::optional<DType> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype && !four_bit) {
    return Unsupported(Describe(proto) + " has element type " + OnnxTypeName(proto.data_type()) +
                       NoDTypeReason(proto.data_type()));
  }
  if (proto.has_segment()) {
    return Unsupported(Describe(proto) + " is segmented, which the importer does not read");
  }
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape) {
    if (d < 0) {
      return InvalidModel(Describe(proto) + " has a negative dim in " + ShapeToString(shape));
    }
  }
  SY_ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(shape));
  if (count > kMaxElements) {
    return ResourceExhausted(Describe(proto) + " has " + std::to_string(count) +
                             " elements, more than the importer's limit of 2^40");
  }
  if (four_bit) return FourBitFromProto(proto, base_dir, shape, count);
  SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(*dtype, shape));
  std::byte* out = tensor.mutable_data();
  const size_t bytes = tensor.byte_size();
  const auto wrong_count = [&](std::string_view field, int64_t have) {
    return InvalidModel(Describe(proto) + " of shape " + ShapeToString(shape) + " needs " +
                        std::to_string(count) + " elements but its " + std::string(field) +
                        " holds " + std::to_string(have));
  };

  if (proto.data_location() == TensorProto::EXTERNAL) {
    SY_RETURN_IF_ERROR(ReadExternal(proto, base_dir, out, bytes));
    return tensor;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes) {
      return InvalidModel(Describe(proto) + " of type " + std::string(DTypeName(*dtype)) +
                          " and shape " + ShapeToString(shape) + " needs " + std::to_string(bytes) +
                          " bytes of raw_data but has " + std::to_string(proto.raw_data().size()));
    }
    if (bytes > 0) std::memcpy(out, proto.raw_data().data(), bytes);
    return tensor;
  }
  switch (*dtype) {
    case DType::kF32:
      if (proto.float_data_size() != count)
        return wrong_count("float_data", proto.float_data_size());
      CopyConverted<float>(proto.float_data(), out);
      break;
    case DType::kF64:
      if (proto.double_data_size() != count) {
        return wrong_count("double_data", proto.double_data_size());
      }
      CopyConverted<double>(proto.double_data(), out);
      break;
    case DType::kI64:
      if (proto.int64_data_size() != count)
        return wrong_count("int64_data", proto.int64_data_size());
      CopyConverted<int64_t>(proto.int64_data(), out);
      break;
    case DType::kI32:
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<int32_t>(proto.int32_data(), out);
      break;
    case DType::kI8:
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<int8_t>(proto.int32_data(), out);
      break;
    case DType::kU8:
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<uint8_t>(proto.int32_data(), out);
      break;
    case DType::kBool: {
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      auto* dst = reinterpret_cast<uint8_t*>(out);
      for (int i = 0; i < proto.int32_data_size(); ++i) dst[i] = proto.int32_data(i) != 0 ? 1 : 0;
      break;
    }
    case DType::kI16:
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<int16_t>(proto.int32_data(), out);
      break;
    case DType::kU16:
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<uint16_t>(proto.int32_data(), out);
      break;
    case DType::kU32:  // in uint64_data, as ONNX stores UINT32 and UINT64
      if (proto.uint64_data_size() != count)
        return wrong_count("uint64_data", proto.uint64_data_size());
      CopyConverted<uint32_t>(proto.uint64_data(), out);
      break;
    case DType::kF16:
    case DType::kBF16:
      // Half types travel as their 16-bit patterns in int32_data.
      if (proto.int32_data_size() != count)
        return wrong_count("int32_data", proto.int32_data_size());
      CopyConverted<uint16_t>(proto.int32_data(), out);
      break;
  }
  return tensor;
}

}  // namespace sy::onnx_import
