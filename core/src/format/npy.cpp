#include "switchyard/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "format/atomic_file.h"
#include "format/mapped_file.h"

namespace sy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct NpyDType {
  DType dtype;
  std::string_view descr;
};
constexpr NpyDType kNpyDTypes[] = {
    {DType::kF32, "<f4"}, {DType::kF16, "<f2"}, {DType::kF64, "<f8"}, {DType::kI8, "|i1"},
    {DType::kU8, "|u1"},  {DType::kI32, "<i4"}, {DType::kI64, "<i8"}, {DType::kBool, "|b1"},
    {DType::kI16, "<i2"}, {DType::kU16, "<u2"}, {DType::kU32, "<u4"},
};

// Finds `'key':` in the header dict and returns the text after it. A key given twice is
// refused: NumPy's reader keeps the last, and reading the first instead could take a
// Fortran-order array for a C-order one.
Expected<std::string_view> ValueAfterKey(std::string_view header, std::string_view key) {
  const std::string needle = "'" + std::string(key) + "':";
  const size_t at = header.find(needle);
  if (at == std::string_view::npos) {
    return InvalidArgument("header has no '" + std::string(key) + "' entry");
  }
  if (header.find(needle, at + needle.size()) != std::string_view::npos) {
    return InvalidArgument("header gives '" + std::string(key) + "' twice");
  }
  std::string_view rest = header.substr(at + needle.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

Expected<DType> ParseDescr(std::string_view header) {
  SY_ASSIGN_OR_RETURN(std::string_view rest, ValueAfterKey(header, "descr"));
  if (rest.empty() || rest.front() != '\'') return InvalidArgument("descr is not a string");
  const size_t end = rest.find('\'', 1);
  if (end == std::string_view::npos) return InvalidArgument("descr is not a string");
  std::string descr(rest.substr(1, end - 1));
  // One-byte types may be written with any byte-order mark.
  if (descr.size() == 3 && descr[2] == '1' && (descr[0] == '<' || descr[0] == '=')) descr[0] = '|';
  if (descr == "<b1") descr = "|b1";
  for (const NpyDType& d : kNpyDTypes) {
    if (d.descr == descr) return d.dtype;
  }
  return Unsupported("dtype '" + descr +
                     "' is not supported (expected little-endian f2 f4 f8 i1 u1 i4 i8 or b1)");
}

Expected<Shape> ParseShape(std::string_view header) {
  SY_ASSIGN_OR_RETURN(std::string_view rest, ValueAfterKey(header, "shape"));
  if (rest.empty() || rest.front() != '(') return InvalidArgument("shape is not a tuple");
  const size_t end = rest.find(')');
  if (end == std::string_view::npos) return InvalidArgument("shape is not a tuple");
  std::string_view body = rest.substr(1, end - 1);
  // A Python tuple of ints: "()", "(3,)", "(2, 3)"; dims separated by commas, one trailing
  // comma allowed.
  const auto skip_spaces = [&body] {
    while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
  };
  Shape shape;
  skip_spaces();
  while (!body.empty()) {
    int64_t dim = 0;
    size_t digits = 0;
    while (digits < body.size() && body[digits] >= '0' && body[digits] <= '9') {
      if (dim > (INT64_MAX - 9) / 10) return InvalidArgument("shape dimension overflows");
      dim = dim * 10 + (body[digits] - '0');
      ++digits;
    }
    if (digits == 0) {
      if (!body.empty() && body.front() == '-') {
        return InvalidArgument("shape has a negative dimension");
      }
      return InvalidArgument("shape has a non-integer dimension");
    }
    shape.push_back(dim);
    body.remove_prefix(digits);
    skip_spaces();
    if (body.empty()) break;
    if (body.front() != ',') return InvalidArgument("shape dims are not separated by commas");
    body.remove_prefix(1);
    skip_spaces();
  }
  return shape;
}

Expected<Tensor> ParseImpl(std::span<const std::byte> bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    return InvalidArgument("not a .npy file (bad magic)");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<size_t>(bytes[8]) | static_cast<size_t>(bytes[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return InvalidArgument("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(bytes[8 + i]) << (8 * i);
    header_start = 12;
  } else {
    return Unsupported("format version " + std::to_string(major) + " (expected 1, 2 or 3)");
  }
  if (header_len > bytes.size() - header_start) return InvalidArgument("truncated header");
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + header_start,
                                header_len);
  SY_ASSIGN_OR_RETURN(std::string_view order, ValueAfterKey(header, "fortran_order"));
  if (order.substr(0, 4) == "True") {
    return Unsupported("Fortran-ordered arrays are not supported (save with C order)");
  }
  if (order.substr(0, 5) != "False") return InvalidArgument("fortran_order is not a boolean");
  SY_ASSIGN_OR_RETURN(DType dtype, ParseDescr(header));
  SY_ASSIGN_OR_RETURN(Shape shape, ParseShape(header));
  SY_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(shape));
  const size_t data_start = header_start + header_len;
  const uint64_t expected = static_cast<uint64_t>(count) * DTypeSize(dtype);
  const uint64_t actual = bytes.size() - data_start;
  if (actual != expected) {
    return InvalidArgument("data is " + std::to_string(actual) + " bytes but " +
                           TensorType{dtype, shape}.ToString() + " needs " +
                           std::to_string(expected));
  }
  SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(dtype, std::move(shape)));
  if (expected) std::memcpy(tensor.mutable_data(), bytes.data() + data_start, expected);
  if (dtype == DType::kBool) {
    for (std::byte& b : std::span(tensor.mutable_data(), expected)) {
      if (b != std::byte{0} && b != std::byte{1}) return InvalidArgument("bool data is not 0/1");
    }
  }
  return tensor;
}

}  // namespace

