// Pass 1 on the binary graph section (format/graph_binary.h): the bytes are decoded with
// every read bounded, and the graph is checked as the JSON reader checks it (the shared
// checks are format/graph_checks.h, symbolic_structure.h and state_structure.h). Byte
// problems name their offset; graph problems name the value or node.
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "format/byte_io.h"
#include "format/graph_binary.h"
#include "format/graph_checks.h"
#include "format/state_structure.h"
#include "format/symbolic_structure.h"
#include "switchyard/op_tags.h"
#include "switchyard/plugin.h"

namespace sy::format {
namespace {

// A dtype is its plugin ABI code (sy_dtype), which is append-only like the op tags.
static_assert(static_cast<int>(DType::kF32) == SY_DTYPE_F32 &&
              static_cast<int>(DType::kBool) == SY_DTYPE_BOOL &&
              static_cast<int>(DType::kU32) == SY_DTYPE_U32 && kNumDTypes == 12);

// Messages are built only when something is wrong: a model of a thousand nodes reads
// tens of thousands of fields, and composing a description for each would cost more
// than the reading. Each item's reader reports what is wrong with it; the loop around
// it adds which item it is (Item()).
class GraphDecoder {
 public:
  GraphDecoder(std::span<const std::byte> section, uint64_t section_offset,
               std::span<const std::byte> weights, uint64_t weights_offset,
               std::shared_ptr<const void> owner)
      : in_(section, section_offset, "the graph section"),
        weights_(weights),
        weights_offset_(weights_offset),
        owner_(std::move(owner)) {}

  Expected<Graph> Decode() {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint32_t version, in_.U32("graph section version"));
    if (version != kGraphSectionVersion) {
      return in_.Error(
          at, "graph section version is " + std::to_string(version) + ", expected " +
                  std::to_string(kGraphSectionVersion) + " (this build reads version " +
                  std::to_string(kGraphSectionVersion) + "; a newer one needs a newer Switchyard)");
    }
    SY_ASSIGN_OR_RETURN(graph_.producer, in_.String("producer"));
    SY_RETURN_IF_ERROR(ReadSymbols());
    SY_RETURN_IF_ERROR(ReadValues());
    order_.emplace(graph_);
    SY_RETURN_IF_ERROR(ReadInputs());
    SY_RETURN_IF_ERROR(ReadConstants());
    SY_RETURN_IF_ERROR(ReadNodes());
    SY_RETURN_IF_ERROR(ReadOutputs());
    SY_RETURN_IF_ERROR(ReadState());
    if (!in_.at_end()) {
      return in_.Error(in_.offset(), "the graph is complete but " +
                                         std::to_string(in_.remaining()) +
                                         " bytes of the graph section follow (expected its end)");
    }
    SY_RETURN_IF_ERROR(order_->CheckAllDefined());
    SY_RETURN_IF_ERROR(CheckSymbolicStructure(graph_));
    SY_RETURN_IF_ERROR(CheckStateStructure(graph_));
    return std::move(graph_);
  }

 private:
  // How many items of a list to reserve room for: a count is checked against the bytes
  // left (ByteReader::Count), but an item in memory (a Value, a Node) is ten times the
  // bytes it takes in the file at least; beyond this the vector grows as items are read.
  static size_t Reservable(uint32_t count) { return std::min<size_t>(count, 1 << 16); }

  // "inputs[3]", "symbols[0]": an item of a list, for messages.
  static std::string Item(std::string_view list, size_t i) {
    return std::string(list) + "[" + std::to_string(i) + "]";
  }

  Expected<ValueId> ReadId(std::string_view what) {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint32_t id, in_.U32(what));
    if (id >= graph_.values.size()) {
      return in_.Error(at, std::string(what) + " is " + std::to_string(id) +
                               ", expected a value id in [0, " +
                               std::to_string(graph_.values.size()) + ")");
    }
    return static_cast<ValueId>(id);
  }

  // Expressions are parsed once per distinct text: a graph's shapes repeat a few
  // (batch, seq, past+seq) thousands of times, and copies of a DimExpr share its tree.
  Expected<DimExpr> ReadExpr(std::string_view what) {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(std::string_view text, in_.StringView(what));
    if (const auto it = parsed_.find(text); it != parsed_.end()) return it->second;
    Expected<DimExpr> expr = DimExpr::Parse(text);
    if (!expr.ok()) return in_.Error(at, std::string(what) + ": " + expr.status().message());
    if (parsed_.size() < kMaxParsedExpressions) parsed_.emplace(text, *expr);
    return expr;
  }

