// Pass 1 of loading (spec/graph-format.md, "What loading guarantees"): the JSON document
// is turned into a Graph while its structure is checked. Op semantics are pass 2
// (ops/validate_types.cpp).
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "format/graph_checks.h"
#include "format/inline_data.h"
#include "format/json_util.h"
#include "format/state_structure.h"
#include "format/symbolic_structure.h"
#include "switchyard/model_io.h"

namespace sy {
namespace {

namespace bj = boost::json;

// Walks one object's members, rejecting keys that are not in `known` (typos such as
// "node" for "nodes" would otherwise be silently ignored).
Status CheckKeys(const bj::object& obj, std::initializer_list<std::string_view> known,
                 std::string_view where) {
  for (const auto& member : obj) {
    const std::string_view key = member.key();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return InvalidModel(std::string(where) + ": unknown key \"" + std::string(key) +
                          "\" (expected " + list + ")");
    }
  }
  return Status::Ok();
}

Expected<const bj::array*> GetArray(const bj::object& obj, std::string_view key,
                                    std::string_view where, bool required) {
  const bj::value* v = obj.if_contains(key);
  if (v == nullptr) {
    if (!required) return static_cast<const bj::array*>(nullptr);
    return InvalidModel(std::string(where) + ": missing \"" + std::string(key) +
                        "\" (expected an array)");
  }
  if (!v->is_array()) {
    return InvalidModel(std::string(where) + ": \"" + std::string(key) + "\" is " +
                        std::string(json::KindName(*v)) + ", expected an array");
  }
  return &v->get_array();
}

Expected<std::string> GetString(const bj::object& obj, std::string_view key, std::string_view where,
                                bool required) {
  const bj::value* v = obj.if_contains(key);
  if (v == nullptr) {
    if (!required) return std::string();
    return InvalidModel(std::string(where) + ": missing \"" + std::string(key) +
                        "\" (expected a string)");
  }
  if (!v->is_string()) {
    return InvalidModel(std::string(where) + ": \"" + std::string(key) + "\" is " +
                        std::string(json::KindName(*v)) + ", expected a string");
  }
  return std::string(v->get_string());
}

class GraphReader {
 public:
  explicit GraphReader(const SafetensorsFile* weights) : weights_(weights) {}

  Expected<Graph> Read(std::string_view text) {
    SY_ASSIGN_OR_RETURN(bj::value root, json::Parse(text, kMaxGraphJsonDepth));
    const bj::object* obj = root.if_object();
    if (obj == nullptr) {
      return InvalidModel("the document is " + std::string(json::KindName(root)) +
                          ", expected a JSON object");
    }
    // Format and version first: a file of another format or version should be reported
    // as such, not as having unknown keys.
    SY_RETURN_IF_ERROR(ReadHeader(*obj));
    SY_RETURN_IF_ERROR(CheckKeys(*obj,
                                 {"format", "version", "producer", "symbols", "values", "inputs",
                                  "outputs", "constants", "nodes", "state"},
                                 "top level"));
    SY_ASSIGN_OR_RETURN(graph_.producer, GetString(*obj, "producer", "top level", false));
    SY_RETURN_IF_ERROR(ReadSymbols(*obj));
    SY_RETURN_IF_ERROR(ReadValues(*obj));
    SY_RETURN_IF_ERROR(ReadInputs(*obj));
    SY_RETURN_IF_ERROR(ReadConstants(*obj));
    SY_RETURN_IF_ERROR(ReadNodes(*obj));
    SY_RETURN_IF_ERROR(ReadOutputs(*obj));
    SY_RETURN_IF_ERROR(ReadState(*obj));
    SY_RETURN_IF_ERROR(order_->CheckAllDefined());
    SY_RETURN_IF_ERROR(CheckSymbolicStructure(graph_));
    SY_RETURN_IF_ERROR(CheckStateStructure(graph_));
    return std::move(graph_);
  }

 private:
  Status ReadHeader(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(std::string format, GetString(obj, "format", "top level", true));
    if (format != "rml-graph") {
      return InvalidModel("format is \"" + format + "\", expected \"rml-graph\"");
    }
    const bj::value* version = obj.if_contains("version");
    if (version == nullptr) return InvalidModel("missing \"version\" (expected 1)");
    const std::optional<int64_t> v = json::AsInt64(*version);
    if (!v || *v != 1) {
      return InvalidModel("version is " + json::Describe(*version) +
                          ", expected 1 (this build reads rml-graph version 1)");
    }
    return Status::Ok();
  }

