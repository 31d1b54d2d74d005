// Reading and writing the safetensors format (spec/graph-format.md, "Files").
//
// Layout: u64 little-endian header length N, N bytes of UTF-8 JSON mapping tensor names
// to {"dtype", "shape", "data_offsets": [begin, end]} (plus an optional "__metadata__"
// object of string values), then the data; offsets are relative to the end of the header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "switchyard/shape.h"
#include "switchyard/status.h"
#include "switchyard/tensor.h"

namespace sy {

// Headers larger than this are rejected before any parsing (the spec's limit).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;

// An opened safetensors file. The bytes are memory-mapped (or, for FromBuffer, owned by
// the caller's keep-alive handle); tensors handed out by Get are views that keep the
// mapping alive, so they stay valid after the SafetensorsFile itself is destroyed.
// Immutable after Open, so it may be read from several threads.
class SafetensorsFile {
 public:
  struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    uint64_t begin = 0;  // offsets relative to the start of the data section
    uint64_t end = 0;
  };

  // Maps `path` read-only and validates the header: every malformed case listed in the
  // spec is an kInvalidModel error naming the file and the tensor.
  static Expected<std::shared_ptr<const SafetensorsFile>> Open(const std::filesystem::path& path);

  // Parses bytes already in memory. `keep_alive` owns `bytes` and is held by the file and
  // every tensor view it hands out. `source_name` is used in error messages.
  static Expected<std::shared_ptr<const SafetensorsFile>> FromBuffer(
      std::shared_ptr<const void> keep_alive, std::span<const std::byte> bytes,
      std::string source_name);

  // Entries in data-offset order.
  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* Find(std::string_view name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::string& source_name() const { return source_name_; }

  // The tensor named `name`: a zero-copy view when its bytes are aligned for its dtype,
  // otherwise an owned aligned copy. kNotFound when absent.
  Expected<Tensor> Get(std::string_view name) const;

 private:
  SafetensorsFile() = default;
  std::shared_ptr<const void> keep_alive_;
  std::span<const std::byte> data_;  // the data section
  std::vector<Entry> entries_;
  std::vector<size_t> by_name_;  // indices into entries_, sorted by name (for Find)
  std::map<std::string, std::string> metadata_;
  std::string source_name_;
};

// Writes `tensors` as a safetensors file that the reference implementation also reads:
// data contiguous with no gaps, tensors ordered by dtype size (largest first, stable) so
// that each is aligned for its dtype, and the header padded with spaces so that the data
// section starts 8-byte aligned in the file. Views onto such a file never need a copy.
// Names must be unique and non-empty; "__metadata__" is reserved.
Status WriteSafetensors(const std::filesystem::path& path,
                        const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata = {});

// The same, into memory (for tests and fuzz seeds).
Expected<std::vector<std::byte>> SerializeSafetensors(
    const std::vector<std::pair<std::string, Tensor>>& tensors,
    const std::map<std::string, std::string>& metadata = {});

}  // namespace sy
