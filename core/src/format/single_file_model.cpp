// The single-file model (docs/format.md, "Single-file models"): a 64-byte header, the
// binary graph section (graph_binary_*.cpp) and the weights section, page-aligned so that
// mapping the file maps every constant in place.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <new>

#include "format/atomic_file.h"
#include "format/byte_io.h"
#include "format/graph_binary.h"
#include "format/mapped_file.h"
#include "switchyard/model_io.h"

namespace sy {
namespace {

constexpr std::array<char, 8> kMagic = {'S', 'Y', 'M', 'O', 'D', 'E', 'L', '\0'};
constexpr uint32_t kContainerVersion = 1;
constexpr uint64_t kHeaderSize = 64;
// The weights section starts on a page boundary of any common page size.
constexpr uint64_t kWeightsSectionAlignment = 4096;

uint64_t RoundUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

// The header and graph section, padded to where the weights start, and where each
// constant's bytes go in the weights section.
struct Layout {
  std::string head;
  std::vector<format::WeightRange> ranges;
  uint64_t weights_size = 0;
};

Expected<Layout> PlanLayout(const Graph& graph) {
  Layout layout;
  SY_ASSIGN_OR_RETURN(layout.ranges, format::PlanWeights(graph, layout.weights_size));
  SY_ASSIGN_OR_RETURN(std::string section, format::EncodeGraph(graph, layout.ranges));
  if (section.size() > kMaxGraphSectionBytes) {
    return ResourceExhausted("the graph section would be " + std::to_string(section.size()) +
                             " bytes, over the limit of " + std::to_string(kMaxGraphSectionBytes));
  }
  const uint64_t weights_offset = RoundUp(kHeaderSize + section.size(), kWeightsSectionAlignment);
  format::ByteWriter header;
  for (char c : kMagic) header.U8(static_cast<uint8_t>(c));
  header.U32(kContainerVersion);
  header.U32(static_cast<uint32_t>(kHeaderSize));
  header.U64(kHeaderSize);  // graph section offset
  header.U64(section.size());
  header.U64(weights_offset);
  header.U64(layout.weights_size);
  while (header.size() < kHeaderSize) header.U8(0);  // reserved
  layout.head = header.Take();
  layout.head += section;
  layout.head.resize(weights_offset, '\0');
  return layout;
}

}  // namespace

Expected<std::string> EncodeSingleFileModel(const Graph& graph) {
  SY_ASSIGN_OR_RETURN(Layout layout, PlanLayout(graph));
  std::string bytes = std::move(layout.head);
  const size_t weights_offset = bytes.size();
  bytes.resize(weights_offset + layout.weights_size, '\0');
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    const Tensor& data = graph.constants[i].data;
    if (data.byte_size() > 0) {
      std::memcpy(bytes.data() + weights_offset + layout.ranges[i].offset, data.data(),
                  data.byte_size());
    }
  }
  return bytes;
}

Status WriteSingleFileModel(const Graph& graph, const std::filesystem::path& path) {
  SY_ASSIGN_OR_RETURN(Layout layout, PlanLayout(graph));
  // Weights are streamed from wherever they live (often another mapped file), with zeros
  // between them up to each one's aligned offset.
  return format::WriteFileAtomically(path, [&](int fd) {
    if (int err = format::WriteAll(fd, reinterpret_cast<const std::byte*>(layout.head.data()),
                                   layout.head.size())) {
      return err;
    }
    static constexpr std::byte kZeros[format::kWeightAlignment] = {};
    uint64_t written = 0;
    for (size_t i = 0; i < graph.constants.size(); ++i) {
      const Tensor& data = graph.constants[i].data;
      const uint64_t gap = layout.ranges[i].offset - written;
      if (gap > 0) {
        if (int err = format::WriteAll(fd, kZeros, gap)) return err;
      }
      if (int err = format::WriteAll(fd, data.data(), data.byte_size())) return err;
      written = layout.ranges[i].offset + data.byte_size();
    }
    return 0;
  });
}

