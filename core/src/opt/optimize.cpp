// The optimization pass's driver: a plan of the input graph says which device runs each
// node, the rules rewrite in order, and the result is validated again.
#include "switchyard/optimize.h"

#include <map>
#include <set>

#include "exec/node_runner.h"
#include "opt/rules.h"
#include "plugin/node_descriptors.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"

namespace sy {
namespace opt {
namespace {

// Asks plugins through the C ABI, as placement does, and evaluates nodes in a one-node
// session on the device that would have run them (so a folded constant holds what the
// run would have computed).
class PluginQueries : public DeviceQueries {
 public:
  Expected<bool> Supports(const Device& device, const Node& node,
                          std::span<const TensorType> inputs, std::span<const TensorType> outputs,
                          std::string* reason) override {
    Graph g;
    Node local = node;
    local.inputs.clear();
    local.outputs.clear();
    for (const TensorType& t : inputs) {
      local.inputs.push_back(static_cast<ValueId>(g.values.size()));
      g.values.push_back({"in" + std::to_string(g.values.size()), t});
    }
    for (const TensorType& t : outputs) {
      local.outputs.push_back(static_cast<ValueId>(g.values.size()));
      g.values.push_back({"out" + std::to_string(g.values.size()), t});
    }
    g.nodes.push_back(std::move(local));
    const NodeDescriptors descriptors(g);
    const Plugin& plugin = *device.plugin;
    uint32_t supported = 0;
    char text[256] = {0};
    SY_RETURN_IF_ERROR(plugin.TakeError(
        plugin.api()->supports_node(plugin.context(), device.index, &descriptors.node(0),
                                    &supported, text, sizeof text),
        "supports_node"));
    text[sizeof text - 1] = '\0';
    if (!supported && reason != nullptr) *reason = text[0] ? text : "declined without a reason";
    return supported != 0;
  }

  Expected<std::vector<Tensor>> Evaluate(const Device& device, const Graph& graph,
                                         size_t n) override {
    // The node alone, its constant inputs fed as graph inputs, run through the plugin
    // directly (exec/node_runner.h): folding needs no session.
    const Node& node = graph.nodes[n];
    std::map<ValueId, const Constant*> constants;
    for (const Constant& c : graph.constants) constants[c.value] = &c;
    Graph g;
    Node local = node;
    std::map<ValueId, ValueId> local_id;
    std::vector<Tensor> feeds;
    auto local_value = [&](ValueId v) {
      auto [it, fresh] = local_id.try_emplace(v, static_cast<ValueId>(g.values.size()));
      if (fresh) g.values.push_back(graph.values[v]);
      return std::pair{it->second, fresh};
    };
    for (ValueId& v : local.inputs) {
      const auto [id, fresh] = local_value(v);
      if (fresh) {
        const auto it = constants.find(v);
        if (it == constants.end()) {
          return InvalidArgument(graph.DescribeNode(n) + ": input " + graph.DescribeValue(v) +
                                 " is not a constant, so the node cannot be folded");
        }
        g.inputs.push_back(id);
        feeds.push_back(it->second->data);
      }
      v = id;
    }
    for (ValueId& v : local.outputs) {
      v = local_value(v).first;
      g.outputs.push_back(v);
    }
    g.nodes.push_back(std::move(local));
    NodeRun run = RunNode(device, g, feeds);
    switch (run.kind) {
      case NodeRun::Kind::kOk:
        return std::move(run.outputs);
      case NodeRun::Kind::kDeclined:
        return Unsupported(graph.DescribeNode(n) + ": " + device.Spec() +
                           " declines it: " + run.message);
      case NodeRun::Kind::kError:
        break;
    }
    return run.status.WithContext(graph.DescribeNode(n));
  }
};

std::string Join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& s : items) text += (text.empty() ? "" : ", ") + s;
  return text;
}

}  // namespace

RewriteRecord RuleContext::Record(std::string_view rule, std::span<const size_t> matched) const {
  RewriteRecord record;
  record.rule = std::string(rule);
  for (size_t n : matched) record.replaced.push_back(editor_.graph().DescribeNode(n));
  const Device* device = matched.empty() ? nullptr : editor_.device(matched[0]);
  if (device != nullptr) record.device = device->Spec();
  return record;
}

void RuleContext::RecordApplied(std::string_view rule, std::span<const size_t> matched,
                                std::string result) {
  RewriteRecord record = Record(rule, matched);
  record.applied = true;
  record.result = std::move(result);
  records_.push_back(std::move(record));
}

void RuleContext::Refuse(std::string_view rule, std::span<const size_t> matched,
                         std::string reason) {
  RewriteRecord record = Record(rule, matched);
  record.reason = std::move(reason);
  records_.push_back(std::move(record));
}

Node RuleContext::MakeNode(std::string op, std::vector<ValueId> inputs, const TensorType& type,
                           const std::string& name, ValueId* output) {
  Node node;
  node.op = std::move(op);
  node.inputs = std::move(inputs);
  node.name = name;
  const ValueId v = editor_.AddValue(name.empty() ? node.op : name + "/" + node.op, type);
  node.outputs = {v};
  if (output != nullptr) *output = v;
  return node;
}

