#include "exec/stages.h"

#include <algorithm>
#include <map>
#include <set>

namespace sy {
namespace {

void CollectSymbols(const Node& node, const Graph& graph, std::set<std::string>& out) {
  for (const auto& [name, expr] : node.attr_exprs) {
    for (const DimExpr& e : expr.items) e.CollectSymbols(out);
  }
  for (ValueId id : node.outputs) {
    for (const DimExpr& e : graph.values[id].symbolic_shape) e.CollectSymbols(out);
  }
}

void CollectDimReads(const Node& node, std::set<int32_t>& out) {
  for (const auto& [name, expr] : node.attr_exprs) {
    for (const DimExpr& e : expr.items) e.CollectValues(out);
  }
}

}  // namespace

Expected<std::vector<Stage>> SplitIntoStages(const Graph& graph) {
  std::map<std::string, const DimSymbol*> data_symbols;
  for (const DimSymbol& s : graph.symbols) {
    if (s.from_data()) data_symbols[s.name] = &s;
  }
  std::vector<Stage> stages;
  if (data_symbols.empty()) {
    stages.push_back(Stage{graph, {}, {}});
    return stages;
  }
  // The stage of each value (inputs and constants: 0) and node: a node runs in the first
  // stage after everything it reads, and after the values of the data symbols it uses.
  std::vector<int> value_stage(graph.values.size(), 0);
  std::vector<bool> produced(graph.values.size(), false);
  std::vector<int> node_stage(graph.nodes.size(), 0);
  auto ready = [&](const DimSymbol& s) {
    return produced[s.value] ? value_stage[s.value] + 1 : 0;  // a graph input's: at once
  };
  int last = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    int stage = 0;
    for (ValueId id : node.inputs) stage = std::max(stage, value_stage[id]);
    std::set<int32_t> reads;
    CollectDimReads(node, reads);
    for (int32_t id : reads) stage = std::max(stage, value_stage[id]);
    std::set<std::string> symbols;
    CollectSymbols(node, graph, symbols);
    for (const std::string& name : symbols) {
      auto it = data_symbols.find(name);
      if (it == data_symbols.end()) continue;
      if (std::find(node.outputs.begin(), node.outputs.end(), it->second->value) !=
          node.outputs.end()) {
        return InvalidModel(graph.DescribeNode(n) + " uses symbol " + name +
                            ", whose size is the value it produces itself");
      }
      stage = std::max(stage, ready(*it->second));
    }
    node_stage[n] = stage;
    last = std::max(last, stage);
    for (ValueId id : node.outputs) {
      value_stage[id] = stage;
      produced[id] = true;
    }
  }

