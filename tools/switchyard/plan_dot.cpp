#include "plan_dot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "switchyard/value_names.h"

extern char** environ;

namespace sy::cli {
namespace {

// Fill colours by device index (a colour-blind-safe palette), then grey.
const char* DeviceColour(int32_t device) {
  static const char* const kColours[] = {"#a6cee3", "#fdbf6f", "#b2df8a",
                                         "#cab2d6", "#fb9a99", "#ffff99"};
  if (device < 0) return "#dddddd";
  return kColours[static_cast<size_t>(device) % (sizeof kColours / sizeof kColours[0])];
}

// Text for a DOT string: printable (control characters escaped), quotes and
// backslashes escaped for DOT; "\n" stays DOT's line break.
std::string Quote(const std::string& text) {
  std::string out;
  for (const std::string& line : [&] {
         std::vector<std::string> lines;
         std::string current;
         for (char c : text) {
           if (c == '\n') {
             lines.push_back(current);
             current.clear();
           } else {
             current += c;
           }
         }
         lines.push_back(current);
         return lines;
       }()) {
    if (!out.empty()) out += "\\n";
    for (char c : PrintableName(line)) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
  }
  return "\"" + out + "\"";
}

// "conv, relu" from the nodes a rewrite replaced ("node 0 (conv) \"/c\"", ...).
std::string ReplacedOps(const RewriteRecord& r) {
  std::string ops;
  for (const std::string& d : r.replaced) {
    const size_t open = d.find('('), close = d.find(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    ops += (ops.empty() ? "" : ", ") + d.substr(open + 1, close - open - 1);
  }
  return ops;
}

// `text` cut to `limit` characters, with "..." when cut.
std::string Shorten(const std::string& text, size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit) + "...";
}

}  // namespace

std::string PlanToDot(const Graph& graph, const Plan& plan, const OptimizeReport& report) {
  // Which node each applied rewrite produced, by the description its record gives.
  std::map<std::string, std::string> fused_from;
  for (const RewriteRecord& r : report.records) {
    if (r.applied && !r.replaced.empty()) fused_from[r.result] = ReplacedOps(r);
  }
  std::vector<int64_t> producer(graph.values.size(), -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId v : graph.nodes[n].outputs) producer[v] = static_cast<int64_t>(n);
  }
  std::vector<bool> is_constant(graph.values.size(), false);
  for (const Constant& c : graph.constants) is_constant[c.value] = true;
  std::map<std::pair<ValueId, int32_t>, const PlanCopy*> copies;  // (value, to device)
  for (const PlanCopy& c : plan.copies) copies[{c.value, c.to_device}] = &c;

