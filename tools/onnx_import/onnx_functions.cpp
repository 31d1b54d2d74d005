// Function expansion (onnx_functions.h).
#include "onnx_functions.h"
#include "subgraph_names.h"

#include <set>
#include <utility>

#include "onnx_schemas.h"

namespace sy::onnx_import {
namespace {

// Bounds on what a hostile model can make the expander build: nesting (a call chain of
// bodies) and the expanded node count.
constexpr int kMaxDepth = 64;
constexpr size_t kMaxNodes = 1'000'000;

// "" and "ai.onnx" are one domain (onnx_schemas.h); a string for the maps' keys.
std::string Domain(const std::string& domain) { return std::string(CanonicalOnnxDomain(domain)); }

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string FunctionLabel(const std::string& domain, const std::string& name) {
  return domain.empty() ? name : domain + ":" + name;
}

// The defaults a body's attribute references fall back to.
using AttrDefaults = std::map<std::string, onnx::AttributeProto, std::less<>>;

class Expander {
 public:
  Expander(const onnx::ModelProto& model, const IsMapped& is_mapped)
      : model_(model), is_mapped_(is_mapped) {}

  Expected<FlatGraph> Run() {
    const onnx::GraphProto& graph = model_.graph();
    for (const onnx::FunctionProto& f : model_.functions()) {
      const auto key = std::make_tuple(Domain(f.domain()), f.name(), f.overload());
      if (!local_.emplace(key, &f).second) {
        return InvalidModel("the model defines function " + FunctionLabel(f.domain(), f.name()) +
                            " twice");
      }
    }
    for (const auto& v : graph.input()) names_.insert(v.name());
    for (const auto& t : graph.initializer()) names_.insert(t.name());
    for (const auto& n : graph.node()) names_.insert(n.output().begin(), n.output().end());
    auto opsets = std::make_shared<OpsetMap>();
    for (const auto& o : model_.opset_import()) (*opsets)[Domain(o.domain())] = o.version();
    model_opsets_ = opsets;
    SY_RETURN_IF_ERROR(Walk(graph.node(), opsets, "", 0));
    return std::move(out_);
  }

 private:
  Status Walk(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
              const std::shared_ptr<const OpsetMap>& opsets, const std::string& origin, int depth) {
    for (int i = 0; i < nodes.size(); ++i) {
      const onnx::NodeProto& node = nodes.Get(i);
      const std::string domain = Domain(node.domain());
      std::string where = node.op_type() + " node " + std::to_string(i);
      if (!node.name().empty()) where += " " + Quoted(node.name());
      where += origin;
      if (auto it = local_.find(std::make_tuple(domain, node.op_type(), node.overload()));
          it != local_.end()) {
        const onnx::FunctionProto& f = *it->second;
        AttrDefaults defaults;
        for (const onnx::AttributeProto& a : f.attribute_proto()) defaults[a.name()] = a;
        SY_RETURN_IF_ERROR(Expand(node, f, defaults, where, depth));
        ++out_.local_calls;
        continue;
      }
      const auto version = opsets->find(domain);
      if (!is_mapped_(domain, node.op_type(), *opsets) && version != opsets->end()) {
        const OnnxSchema* schema = FindOnnxSchema(domain, node.op_type(), version->second);
        const OnnxFunctionBody* body = schema ? schema->BodyFor(version->second) : nullptr;
        if (body != nullptr) {
          onnx::FunctionProto f;
          if (!f.ParseFromArray(body->function_proto.data(),
                                static_cast<int>(body->function_proto.size()))) {
            return Internal(where + ": the tabled function body of " + schema->Label() +
                            " does not parse");
          }
          AttrDefaults defaults;
          for (const OnnxAttrSpec& spec : schema->Attributes()) {
            onnx::AttributeProto a;
            if (!spec.default_value.empty() &&
                a.ParseFromArray(spec.default_value.data(),
                                 static_cast<int>(spec.default_value.size()))) {
              defaults[std::string(spec.name)] = a;
            }
          }
          SY_RETURN_IF_ERROR(Expand(node, f, defaults, where, depth));
          ++out_.schema_bodies;
          continue;
        }
      }
      if (out_.nodes.size() >= kMaxNodes) {
        return InvalidModel(where + ": expanding the model's functions makes more than " +
                            std::to_string(kMaxNodes) + " nodes");
      }
      out_.nodes.push_back(FlatNode{node, opsets, origin, i});
    }
    return Status::Ok();
  }