  // What each stage reads from outside itself: node inputs, dim() reads, and the values
  // of the data symbols known before it.
  const size_t count = static_cast<size_t>(last) + 1;
  std::vector<std::set<ValueId>> reads_from_outside(count);
  std::vector<std::set<std::string>> symbols_used(count);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    const int s = node_stage[n];
    std::set<int32_t> reads(node.inputs.begin(), node.inputs.end());
    CollectDimReads(node, reads);
    for (int32_t id : reads) {
      if (!produced[id] || value_stage[id] != s) reads_from_outside[s].insert(id);
    }
    CollectSymbols(node, graph, symbols_used[s]);
  }
  std::vector<bool> is_constant(graph.values.size(), false);
  std::map<ValueId, const Constant*> constant_of;
  for (const Constant& c : graph.constants) {
    is_constant[c.value] = true;
    constant_of[c.value] = &c;
  }
  // Values some later stage (or the caller) needs from each stage.
  std::vector<std::set<ValueId>> exported(count);
  for (size_t s = 0; s < count; ++s) {
    for (ValueId id : reads_from_outside[s]) {
      if (produced[id]) exported[value_stage[id]].insert(id);
    }
    for (const std::string& name : symbols_used[s]) {
      auto it = data_symbols.find(name);
      if (it != data_symbols.end() && produced[it->second->value]) {
        exported[value_stage[it->second->value]].insert(it->second->value);
      }
    }
  }
  for (ValueId id : graph.outputs) {
    exported[produced[id] ? value_stage[id] : 0].insert(id);
  }

  for (size_t s = 0; s < count; ++s) {
    Stage stage;
    Graph& g = stage.graph;
    g.producer = graph.producer;
    std::map<ValueId, ValueId> new_id;
    auto add_value = [&](ValueId old) {
      auto [it, inserted] = new_id.emplace(old, static_cast<ValueId>(g.values.size()));
      if (inserted) g.values.push_back(graph.values[old]);
      return it->second;
    };
    for (const DimSymbol& symbol : graph.symbols) {
      if (!symbol.from_data()) g.symbols.push_back(symbol);
    }
    // Inputs: graph inputs and earlier stages' values (a graph output that is a graph
    // input belongs to stage 0's inputs too).
    std::set<ValueId> inputs = reads_from_outside[s];
    if (s == 0) {
      for (ValueId id : graph.outputs) {
        if (!produced[id] && !is_constant[id]) inputs.insert(id);
      }
    }
    // Stage 0 takes every graph input, in the graph's order, even one no node reads (an
    // input that only gives a data symbol its value, as TopK's k): a run passes them all.
    std::vector<ValueId> ordered;
    if (s == 0) {
      ordered = graph.inputs;
      for (ValueId id : graph.inputs) inputs.erase(id);
    }
    ordered.insert(ordered.end(), inputs.begin(), inputs.end());
    for (ValueId old : ordered) {
      if (is_constant[old]) continue;
      const ValueId id = add_value(old);
      g.inputs.push_back(id);
      Value& v = g.values[id];
      if (!produced[old]) continue;  // a graph input keeps its own symbols
      // Sizes an earlier stage decided: fresh symbols, bound by the tensor it passes on.
      for (size_t d = 0; d < v.symbolic_shape.size(); ++d) {
        if (v.symbolic_shape[d].is_const()) continue;
        // '#' cannot start a symbol of a model (IsSymbolName), so no name clashes.
        DimSymbol fresh{"#" + std::to_string(old) + "." + std::to_string(d), -1, -1};
        v.symbolic_shape[d] = DimExpr::Symbol(fresh.name);
        g.symbols.push_back(std::move(fresh));
      }
    }
    // Constants the stage reads.
    for (ValueId old : reads_from_outside[s]) {
      if (!is_constant[old]) continue;
      Constant c = *constant_of[old];
      c.value = add_value(old);
      g.constants.push_back(std::move(c));
    }
    if (s == 0) {
      for (ValueId old : graph.outputs) {
        if (!is_constant[old] || new_id.count(old)) continue;
        Constant c = *constant_of[old];
        c.value = add_value(old);
        g.constants.push_back(std::move(c));
      }
    }
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      if (node_stage[n] != static_cast<int>(s)) continue;
      Node node = graph.nodes[n];
      for (ValueId& id : node.inputs) id = add_value(id);
      for (ValueId& id : node.outputs) id = add_value(id);
      for (auto& [name, expr] : node.attr_exprs) {
        for (DimExpr& e : expr.items) {
          e = e.MapValues([&](int32_t old) { return add_value(old); });
        }
      }
      g.nodes.push_back(std::move(node));
    }
    for (ValueId old : exported[s]) g.outputs.push_back(add_value(old));
    for (const auto& [name, symbol] : data_symbols) {
      if (ready(*symbol) <= static_cast<int>(s) && symbols_used[s].count(name)) {
        g.symbols.push_back({name, symbol->example, -1});  // its size comes from the session
        stage.data.emplace_back(name, graph.values[symbol->value].name);
      }
    }
    stages.push_back(std::move(stage));
  }
  return stages;
}

}  // namespace sy
