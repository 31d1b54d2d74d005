// Reading safetensors files (spec/graph-format.md, "Files").
//
// The header is parsed twice: a SAX pass over the raw text (basic_parser) that rejects
// duplicate keys, which a DOM parse would silently drop, then a DOM parse for the
// structure checks. Both run non-throwing with a nesting limit; only std::bad_alloc can
// escape Boost.JSON, and it is caught at the API boundary.
//
// Lenient where the reference implementation is strict, and safe either way: gaps
// between tensors and trailing bytes after the last one are accepted, and unknown keys
// inside a tensor entry are ignored (as the reference does).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include "format/mapped_file.h"
#include "format/utf8.h"
#include "switchyard/safetensors.h"

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

namespace sy {
namespace {

namespace json = boost::json;

constexpr size_t kMaxJsonDepth = 16;
constexpr size_t kMaxNameInMessage = 120;
constexpr std::string_view kMetadataKey = "__metadata__";

// A name as it appears in messages: quoted, control characters escaped, long names cut.
std::string Quote(std::string_view name) {
  std::string out = "\"";
  size_t shown = name.size();
  if (shown > kMaxNameInMessage) {
    shown = kMaxNameInMessage;
    // Do not cut a UTF-8 sequence in half.
    while (shown > 0 && (static_cast<unsigned char>(name[shown]) & 0xC0) == 0x80) --shown;
  }
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (shown < name.size()) out += "... (" + std::to_string(name.size()) + " bytes)";
  return out;
}

std::string Describe(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object:
      return "an object";
    case json::kind::array:
      return "an array";
    case json::kind::string:
      return "a string";
    case json::kind::int64:
      return std::to_string(v.get_int64());
    case json::kind::uint64:
      return std::to_string(v.get_uint64());
    case json::kind::double_: {
      // Shortest round-trip form, marked as a non-integer: 2.5, 1.0, 1e+300.
      char buffer[64];
      const auto result = std::to_chars(buffer, buffer + sizeof(buffer), v.get_double());
      std::string text(buffer, result.ptr);
      if (text.find_first_of(".eni") == std::string::npos) text += ".0";
      return text;
    }
    case json::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case json::kind::null:
      return "null";
  }
  return "?";
}

// A JSON integer in [0, 2^64). Doubles are rejected even when integral, as the reference
// implementation does.
std::optional<uint64_t> AsUnsigned(const json::value& v) {
  if (const auto* i = v.if_int64()) {
    if (*i >= 0) return static_cast<uint64_t>(*i);
    return std::nullopt;
  }
  if (const auto* u = v.if_uint64()) return *u;
  return std::nullopt;
}

// SAX pass: rejects duplicate keys in any object. Everything else is accepted here and
// checked on the DOM afterwards.
class DuplicateKeyHandler {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t, json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    keys_.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    keys_.pop_back();
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    key_.append(s.data(), s.size());
    if (keys_.size() == 1) top_level_key_ = key_;
    if (!keys_.back().insert(key_).second) {
      duplicate_ = true;
      duplicate_depth_ = keys_.size();
      duplicate_key_ = std::move(key_);
      key_.clear();
      ec = json::error::syntax;
      return false;
    }
    key_.clear();
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(int64_t, json::string_view, json::error_code&) { return true; }
  bool on_uint64(uint64_t, json::string_view, json::error_code&) { return true; }
  bool on_double(double, json::string_view, json::error_code&) { return true; }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) { return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  // Set when a duplicate stopped the parse.
  bool duplicate_ = false;
  size_t duplicate_depth_ = 0;  // 1 for a top-level key (a tensor name)
  std::string duplicate_key_;
  std::string top_level_key_;  // the entry the duplicate is in, when depth > 1

 private:
  std::vector<std::unordered_set<std::string>> keys_;  // one set per open object
  std::string key_;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view source, uint64_t data_size)
      : source_(source), data_size_(data_size) {}

