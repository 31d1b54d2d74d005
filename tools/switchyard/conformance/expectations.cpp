#include "conformance/expectations.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace sy::conformance {

Expected<Expectations> Expectations::Load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return NotFound(path.string() + ": cannot open the expectations file");
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path.string());
}

Expected<Expectations> Expectations::Parse(std::string_view text, std::string_view origin) {
  Expectations out;
  int line_number = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string line(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    line = line.substr(start);
    const std::string where = std::string(origin) + ":" + std::to_string(line_number);
    const size_t space = line.find_first_of(" \t");
    const size_t colon = line.find(": ");
    if (space == std::string::npos || colon == std::string::npos || colon < space) {
      return InvalidArgument(where + ": expected \"<op glob> <label glob>: <reason>\", got \"" +
                             line + "\"");
    }
    Expectation e;
    e.op_glob = line.substr(0, space);
    const size_t label_start = line.find_first_not_of(" \t", space);
    e.label_glob = line.substr(label_start, colon - label_start);
    e.reason = line.substr(colon + 2);
    e.line = line_number;
    if (e.label_glob.empty() || e.reason.find_first_not_of(" \t") == std::string::npos) {
      return InvalidArgument(where + ": an entry needs a label glob and a reason");
    }
    out.entries_.push_back(std::move(e));
  }
  return out;
}

const Expectation* Expectations::Find(std::string_view op, std::string_view label) const {
  const std::string op_text(op), label_text(label);
  for (const Expectation& e : entries_) {
    if (fnmatch(e.op_glob.c_str(), op_text.c_str(), 0) == 0 &&
        fnmatch(e.label_glob.c_str(), label_text.c_str(), 0) == 0) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace sy::conformance