  Status ReadValues(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* values, GetArray(obj, "values", "top level", true));
    graph_.values.reserve(values->size());
    std::unordered_map<std::string, size_t> names;  // name -> the id that has it
    for (size_t id = 0; id < values->size(); ++id) {
      const std::string where = "values[" + std::to_string(id) + "]";
      const bj::object* v = (*values)[id].if_object();
      if (v == nullptr) {
        return InvalidModel(where + " is " + std::string(json::KindName((*values)[id])) +
                            ", expected an object");
      }
      SY_RETURN_IF_ERROR(CheckKeys(*v, {"name", "dtype", "shape"}, where));
      Value value;
      SY_ASSIGN_OR_RETURN(value.name, GetString(*v, "name", where, true));
      if (value.name.empty()) return InvalidModel(where + ": name is empty");
      const std::string described = "value " + std::to_string(id) + " \"" + value.name + "\"";
      if (const auto [it, inserted] = names.emplace(value.name, id); !inserted) {
        return InvalidModel(described + ": name is also used by value " +
                            std::to_string(it->second) + " (expected unique names)");
      }
      SY_ASSIGN_OR_RETURN(std::string dtype, GetString(*v, "dtype", described, true));
      const std::optional<DType> parsed = ParseDTypeName(dtype);
      if (!parsed) {
        return InvalidModel(described + ": unknown dtype \"" + dtype +
                            "\" (expected one of f32 f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 bool)");
      }
      value.type.dtype = *parsed;
      SY_ASSIGN_OR_RETURN(const bj::array* shape, GetArray(*v, "shape", described, true));
      for (size_t d = 0; d < shape->size(); ++d) {
        const std::string where_dim = described + ": shape[" + std::to_string(d) + "]";
        if (const bj::string* text = (*shape)[d].if_string()) {
          // A symbolic dim (docs/dynamic-shapes.md): a symbol, an expression or "?".
          Expected<DimExpr> expr = DimExpr::Parse(std::string_view(*text));
          if (!expr.ok()) return expr.status().WithContext(where_dim);
          format::AppendExprDim(value, std::move(*expr));
          continue;
        }
        const std::optional<int64_t> dim = json::AsInt64((*shape)[d]);
        if (!dim || *dim < 0) {
          return InvalidModel(where_dim + " is " + json::Describe((*shape)[d]) +
                              ", expected a non-negative integer or a dim expression string");
        }
        format::AppendConstantDim(value, *dim);
      }
      SY_RETURN_IF_ERROR(format::FinishShape(value, described));
      graph_.values.push_back(std::move(value));
    }
    order_.emplace(graph_);
    return Status::Ok();
  }

  // Reads an id that must be in range; `where` describes the reference for errors.
  Expected<ValueId> ReadId(const bj::value& v, const std::string& where) const {
    const std::optional<int64_t> id = json::AsInt64(v);
    if (!id || *id < 0 || *id >= static_cast<int64_t>(graph_.values.size())) {
      return InvalidModel(where + " is " + json::Describe(v) + ", expected a value id in [0, " +
                          std::to_string(graph_.values.size()) + ")");
    }
    return static_cast<ValueId>(*id);
  }