  Status Error(std::string_view what) const {
    return InvalidModel(std::string(source_) + ": " + std::string(what));
  }
  Status TensorError(std::string_view name, std::string_view what) const {
    return Error("tensor " + Quote(name) + ": " + std::string(what));
  }

  // The first pass: well-formed JSON with no duplicate keys.
  Status CheckSyntax(std::string_view text) const {
    if (auto bad = FindInvalidUtf8(text)) {
      return Error("header is not valid UTF-8 (at header byte " + std::to_string(*bad) + ")");
    }
    json::parse_options options;
    options.max_depth = kMaxJsonDepth;
    json::basic_parser<DuplicateKeyHandler> parser(options);
    json::error_code ec;
    const size_t consumed = parser.write_some(false, text.data(), text.size(), ec);
    const DuplicateKeyHandler& h = parser.handler();
    if (h.duplicate_) {
      if (h.duplicate_depth_ == 1) return Error("duplicate tensor name " + Quote(h.duplicate_key_));
      std::string where =
          h.top_level_key_ == kMetadataKey ? "__metadata__" : "tensor " + Quote(h.top_level_key_);
      return Error(where + ": duplicate key " + Quote(h.duplicate_key_));
    }
    if (ec) {
      return Error("header is not valid JSON (at header byte " + std::to_string(consumed) +
                   "): " + ec.message());
    }
    if (consumed != text.size()) {
      return Error("header is not valid JSON: unexpected data after the document at header byte " +
                   std::to_string(consumed));
    }
    return Status::Ok();
  }

  Status ParseMetadata(const json::value& v, std::map<std::string, std::string>& out) const {
    const json::object* obj = v.if_object();
    if (obj == nullptr) return Error("__metadata__ is " + Describe(v) + ", expected an object");
    for (const auto& kv : *obj) {
      const json::string* s = kv.value().if_string();
      if (s == nullptr) {
        return Error("__metadata__ entry " + Quote(kv.key()) + " is " + Describe(kv.value()) +
                     ", expected a string");
      }
      out.emplace(std::string(kv.key()), std::string(s->data(), s->size()));
    }
    return Status::Ok();
  }