  Status ReadSymbols() {
    // name (>= 4 bytes), example (8), value (4)
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("symbol count", 16));
    for (uint32_t i = 0; i < n; ++i) {
      Status read = ReadSymbol();
      if (!read.ok()) return read.WithContext(Item("symbols", i));
    }
    return Status::Ok();
  }

  Status ReadSymbol() {
    const uint64_t at = in_.offset();
    DimSymbol symbol;
    SY_ASSIGN_OR_RETURN(symbol.name, in_.String("name"));
    if (!IsSymbolName(symbol.name)) {
      return in_.Error(at, "name \"" + symbol.name.substr(0, 200) +
                               "\" is not a symbol name (expected [A-Za-z_][A-Za-z0-9_.]*, at "
                               "most 128 characters, not dim, min or max)");
    }
    if (!symbol_names_.insert(symbol.name).second) {
      return in_.Error(at, "symbol " + symbol.name + " is declared twice");
    }
    const uint64_t example_at = in_.offset();
    SY_ASSIGN_OR_RETURN(symbol.example, in_.I64("example"));
    if (symbol.example < -1 || symbol.example > kMaxElementCount) {
      return in_.Error(example_at, "example is " + std::to_string(symbol.example) +
                                       ", expected a size of 0 or more, or -1 for none");
    }
    const uint64_t value_at = in_.offset();
    SY_ASSIGN_OR_RETURN(symbol.value, in_.I32("value"));
    if (symbol.value < -1) {
      return in_.Error(value_at, "value is " + std::to_string(symbol.value) +
                                     ", expected a value id, or -1 for none");
    }
    graph_.symbols.push_back(std::move(symbol));
    return Status::Ok();
  }

  Status ReadValues() {
    // name (>= 4), dtype (1), rank (4)
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("value count", 9));
    graph_.values.reserve(Reservable(n));
    names_.reserve(Reservable(n));
    for (uint32_t id = 0; id < n; ++id) {
      const uint64_t at = in_.offset();
      Value& value = graph_.values.emplace_back();  // read in place
      std::string_view name;  // a view into the section, which outlives names_
      Status read = ReadValue(value, name);
      if (!read.ok()) {
        return read.WithContext(value.name.empty()
                                    ? Item("values", id)
                                    : "value " + std::to_string(id) + " \"" + value.name + "\"");
      }
      if (const auto [it, inserted] = names_.emplace(name, id); !inserted) {
        return in_.Error(at, graph_.DescribeValue(static_cast<ValueId>(id)) +
                                 ": name is also used by value " + std::to_string(it->second) +
                                 " (expected unique names)");
      }
    }
    return Status::Ok();
  }

  Status ReadValue(Value& value, std::string_view& name) {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(name, in_.StringView("name"));
    if (name.empty()) return in_.Error(at, "name is empty");
    value.name = name;
    const uint64_t dtype_at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint8_t dtype, in_.U8("dtype"));
    if (dtype >= kNumDTypes) {
      return in_.Error(dtype_at, "dtype code " + std::to_string(dtype) +
                                     " is unknown (expected 0 to " +
                                     std::to_string(kNumDTypes - 1) + ", the sy_dtype codes)");
    }
    value.type.dtype = static_cast<DType>(dtype);
    SY_ASSIGN_OR_RETURN(uint32_t rank, in_.Count("rank", 8));
    value.type.shape.reserve(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      const uint64_t dim_at = in_.offset();
      SY_ASSIGN_OR_RETURN(int64_t dim, in_.I64("dim"));
      if (dim >= 0) {
        AppendConstantDim(value, dim);
      } else if (dim == -1) {
        Expected<DimExpr> expr = ReadExpr("expression");
        if (!expr.ok()) return expr.status().WithContext(Item("shape", d));
        AppendExprDim(value, std::move(*expr));
      } else {
        return in_.Error(dim_at, Item("shape", d) + " is " + std::to_string(dim) +
                                     ", expected a size of 0 or more, or -1 before an "
                                     "expression");
      }
    }
    // FinishShape names the value itself.
    Status finished = FinishShape(value, "");
    if (!finished.ok()) return in_.Error(at, finished.message());
    return Status::Ok();
  }

  // A u32 count and that many value ids, each in range; `list` names them in messages.
  Status ReadIds(std::vector<ValueId>& ids, std::string_view list) {
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("id count", 4));
    ids.resize(n);
    const uint64_t at = in_.offset();
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = in_.GetUnchecked<uint32_t>();  // Count found room for them
      if (id >= graph_.values.size()) {
        return in_.Error(at + 4 * i, Item(list, i) + ": value id is " + std::to_string(id) +
                                         ", expected a value id in [0, " +
                                         std::to_string(graph_.values.size()) + ")");
      }
      ids[i] = static_cast<ValueId>(id);
    }
    return Status::Ok();
  }

  Status ReadInputs() {
    SY_RETURN_IF_ERROR(ReadIds(graph_.inputs, "inputs"));
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      SY_RETURN_IF_ERROR(order_->Define(graph_.inputs[i], "graph " + Item("inputs", i)));
    }
    return Status::Ok();
  }

  Status ReadConstants() {
    // value (4), name (>= 4), offset (8), size (8)
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("constant count", 24));
    graph_.constants.reserve(Reservable(n));
    for (uint32_t i = 0; i < n; ++i) {
      Constant constant;
      Status read = ReadConstant(constant, i);
      if (!read.ok()) {
        std::string where = Item("constants", i);
        if (constant.value >= 0) where += " for " + graph_.DescribeValue(constant.value);
        return read.WithContext(where);
      }
      graph_.constants.push_back(std::move(constant));
    }
    return Status::Ok();
  }

  Status ReadConstant(Constant& constant, uint32_t i) {
    const uint64_t value_at = in_.offset();
    SY_ASSIGN_OR_RETURN(constant.value, ReadId("value"));
    if (!order_->TryDefine(constant.value)) {
      const ValueId id = constant.value;
      constant.value = -1;  // the message names it already
      return order_->DefinedTwice(id, Item("constants", i));
    }
    SY_ASSIGN_OR_RETURN(constant.tensor_name, in_.String("tensor name"));
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint64_t offset, in_.U64("offset"));
    SY_ASSIGN_OR_RETURN(uint64_t size, in_.U64("size"));
    const Value& value = graph_.values[constant.value];
    if (value.is_symbolic()) {
      return in_.Error(value_at,
                       "the value's shape is not constant (a constant has one static shape)");
    }
    const TensorType& type = value.type;
    SY_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(type.shape));
    const uint64_t expected = static_cast<uint64_t>(count) * DTypeSize(type.dtype);
    if (size != expected) {
      return in_.Error(at + 8, "size is " + std::to_string(size) + " bytes but " + type.ToString() +
                                   " takes " + std::to_string(expected));
    }
    if (offset % kWeightAlignment != 0 || offset > weights_.size() ||
        size > weights_.size() - offset) {
      return in_.Error(at, "bytes [" + std::to_string(offset) + ", +" + std::to_string(size) +
                               ") are not a range of the weights section (" +
                               std::to_string(weights_.size()) + " bytes at byte " +
                               std::to_string(weights_offset_) + ") starting at a multiple of " +
                               std::to_string(kWeightAlignment));
    }
    constant.data = Tensor::View(type.dtype, type.shape, owner_, weights_.data() + offset);
    return Status::Ok();
  }

  // A u32 length, then that many numbers (ints or floats attributes).
  template <typename T>
  Expected<AttrValue> ReadNumbers() {
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("length", sizeof(T)));
    std::vector<T> list(n);
    for (T& v : list) v = in_.GetUnchecked<T>();  // Count found room for them
    return AttrValue(std::move(list));
  }

  Expected<AttrValue> ReadAttrValue() {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint8_t kind, in_.U8("kind"));
    switch (static_cast<AttrKind>(kind)) {
      case AttrKind::kInt: {
        SY_ASSIGN_OR_RETURN(int64_t v, in_.I64("int"));
        return AttrValue(v);
      }
      case AttrKind::kFloat: {
        SY_ASSIGN_OR_RETURN(double v, in_.F64("float"));
        return AttrValue(v);
      }
      case AttrKind::kString: {
        SY_ASSIGN_OR_RETURN(std::string v, in_.String("string"));
        return AttrValue(std::move(v));
      }
      case AttrKind::kInts:
        return ReadNumbers<int64_t>();
      case AttrKind::kFloats:
        return ReadNumbers<double>();
      case AttrKind::kStrings: {
        SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("length", 4));
        std::vector<std::string> list;
        list.reserve(Reservable(n));
        for (uint32_t k = 0; k < n; ++k) {
          SY_ASSIGN_OR_RETURN(std::string s, in_.String("string"));
          list.push_back(std::move(s));
        }
        return AttrValue(std::move(list));
      }
    }
    return in_.Error(at, "kind is " + std::to_string(kind) +
                             ", expected 0 to 5 (int, float, string, ints, floats, strings)");
  }

  Status ReadAttrs(Node& node) {
    // name (>= 4), kind (1), payload (>= 4)
    SY_ASSIGN_OR_RETURN(uint32_t attrs, in_.Count("attribute count", 9));
    for (uint32_t k = 0; k < attrs; ++k) {
      const uint64_t at = in_.offset();
      SY_ASSIGN_OR_RETURN(std::string name, in_.String("attribute name"));
      Expected<AttrValue> value = ReadAttrValue();
      if (!value.ok()) return value.status().WithContext("attribute " + name);
      if (node.attrs.Has(name)) return in_.Error(at, "attribute " + name + " is given twice");
      node.attrs.Set(std::move(name), std::move(*value));
    }
    // name (>= 4), is_list (1), count (4)
    SY_ASSIGN_OR_RETURN(uint32_t exprs, in_.Count("attr_exprs count", 9));
    for (uint32_t k = 0; k < exprs; ++k) {
      const uint64_t at = in_.offset();
      SY_ASSIGN_OR_RETURN(std::string name, in_.String("attr_exprs name"));
      const std::string what = "attr_exprs." + name;
      if (node.attrs.Has(name) || node.attr_exprs.count(name) != 0) {
        return in_.Error(at, what + " is also given in attrs or attr_exprs");
      }
      const uint64_t list_at = in_.offset();
      SY_ASSIGN_OR_RETURN(uint8_t is_list, in_.U8(what + " is_list"));
      SY_ASSIGN_OR_RETURN(uint32_t count, in_.Count(what + " item count", 4));
      if (is_list > 1 || (is_list == 0 && count != 1)) {
        return in_.Error(list_at, what + ": is_list " + std::to_string(is_list) + " with " +
                                      std::to_string(count) +
                                      " items (expected 1 with any count, or 0 with one item)");
      }
      AttrExpr expr;
      expr.is_list = is_list == 1;
      for (uint32_t i = 0; i < count; ++i) {
        const uint64_t item_at = in_.offset();
        SY_ASSIGN_OR_RETURN(DimExpr e, ReadExpr(Item(what, i)));
        if (e.is_unknown())
          return in_.Error(item_at, what + " is \"?\", expected a computable dim");
        expr.items.push_back(std::move(e));
      }
      node.attr_exprs.emplace(name, std::move(expr));
    }
    return Status::Ok();
  }

  // Reads a node's bytes into `node`; errors say what is wrong, ReadNodes says which node.
  Status ReadNode(Node& node) {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint16_t tag, in_.U16("op tag"));
    node.op = std::string(OpOfTag(tag));
    if (node.op.empty()) {
      return in_.Error(at, "op tag " + std::to_string(tag) +
                               " names no op this build knows (written by a newer Switchyard? "
                               "docs/format.md, \"Op tags\")");
    }
    SY_RETURN_IF_ERROR(ReadAttrs(node));
    SY_RETURN_IF_ERROR(ReadIds(node.inputs, "inputs"));
    SY_RETURN_IF_ERROR(ReadIds(node.outputs, "outputs"));
    SY_ASSIGN_OR_RETURN(node.name, in_.String("name"));
    SY_ASSIGN_OR_RETURN(node.backend, in_.String("backend hint"));
    return Status::Ok();
  }

  // What node `index` reads and defines, and its backend hint: checked once it is read,
  // so that messages name the node as the JSON reader's do.
  Status CheckNode(size_t index, const Node& node) {
    auto described = [&] {
      std::string d = "node " + std::to_string(index) + " (" + node.op + ")";
      if (!node.name.empty()) d += " \"" + node.name + "\"";
      return d;
    };
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (!order_->IsDefined(node.inputs[k])) {
        return order_->CheckRead(node.inputs[k], described(), k);
      }
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (!order_->TryDefine(node.outputs[k])) {
        return order_->DefinedTwice(node.outputs[k], described() + " output " + std::to_string(k));
      }
    }
    if (node.backend.empty()) return Status::Ok();
    return CheckBackendHint(node.backend, described());
  }

  Status ReadNodes() {
    // tag (2), counts (4 x 4), name (4), backend (4)
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("node count", 26));
    graph_.nodes.reserve(Reservable(n));
    for (uint32_t i = 0; i < n; ++i) {
      Node& node = graph_.nodes.emplace_back();  // read in place: nothing moves
      Status read = ReadNode(node);
      if (!read.ok()) {
        return read.WithContext("node " + std::to_string(i) +
                                (node.op.empty() ? "" : " (" + node.op + ")"));
      }
      SY_RETURN_IF_ERROR(CheckNode(i, node));
    }
    return Status::Ok();
  }

  Status ReadOutputs() {
    SY_RETURN_IF_ERROR(ReadIds(graph_.outputs, "outputs"));
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      SY_RETURN_IF_ERROR(order_->AddGraphOutput(graph_.outputs[i], Item("outputs", i)));
    }
    return Status::Ok();
  }

  Status ReadState() {
    const uint64_t at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint8_t has_state, in_.U8("has_state"));
    if (has_state == 0) return Status::Ok();
    if (has_state != 1) {
      return in_.Error(at, "has_state is " + std::to_string(has_state) + ", expected 0 or 1");
    }
    Status read = ReadStateBody();
    if (!read.ok()) return read.WithContext("state");
    return Status::Ok();
  }

  Status ReadStateBody() {
    DecodingState& state = graph_.state;
    const uint64_t values_at = in_.offset();
    // input (4), output (4), axis (8)
    SY_ASSIGN_OR_RETURN(uint32_t n, in_.Count("value count", 16));
    if (n == 0) return in_.Error(values_at, "values is empty (expected one or more)");
    for (uint32_t i = 0; i < n; ++i) {
      StateValue value;
      SY_ASSIGN_OR_RETURN(value.input, ReadId(Item("values", i) + ".input"));
      SY_ASSIGN_OR_RETURN(value.output, ReadId(Item("values", i) + ".output"));
      SY_ASSIGN_OR_RETURN(value.axis, in_.I64(Item("values", i) + ".axis"));
      state.values.push_back(value);
    }
    const uint64_t position_at = in_.offset();
    SY_ASSIGN_OR_RETURN(int32_t position, in_.I32("position"));
    if (position < -1 || position >= static_cast<int64_t>(graph_.values.size())) {
      return in_.Error(position_at, "position is " + std::to_string(position) +
                                        ", expected a value id or -1 for none");
    }
    state.position = position;
    SY_ASSIGN_OR_RETURN(state.advance_input, ReadId("advance.input"));
    SY_ASSIGN_OR_RETURN(state.advance_axis, in_.I64("advance.axis"));
    const uint64_t ends_at = in_.offset();
    SY_ASSIGN_OR_RETURN(uint32_t ends, in_.Count("end_tokens count", 8));
    if (ends > kMaxEndTokens) {
      return in_.Error(ends_at, "end_tokens has " + std::to_string(ends) +
                                    " entries, expected at most " + std::to_string(kMaxEndTokens));
    }
    for (uint32_t i = 0; i < ends; ++i) {
      const uint64_t token_at = in_.offset();
      SY_ASSIGN_OR_RETURN(int64_t token, in_.I64("end token"));
      if (token < 0) {
        return in_.Error(token_at, Item("end_tokens", i) + " is " + std::to_string(token) +
                                       ", expected a token id (an integer >= 0)");
      }
      state.end_tokens.push_back(token);
    }
    return Status::Ok();
  }

  ByteReader in_;
  std::span<const std::byte> weights_;
  uint64_t weights_offset_;
  std::shared_ptr<const void> owner_;
  Graph graph_;
  std::unordered_set<std::string> symbol_names_;  // declared so far
  // Value name -> the id that has it; views the names in the section's bytes.
  std::unordered_map<std::string_view, uint32_t> names_;
  std::optional<DefinitionOrder> order_;
  // ReadExpr's parsed expressions by text (views into the section).
  static constexpr size_t kMaxParsedExpressions = 4096;
  std::unordered_map<std::string_view, DimExpr> parsed_;
};

}  // namespace

Expected<Graph> DecodeGraph(std::span<const std::byte> section, uint64_t section_offset,
                            std::span<const std::byte> weights, uint64_t weights_offset,
                            std::shared_ptr<const void> owner) {
  return GraphDecoder(section, section_offset, weights, weights_offset, std::move(owner)).Decode();
}

}  // namespace sy::format
