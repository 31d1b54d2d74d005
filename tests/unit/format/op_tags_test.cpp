// The op tag table (switchyard/op_tags.h) against tests/data/op_tags.txt, the frozen list
// of every tag ever given: a tag may never change or be reused, and every catalogue op
// has one.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "switchyard/op_schema.h"
#include "switchyard/op_tags.h"

namespace sy {
namespace {

std::map<uint16_t, std::string> FrozenTags() {
  std::ifstream in(std::string(SY_SOURCE_DIR) + "/tests/data/op_tags.txt");
  EXPECT_TRUE(in.good()) << "cannot open tests/data/op_tags.txt";
  std::map<uint16_t, std::string> tags;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    unsigned tag = 0;
    std::string op;
    fields >> tag >> op;
    EXPECT_TRUE(tags.emplace(static_cast<uint16_t>(tag), op).second) << "tag " << tag << " twice";
    tags[static_cast<uint16_t>(tag)] = op;
  }
  return tags;
}

TEST(OpTags, EveryFrozenTagStillNamesItsOp) {
  const std::map<uint16_t, std::string> frozen = FrozenTags();
  ASSERT_FALSE(frozen.empty());
  for (const auto& [tag, op] : frozen) {
    EXPECT_EQ(OpOfTag(tag), op) << "tag " << tag << " was given to " << op
                                << " and may never change (docs/format.md, \"Op tags\")";
  }
  // A tag the table has that the frozen list lacks is a new op's: append it to the list.
  for (const OpTag& entry : OpTagTable()) {
    EXPECT_EQ(frozen.count(entry.tag), 1u)
        << "tag " << entry.tag << " (" << entry.op << ") is not in tests/data/op_tags.txt";
  }
}

TEST(OpTags, NamesAndTagsAreOneToOne) {
  std::set<std::string_view> names;
  uint16_t previous = 0;
  for (size_t i = 0; i < OpTagTable().size(); ++i) {
    const OpTag& entry = OpTagTable()[i];
    if (i > 0) {
      EXPECT_GT(entry.tag, previous);
    }
    previous = entry.tag;
    EXPECT_TRUE(names.insert(entry.op).second) << entry.op << " has two tags";
    EXPECT_EQ(FindOpTag(entry.op), entry.tag);
    EXPECT_EQ(OpOfTag(entry.tag), entry.op);
  }
  EXPECT_FALSE(FindOpTag("no_such_op").has_value());
  EXPECT_FALSE(FindOpTag("").has_value());
  EXPECT_TRUE(OpOfTag(7).empty());  // seed 000's Permute: transpose took Transpose's 5
  EXPECT_TRUE(OpOfTag(65535).empty());
}

TEST(OpTags, KeepSeedTagsForTheSeedsOps) {
  // Seed 000's table, where it names an op of the catalogue.
  EXPECT_EQ(FindOpTag("matmul"), 0);
  EXPECT_EQ(FindOpTag("add"), 1);
  EXPECT_EQ(FindOpTag("reshape"), 6);
  EXPECT_EQ(FindOpTag("attention"), 20);
  EXPECT_EQ(FindOpTag("rms_norm"), 40);
  EXPECT_EQ(FindOpTag("softmax"), 70);
  EXPECT_EQ(FindOpTag("argmax"), 199);
}

TEST(OpTags, EveryCatalogueOpHasATagAndEveryTagAnOp) {
  std::set<std::string_view> catalogue;
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    catalogue.insert(schema.name);
    EXPECT_TRUE(FindOpTag(schema.name).has_value())
        << schema.name << " has no op tag: give it the next free one at the end of "
        << "core/src/format/op_tags.cpp and tests/data/op_tags.txt";
  }
  for (const OpTag& entry : OpTagTable()) {
    EXPECT_EQ(catalogue.count(entry.op), 1u)
        << "tag " << entry.tag << " names " << entry.op << ", which the catalogue lacks";
  }
}

}  // namespace
}  // namespace sy
