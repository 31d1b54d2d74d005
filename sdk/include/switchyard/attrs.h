// Node attributes: the typed parameters of an op (`axis`, `perm`, `mode`, ...).
//
// In JSON an attribute is a number, a string, a boolean, or an array of numbers or of
// strings. Parsing keeps what the file said (an integer, a float, ...); validation
// against the op's schema then normalises every attribute to the schema's kind and fills
// in defaults, so that after a successful load each attribute has exactly its schema kind.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sy {

enum class AttrKind : uint8_t { kInt, kFloat, kString, kInts, kFloats, kStrings };

std::string_view AttrKindName(AttrKind kind);  // "int", "float", "ints", ...

// Alternatives are in AttrKind order. Booleans in JSON become kInt 0/1.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>>;

inline AttrKind KindOf(const AttrValue& v) { return static_cast<AttrKind>(v.index()); }

// Short rendering for plans and error messages: 3, 0.5, "tanh", [1, 2]; a list of more than
// 16 entries as its first 14, "..." and its last 2 with its length, a string of more than
// 200 bytes as its start and its length.
std::string AttrValueToString(const AttrValue& value);

// Ordered by name, so that iteration and serialisation are deterministic.
class Attrs {
 public:
  bool Has(std::string_view name) const { return values_.find(name) != values_.end(); }
  const AttrValue* Find(std::string_view name) const;
  void Set(std::string name, AttrValue value) {
    values_.insert_or_assign(std::move(name), std::move(value));
  }
  bool Erase(std::string_view name);
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }

  // Typed access. After validation an attribute has its schema's kind, so these return
  // the fallback only for an absent optional attribute (or a kind mismatch, which
  // validation has already ruled out).
  int64_t GetInt(std::string_view name, int64_t fallback = 0) const;
  double GetFloat(std::string_view name, double fallback = 0.0) const;
  std::string GetString(std::string_view name, std::string_view fallback = "") const;
  std::vector<int64_t> GetInts(std::string_view name) const;
  std::vector<double> GetFloats(std::string_view name) const;
  std::vector<std::string> GetStrings(std::string_view name) const;

  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }
  bool operator==(const Attrs&) const = default;

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

}  // namespace sy
