#include "switchyard/attrs.h"

#include <cstdio>

namespace sy {

std::string_view AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return "int";
    case AttrKind::kFloat:
      return "float";
    case AttrKind::kString:
      return "string";
    case AttrKind::kInts:
      return "ints";
    case AttrKind::kFloats:
      return "floats";
    case AttrKind::kStrings:
      return "strings";
  }
  return "?";
}

namespace {

std::string FloatToString(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Lists longer than kShownItems show their first and last entries and their length, and
// strings longer than kShownChars their start: a model's 3-million-entry attribute made a
// 9 MB error message.
constexpr size_t kShownItems = 16;
constexpr size_t kShownChars = 200;

std::string Quoted(const std::string& s) {
  if (s.size() <= kShownChars) return "\"" + s + "\"";
  return "\"" + s.substr(0, kShownChars) + "...\" (" + std::to_string(s.size()) + " bytes)";
}

template <typename T, typename F>
std::string JoinList(const std::vector<T>& items, F render) {
  std::string text = "[";
  const bool cut = items.size() > kShownItems;
  for (size_t i = 0; i < items.size(); ++i) {
    if (cut && i == kShownItems - 2) {
      text += ", ...";
      i = items.size() - 2;
    }
    if (i) text += ", ";
    text += render(items[i]);
  }
  text += "]";
  if (cut) text += " (" + std::to_string(items.size()) + " entries)";
  return text;
}

}  // namespace

std::string AttrValueToString(const AttrValue& value) {
  switch (KindOf(value)) {
    case AttrKind::kInt:
      return std::to_string(std::get<int64_t>(value));
    case AttrKind::kFloat:
      return FloatToString(std::get<double>(value));
    case AttrKind::kString:
      return Quoted(std::get<std::string>(value));
    case AttrKind::kInts:
      return JoinList(std::get<std::vector<int64_t>>(value),
                      [](int64_t v) { return std::to_string(v); });
    case AttrKind::kFloats:
      return JoinList(std::get<std::vector<double>>(value), FloatToString);
    case AttrKind::kStrings:
      return JoinList(std::get<std::vector<std::string>>(value), Quoted);
  }
  return "?";
}

const AttrValue* Attrs::Find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

bool Attrs::Erase(std::string_view name) {
  auto it = values_.find(name);
  if (it == values_.end()) return false;
  values_.erase(it);
  return true;
}

int64_t Attrs::GetInt(std::string_view name, int64_t fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kInt ? std::get<int64_t>(*v) : fallback;
}

double Attrs::GetFloat(std::string_view name, double fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kFloat ? std::get<double>(*v) : fallback;
}

std::string Attrs::GetString(std::string_view name, std::string_view fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kString ? std::get<std::string>(*v) : std::string(fallback);
}

std::vector<int64_t> Attrs::GetInts(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kInts ? std::get<std::vector<int64_t>>(*v)
                                            : std::vector<int64_t>{};
}

std::vector<double> Attrs::GetFloats(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kFloats ? std::get<std::vector<double>>(*v)
                                              : std::vector<double>{};
}

std::vector<std::string> Attrs::GetStrings(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kStrings ? std::get<std::vector<std::string>>(*v)
                                               : std::vector<std::string>{};
}

}  // namespace sy
