// Builds small ONNX models in memory for the importer's tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "onnx_proto.h"

namespace sy::onnx_import::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.set_producer_name("unit-test");
  }

  // A graph input; a negative dim becomes a symbolic dim named "N".
  ModelBuilder& Input(const std::string& name, int32_t elem_type, std::vector<int64_t> dims) {
    Describe(model_.mutable_graph()->add_input(), name, elem_type, dims);
    return *this;
  }
  // A graph input whose dims are sizes ("4") or dim_param names ("past").
  ModelBuilder& NamedInput(const std::string& name, int32_t elem_type,
                           std::vector<std::string> dims) {
    auto* info = model_.mutable_graph()->add_input();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem_type);
    for (const std::string& d : dims) {
      auto* dim = tensor->mutable_shape()->add_dim();
      if (!d.empty() && d.find_first_not_of("0123456789") == std::string::npos) {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
    return *this;
  }
  ModelBuilder& Output(const std::string& name, int32_t elem_type = onnx::TensorProto::FLOAT) {
    auto* out = model_.mutable_graph()->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
  }
  ModelBuilder& FloatInitializer(const std::string& name, std::vector<int64_t> dims,
                                 std::vector<float> values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  ModelBuilder& Int64Initializer(const std::string& name, std::vector<int64_t> dims,
                                 std::vector<int64_t> values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto& Node(const std::string& op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, std::string name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void IntAttr(onnx::NodeProto& node, const std::string& name, int64_t v) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void IntsAttr(onnx::NodeProto& node, const std::string& name, std::vector<int64_t> v) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  onnx::ModelProto& model() { return model_; }
  std::string Bytes() const { return model_.SerializeAsString(); }
  void Save(const std::filesystem::path& path) const {
    std::ofstream(path, std::ios::binary) << Bytes();
  }

 private:
  static void Describe(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                       const std::vector<int64_t>& dims) {
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem_type);
    auto* shape = tensor->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0)
        dim->set_dim_value(d);
      else
        dim->set_dim_param("N");
    }
  }
  onnx::ModelProto model_;
};

}  // namespace sy::onnx_import::testing
