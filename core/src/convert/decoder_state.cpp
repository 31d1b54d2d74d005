// AddDecoderState (switchyard/decoder_state.h): from decoder-with-past graphs to graphs
// with decoding state. The dims are compared as canonical polynomials (ir/dim_poly.h), so
// `seq+past` and `past+seq` are one key length.
#include "switchyard/decoder_state.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "format/state_structure.h"
#include "ir/dim_poly.h"
#include "switchyard/model_io.h"

namespace sy {
namespace {

struct Pair {
  size_t concat = 0;  // node
  ValueId past = -1, present = -1;
  int64_t axis = 0;
};

// True when the canonical text `poly` names `symbol` as an atom.
bool Names(const std::string& poly, const std::string& symbol) {
  for (size_t at = poly.find(symbol); at != std::string::npos; at = poly.find(symbol, at + 1)) {
    const auto ident = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    };
    const bool before = at == 0 || !ident(poly[at - 1]);
    const bool after = at + symbol.size() == poly.size() || !ident(poly[at + symbol.size()]);
    if (before && after) return true;
  }
  return false;
}

class Converter {
 public:
  Converter(Graph& g, const DecoderStateOptions& options)
      : g_(g), capacity_(options.capacity), batch_(options.batch), options_(options) {}

  Status Run() {
    SY_RETURN_IF_ERROR(FindPairs());
    // Dims as the graph records them before any rewrite: a dim(V, A) in an expression
    // means V's axis A as exported (the key length is past + seq there, whatever it is
    // after), so expressions are compared through these.
    original_ = g_.values;
    resolve_ = [this](int32_t v, int64_t a) -> std::optional<DimPoly> {
      if (v < 0 || static_cast<size_t>(v) >= original_.size()) return std::nullopt;
      const Value& value = original_[v];
      if (a < 0 || a >= static_cast<int64_t>(value.type.shape.size())) return std::nullopt;
      if (!value.is_symbolic()) return DimPoly(value.type.shape[a]);
      return algebra_.FromExpr(value.symbolic_shape[a], resolve_);
    };
    past_ = algebra_.FromExpr(DimExpr::Symbol(past_symbol_));
    // Every present's length along its past axis is the key length, one for all.
    for (const Pair& p : pairs_) {
      const Value& present = g_.values[p.present];
      if (!present.is_symbolic() || static_cast<size_t>(p.axis) >= present.symbolic_shape.size()) {
        return InvalidArgument("--decoder-state: " + present.name + " is " +
                               ValueTypeString(present) + " (expected past + seq along axis " +
                               std::to_string(p.axis) + ")");
      }
      const DimPoly length = PolyOf(present.symbolic_shape[p.axis]);
      if (&p == &pairs_.front()) key_length_ = length;
      if (Compare(length, key_length_) != DimOrder::kEqual) {
        return InvalidArgument("--decoder-state: " + present.name + " has length " +
                               length.ToString() + " along its past axis but " +
                               g_.values[pairs_.front().present].name + " has " +
                               key_length_.ToString());
      }
    }
    // seq, the length each run adds, as a symbol of its own: what tells a position (past)
    // from a key extent (past + seq) in KeyExtent.
    const DimPoly seq = algebra_.Minus(key_length_, past_);
    if (seq.terms().size() == 1 && seq.terms().begin()->second == 1 &&
        seq.terms().begin()->first.size() == 1 && !IsOpaqueAtom(seq.terms().begin()->first[0])) {
      seq_atom_ = seq.terms().begin()->first[0];
    }
    // The position input.
    for (const Value& v : g_.values) {
      if (v.name == options_.position_input) {
        return InvalidArgument("--decoder-state: the graph already has a value named " +
                               options_.position_input +
                               " (the name of the position input it adds)");
      }
    }
    Value position;
    position.name = options_.position_input;
    position.type = {DType::kI64, {}};
    position_ = AddValue(std::move(position));
    g_.inputs.push_back(position_);
    SY_RETURN_IF_ERROR(RewriteNodes());
    SY_RETURN_IF_ERROR(SubstituteEverywhere());
    // The symbols left: those still used.
    std::set<std::string> used;
    for (const Value& v : g_.values) {
      for (const DimExpr& d : v.symbolic_shape) d.CollectSymbols(used);
    }
    for (const Node& n : g_.nodes) {
      for (const auto& [name, e] : n.attr_exprs) {
        for (const DimExpr& d : e.items) d.CollectSymbols(used);
      }
    }
    std::erase_if(g_.symbols, [&](const DimSymbol& s) { return used.count(s.name) == 0; });
    g_.state = DecodingState{};
    for (const Pair& p : pairs_) g_.state.values.push_back({p.past, p.present, p.axis});
    g_.state.position = position_;
    g_.state.advance_input = advance_;
    g_.state.advance_axis = 1;
    SY_RETURN_IF_ERROR(CheckStateStructure(g_));
    return ValidateGraphTypes(g_);
  }

