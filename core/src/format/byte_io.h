// Internal: little-endian byte encoding for the binary graph section and the single-file
// model (docs/format.md, "Binary encoding"). ByteWriter appends to a string; ByteReader
// reads from a span with every read bounded by what is left, and every error names the
// absolute byte offset in the file where the read began and what was expected there.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "format/utf8.h"
#include "switchyard/status.h"

static_assert(std::endian::native == std::endian::little,
              "the binary encoding is little-endian; a big-endian host would need byte swaps");

namespace sy::format {

class ByteWriter {
 public:
  template <typename T>
  void Put(T value) {
    static_assert(std::is_arithmetic_v<T>);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  void U8(uint8_t v) { Put(v); }
  void U16(uint16_t v) { Put(v); }
  void U32(uint32_t v) { Put(v); }
  void I32(int32_t v) { Put(v); }
  void U64(uint64_t v) { Put(v); }
  void I64(int64_t v) { Put(v); }
  void F64(double v) { Put(v); }
  // u32 byte length, then the bytes (UTF-8; not terminated).
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  size_t size() const { return out_.size(); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  // `bytes` starts at absolute offset `base` of the file; `section` names it in errors
  // ("the graph section").
  ByteReader(std::span<const std::byte> bytes, uint64_t base, std::string section)
      : bytes_(bytes), base_(base), section_(std::move(section)) {}

  uint64_t offset() const { return base_ + pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  bool at_end() const { return pos_ == bytes_.size(); }

  // "byte 1234: <what>" as an invalid-model error.
  Status Error(uint64_t at, const std::string& what) const {
    return InvalidModel("byte " + std::to_string(at) + ": " + what);
  }

  template <typename T>
  Expected<T> Get(std::string_view what) {
    static_assert(std::is_arithmetic_v<T>);
    if (remaining() < sizeof(T)) {
      return Error(offset(), std::string(what) + ": needs " + std::to_string(sizeof(T)) +
                                 " bytes but " + section_ + " ends at byte " +
                                 std::to_string(base_ + bytes_.size()) + " (truncated?)");
    }
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  // For fields a Count has already found room for: no check, no Expected.
  template <typename T>
  T GetUnchecked() {
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  Expected<uint8_t> U8(std::string_view what) { return Get<uint8_t>(what); }
  Expected<uint16_t> U16(std::string_view what) { return Get<uint16_t>(what); }
  Expected<uint32_t> U32(std::string_view what) { return Get<uint32_t>(what); }
  Expected<int32_t> I32(std::string_view what) { return Get<int32_t>(what); }
  Expected<uint64_t> U64(std::string_view what) { return Get<uint64_t>(what); }
  Expected<int64_t> I64(std::string_view what) { return Get<int64_t>(what); }
  Expected<double> F64(std::string_view what) { return Get<double>(what); }

  // A u32 count of items that take at least `min_item_bytes` each: a count the rest of
  // the section cannot hold is refused before anything is allocated for it.
  Expected<uint32_t> Count(std::string_view what, size_t min_item_bytes) {
    const uint64_t at = offset();
    Expected<uint32_t> n = U32(what);
    if (!n.ok()) return n;
    if (min_item_bytes > 0 && *n > remaining() / min_item_bytes) {
      return Error(at, std::string(what) + " is " + std::to_string(*n) + " but the " +
                           std::to_string(remaining()) + " bytes left in " + section_ +
                           " hold at most " + std::to_string(remaining() / min_item_bytes));
    }
    return n;
  }

  // A u32 length, then that many bytes of UTF-8: a view into the bytes read.
  Expected<std::string_view> StringView(std::string_view what) {
    const uint64_t at = offset();
    Expected<uint32_t> n = U32(what);
    if (!n.ok()) return n.status();
    if (*n > remaining()) {
      return Error(at, std::string(what) + ": a string of " + std::to_string(*n) +
                           " bytes runs past the end of " + section_ + " (" +
                           std::to_string(remaining()) + " bytes left)");
    }
    const std::string_view s(reinterpret_cast<const char*>(bytes_.data() + pos_), *n);
    if (const std::optional<size_t> bad = FindInvalidUtf8(s)) {
      return Error(at + 4 + *bad, std::string(what) + " is not valid UTF-8");
    }
    pos_ += *n;
    return s;
  }
  Expected<std::string> String(std::string_view what) {
    Expected<std::string_view> s = StringView(what);
    if (!s.ok()) return s.status();
    return std::string(*s);
  }

 private:
  std::span<const std::byte> bytes_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
  std::string section_;
};

}  // namespace sy::format