Expected<Tensor> ParseNpy(std::span<const std::byte> bytes, const std::string& source_name) {
  Expected<Tensor> tensor = ParseImpl(bytes);
  if (!tensor.ok()) return tensor.status().WithContext(source_name);
  return tensor;
}

Expected<Tensor> ReadNpy(const std::filesystem::path& path) {
  // Mapped, so only a regular file is read, and only as many bytes as it has: a device
  // (/dev/zero) or a FIFO is refused instead of read without end or waited on.
  SY_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  return ParseNpy(file->bytes(), path.string());
}

Expected<std::string> SerializeNpy(const Tensor& tensor) {
  std::string_view descr;
  for (const NpyDType& d : kNpyDTypes) {
    if (d.dtype == tensor.dtype()) descr = d.descr;
  }
  if (descr.empty()) {
    return Unsupported(std::string(DTypeName(tensor.dtype())) +
                       " has no .npy dtype (convert to f32 first)");
  }
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    dict += std::to_string(tensor.shape()[i]);
    if (tensor.shape().size() == 1 || i + 1 < tensor.shape().size()) dict += ",";
    if (i + 1 < tensor.shape().size()) dict += " ";
  }
  dict += "), }";
  const bool v2 = dict.size() + 11 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  // Pad with spaces and end with a newline so that the data starts 64-byte aligned.
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const size_t len = dict.size();
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char*>(tensor.data()), tensor.byte_size());
  return out;
}

Status WriteNpy(const std::filesystem::path& path, const Tensor& tensor) {
  SY_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(tensor));
  // A symbolic link where the file goes is refused (it names somewhere else the user may
  // have meant). Otherwise the file is written whole beside `path` and renamed into place
  // (format/atomic_file.h): a hard link planted there is replaced, not written through,
  // and runs writing the same file at once leave one whole file.
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return IoError(path.string() + ": is a symbolic link (not following it)");
  }
  return format::WriteFileAtomically(path, [&bytes](int fd) {
    return format::WriteAll(fd, reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  });
}

}  // namespace sy
