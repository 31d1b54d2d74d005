// The expectations file of `switchyard conformance --expectations FILE`: cases a plugin
// is known to fail, each with a reason. One entry per line:
//
//     <op glob> <label glob>: <reason>
//
// `#` starts a comment line; globs use fnmatch(3) syntax (`*`, `?`, `[...]`); the label
// glob runs up to the first ": " and may contain spaces ("f32 special"). API cases have
// the op "api" and their name as the label. A listed case that fails is an expected
// failure; one that passes is reported as an unexpected pass (remove the entry).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "switchyard/status.h"

namespace sy::conformance {

struct Expectation {
  std::string op_glob;
  std::string label_glob;
  std::string reason;
  int line = 0;
};

class Expectations {
 public:
  static Expected<Expectations> Load(const std::filesystem::path& path);
  static Expected<Expectations> Parse(std::string_view text, std::string_view origin);
  // The entry covering (op, label), or null.
  const Expectation* Find(std::string_view op, std::string_view label) const;
  size_t size() const { return entries_.size(); }

 private:
  std::vector<Expectation> entries_;
};

}  // namespace sy::conformance