  Expected<SafetensorsFile::Entry> ParseEntry(std::string_view name, const json::value& v) const {
    const json::object* obj = v.if_object();
    if (obj == nullptr)
      return TensorError(name, "entry is " + Describe(v) + ", expected an object");
    SafetensorsFile::Entry entry;
    entry.name = std::string(name);

    // dtype
    const json::value* dtype = obj->if_contains("dtype");
    if (dtype == nullptr) return TensorError(name, "missing \"dtype\"");
    const json::string* dtype_name = dtype->if_string();
    if (dtype_name == nullptr) {
      return TensorError(name, "\"dtype\" is " + Describe(*dtype) + ", expected a string");
    }
    const std::string_view dtype_text(dtype_name->data(), dtype_name->size());
    const std::optional<DType> parsed = ParseSafetensorsDTypeName(dtype_text);
    if (!parsed) {
      return TensorError(name, "unknown dtype " + Quote(dtype_text) +
                                   " (expected one of F32, F16, BF16, F64, I8, U8, I32, I64, "
                                   "BOOL)");
    }
    entry.dtype = *parsed;

    // shape
    const json::value* shape = obj->if_contains("shape");
    if (shape == nullptr) return TensorError(name, "missing \"shape\"");
    const json::array* dims = shape->if_array();
    if (dims == nullptr) {
      return TensorError(name, "\"shape\" is " + Describe(*shape) + ", expected an array");
    }
    entry.shape.reserve(dims->size());
    for (size_t i = 0; i < dims->size(); ++i) {
      const json::value& d = (*dims)[i];
      const std::optional<uint64_t> dim = AsUnsigned(d);
      if (!dim || *dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return TensorError(name, "shape[" + std::to_string(i) + "] is " + Describe(d) +
                                     ", expected a non-negative integer below 2^63");
      }
      entry.shape.push_back(static_cast<int64_t>(*dim));
    }
    const Expected<int64_t> count = CheckedElementCount(entry.shape);
    if (!count.ok()) return TensorError(name, count.status().message());
    const uint64_t elements = static_cast<uint64_t>(*count);
    const uint64_t elem_size = DTypeSize(entry.dtype);
    const std::string type_text =
        std::string(SafetensorsDTypeName(entry.dtype)) + " " + ShapeToString(entry.shape);
    if (elements > std::numeric_limits<uint64_t>::max() / elem_size) {
      return TensorError(name, "byte size of " + type_text + " overflows 64 bits");
    }
    const uint64_t byte_size = elements * elem_size;

    // data_offsets
    const json::value* offsets = obj->if_contains("data_offsets");
    if (offsets == nullptr) return TensorError(name, "missing \"data_offsets\"");
    const json::array* pair = offsets->if_array();
    if (pair == nullptr || pair->size() != 2) {
      return TensorError(name,
                         "\"data_offsets\" is " +
                             (pair ? "an array of " + std::to_string(pair->size()) + " elements"
                                   : Describe(*offsets)) +
                             ", expected [begin, end]");
    }
    const std::optional<uint64_t> begin = AsUnsigned((*pair)[0]);
    const std::optional<uint64_t> end = AsUnsigned((*pair)[1]);
    if (!begin || !end) {
      return TensorError(name, "\"data_offsets\" [" + Describe((*pair)[0]) + ", " +
                                   Describe((*pair)[1]) + "] must hold two non-negative integers");
    }
    const std::string range_text =
        "data_offsets [" + std::to_string(*begin) + ", " + std::to_string(*end) + "]";
    if (*begin > *end) return TensorError(name, range_text + " has begin > end");
    if (*end > data_size_) {
      return TensorError(name, range_text + " extend past the end of the data section (" +
                                   std::to_string(data_size_) + " bytes; is the file truncated?)");
    }
    if (*end - *begin != byte_size) {
      return TensorError(name, range_text + " span " + std::to_string(*end - *begin) +
                                   " bytes but " + type_text + " needs " +
                                   std::to_string(byte_size));
    }
    entry.begin = *begin;
    entry.end = *end;
    return entry;
  }

 private:
  std::string_view source_;
  uint64_t data_size_;
};

}  // namespace

Expected<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::Open(
    const std::filesystem::path& path) {
  SY_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> mapped, MappedFile::Open(path));
  const std::span<const std::byte> bytes = mapped->bytes();
  return FromBuffer(std::move(mapped), bytes, path.string());
}

