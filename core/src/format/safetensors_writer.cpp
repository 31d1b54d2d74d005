// Writing safetensors files (spec/graph-format.md, "Files").
//
// The output matches what the reference implementation writes, so that either can read
// the other's files: a compact JSON header ("__metadata__" first when present, then the
// tensors in data order, each as {"dtype", "shape", "data_offsets"}), padded with spaces
// so that 8 + N is a multiple of 8, then the data, contiguous with no gaps. Tensors are
// ordered by dtype size, largest first, keeping the caller's order among equal sizes, so
// every tensor starts aligned for its dtype.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <system_error>
#include <unordered_set>
#include <vector>

#include <boost/json.hpp>

#include "format/atomic_file.h"
#include "format/utf8.h"
#include "switchyard/safetensors.h"

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

namespace sy {
namespace {

namespace json = boost::json;

constexpr std::string_view kMetadataKey = "__metadata__";

json::string_view JsonView(std::string_view s) { return json::string_view(s.data(), s.size()); }

// Names in messages: quoted, truncated when long. Only valid UTF-8 reaches here unescaped.
std::string Quote(std::string_view name) {
  constexpr size_t kMax = 120;
  if (name.size() <= kMax) return "\"" + std::string(name) + "\"";
  return "\"" + std::string(name.substr(0, kMax)) + "...\"";
}

struct Layout {
  std::string header;         // the JSON header, already padded
  std::vector<size_t> order;  // indices into the caller's tensors, in data order
  uint64_t data_size = 0;
};

Expected<Layout> PlanLayout(const std::vector<std::pair<std::string, Tensor>>& tensors,
                            const std::map<std::string, std::string>& metadata) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, tensor] = tensors[i];
    if (name.empty()) return InvalidArgument("tensor " + std::to_string(i) + " has an empty name");
    if (name == kMetadataKey) {
      return InvalidArgument("tensor name \"__metadata__\" is reserved for the metadata");
    }
    if (auto bad = FindInvalidUtf8(name)) {
      return InvalidArgument("tensor " + std::to_string(i) + ": name is not valid UTF-8 (at byte " +
                             std::to_string(*bad) + ")");
    }
    if (!seen.insert(name).second) return InvalidArgument("duplicate tensor name " + Quote(name));
    const uint64_t elements = static_cast<uint64_t>(tensor.element_count());
    const uint64_t elem_size = DTypeSize(tensor.dtype());
    if (tensor.element_count() < 0 || elements > std::numeric_limits<uint64_t>::max() / elem_size ||
        elements * elem_size != tensor.byte_size() ||
        (tensor.data() == nullptr && tensor.byte_size() != 0) ||
        (tensor.data() == nullptr && elements != 0)) {
      return InvalidArgument("tensor " + Quote(name) + " (" + tensor.type().ToString() +
                             ") has no valid storage");
    }
  }
  for (const auto& [key, value] : metadata) {
    if (FindInvalidUtf8(key) || FindInvalidUtf8(value)) {
      return InvalidArgument("metadata entry " + Quote(key) + " is not valid UTF-8");
    }
  }

  Layout layout;
  layout.order.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) layout.order[i] = i;
  std::stable_sort(layout.order.begin(), layout.order.end(), [&](size_t a, size_t b) {
    return DTypeSize(tensors[a].second.dtype()) > DTypeSize(tensors[b].second.dtype());
  });

  json::object root;
  root.reserve(tensors.size() + 1);
  if (!metadata.empty()) {
    json::object meta;
    meta.reserve(metadata.size());
    for (const auto& [key, value] : metadata) meta.emplace(JsonView(key), JsonView(value));
    root.emplace(kMetadataKey, std::move(meta));
  }
  uint64_t offset = 0;
  for (size_t index : layout.order) {
    const auto& [name, tensor] = tensors[index];
    const uint64_t size = tensor.byte_size();
    if (size > std::numeric_limits<uint64_t>::max() - offset) {
      return InvalidArgument("total data size overflows 64 bits at tensor " + Quote(name));
    }
    json::object entry;
    entry.emplace("dtype", JsonView(SafetensorsDTypeName(tensor.dtype())));
    json::array shape;
    shape.reserve(tensor.shape().size());
    for (int64_t d : tensor.shape()) shape.emplace_back(d);
    entry.emplace("shape", std::move(shape));
    entry.emplace("data_offsets", json::array{json::value(offset), json::value(offset + size)});
    root.emplace(JsonView(name), std::move(entry));
    offset += size;
  }
  layout.data_size = offset;

  layout.header = json::serialize(root);
  layout.header.append((8 - layout.header.size() % 8) % 8, ' ');
  if (layout.header.size() > kMaxSafetensorsHeaderBytes) {
    return ResourceExhausted("header would be " + std::to_string(layout.header.size()) +
                             " bytes, over the limit of " +
                             std::to_string(kMaxSafetensorsHeaderBytes));
  }
  return layout;
}

void EncodeLength(uint64_t n, std::byte out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
}

// Writes all of `size` bytes, retrying short writes and EINTR. Returns errno or 0.
}  // namespace

Expected<std::vector<std::byte>> SerializeSafetensors(
    const std::vector<std::pair<std::string, Tensor>>& tensors,
    const std::map<std::string, std::string>& metadata) {
  try {
    SY_ASSIGN_OR_RETURN(Layout layout, PlanLayout(tensors, metadata));
    const uint64_t prefix = 8 + layout.header.size();
    if (layout.data_size > std::numeric_limits<size_t>::max() - prefix) {
      return ResourceExhausted("serialized safetensors data does not fit in memory");
    }
    std::vector<std::byte> out(static_cast<size_t>(prefix + layout.data_size));
    EncodeLength(layout.header.size(), out.data());
    std::memcpy(out.data() + 8, layout.header.data(), layout.header.size());
    std::byte* cursor = out.data() + prefix;
    for (size_t index : layout.order) {
      const Tensor& t = tensors[index].second;
      if (t.byte_size() != 0) std::memcpy(cursor, t.data(), t.byte_size());
      cursor += t.byte_size();
    }
    return out;
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("out of memory while serializing safetensors");
  }
}

Status WriteSafetensors(const std::filesystem::path& path,
                        const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  const std::string context = "cannot write " + path.string();
  try {
    const std::string base = path.filename().string();
    if (base.empty() || base == "." || base == "..") {
      return InvalidArgument(context + ": not a file name");
    }
    Expected<Layout> planned = PlanLayout(tensors, metadata);
    if (!planned.ok()) return planned.status().WithContext(context);
    const Layout& layout = *planned;

    return format::WriteFileAtomically(path, [&](int fd) {
      std::byte length[8];
      EncodeLength(layout.header.size(), length);
      int error = format::WriteAll(fd, length, 8);
      if (error == 0) {
        error = format::WriteAll(fd, reinterpret_cast<const std::byte*>(layout.header.data()),
                                 layout.header.size());
      }
      for (size_t i = 0; error == 0 && i < layout.order.size(); ++i) {
        const Tensor& t = tensors[layout.order[i]].second;
        if (t.byte_size() != 0) error = format::WriteAll(fd, t.data(), t.byte_size());
      }
      return error;
    });
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(context + ": out of memory");
  }
}

}  // namespace sy
