#include "sched/placement.h"

#include <algorithm>

namespace sy::sched {
namespace {

size_t IndexOf(std::vector<const Device*>& devices, const Device* device) {
  auto it = std::find(devices.begin(), devices.end(), device);
  if (it != devices.end()) return static_cast<size_t>(it - devices.begin());
  devices.push_back(device);
  return devices.size() - 1;
}

// "node 3 (add) "x" with f16 [2, 3], f16 [3]": what error messages name.
std::string DescribeNodeTypes(const Graph& graph, size_t n) {
  std::string text = graph.DescribeNode(n);
  const Node& node = graph.nodes[n];
  if (!node.inputs.empty()) {
    text += " on ";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      text += (i ? ", " : "") + graph.values[node.inputs[i]].type.ToString();
    }
  }
  return text;
}

}  // namespace

std::vector<const Device*> PlatformOrder(const PluginHost& host) {
  std::vector<const Device*> order;
  for (DeviceKind kind : {DeviceKind::kDiscreteGpu, DeviceKind::kAccelerator,
                          DeviceKind::kIntegratedGpu, DeviceKind::kCpu}) {
    for (const Device* d : host.devices()) {
      if (d->kind == kind && !d->reference()) order.push_back(d);
    }
  }
  return order;
}

Status PlaceNodes(const Graph& graph, const PluginHost* host, const PlanOptions& options,
                  std::vector<const Device*>& devices, SupportOracle& oracle,
                  std::vector<NodePlacement>& placements) {
  const bool hints_and_fallback = options.use_hints_and_fallback && host != nullptr;
  const size_t order_size = devices.size();
  const Device* fallback = nullptr;
  if (hints_and_fallback) {
    // The first loaded device that declares it runs every op (SY_DEVICE_FLAG_FALLBACK);
    // no plugin is known here by name.
    for (const Device* d : host->devices()) {
      if (d->fallback() && !d->reference()) {
        fallback = d;
        break;
      }
    }
  }
  placements.assign(graph.nodes.size(), NodePlacement{});
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    NodePlacement& placement = placements[n];
    std::string declines;  // "cuda:0 declined: ...; "
    auto note_decline = [&](size_t d, const std::string& reason) {
      declines += (declines.empty() ? "" : "; ") + devices[d]->Spec() + " declined: " + reason;
    };

    // 1. The hint.
    std::string unhonoured;  // why a hint was not honoured
    if (!node.backend.empty() && hints_and_fallback) {
      Expected<const Device*> hinted = host->FindDevice(node.backend);
      if (!hinted.ok()) {
        unhonoured =
            "hint \"" + node.backend + "\" not honoured: no such plugin or device is loaded";
      } else {
        const size_t d = IndexOf(devices, *hinted);
        std::string reason;
        SY_ASSIGN_OR_RETURN(bool ok, oracle.Supports(n, d, &reason));
        if (ok) {
          placement.device = static_cast<int32_t>(d);
          placement.reason = PlacementReason::kHint;
          placement.detail = "hint \"" + node.backend + "\" honoured";
          continue;
        }
        unhonoured = "hint \"" + node.backend + "\" not honoured: " + devices[d]->Spec() +
                     " declined: " + reason;
      }
      if (options.strict) {
        return Unsupported(graph.DescribeNode(n) + ": " + unhonoured +
                           " (strict mode forbids falling back)");
      }
    }

    // 2. The order, then 3. the CPU fallback.
    std::vector<size_t> tried;
    for (size_t d = 0; d < order_size; ++d) tried.push_back(d);
    if (fallback != nullptr) {
      const size_t d = IndexOf(devices, fallback);
      if (d >= order_size) tried.push_back(d);
    }
    for (size_t k = 0; k < tried.size() && placement.device < 0; ++k) {
      const size_t d = tried[k];
      if (!unhonoured.empty() && devices[d]->Spec() == node.backend) continue;
      std::string reason;
      SY_ASSIGN_OR_RETURN(bool ok, oracle.Supports(n, d, &reason));
      if (!ok) {
        note_decline(d, reason);
        continue;
      }
      placement.device = static_cast<int32_t>(d);
      const bool first = declines.empty() && unhonoured.empty();
      placement.reason = first ? PlacementReason::kOrder : PlacementReason::kFallback;
      if (first) {
        placement.detail = d == 0 ? "first device of the order" : "first device that supports it";
      } else {
        placement.detail = unhonoured;
        if (!declines.empty()) placement.detail += (unhonoured.empty() ? "" : "; ") + declines;
        if (d >= order_size) placement.detail += "; " + devices[d]->Spec() + " is the fallback";
      }
      if (options.strict && !first) {
        return Unsupported(graph.DescribeNode(n) + " would fall back to " + devices[d]->Spec() +
                           " (" + declines + "); strict mode forbids falling back");
      }
    }
    if (placement.device < 0) {
      std::string answers = declines.empty() ? "no device was tried" : declines;
      if (!unhonoured.empty()) answers = unhonoured + "; " + answers;
      if (fallback == nullptr && hints_and_fallback) {
        answers += "; no fallback device is loaded (none declares SY_DEVICE_FLAG_FALLBACK)";
      }
      return Unsupported("no device can run " + DescribeNodeTypes(graph, n) + ": " + answers);
    }
  }
  return Status::Ok();
}

}  // namespace sy::sched
