// Stable op tags: the u16 that names an op in the binary graph encoding (docs/format.md,
// "Op tags"). A tag, once given, belongs to its op forever: tags are never changed and
// never reused, and a new catalogue op takes a new tag (the next above the highest in
// use). Seed 000's tags are kept where it names the same op; the rest start at 200.
// tests/data/op_tags.txt freezes every tag ever given; op_tags_test fails if one moves.
//
// The table is the format's, not the catalogue's: it knows names, nothing of semantics,
// so the format layer stays free of op knowledge (an op that has a tag but that this
// build's catalogue lacks is refused by pass 2 by name, as in JSON).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace sy {

struct OpTag {
  uint16_t tag;
  std::string_view op;
};

// Every tag, in increasing tag order.
std::span<const OpTag> OpTagTable();

// The tag of catalogue op `op`, or nullopt for a name that has none.
std::optional<uint16_t> FindOpTag(std::string_view op);

// The op a tag names, or an empty view for a tag that names none (in this build).
std::string_view OpOfTag(uint16_t tag);

}  // namespace sy