Expected<Graph> ParseSingleFileModel(std::span<const std::byte> bytes,
                                     std::shared_ptr<const void> owner) {
  // Constants are views at multiples of 64 from the file's start: aligned for every dtype
  // when the bytes are (a mapping is page-aligned). Bytes from elsewhere (a caller's
  // buffer) are copied to a boundary first.
  if (reinterpret_cast<uintptr_t>(bytes.data()) % format::kWeightAlignment != 0) {
    constexpr std::align_val_t kAlign{format::kWeightAlignment};
    std::shared_ptr<std::byte[]> copy(new (kAlign) std::byte[std::max<size_t>(bytes.size(), 1)],
                                      [](std::byte* p) { ::operator delete[](p, kAlign); });
    if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
    const std::span<const std::byte> aligned(copy.get(), bytes.size());
    return ParseSingleFileModel(aligned, std::shared_ptr<const void>(copy, copy.get()));
  }
  format::ByteReader in(bytes, 0, "the file");
  if (bytes.size() < kMagic.size() ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return InvalidModel(
        "byte 0: the file does not start with \"SYMODEL\\0\" (expected a "
        "single-file model written by `switchyard convert` or `import`)");
  }
  if (bytes.size() < kHeaderSize) {
    return InvalidModel("the file is " + std::to_string(bytes.size()) +
                        " bytes, shorter than the " + std::to_string(kHeaderSize) +
                        "-byte header of a single-file model (truncated?)");
  }
  (void)in.U64("magic");
  SY_ASSIGN_OR_RETURN(uint32_t version, in.U32("version"));
  if (version != kContainerVersion) {
    return in.Error(8, "version is " + std::to_string(version) + ", expected " +
                           std::to_string(kContainerVersion) + " (this build reads version " +
                           std::to_string(kContainerVersion) +
                           "; a newer one needs a newer Switchyard)");
  }
  SY_ASSIGN_OR_RETURN(uint32_t header_size, in.U32("header size"));
  if (header_size != kHeaderSize) {
    return in.Error(12, "header size is " + std::to_string(header_size) + ", expected " +
                            std::to_string(kHeaderSize));
  }
  SY_ASSIGN_OR_RETURN(uint64_t graph_offset, in.U64("graph section offset"));
  SY_ASSIGN_OR_RETURN(uint64_t graph_size, in.U64("graph section size"));
  SY_ASSIGN_OR_RETURN(uint64_t weights_offset, in.U64("weights section offset"));
  SY_ASSIGN_OR_RETURN(uint64_t weights_size, in.U64("weights section size"));
  for (uint64_t at = in.offset(); at < kHeaderSize; ++at) {
    if (bytes[at] != std::byte{0}) {
      return in.Error(at, "reserved header byte is " + std::to_string(static_cast<int>(bytes[at])) +
                              ", expected 0 (a newer Switchyard's feature?)");
    }
  }
  const uint64_t file_size = bytes.size();
  if (graph_offset != kHeaderSize || graph_size > file_size - graph_offset) {
    return in.Error(16, "the graph section [" + std::to_string(graph_offset) + ", +" +
                            std::to_string(graph_size) + ") is not within the file's " +
                            std::to_string(file_size) + " bytes right after the header" +
                            " (truncated?)");
  }
  if (graph_size > kMaxGraphSectionBytes) {
    return in.Error(24, "the graph section is " + std::to_string(graph_size) +
                            " bytes, over the limit of " + std::to_string(kMaxGraphSectionBytes));
  }
  if (weights_offset % kWeightsSectionAlignment != 0 ||
      weights_offset < graph_offset + graph_size || weights_offset > file_size ||
      weights_size != file_size - weights_offset) {
    return in.Error(32, "the weights section [" + std::to_string(weights_offset) + ", +" +
                            std::to_string(weights_size) + ") is not the rest of the file's " +
                            std::to_string(file_size) + " bytes after the graph section, " +
                            "starting at a multiple of " +
                            std::to_string(kWeightsSectionAlignment) + " (truncated?)");
  }
  return format::DecodeGraph(bytes.subspan(graph_offset, graph_size), graph_offset,
                             bytes.subspan(weights_offset, weights_size), weights_offset,
                             std::move(owner));
}

Expected<Graph> ReadSingleFileModel(const std::filesystem::path& path) {
  SY_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  const std::span<const std::byte> bytes = file->bytes();
  Expected<Graph> graph = ParseSingleFileModel(bytes, file);
  if (!graph.ok()) return graph.status().WithContext(path.string());
  return graph;
}

}  // namespace sy