Expected<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::FromBuffer(
    std::shared_ptr<const void> keep_alive, std::span<const std::byte> bytes,
    std::string source_name) {
  try {
    const std::string& source = source_name;
    auto fail = [&](std::string what) { return InvalidModel(source + ": " + what); };

    if (bytes.size() < 8) {
      return fail("file is " + std::to_string(bytes.size()) +
                  " bytes, shorter than the 8-byte header length");
    }
    uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) {
      header_size = (header_size << 8) | static_cast<uint64_t>(bytes[static_cast<size_t>(i)]);
    }
    if (header_size > kMaxSafetensorsHeaderBytes) {
      return fail("header length " + std::to_string(header_size) + " exceeds the limit of " +
                  std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
    }
    const uint64_t available = bytes.size() - 8;
    if (header_size > available) {
      return fail("header length " + std::to_string(header_size) + " is larger than the " +
                  std::to_string(available) + " bytes that follow it (is the file truncated?)");
    }
    const size_t header_len = static_cast<size_t>(header_size);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), header_len);
    const std::span<const std::byte> data = bytes.subspan(8 + header_len);

    HeaderParser parser(source, data.size());
    SY_RETURN_IF_ERROR(parser.CheckSyntax(text));

    json::monotonic_resource arena;
    json::parse_options options;
    options.max_depth = kMaxJsonDepth;
    json::error_code ec;
    const json::value root = json::parse(text, ec, &arena, options);
    if (ec) return fail("header is not valid JSON: " + ec.message());
    const json::object* top = root.if_object();
    if (top == nullptr) return fail("header is " + Describe(root) + ", expected a JSON object");

    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
    file->entries_.reserve(top->size());
    for (const auto& kv : *top) {
      const std::string_view key(kv.key().data(), kv.key().size());
      if (key == kMetadataKey) {
        SY_RETURN_IF_ERROR(parser.ParseMetadata(kv.value(), file->metadata_));
        continue;
      }
      SY_ASSIGN_OR_RETURN(Entry entry, parser.ParseEntry(key, kv.value()));
      file->entries_.push_back(std::move(entry));
    }

    std::vector<Entry>& entries = file->entries_;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.end != b.end) return a.end < b.end;
      return a.name < b.name;
    });
    // Empty tensors occupy no bytes and overlap nothing.
    const Entry* previous = nullptr;
    for (const Entry& e : entries) {
      if (e.begin == e.end) continue;
      if (previous != nullptr && e.begin < previous->end) {
        return fail("tensors " + Quote(previous->name) + " (bytes " +
                    std::to_string(previous->begin) + " to " + std::to_string(previous->end) +
                    ") and " + Quote(e.name) + " (bytes " + std::to_string(e.begin) + " to " +
                    std::to_string(e.end) + ") overlap");
      }
      previous = &e;
    }

    file->by_name_.resize(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) file->by_name_[i] = i;
    std::sort(file->by_name_.begin(), file->by_name_.end(),
              [&](size_t a, size_t b) { return entries[a].name < entries[b].name; });
    for (size_t i = 1; i < file->by_name_.size(); ++i) {
      // Unreachable after the SAX pass; kept so that Find can never be ambiguous.
      if (entries[file->by_name_[i]].name == entries[file->by_name_[i - 1]].name) {
        return fail("duplicate tensor name " + Quote(entries[file->by_name_[i]].name));
      }
    }

    file->keep_alive_ = std::move(keep_alive);
    file->data_ = data;
    file->source_name_ = std::move(source_name);
    return std::shared_ptr<const SafetensorsFile>(std::move(file));
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(source_name + ": out of memory while reading the header");
  }
}

const SafetensorsFile::Entry* SafetensorsFile::Find(std::string_view name) const {
  const auto it = std::lower_bound(
      by_name_.begin(), by_name_.end(), name,
      [&](size_t index, std::string_view key) { return entries_[index].name < key; });
  if (it == by_name_.end() || entries_[*it].name != name) return nullptr;
  return &entries_[*it];
}

Expected<Tensor> SafetensorsFile::Get(std::string_view name) const try {
  const Entry* entry = Find(name);
  if (entry == nullptr) {
    return NotFound(source_name_ + ": no tensor named " + Quote(name));
  }
  // Validated at open: begin <= end <= data_.size() and end - begin is the byte size.
  const size_t size = static_cast<size_t>(entry->end - entry->begin);
  const std::byte* bytes = data_.data() == nullptr ? nullptr : data_.data() + entry->begin;
  const uintptr_t address = reinterpret_cast<uintptr_t>(bytes);
  if (bytes != nullptr && address % DTypeSize(entry->dtype) == 0) {
    return Tensor::View(entry->dtype, entry->shape, keep_alive_, bytes);
  }
  // Misaligned (or empty with no data at all): an owned, aligned copy.
  Expected<Tensor> copy = Tensor::Allocate(entry->dtype, entry->shape);
  if (!copy.ok()) {
    return copy.status().WithContext(source_name_ + ": tensor " + Quote(name));
  }
  if (size != 0) std::memcpy(copy->mutable_data(), bytes, size);
  return copy;
} catch (const std::bad_alloc&) {
  return ResourceExhausted(source_name_ + ": out of memory reading tensor " + Quote(name));
}

}  // namespace sy
