// How a plan reads: Plan::Explain, and the byte sizes it and the CLI print and parse.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "switchyard/plan.h"
#include "switchyard/value_names.h"

namespace sy {

std::string FormatBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

Expected<uint64_t> ParseByteSize(std::string_view text) {
  auto bad = [&] {
    std::string message = "\"";
    message.append(text);
    message += "\" is not a byte size (expected e.g. 1048576, 64MiB, 1.5GiB, 2GB)";
    return InvalidArgument(std::move(message));
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return bad();
  const std::string number(text.substr(0, i));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return bad();
  std::string unit(text.substr(i));
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  static const struct {
    const char* name;
    double scale;
  } kUnits[] = {{"", 1},
                {"b", 1},
                {"k", 1024},
                {"kib", 1024},
                {"kb", 1e3},
                {"m", 1 << 20},
                {"mib", 1 << 20},
                {"mb", 1e6},
                {"g", 1 << 30},
                {"gib", 1 << 30},
                {"gb", 1e9},
                {"t", 1099511627776.0},
                {"tib", 1099511627776.0},
                {"tb", 1e12}};
  for (const auto& u : kUnits) {
    if (unit == u.name) scale = u.scale;
  }
  if (scale == 0) return bad();
  const double bytes = std::floor(value * scale);
  if (bytes > 1.8e19) return bad();
  return static_cast<uint64_t>(bytes);
}

std::string Plan::Explain(const Graph& graph) const {
  std::string out;
  auto device_name = [&](int32_t d) {
    return d < 0 ? std::string("host") : devices[d]->Spec() + " (" + devices[d]->name + ")";
  };
  out += "nodes:\n";
  for (size_t n = 0; n < nodes.size(); ++n) {
    out += "  " + graph.DescribeNode(n) + " -> " + devices[nodes[n].device]->Spec() + "  [" +
           std::string(PlacementReasonName(nodes[n].reason)) + "] " +
           PrintableName(nodes[n].detail) + "\n";
  }
  out += "partitions: " + std::to_string(partitions.size()) + "\n";
  for (size_t k = 0; k < partitions.size(); ++k) {
    const PlanPartition& p = partitions[k];
    out += "  " + std::to_string(k) + ": " + device_name(p.device) + ", " +
           std::to_string(p.nodes.size()) + (p.nodes.size() == 1 ? " node" : " nodes") +
           " (nodes " + std::to_string(p.nodes.front()) + ".." + std::to_string(p.nodes.back()) +
           ")\n";
  }
  out +=
      "copies: " + std::to_string(copies.size()) + ", " + FormatBytes(CopyBytes()) + " per run\n";
  for (const PlanCopy& c : copies) {
    out += "  " + graph.DescribeValue(c.value) + " " + FormatBytes(c.bytes) + ": " +
           devices[c.from_device]->Spec() + " -> " + devices[c.to_device]->Spec() +
           (c.staged ? " (staged through host memory)" : "") +
           (c.shared ? " (shared: host memory read in place, no bytes move)" : "") +
           ", before partition " + std::to_string(c.before_partition) + "\n";
  }
  if (!states.empty()) out += "decoding state (kept between runs, docs/decoding.md):\n";
  for (const PlanState& st : states) {
    const StateValue& v = graph.state.values[st.index];
    out += "  " + graph.DescribeValue(v.input) + " " + graph.values[v.input].type.ToString() +
           " on " + devices[st.device]->Spec() + ", capacity " +
           std::to_string(graph.values[v.input].type.shape[v.axis]) + " along axis " +
           std::to_string(v.axis) +
           (st.in_place ? ": written in place by cache_write"
                        : ": " + graph.DescribeValue(v.output) +
                              " copied into it after each run (not written in place by a "
                              "cache_write on a device that declares "
                              "SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE)") +
           "\n";
  }
  out += "memory:\n";
  for (size_t d = 0; d < devices.size(); ++d) {
    const DeviceMemory& m = memory[d];
    if (m.arena_bytes == 0 && m.weight_bytes == 0 && m.state_bytes == 0) continue;
    const uint64_t outputs = m.peak_bytes - m.arena_bytes - m.weight_bytes - m.state_bytes;
    out += "  " + device_name(static_cast<int32_t>(d)) + ": peak " + FormatBytes(m.peak_bytes) +
           " = arena " + FormatBytes(m.arena_bytes) + " (" + FormatBytes(m.unshared_bytes) +
           " without reuse) + weights " + FormatBytes(m.weight_bytes);
    if (m.state_bytes != 0) out += " + decoding state " + FormatBytes(m.state_bytes);
    if (outputs != 0) out += " + outputs " + FormatBytes(outputs) + " copied to the caller";
    if (m.limit_bytes) {
      out += ", limit " + FormatBytes(m.limit_bytes) + (m.user_limit ? " (set)" : " (declared)");
    }
    size_t in_place = 0;
    for (const PlanAlias& a : aliases) in_place += a.device == static_cast<int32_t>(d) ? 1 : 0;
    if (in_place != 0) {
      out += "; " + std::to_string(in_place) + " reshape" + (in_place == 1 ? "" : "s") +
             " in place (" + FormatBytes(m.reshape_in_place_bytes) + " not copied per run)";
    }
    out += "\n";
  }
  return out;
}

}  // namespace sy
