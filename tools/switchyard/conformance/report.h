// Results of a conformance run: the console table per op, JUnit XML and JSON.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "conformance/case_execution.h"
#include "conformance/suite.h"

namespace sy::conformance {

struct Result {
  Outcome outcome = Outcome::kPass;
  std::string detail;
  double seconds = 0;
};

struct Totals {
  size_t passed = 0;   // pass
  size_t failed = 0;   // fail, crashed, hung, unexpected pass
  size_t skipped = 0;  // unsupported, expected failure
};
Totals Count(const std::vector<Result>& results);

// One row per op: counts of each outcome; then every failing case with its reason.
std::string ConsoleReport(const std::vector<SuiteCase>& suite, const std::vector<Result>& results,
                          bool list_unsupported);

Status WriteJUnit(const std::filesystem::path& path, const std::string& plugin,
                  const std::vector<SuiteCase>& suite, const std::vector<Result>& results);

boost::json::object JsonReport(const std::string& plugin, const std::string& device,
                               const std::vector<SuiteCase>& suite,
                               const std::vector<Result>& results);

}  // namespace sy::conformance