 private:
  // `base`, or `base` with a number, so that no two values share a name (one ONNX node
  // may become several catalogue nodes that each read past).
  std::string UniqueName(const std::string& base) {
    if (names_.empty()) {
      for (const Value& v : g_.values) names_.insert(v.name);
    }
    std::string name = base;
    for (int k = 2; names_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  ValueId AddValue(Value v) {
    g_.values.push_back(std::move(v));
    return static_cast<ValueId>(g_.values.size() - 1);
  }

  Status FindPairs() {
    for (const DimSymbol& symbol : g_.symbols) {
      if (symbol.name == kKeyAtom) {
        return InvalidArgument(std::string("--decoder-state: the graph has a symbol named ") +
                               kKeyAtom + ", the name the conversion gives the key length");
      }
    }
    for (ValueId id : g_.inputs) {
      if (g_.values[id].name == options_.advance_input) advance_ = id;
    }
    if (advance_ < 0) {
      return InvalidArgument("--decoder-state: the graph has no input \"" + options_.advance_input +
                             "\" (the token ids each run adds)");
    }
    if (g_.values[advance_].type.rank() < 2) {
      return InvalidArgument("--decoder-state: " + options_.advance_input + " is " +
                             ValueTypeString(g_.values[advance_]) +
                             " (expected [batch, seq]: each run adds seq positions)");
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const Node& node = g_.nodes[n];
      if (node.op != "concat" || node.inputs.size() != 2) continue;
      const ValueId past = node.inputs[0], present = node.outputs[0];
      const bool input = std::count(g_.inputs.begin(), g_.inputs.end(), past) != 0;
      const bool output = std::count(g_.outputs.begin(), g_.outputs.end(), present) != 0;
      if (!input || !output) continue;
      const Value& p = g_.values[past];
      const int64_t rank = p.type.rank();
      int64_t axis = node.attrs.GetInt("axis", 0);
      if (axis < 0) axis += rank;
      if (!p.is_symbolic() || axis < 0 || axis >= rank ||
          p.symbolic_shape[axis].kind() != DimExpr::Kind::kSymbol) {
        continue;
      }
      const std::string& symbol = p.symbolic_shape[axis].symbol();
      if (!past_symbol_.empty() && symbol != past_symbol_) {
        return InvalidArgument(
            "--decoder-state: the past inputs use two symbols for their "
            "length, " +
            past_symbol_ + " and " + symbol);
      }
      past_symbol_ = symbol;
      if (rank > 0 && p.symbolic_shape[0].kind() == DimExpr::Kind::kSymbol && axis != 0) {
        batch_symbol_ = p.symbolic_shape[0].symbol();
      }
      pairs_.push_back({n, past, present, axis});
    }
    if (pairs_.empty()) {
      return InvalidArgument(
          "--decoder-state: no past/present pair found (expected graph "
          "inputs of a symbolic length, each extended by a Concat into a "
          "graph output: the decoder-with-past form of exporters)");
    }
    return Status::Ok();
  }

  // `poly` with each atom of `with` replaced by its polynomial; nullopt when an opaque
  // atom (a quotient, a min) reads one of them, which a substitution cannot reach.
  std::optional<DimPoly> Rewrite(const DimPoly& poly, const std::map<std::string, DimPoly>& with) {
    DimPoly out;
    for (const auto& [atoms, coefficient] : poly.terms()) {
      DimPoly term(coefficient);
      for (const std::string& atom : atoms) {
        auto it = with.find(atom);
        if (it != with.end()) {
          term = algebra_.Times(term, it->second);
          continue;
        }
        if (IsOpaqueAtom(atom)) {
          for (const auto& [symbol, unused] : with) {
            if (Names(atom, symbol)) return std::nullopt;
          }
        }
        term = algebra_.Times(term, DimPoly::Atom(atom));
      }
      out = algebra_.Plus(out, term);
    }
    return out;
  }

  // A size that reads the past length only through the key length K = past + seq (the
  // length of every present): written as a polynomial in K (past = K - seq), each term
  // that reads seq reads K too. Such a size measures the key axis or a multiple of it (a
  // mask over batch x K flattened, K - 1, K * seq), which the converted graph pads to the
  // capacity, so it becomes the same polynomial at K = capacity (and the batch as 1).
  // What reads past otherwise (past itself, past + 1: where this run's positions start)
  // is a position, which only a node rewrite can compute (from cache_position): nullopt.
  std::optional<DimPoly> KeyExtent(const DimPoly& poly) {
    if (seq_atom_.empty()) {  // seq has no symbol of its own: only K itself is known
      if (Compare(poly, key_length_) != DimOrder::kEqual) return std::nullopt;
      return DimPoly(capacity_);
    }
    const DimPoly key = DimPoly::Atom(kKeyAtom);
    std::optional<DimPoly> in_key =
        Rewrite(poly, {{past_symbol_, algebra_.Minus(key, DimPoly::Atom(seq_atom_))}});
    if (!in_key || in_key->HasOpaque()) return std::nullopt;
    for (const auto& [atoms, coefficient] : in_key->terms()) {
      const bool seq = std::count(atoms.begin(), atoms.end(), seq_atom_) != 0;
      const bool k = std::count(atoms.begin(), atoms.end(), kKeyAtom) != 0;
      if (seq && !k) return std::nullopt;
    }
    std::map<std::string, DimPoly> bound = {{kKeyAtom, DimPoly(capacity_)}};
    if (!batch_symbol_.empty()) bound[batch_symbol_] = DimPoly(batch_);
    return Rewrite(*in_key, bound);
  }

  // `e` with the key length as the capacity (KeyExtent), the batch as 1; what else reads
  // the past length is left as it is (and refused unless its node is rewritten).
  DimExpr Substitute(const DimExpr& e) {
    const DimPoly poly = PolyOf(e);  // once: it resolves every dim() the expression reads
    if (Names(poly.ToString(), past_symbol_)) {
      if (std::optional<DimPoly> extent = KeyExtent(poly)) {
        if (std::optional<int64_t> c = extent->AsConst()) return DimExpr(*c);
        if (Expected<DimExpr> parsed = DimExpr::Parse(extent->ToString()); parsed.ok()) {
          return *parsed;
        }
      }
      return e;
    }
    if (e.kind() == DimExpr::Kind::kSymbol) {
      if (!batch_symbol_.empty() && e.symbol() == batch_symbol_) return DimExpr(batch_);
      return e;
    }
    if (e.kind() == DimExpr::Kind::kConst || e.kind() == DimExpr::Kind::kUnknown ||
        e.kind() == DimExpr::Kind::kDimOf) {
      return e;
    }
    return DimExpr::Binary(e.kind(), Substitute(e.lhs()), Substitute(e.rhs()));
  }

  // `limit - start` as an expression that does not read the past length, or nullopt.
  std::optional<DimExpr> Extent(const DimExpr& start, const DimExpr& limit) {
    const DimPoly extent = algebra_.Minus(PolyOf(limit), PolyOf(start));
    if (extent.HasOpaque() || Names(extent.ToString(), past_symbol_)) return std::nullopt;
    Expected<DimExpr> parsed = DimExpr::Parse(extent.ToString());
    if (!parsed.ok()) return std::nullopt;
    return *parsed;
  }

  bool IsPast(const DimExpr& e) { return Compare(PolyOf(e), past_) == DimOrder::kEqual; }

  // range(0, extent) + cache_position: positions past .. past + extent - 1 (i64).
  std::vector<Node> Positions(const DimExpr& extent, ValueId out, const std::string& label) {
    const std::string name = UniqueName(label + "/steps");
    Value steps;
    steps.name = name;
    steps.type = {DType::kI64, {-1}};
    steps.symbolic_shape = {extent};
    if (extent.is_const()) {
      steps.type.shape = {extent.value()};
      steps.symbolic_shape.clear();
    }
    const ValueId steps_id = AddValue(std::move(steps));
    Node range;
    range.op = "range";
    range.name = name;
    range.outputs = {steps_id};
    range.attrs.Set("start", 0.0);
    range.attrs.Set("delta", 1.0);
    range.attrs.Set("dtype", std::string("i64"));
    range.attr_exprs["limit"] = AttrExpr{false, {extent}};
    Node add;
    add.op = "add";
    add.name = label + "/positions";
    add.inputs = {steps_id, position_};
    add.outputs = {out};
    return {std::move(range), std::move(add)};
  }

  Status RewriteNodes() {
    std::vector<Node> nodes;
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      const std::string described = g_.DescribeNode(n);  // before the node moves out
      Node node = std::move(g_.nodes[n]);
      const std::string label = node.name.empty() ? "node" + std::to_string(n) : node.name;
      auto pair =
          std::find_if(pairs_.begin(), pairs_.end(), [&](const Pair& p) { return p.concat == n; });
      if (pair != pairs_.end()) {
        Node write;
        write.op = "cache_write";
        write.name = node.name;
        write.inputs = {pair->past, node.inputs[1], position_};
        write.outputs = {pair->present};
        write.attrs.Set("axis", pair->axis);
        nodes.push_back(std::move(write));
        continue;
      }
      const auto reads_past = [&] {
        for (const auto& [name, e] : node.attr_exprs) {
          for (const DimExpr& d : e.items) {
            const DimPoly poly = PolyOf(d);
            if (Names(poly.ToString(), past_symbol_) && !KeyExtent(poly)) return true;
          }
        }
        return false;
      };
      if (!reads_past()) {
        nodes.push_back(std::move(node));
        continue;
      }
      // A range from past: position ids.
      if (node.op == "range" && node.attr_exprs.count("start") && node.attr_exprs.count("limit") &&
          node.attrs.GetFloat("delta", 0) == 1.0 && node.attrs.GetString("dtype", "") == "i64" &&
          IsPast(node.attr_exprs["start"].items[0])) {
        if (std::optional<DimExpr> extent =
                Extent(node.attr_exprs["start"].items[0], node.attr_exprs["limit"].items[0])) {
          for (Node& made : Positions(*extent, node.outputs[0], label)) {
            nodes.push_back(std::move(made));
          }
          continue;
        }
      }
      // A slice of rows [past, past + n) along one axis: a gather of those rows.
      if (node.op == "slice" && node.attr_exprs.count("starts") && node.attr_exprs.count("ends")) {
        const std::vector<DimExpr>& starts = node.attr_exprs["starts"].items;
        const std::vector<DimExpr>& ends = node.attr_exprs["ends"].items;
        const AttrValue* axes = node.attrs.Find("axes");
        const auto* axis_list = axes ? std::get_if<std::vector<int64_t>>(axes) : nullptr;
        if (starts.size() == 1 && ends.size() == 1 && axis_list && axis_list->size() == 1 &&
            IsPast(starts[0])) {
          if (std::optional<DimExpr> extent = Extent(starts[0], ends[0])) {
            Value rows;
            rows.name = UniqueName(label + "/rows");
            rows.type = {DType::kI64, {-1}};
            rows.symbolic_shape = {*extent};
            const ValueId rows_id = AddValue(std::move(rows));
            for (Node& made : Positions(*extent, rows_id, label)) nodes.push_back(std::move(made));
            Node gather;
            gather.op = "gather";
            gather.name = node.name;
            gather.inputs = {node.inputs[0], rows_id};
            gather.outputs = node.outputs;
            gather.attrs.Set("axis", (*axis_list)[0]);
            nodes.push_back(std::move(gather));
            continue;
          }
        }
      }
      return InvalidArgument("--decoder-state: " + described + " reads " + past_symbol_ +
                             " in a way that is not converted (converted: a range from it, a "
                             "slice of rows from it, and sizes that read it only through the "
                             "key length past + seq)");
    }
    g_.nodes = std::move(nodes);
    return Status::Ok();
  }

  Status SubstituteEverywhere() {
    // The past inputs: the capacity on their past axis, the batch as 1.
    for (const Pair& p : pairs_) {
      Value& past = g_.values[p.past];
      for (size_t d = 0; d < past.symbolic_shape.size(); ++d) {
        const DimExpr dim = static_cast<int64_t>(d) == p.axis ? DimExpr(capacity_)
                                                              : Substitute(past.symbolic_shape[d]);
        if (!dim.is_const()) {
          return InvalidArgument("--decoder-state: " + past.name + " is " + ValueTypeString(past) +
                                 " (a state value needs fixed sizes but on the past axis)");
        }
        past.type.shape[d] = dim.value();
      }
      past.symbolic_shape.clear();
    }
    for (Value& v : g_.values) {
      if (!v.is_symbolic()) continue;
      bool all_const = true;
      for (size_t d = 0; d < v.symbolic_shape.size(); ++d) {
        const bool reads = ReadsPast(v.symbolic_shape[d]);
        v.symbolic_shape[d] = Substitute(v.symbolic_shape[d]);
        if (reads && ReadsPast(v.symbolic_shape[d])) {
          return InvalidArgument("--decoder-state: " + v.name + " has the dim " +
                                 v.symbolic_shape[d].ToString() + ", which is not converted");
        }
        const bool c = v.symbolic_shape[d].is_const();
        v.type.shape[d] = c ? v.symbolic_shape[d].value() : -1;
        all_const = all_const && c;
      }
      if (all_const) v.symbolic_shape.clear();
    }
    for (Node& n : g_.nodes) {
      for (auto& [name, e] : n.attr_exprs) {
        for (DimExpr& d : e.items) {
          const bool reads = ReadsPast(d);
          d = Substitute(d);
          if (reads && ReadsPast(d)) {
            return InvalidArgument("--decoder-state: an attribute " + name + " = " + d.ToString() +
                                   " still reads " + past_symbol_);
          }
        }
      }
    }
    return Status::Ok();
  }

  DimPoly PolyOf(const DimExpr& e) { return algebra_.FromExpr(e, resolve_); }
  // The expression depends on the past length, directly or through a dim it reads.
  bool ReadsPast(const DimExpr& e) { return Names(PolyOf(e).ToString(), past_symbol_); }

  Graph& g_;
  int64_t capacity_;
  int64_t batch_;
  const DecoderStateOptions& options_;
  DimAlgebra algebra_;
  std::vector<Value> original_;
  std::set<std::string> names_;  // every value's name, once UniqueName is first asked
  DimAlgebra::DimOfResolver resolve_;
  DimPoly past_;
  std::vector<Pair> pairs_;
  // The key length's stand-in while KeyExtent rewrites a size (a graph symbol of this
  // name is refused in FindPairs).
  static constexpr const char* kKeyAtom = "sy_key_length";
  std::string past_symbol_, batch_symbol_, seq_atom_;
  DimPoly key_length_;
  ValueId position_ = -1, advance_ = -1;
};

}  // namespace

Status AddDecoderState(Graph& graph, const DecoderStateOptions& options) {
  if (options.capacity < 1 || options.capacity > (int64_t{1} << 30)) {
    return InvalidArgument("--decoder-state " + std::to_string(options.capacity) +
                           ": expected a capacity of 1 to 2^30 positions");
  }
  if (options.batch < 1 || options.batch > 4096) {
    return InvalidArgument("--decoder-batch " + std::to_string(options.batch) +
                           ": expected 1 to 4096 sequences");
  }
  if (!graph.state.empty()) return InvalidArgument("the graph already has decoding state");
  // Converted on a copy: a refusal leaves the caller's graph as it was.
  Graph converted = graph;
  SY_RETURN_IF_ERROR(Converter(converted, options).Run());
  graph = std::move(converted);
  return Status::Ok();
}

Status AddDecoderState(Graph& graph, int64_t capacity) {
  DecoderStateOptions options;
  options.capacity = capacity;
  return AddDecoderState(graph, options);
}

}  // namespace sy
