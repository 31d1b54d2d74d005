#include "switchyard/value_names.h"

namespace sy {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

void AppendHex(std::string& out, char prefix, unsigned char c) {
  out += prefix;
  if (prefix == '\\') out += 'x';
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

}  // namespace

std::string ValueFileName(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 4);
  if (name.empty()) out += '%';
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == '/' || c == '\\' || c == '%' || IsControl(c) || (i == 0 && c == '.')) {
      AppendHex(out, '%', c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + ".npy";
}

std::string PrintableName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (IsControl(c)) {
      AppendHex(out, '\\', c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace sy