  std::string Fresh(const std::string& hint) {
    std::string name = hint;
    for (int k = 1; names_.count(name) != 0; ++k) name = hint + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  Status Expand(const onnx::NodeProto& call, const onnx::FunctionProto& f,
                const AttrDefaults& defaults, const std::string& where, int depth) {
    const std::string label = FunctionLabel(Domain(f.domain()), f.name());
    if (depth >= kMaxDepth) {
      return InvalidModel(where + ": functions nest deeper than " + std::to_string(kMaxDepth) +
                          " calls (expanding " + label + ")");
    }
    for (const std::string& active : stack_) {
      if (active == label) {
        return InvalidModel(where + ": function " + label +
                            " calls itself (directly or through other functions), which "
                            "cannot be expanded");
      }
    }
    if (call.input_size() > f.input_size() || call.output_size() > f.output_size()) {
      return InvalidModel(where + ": passes " + std::to_string(call.input_size()) + " inputs and " +
                          std::to_string(call.output_size()) + " outputs to function " + label +
                          ", which takes " + std::to_string(f.input_size()) + " and " +
                          std::to_string(f.output_size()));
    }
    // Formal names -> the caller's; names the body defines -> fresh graph names.
    std::map<std::string, std::string> rename;
    for (int k = 0; k < f.input_size(); ++k) {
      rename[f.input(k)] = k < call.input_size() ? call.input(k) : "";
    }
    const std::string prefix =
        (call.output_size() > 0 && !call.output(0).empty() ? call.output(0) : call.name()) + "/" +
        f.name() + "/";
    for (int k = 0; k < f.output_size(); ++k) {
      rename[f.output(k)] = k < call.output_size() && !call.output(k).empty()
                                ? call.output(k)
                                : Fresh(prefix + f.output(k));
    }
    std::map<std::string, const onnx::AttributeProto*> given;
    for (const onnx::AttributeProto& a : call.attribute()) given[a.name()] = &a;

    google::protobuf::RepeatedPtrField<onnx::NodeProto> body;
    for (int i = 0; i < f.node_size(); ++i) {
      onnx::NodeProto node = f.node(i);
      for (int k = 0; k < node.input_size(); ++k) {
        if (node.input(k).empty()) continue;
        const auto it = rename.find(node.input(k));
        if (it == rename.end()) {
          return InvalidModel(where + ": node " + std::to_string(i) + " of function " + label +
                              " reads " + Quoted(node.input(k)) +
                              ", which is neither an input of the function nor written by an "
                              "earlier node of its body");
        }
        node.set_input(k, it->second);
      }
      // A body the node holds (a Loop's, an If's branches) reads the function's locals by
      // their names in the function: those follow the renaming too.
      for (onnx::AttributeProto& a : *node.mutable_attribute()) {
        if (a.has_g()) RenameOuterReads(*a.mutable_g(), rename);
        for (onnx::GraphProto& g : *a.mutable_graphs()) RenameOuterReads(g, rename);
      }
      for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty()) continue;
        const auto it = rename.find(node.output(k));
        const bool is_formal_output =
            std::find(f.output().begin(), f.output().end(), node.output(k)) != f.output().end();
        if (it != rename.end() && !is_formal_output) {
          return InvalidModel(where + ": function " + label + " writes " + Quoted(node.output(k)) +
                              " twice (or writes one of its inputs)");
        }
        const std::string fresh = is_formal_output ? it->second : Fresh(prefix + node.output(k));
        rename[node.output(k)] = fresh;
        node.set_output(k, fresh);
      }
      // Attribute references: the caller's attribute, else the function's default, else
      // the attribute is left out (as the ONNX IR says).
      google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
      for (const onnx::AttributeProto& a : node.attribute()) {
        if (a.ref_attr_name().empty()) {
          *attrs.Add() = a;
          continue;
        }
        const onnx::AttributeProto* source = nullptr;
        if (auto g = given.find(a.ref_attr_name()); g != given.end()) source = g->second;
        if (source == nullptr) {
          if (auto d = defaults.find(a.ref_attr_name()); d != defaults.end()) source = &d->second;
        }
        if (source == nullptr) continue;
        onnx::AttributeProto bound = *source;
        bound.set_name(a.name());
        *attrs.Add() = std::move(bound);
      }
      node.mutable_attribute()->Swap(&attrs);
      *body.Add() = std::move(node);
    }
    auto opsets = std::make_shared<OpsetMap>(*model_opsets_);
    for (const auto& o : f.opset_import()) (*opsets)[Domain(o.domain())] = o.version();
    stack_.push_back(label);
    std::string origin = " (in function " + label + ", expanded from " + where + ")";
    Status status = Walk(body, opsets, origin, depth + 1);
    stack_.pop_back();
    return status;
  }

  const onnx::ModelProto& model_;
  const IsMapped& is_mapped_;
  std::map<std::tuple<std::string, std::string, std::string>, const onnx::FunctionProto*> local_;
  std::set<std::string> names_;
  std::shared_ptr<const OpsetMap> model_opsets_;
  std::vector<std::string> stack_;
  FlatGraph out_;
};

}  // namespace

Expected<FlatGraph> ExpandFunctions(const onnx::ModelProto& model, const IsMapped& is_mapped) {
  return Expander(model, is_mapped).Run();
}

}  // namespace sy::onnx_import
