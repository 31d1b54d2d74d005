#include "conformance/report.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <map>

namespace sy::conformance {
namespace {

constexpr size_t kOutcomes = 7;

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control characters other than tab are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

bool IsFailure(Outcome o) {
  return o == Outcome::kFail || o == Outcome::kCrashed || o == Outcome::kHung ||
         o == Outcome::kUnexpectedPass;
}

}  // namespace

Totals Count(const std::vector<Result>& results) {
  Totals t;
  for (const Result& r : results) {
    if (r.outcome == Outcome::kPass)
      ++t.passed;
    else if (IsFailure(r.outcome))
      ++t.failed;
    else
      ++t.skipped;
  }
  return t;
}

std::string ConsoleReport(const std::vector<SuiteCase>& suite, const std::vector<Result>& results,
                          bool list_unsupported) {
  std::map<std::string, std::array<size_t, kOutcomes>> per_op;
  std::vector<std::string> order;
  for (size_t k = 0; k < results.size(); ++k) {
    auto [it, inserted] = per_op.try_emplace(suite[k].op);
    if (inserted) {
      it->second.fill(0);
      order.push_back(suite[k].op);
    }
    ++it->second[static_cast<size_t>(results[k].outcome)];
  }
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%-20s %6s %6s %12s %8s %10s %8s %6s\n", "op", "pass", "fail",
                "unsupported", "xfail", "unexp.pass", "crashed", "hung");
  out += line;
  for (const std::string& op : order) {
    const auto& n = per_op[op];
    std::snprintf(line, sizeof line, "%-20s %6zu %6zu %12zu %8zu %10zu %8zu %6zu\n", op.c_str(),
                  n[0], n[1], n[2], n[3], n[4], n[5], n[6]);
    out += line;
  }
  bool header = false;
  for (size_t k = 0; k < results.size(); ++k) {
    const Outcome o = results[k].outcome;
    if (!IsFailure(o) && !(list_unsupported && o == Outcome::kUnsupported)) continue;
    if (!header) {
      out += "\n";
      header = true;
    }
    out.append(OutcomeName(o));
    out.append(": ").append(suite[k].op).append(" \"").append(suite[k].label).append("\": ");
    out.append(results[k].detail).append("\n");
  }
  const Totals t = Count(results);
  out += "\n";
  out += std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed, " +
         std::to_string(t.skipped) + " skipped\n";
  return out;
}

Status WriteJUnit(const std::filesystem::path& path, const std::string& plugin,
                  const std::vector<SuiteCase>& suite, const std::vector<Result>& results) {
  std::map<std::string, std::vector<size_t>> per_op;
  std::vector<std::string> order;
  for (size_t k = 0; k < results.size(); ++k) {
    if (!per_op.count(suite[k].op)) order.push_back(suite[k].op);
    per_op[suite[k].op].push_back(k);
  }
  const Totals all = Count(results);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"switchyard conformance: " + XmlEscape(plugin) + "\" tests=\"" +
         std::to_string(results.size()) + "\" failures=\"" + std::to_string(all.failed) +
         "\" skipped=\"" + std::to_string(all.skipped) + "\">\n";
  for (const std::string& op : order) {
    std::vector<Result> mine;
    double seconds = 0;
    for (size_t k : per_op[op]) {
      mine.push_back(results[k]);
      seconds += results[k].seconds;
    }
    const Totals t = Count(mine);
    char time[32];
    std::snprintf(time, sizeof time, "%.6f", seconds);
    xml += "  <testsuite name=\"" + XmlEscape(op) + "\" tests=\"" + std::to_string(mine.size()) +
           "\" failures=\"" + std::to_string(t.failed) + "\" skipped=\"" +
           std::to_string(t.skipped) + "\" time=\"" + time + "\">\n";
    for (size_t k : per_op[op]) {
      const Result& r = results[k];
      std::snprintf(time, sizeof time, "%.6f", r.seconds);
      xml += "    <testcase classname=\"conformance." + XmlEscape(op) + "\" name=\"" +
             XmlEscape(suite[k].label) + "\" time=\"" + time + "\"";
      if (r.outcome == Outcome::kPass) {
        xml += "/>\n";
        continue;
      }
      xml += ">\n";
      const std::string message = std::string(OutcomeName(r.outcome)) + ": " + r.detail;
      if (IsFailure(r.outcome)) {
        xml += "      <failure type=\"" + XmlEscape(OutcomeName(r.outcome)) + "\" message=\"" +
               XmlEscape(message) + "\"/>\n";
      } else {
        xml += "      <skipped message=\"" + XmlEscape(message) + "\"/>\n";
      }
      xml += "    </testcase>\n";
    }
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) return NotFound(path.string() + ": cannot write the JUnit file");
  out << xml;
  out.close();
  if (!out) return Internal(path.string() + ": writing the JUnit file failed");
  return Status::Ok();
}

boost::json::object JsonReport(const std::string& plugin, const std::string& device,
                               const std::vector<SuiteCase>& suite,
                               const std::vector<Result>& results) {
  boost::json::array cases;
  for (size_t k = 0; k < results.size(); ++k) {
    if (results[k].outcome == Outcome::kPass) continue;  // the counts carry passes
    cases.push_back(boost::json::object{{"op", suite[k].op},
                                        {"label", suite[k].label},
                                        {"outcome", OutcomeName(results[k].outcome)},
                                        {"detail", results[k].detail}});
  }
  const Totals t = Count(results);
  return boost::json::object{{"plugin", plugin},
                             {"device", device},
                             {"cases", results.size()},
                             {"passed", t.passed},
                             {"failed", t.failed},
                             {"skipped", t.skipped},
                             {"not_passed", std::move(cases)}};
}

}  // namespace sy::conformance