  Status ReadInputs(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* inputs, GetArray(obj, "inputs", "top level", true));
    for (size_t i = 0; i < inputs->size(); ++i) {
      const std::string where = "inputs[" + std::to_string(i) + "]";
      SY_ASSIGN_OR_RETURN(ValueId id, ReadId((*inputs)[i], where));
      SY_RETURN_IF_ERROR(order_->Define(id, "graph " + where));
      graph_.inputs.push_back(id);
    }
    return Status::Ok();
  }

  Status ReadConstants(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* constants, GetArray(obj, "constants", "top level", false));
    if (constants == nullptr) return Status::Ok();
    for (size_t i = 0; i < constants->size(); ++i) {
      std::string where = "constants[" + std::to_string(i) + "]";
      const bj::object* c = (*constants)[i].if_object();
      if (c == nullptr) {
        return InvalidModel(where + " is " + std::string(json::KindName((*constants)[i])) +
                            ", expected an object");
      }
      SY_RETURN_IF_ERROR(CheckKeys(*c, {"value", "tensor", "data"}, where));
      const bj::value* value = c->if_contains("value");
      if (value == nullptr) return InvalidModel(where + ": missing \"value\" (expected an id)");
      Constant constant;
      SY_ASSIGN_OR_RETURN(constant.value, ReadId(*value, where + ".value"));
      where += " for " + graph_.DescribeValue(constant.value);
      SY_RETURN_IF_ERROR(order_->Define(constant.value, where));
      const TensorType& type = graph_.values[constant.value].type;
      const bool has_tensor = c->contains("tensor");
      const bool has_data = c->contains("data");
      if (has_tensor == has_data) {
        return InvalidModel(where + ": expected exactly one of \"tensor\" and \"data\"");
      }
      if (has_tensor) {
        SY_ASSIGN_OR_RETURN(constant.tensor_name, GetString(*c, "tensor", where, true));
        if (constant.tensor_name.empty()) {
          return InvalidModel(where + ": \"tensor\" is empty (expected a safetensors tensor name)");
        }
        SY_ASSIGN_OR_RETURN(constant.data, LoadStored(constant.tensor_name, type, where));
      } else {
        SY_ASSIGN_OR_RETURN(const bj::array* data, GetArray(*c, "data", where, true));
        Expected<Tensor> tensor = InlineDataToTensor(*data, type);
        if (!tensor.ok()) return InvalidModel(tensor.status().WithContext(where).message());
        constant.data = std::move(*tensor);
      }
      graph_.constants.push_back(std::move(constant));
    }
    return Status::Ok();
  }

  Expected<Tensor> LoadStored(const std::string& name, const TensorType& type,
                              const std::string& where) const {
    if (weights_ == nullptr) {
      return InvalidModel(where + ": names stored tensor \"" + name +
                          "\" but the model has no safetensors file (expected <stem>.safetensors "
                          "beside the JSON)");
    }
    const SafetensorsFile::Entry* entry = weights_->Find(name);
    if (entry == nullptr) {
      return InvalidModel(where + ": tensor \"" + name + "\" is not in " + weights_->source_name());
    }
    const TensorType stored{entry->dtype, entry->shape};
    if (stored != type) {
      return InvalidModel(where + ": tensor \"" + name + "\" in " + weights_->source_name() +
                          " is " + stored.ToString() + " but the value is recorded as " +
                          type.ToString());
    }
    Expected<Tensor> tensor = weights_->Get(name);
    if (!tensor.ok()) return tensor.status().WithContext(where);
    return tensor;
  }

  Status ReadNodes(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* nodes, GetArray(obj, "nodes", "top level", true));
    graph_.nodes.reserve(nodes->size());
    for (size_t i = 0; i < nodes->size(); ++i) {
      std::string where = "node " + std::to_string(i);
      const bj::object* n = (*nodes)[i].if_object();
      if (n == nullptr) {
        return InvalidModel(where + " is " + std::string(json::KindName((*nodes)[i])) +
                            ", expected an object");
      }
      SY_RETURN_IF_ERROR(CheckKeys(
          *n, {"op", "inputs", "outputs", "attrs", "attr_exprs", "name", "backend"}, where));
      Node node;
      SY_ASSIGN_OR_RETURN(node.op, GetString(*n, "op", where, true));
      if (node.op.empty()) {
        return InvalidModel(where + ": \"op\" is empty (expected an op name such as \"matmul\")");
      }
      SY_ASSIGN_OR_RETURN(node.name, GetString(*n, "name", where, false));
      where += " (" + node.op + ")";
      if (!node.name.empty()) where += " \"" + node.name + "\"";
      SY_ASSIGN_OR_RETURN(node.backend, GetString(*n, "backend", where, false));
      SY_RETURN_IF_ERROR(format::CheckBackendHint(node.backend, where));
      SY_ASSIGN_OR_RETURN(const bj::array* inputs, GetArray(*n, "inputs", where, true));
      for (size_t k = 0; k < inputs->size(); ++k) {
        SY_ASSIGN_OR_RETURN(ValueId id,
                            ReadId((*inputs)[k], where + ": inputs[" + std::to_string(k) + "]"));
        SY_RETURN_IF_ERROR(order_->CheckRead(id, where, k));
        node.inputs.push_back(id);
      }
      SY_ASSIGN_OR_RETURN(const bj::array* outputs, GetArray(*n, "outputs", where, true));
      for (size_t k = 0; k < outputs->size(); ++k) {
        SY_ASSIGN_OR_RETURN(ValueId id,
                            ReadId((*outputs)[k], where + ": outputs[" + std::to_string(k) + "]"));
        SY_RETURN_IF_ERROR(order_->Define(id, where + " output " + std::to_string(k)));
        node.outputs.push_back(id);
      }
      if (const bj::value* attrs = n->if_contains("attrs")) {
        SY_RETURN_IF_ERROR(ReadAttrs(*attrs, where, node.attrs));
      }
      if (const bj::value* exprs = n->if_contains("attr_exprs")) {
        SY_RETURN_IF_ERROR(ReadAttrExprs(*exprs, where, node));
      }
      graph_.nodes.push_back(std::move(node));
    }
    return Status::Ok();
  }

  // "attr_exprs": {"shape": ["batch", "seq", 12, 64], "limit": "past+seq"}.
  static Status ReadAttrExprs(const bj::value& json_exprs, const std::string& where, Node& node) {
    const bj::object* exprs = json_exprs.if_object();
    if (exprs == nullptr) {
      return InvalidModel(where + ": attr_exprs is " + std::string(json::KindName(json_exprs)) +
                          ", expected an object");
    }
    auto item = [](const bj::value& v, const std::string& what) -> Expected<DimExpr> {
      if (const bj::string* text = v.if_string()) {
        Expected<DimExpr> e = DimExpr::Parse(std::string_view(*text));
        if (!e.ok()) return e.status().WithContext(what);
        if (e->is_unknown()) return InvalidModel(what + " is \"?\", expected a computable dim");
        return e;
      }
      const std::optional<int64_t> i = json::AsInt64(v);
      if (!i) {
        return InvalidModel(what + " is " + json::Describe(v) +
                            ", expected an integer or a dim expression string");
      }
      return DimExpr(*i);
    };
    for (const auto& member : *exprs) {
      const std::string name(member.key());
      const std::string what = where + ": attr_exprs." + name;
      if (node.attrs.Has(name)) return InvalidModel(what + " is also given in attrs");
      AttrExpr expr;
      if (const bj::array* list = member.value().if_array()) {
        for (size_t k = 0; k < list->size(); ++k) {
          SY_ASSIGN_OR_RETURN(DimExpr e, item((*list)[k], what + "[" + std::to_string(k) + "]"));
          expr.items.push_back(std::move(e));
        }
      } else {
        expr.is_list = false;
        SY_ASSIGN_OR_RETURN(DimExpr e, item(member.value(), what));
        expr.items.push_back(std::move(e));
      }
      node.attr_exprs.emplace(name, std::move(expr));
    }
    return Status::Ok();
  }

  // "symbols": [{"name": "batch", "example": 2}, ...]
  Status ReadSymbols(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* symbols, GetArray(obj, "symbols", "top level", false));
    if (symbols == nullptr) return Status::Ok();
    for (size_t i = 0; i < symbols->size(); ++i) {
      const std::string where = "symbols[" + std::to_string(i) + "]";
      const bj::object* s = (*symbols)[i].if_object();
      if (s == nullptr) {
        return InvalidModel(where + " is " + std::string(json::KindName((*symbols)[i])) +
                            ", expected an object");
      }
      SY_RETURN_IF_ERROR(CheckKeys(*s, {"name", "example", "value"}, where));
      DimSymbol symbol;
      SY_ASSIGN_OR_RETURN(symbol.name, GetString(*s, "name", where, true));
      if (!IsSymbolName(symbol.name)) {
        return InvalidModel(where + ": name \"" + symbol.name.substr(0, 200) +
                            "\" is not a symbol name (expected [A-Za-z_][A-Za-z0-9_.]*, at most "
                            "128 characters, not dim, min or max)");
      }
      if (!symbol_names_.insert(symbol.name).second) {
        return InvalidModel(where + ": symbol " + symbol.name + " is declared twice");
      }
      if (const bj::value* example = s->if_contains("example")) {
        const std::optional<int64_t> e = json::AsInt64(*example);
        if (!e || *e < 0 || *e > kMaxElementCount) {
          return InvalidModel(where + ": example is " + json::Describe(*example) +
                              ", expected a size of 0 or more");
        }
        symbol.example = *e;
      }
      if (const bj::value* value = s->if_contains("value")) {
        // Checked against the values once they are read (CheckSymbolicStructure).
        const std::optional<int64_t> id = json::AsInt64(*value);
        if (!id || *id < 0 || *id > std::numeric_limits<int32_t>::max()) {
          return InvalidModel(where + ": value is " + json::Describe(*value) +
                              ", expected a value id");
        }
        symbol.value = static_cast<int32_t>(*id);
      }
      graph_.symbols.push_back(std::move(symbol));
    }
    return Status::Ok();
  }

  static Status ReadAttrs(const bj::value& attrs_json, const std::string& where, Attrs& out) {
    const bj::object* attrs = attrs_json.if_object();
    if (attrs == nullptr) {
      return InvalidModel(where + ": attrs is " + std::string(json::KindName(attrs_json)) +
                          ", expected an object");
    }
    for (const auto& member : *attrs) {
      const std::string name(member.key());
      Expected<AttrValue> value = ReadAttrValue(member.value());
      if (!value.ok()) {
        return InvalidModel(where + ": attribute " + name + " " + value.status().message());
      }
      out.Set(name, std::move(*value));
    }
    return Status::Ok();
  }

  static Expected<AttrValue> ReadAttrValue(const bj::value& v) {
    if (const bool* b = v.if_bool()) return AttrValue(int64_t{*b ? 1 : 0});
    if (v.is_int64() || v.is_uint64()) {
      const std::optional<int64_t> i = json::AsInt64(v);
      if (!i) return InvalidModel("is " + json::Describe(v) + ", out of the int64 range");
      return AttrValue(*i);
    }
    if (const double* d = v.if_double()) return AttrValue(*d);
    if (const bj::string* s = v.if_string()) return AttrValue(std::string(*s));
    if (const bj::array* a = v.if_array()) {
      if (a->empty()) return AttrValue(std::vector<int64_t>{});
      if ((*a)[0].is_string()) {
        std::vector<std::string> strings;
        for (const bj::value& item : *a) {
          if (!item.is_string()) {
            return InvalidModel("mixes strings and " + std::string(json::KindName(item)) +
                                " (expected an array of numbers or of strings)");
          }
          strings.emplace_back(item.get_string());
        }
        return AttrValue(std::move(strings));
      }
      bool all_int = true;
      std::vector<double> doubles;
      std::vector<int64_t> ints;
      for (const bj::value& item : *a) {
        if (!item.is_number()) {
          return InvalidModel("contains " + std::string(json::KindName(item)) +
                              " (expected an array of numbers or of strings)");
        }
        if (item.is_double()) {
          all_int = false;
        } else {
          const std::optional<int64_t> i = json::AsInt64(item);
          if (!i)
            return InvalidModel("contains " + json::Describe(item) + ", out of the int64 range");
          ints.push_back(*i);
        }
        doubles.push_back(*json::AsDouble(item));
      }
      if (all_int) return AttrValue(std::move(ints));
      return AttrValue(std::move(doubles));
    }
    return InvalidModel("is " + std::string(json::KindName(v)) +
                        " (expected a number, string, boolean, or array of numbers or strings)");
  }

  Status ReadOutputs(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::array* outputs, GetArray(obj, "outputs", "top level", true));
    for (size_t i = 0; i < outputs->size(); ++i) {
      const std::string where = "outputs[" + std::to_string(i) + "]";
      SY_ASSIGN_OR_RETURN(ValueId id, ReadId((*outputs)[i], where));
      SY_RETURN_IF_ERROR(order_->AddGraphOutput(id, where));
      graph_.outputs.push_back(id);
    }
    return Status::Ok();
  }

  // An object member `key` of `obj`, or null when absent and not `required`.
  static Expected<const bj::object*> GetObject(const bj::object& obj, std::string_view key,
                                               const std::string& where, bool required) {
    const bj::value* v = obj.if_contains(key);
    if (v == nullptr) {
      if (required) return InvalidModel(where + ": missing \"" + std::string(key) + "\"");
      return static_cast<const bj::object*>(nullptr);
    }
    if (const bj::object* o = v->if_object()) return o;
    return InvalidModel(where + ": " + std::string(key) + " is " + std::string(json::KindName(*v)) +
                        ", expected an object");
  }

  Expected<int64_t> GetAxis(const bj::object& obj, const std::string& where) const {
    const bj::value* v = obj.if_contains("axis");
    if (v == nullptr) return InvalidModel(where + ": missing \"axis\"");
    const std::optional<int64_t> axis = json::AsInt64(*v);
    if (!axis) return InvalidModel(where + ": axis is " + json::Describe(*v) + ", expected an int");
    return *axis;
  }

  // "state": {"values": [{"input": 3, "output": 9, "axis": 2}, ...], "position": 1,
  //           "advance": {"input": 0, "axis": 1}} (docs/decoding.md); checked against the
  // graph's inputs and outputs by CheckStateStructure.
  Status ReadState(const bj::object& obj) {
    SY_ASSIGN_OR_RETURN(const bj::object* state, GetObject(obj, "state", "top level", false));
    if (state == nullptr) return Status::Ok();
    SY_RETURN_IF_ERROR(CheckKeys(*state, {"values", "position", "advance", "end_tokens"}, "state"));
    SY_ASSIGN_OR_RETURN(const bj::array* values, GetArray(*state, "values", "state", true));
    if (values->empty()) return InvalidModel("state: values is empty (expected one or more)");
    for (size_t i = 0; i < values->size(); ++i) {
      const std::string where = "state.values[" + std::to_string(i) + "]";
      const bj::object* v = (*values)[i].if_object();
      if (v == nullptr) {
        return InvalidModel(where + " is " + std::string(json::KindName((*values)[i])) +
                            ", expected an object");
      }
      SY_RETURN_IF_ERROR(CheckKeys(*v, {"input", "output", "axis"}, where));
      StateValue value;
      for (const char* key : {"input", "output"}) {
        const bj::value* id = v->if_contains(key);
        if (id == nullptr) return InvalidModel(where + ": missing \"" + std::string(key) + "\"");
        SY_ASSIGN_OR_RETURN(ValueId read, ReadId(*id, where + "." + key));
        (std::string_view(key) == "input" ? value.input : value.output) = read;
      }
      SY_ASSIGN_OR_RETURN(value.axis, GetAxis(*v, where));
      graph_.state.values.push_back(value);
    }
    if (const bj::value* position = state->if_contains("position")) {
      SY_ASSIGN_OR_RETURN(graph_.state.position, ReadId(*position, "state.position"));
    }
    SY_ASSIGN_OR_RETURN(const bj::object* advance, GetObject(*state, "advance", "state", true));
    SY_RETURN_IF_ERROR(CheckKeys(*advance, {"input", "axis"}, "state.advance"));
    const bj::value* input = advance->if_contains("input");
    if (input == nullptr) return InvalidModel("state.advance: missing \"input\"");
    SY_ASSIGN_OR_RETURN(graph_.state.advance_input, ReadId(*input, "state.advance.input"));
    SY_ASSIGN_OR_RETURN(graph_.state.advance_axis, GetAxis(*advance, "state.advance"));
    if (const bj::value* ends = state->if_contains("end_tokens")) {
      const bj::array* ids = ends->if_array();
      if (ids == nullptr || ids->size() > format::kMaxEndTokens) {
        return InvalidModel("state.end_tokens is " + std::string(json::KindName(*ends)) +
                            (ids ? " of " + std::to_string(ids->size()) + " entries" : "") +
                            ", expected an array of at most " +
                            std::to_string(format::kMaxEndTokens) + " token ids");
      }
      for (size_t i = 0; i < ids->size(); ++i) {
        const bj::value& id = (*ids)[i];
        if (!id.is_int64() || id.as_int64() < 0) {
          return InvalidModel("state.end_tokens[" + std::to_string(i) + "] is " +
                              bj::serialize(id) + ", expected a token id (an integer >= 0)");
        }
        graph_.state.end_tokens.push_back(id.as_int64());
      }
    }
    return Status::Ok();
  }

  const SafetensorsFile* weights_;
  Graph graph_;
  std::unordered_set<std::string> symbol_names_;  // declared so far
  // Set once the values are read: what defines each, and in what order.
  std::optional<format::DefinitionOrder> order_;
};

}  // namespace

Expected<Graph> ParseGraphJson(std::string_view json, const SafetensorsFile* weights) {
  return GraphReader(weights).Read(json);
}

}  // namespace sy
