// Renaming in ONNX subgraphs (subgraph_names.h).
#include "subgraph_names.h"

namespace sy::onnx_import {
namespace {

void RenameInAttributes(onnx::NodeProto& node, const std::map<std::string, std::string>& rename) {
  for (onnx::AttributeProto& a : *node.mutable_attribute()) {
    if (a.has_g()) RenameOuterReads(*a.mutable_g(), rename);
    for (onnx::GraphProto& g : *a.mutable_graphs()) RenameOuterReads(g, rename);
  }
}

}  // namespace

void RenameOuterReads(onnx::GraphProto& graph, const std::map<std::string, std::string>& rename) {
  if (rename.empty()) return;
  std::map<std::string, std::string> outer = rename;
  for (const onnx::ValueInfoProto& in : graph.input()) outer.erase(in.name());
  for (const onnx::TensorProto& init : graph.initializer()) outer.erase(init.name());
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (std::string& in : *node.mutable_input()) {
      if (auto it = outer.find(in); it != outer.end()) in = it->second;
    }
    RenameInAttributes(node, outer);
    for (const std::string& out : node.output()) outer.erase(out);  // shadows from here on
  }
  for (onnx::ValueInfoProto& out : *graph.mutable_output()) {
    if (auto it = outer.find(out.name()); it != outer.end()) out.set_name(it->second);
  }
}

onnx::GraphProto ScopedBody(const onnx::GraphProto& body, const std::string& prefix) {
  onnx::GraphProto g = body;
  std::map<std::string, std::string> own;  // the names the body defines, seen so far
  auto define = [&](std::string& name) {
    if (name.empty()) return;
    const std::string scoped = prefix + name;
    own[name] = scoped;
    name = scoped;
  };
  for (onnx::ValueInfoProto& in : *g.mutable_input()) define(*in.mutable_name());
  for (onnx::TensorProto& init : *g.mutable_initializer()) define(*init.mutable_name());
  for (onnx::NodeProto& node : *g.mutable_node()) {
    for (std::string& in : *node.mutable_input()) {
      if (auto it = own.find(in); it != own.end()) in = it->second;
    }
    RenameInAttributes(node, own);
    for (std::string& out : *node.mutable_output()) define(out);
  }
  for (onnx::ValueInfoProto& out : *g.mutable_output()) {
    if (auto it = own.find(out.name()); it != own.end()) out.set_name(it->second);
  }
  g.clear_value_info();  // shapes the body declares would need the same renaming
  return g;
}

}  // namespace sy::onnx_import