Expected<bool> RuleContext::TryReplace(std::string_view rule, std::span<const size_t> matched,
                                       std::vector<Node> replacement) {
  RewriteRecord record = Record(rule, matched);
  auto refuse = [&](std::string reason) {
    record.reason = std::move(reason);
    records_.push_back(std::move(record));
    return false;
  };
  const Device* device = editor_.device(matched[0]);
  const std::string& hint = editor_.node(matched[0]).backend;
  for (size_t n : matched) {
    if (editor_.device(n) == nullptr) return refuse("no device runs " + record.replaced[0]);
    if (editor_.device(n) != device) {
      return refuse("the nodes run on different devices (" + device->Spec() + ", " +
                    editor_.device(n)->Spec() + ")");
    }
    if (editor_.node(n).backend != hint) return refuse("the nodes have different backend hints");
  }
  std::vector<std::string> results;
  for (Node& node : replacement) {
    node.backend = hint;
    const OpSchema* schema = OpRegistry::Global().Find(node.op);
    if (schema == nullptr)
      return Internal("optimization rule " + record.rule + ": no op " + node.op);
    std::vector<TensorType> in, out;
    for (ValueId v : node.inputs) in.push_back(editor_.type(v));
    for (ValueId v : node.outputs) out.push_back(editor_.type(v));
    Expected<std::vector<TensorType>> inferred =
        InferOutputTypes(*schema, in, node.attrs, static_cast<int>(node.outputs.size()));
    if (!inferred.ok() || *inferred != out) {
      // A rule matched something it should not have: refuse rather than change the model.
      return refuse(
          "the " + node.op + " node it would write does not check: " +
          (inferred.ok() ? std::string("different output types") : inferred.status().message()));
    }
    results.push_back(node.op + (node.name.empty() ? "" : " \"" + node.name + "\""));
    bool known = false;
    for (size_t n : matched) known = known || editor_.node(n).op == node.op;
    if (known) continue;
    std::string why;
    SY_ASSIGN_OR_RETURN(const bool ok, queries_.Supports(*device, node, in, out, &why));
    if (!ok) return refuse(device->Spec() + " does not run " + node.op + ": " + why);
  }
  editor_.Replace(matched, std::move(replacement), device);
  record.applied = true;
  record.result = Join(results);
  records_.push_back(std::move(record));
  return true;
}

}  // namespace opt

size_t OptimizeReport::Applied() const {
  size_t count = 0;
  for (const RewriteRecord& r : records) count += r.applied ? 1 : 0;
  return count;
}

std::string OptimizeReport::Explain() const {
  std::string text = "optimization level " + std::to_string(level) + ": " +
                     std::to_string(nodes_before) + " -> " + std::to_string(nodes_after) +
                     " nodes, " + std::to_string(Applied()) + " rewrites applied\n";
  std::map<std::string, std::pair<size_t, size_t>> per_rule;  // applied, not applied
  for (const RewriteRecord& r : records) {
    auto& counts = per_rule[r.rule];
    (r.applied ? counts.first : counts.second)++;
  }
  for (const auto& [rule, counts] : per_rule) {
    text += "  " + rule + ": " + std::to_string(counts.first) + " applied";
    if (counts.second > 0) text += ", " + std::to_string(counts.second) + " not applied";
    text += "\n";
  }
  for (const RewriteRecord& r : records) {
    text += std::string(r.applied ? "  fused   " : "  kept    ") + r.rule;
    if (!r.device.empty()) text += " on " + r.device;
    text += ": " + opt::Join(r.replaced);
    text += r.applied ? " -> " + r.result : "; " + r.reason;
    text += "\n";
  }
  return text;
}

Expected<OptimizedGraph> OptimizeGraph(const Graph& graph, const PluginHost* host,
                                       const PlanOptions& options, int level) {
  if (level < 0 || level > kMaxOptimizeLevel) {
    return InvalidArgument("optimization level " + std::to_string(level) +
                           " is not one of 0, 1, 2");
  }
  const int accuracy = options.quant_matmul_accuracy_level;
  if (accuracy < -1 || accuracy > 4) {
    return InvalidArgument("quant_matmul accuracy level " + std::to_string(accuracy) +
                           " is not one of 0 to 4 (or -1: each node's own)");
  }
  if (accuracy >= 0) {
    // The session's choice overrides the model's on every quant_matmul.
    Graph chosen = graph;
    for (Node& node : chosen.nodes) {
      if (node.op == "quant_matmul") node.attrs.Set("accuracy_level", int64_t{accuracy});
    }
    PlanOptions kept = options;
    kept.quant_matmul_accuracy_level = -1;
    return OptimizeGraph(chosen, host, kept, level);
  }
  OptimizedGraph result;
  result.report.level = level;
  result.report.nodes_before = graph.nodes.size();
  if (level == 0 || graph.nodes.empty()) {
    result.graph = graph;
    result.report.nodes_after = graph.nodes.size();
    return result;
  }
  // Which device runs each node of the unoptimized graph.
  SY_ASSIGN_OR_RETURN(const Plan plan, Plan::Build(graph, host, options));
  std::vector<const Device*> devices;
  for (const NodePlacement& p : plan.nodes) devices.push_back(plan.devices[p.device]);

  opt::GraphEditor editor(graph, std::move(devices));
  opt::PluginQueries queries;
  opt::RuleContext ctx(editor, queries, level, result.report.records);
  for (Status (*rule)(opt::RuleContext&) :
       {opt::RemoveDeadNodes, opt::FoldConstants, opt::FoldBatchNorm, opt::FuseSilu, opt::FuseGelu,
        opt::FuseAttention, opt::FuseAddLayerNorm, opt::FuseMatmul, opt::FuseConv,
        opt::TransposeAsReshape, opt::FuseGroupedAttention}) {
    SY_RETURN_IF_ERROR(rule(ctx));
    editor.Commit();
  }
  result.graph = std::move(editor).Take();
  Status valid = ValidateGraphTypes(result.graph);
  if (!valid.ok()) {
    return Internal(
        "the optimization pass wrote a graph that does not validate (use --optimize 0 "
        "and report it): " +
        valid.message());
  }
  result.report.nodes_after = result.graph.nodes.size();
  return result;
}

}  // namespace sy