  std::ostringstream dot;
  dot << "digraph plan {\n"
      << "  rankdir=TB;\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  // Legend: one entry per device used.
  dot << "  subgraph cluster_legend {\n    label=\"devices\"; fontname=\"Helvetica\";\n";
  for (size_t d = 0; d < plan.devices.size(); ++d) {
    dot << "    device" << d
        << " [label=" << Quote(plan.devices[d]->Spec() + " (" + plan.devices[d]->name + ")")
        << ", fillcolor=\"" << DeviceColour(static_cast<int32_t>(d)) << "\"];\n";
  }
  dot << "  }\n";
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlanPartition& part = plan.partitions[p];
    dot << "  subgraph cluster_p" << p << " {\n"
        << "    label="
        << Quote("partition " + std::to_string(p) + " on " + plan.devices[part.device]->Spec())
        << "; fontname=\"Helvetica\"; style=dashed;\n";
    for (size_t n : part.nodes) {
      const Node& node = graph.nodes[n];
      const NodePlacement& where = plan.nodes[n];
      std::string label = node.op + (node.name.empty() ? "" : "\n" + node.name);
      const std::string described = node.op + (node.name.empty() ? "" : " \"" + node.name + "\"");
      if (auto it = fused_from.find(described); it != fused_from.end() && !it->second.empty()) {
        label += "\nfused: " + it->second;
      }
      if (where.reason == PlacementReason::kFallback) {
        // "partial:0 declined: op ... ; cpu:0 is the fallback": the first clause, cut.
        label += "\nfallback: " + Shorten(where.detail.substr(0, where.detail.find(';')), 48);
      }
      if (where.reason == PlacementReason::kHint) label += "\n" + Shorten(where.detail, 48);
      if (where.reason == PlacementReason::kIsland) label += "\nmoved by the island pass";
      dot << "    n" << n << " [label=" << Quote(label) << ", fillcolor=\""
          << DeviceColour(where.device) << "\""
          << (where.reason == PlacementReason::kFallback ? ", penwidth=2, color=\"#e31a1c\"" : "")
          << "];\n";
    }
    dot << "  }\n";
  }
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const Value& v = graph.values[graph.inputs[k]];
    dot << "  in" << k
        << " [shape=ellipse, style=solid, label=" << Quote(v.name + "\n" + v.type.ToString())
        << "];\n";
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const Value& v = graph.values[graph.outputs[k]];
    dot << "  out" << k
        << " [shape=ellipse, style=solid, label=" << Quote(v.name + "\n" + v.type.ToString())
        << "];\n";
  }
  // Edges: from a graph input or the producing node; constants (weights) are left out.
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId v : graph.nodes[n].inputs) {
      if (v < 0 || is_constant[v]) continue;
      std::string from;
      int32_t from_device = -1;
      if (producer[v] >= 0) {
        from = "n" + std::to_string(producer[v]);
        from_device = plan.nodes[producer[v]].device;
      } else {
        for (size_t k = 0; k < graph.inputs.size(); ++k) {
          if (graph.inputs[k] == v) from = "in" + std::to_string(k);
        }
      }
      if (from.empty()) continue;
      dot << "  " << from << " -> n" << n;
      const int32_t to_device = plan.nodes[n].device;
      if (from_device >= 0 && from_device != to_device) {
        auto it = copies.find({v, to_device});
        const std::string what = it == copies.end()   ? "copy"
                                 : it->second->shared ? "read in place"
                                                      : "copy " + FormatBytes(it->second->bytes);
        dot << " [style=dashed, color=\"#e31a1c\", penwidth=2, label=" << Quote(what) << "]";
      }
      dot << ";\n";
    }
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const ValueId v = graph.outputs[k];
    if (producer[v] >= 0) {
      dot << "  n" << producer[v] << " -> out" << k << ";\n";
    } else {
      for (size_t i = 0; i < graph.inputs.size(); ++i) {
        if (graph.inputs[i] == v) dot << "  in" << i << " -> out" << k << ";\n";
      }
    }
  }
  dot << "}\n";
  return dot.str();
}

Status RenderSvg(const std::string& dot_text, const std::string& svg_path) {
  // The DOT text goes through a temporary file: dot reads it, writes svg_path.
  char temp[] = "/tmp/switchyard-plan-XXXXXX";
  const int fd = ::mkstemp(temp);
  if (fd < 0)
    return Internal(std::string("--svg: cannot make a temporary file: ") + std::strerror(errno));
  const bool written =
      ::write(fd, dot_text.data(), dot_text.size()) == static_cast<ssize_t>(dot_text.size());
  ::close(fd);
  if (!written) {
    ::unlink(temp);
    return Internal("--svg: cannot write a temporary file");
  }
  std::vector<std::string> args = {"dot", "-Tsvg", temp, "-o", svg_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (spawned == 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::unlink(temp);
  if (spawned == ENOENT) {
    return Unsupported(
        "--svg needs Graphviz's dot, which is not installed (Debian: apt-get install graphviz); "
        "--dot prints the graph for rendering elsewhere");
  }
  if (spawned != 0)
    return Internal(std::string("--svg: cannot run dot: ") + std::strerror(spawned));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Internal("--svg: dot failed to render " + svg_path + " (exit status " +
                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  return Status::Ok();
}

}  // namespace sy::cli
