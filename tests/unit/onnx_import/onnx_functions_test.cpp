// ONNX functions (tools/onnx_import/onnx_functions.h): model-local functions expanded,
// nested, with attribute references bound from the call, the function's defaults or
// left out; ops that ONNX defines by a body expanded when no mapping covers them; and the
// errors for bodies that cannot be expanded.
#include "onnx_functions.h"

#include <gtest/gtest.h>

#include "onnx_model_builder.h"
#include "onnx_schemas.h"
#include "switchyard/onnx_import.h"

namespace sy::onnx_import {
namespace {

using onnx::TensorProto;
using testing::ModelBuilder;

bool NeverMapped(const std::string&, const std::string&, const OpsetMap&) { return false; }
bool AlwaysMapped(const std::string&, const std::string&, const OpsetMap&) { return true; }

onnx::FunctionProto& AddFunction(ModelBuilder& b, const std::string& name,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs,
                                 int64_t opset = 17) {
  onnx::FunctionProto* f = b.model().add_functions();
  f->set_name(name);
  f->set_domain("local");
  for (auto& i : inputs) f->add_input(i);
  for (auto& o : outputs) f->add_output(o);
  auto* op = f->add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  return *f;
}

onnx::NodeProto& AddBodyNode(onnx::FunctionProto& f, const std::string& op,
                             std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto* n = f.add_node();
  n->set_op_type(op);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

void ImportLocal(ModelBuilder& b) {
  auto* op = b.model().add_opset_import();
  op->set_domain("local");
  op->set_version(1);
}

TEST(OnnxFunctions, LocalFunctionsExpandNestedWithTheirOwnOpsets) {
  // Quad(x) = Twice(Twice(x)); Twice(x) = Add(x, x). Quad's body binds opset 13.
  ModelBuilder b(17);
  ImportLocal(b);
  b.Input("x", TensorProto::FLOAT, {3}).Output("y");
  onnx::FunctionProto& twice = AddFunction(b, "Twice", {"a"}, {"b"});
  AddBodyNode(twice, "Add", {"a", "a"}, {"b"});
  onnx::FunctionProto& quad = AddFunction(b, "Quad", {"a"}, {"b"}, 13);
  AddBodyNode(quad, "Twice", {"a"}, {"t"}).set_domain("local");
  AddBodyNode(quad, "Twice", {"t"}, {"b"}).set_domain("local");
  b.Node("Quad", {"x"}, {"y"}, "q").set_domain("local");
  Expected<FlatGraph> flat = ExpandFunctions(b.model(), NeverMapped);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  ASSERT_EQ(flat->nodes.size(), 2u);
  EXPECT_EQ(flat->local_calls, 3u);
  EXPECT_EQ(flat->nodes[0].node.op_type(), "Add");
  EXPECT_EQ(flat->nodes[0].node.input(0), "x");
  EXPECT_EQ(flat->nodes[1].node.input(0), flat->nodes[0].node.output(0));
  EXPECT_EQ(flat->nodes[1].node.output(0), "y");
  // Twice's own opset_import (17) binds its Add, not Quad's 13.
  EXPECT_EQ(flat->nodes[0].opsets->at(""), 17);
  EXPECT_NE(flat->nodes[0].origin.find("in function local:Twice"), std::string::npos);

  // And the whole import: y = 4x.
  Expected<ImportResult> r = ImportOnnxBytes(b.Bytes(), ".", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expanded_function_calls, 3u);
}

TEST(OnnxFunctions, AttributeReferencesBindFromTheCallThenTheDefault) {
  // Scale(x) = Mul(x, Constant(value_float = @k)); k defaults to 3 in attribute_proto.
  const auto build = [](bool give_k) {
    ModelBuilder b(17);
    ImportLocal(b);
    b.Input("x", TensorProto::FLOAT, {2}).Output("y");
    onnx::FunctionProto& f = AddFunction(b, "Scale", {"a"}, {"b"});
    f.add_attribute("unused");
    onnx::AttributeProto* k = f.add_attribute_proto();
    k->set_name("k");
    k->set_type(onnx::AttributeProto::FLOAT);
    k->set_f(3.0f);
    onnx::NodeProto& c = AddBodyNode(f, "Constant", {}, {"c"});
    onnx::AttributeProto* ref = c.add_attribute();
    ref->set_name("value_float");
    ref->set_type(onnx::AttributeProto::FLOAT);
    ref->set_ref_attr_name("k");
    AddBodyNode(f, "Mul", {"a", "c"}, {"b"});
    onnx::NodeProto& call = b.Node("Scale", {"x"}, {"y"}, "s");
    call.set_domain("local");
    if (give_k) {
      onnx::AttributeProto* a = call.add_attribute();
      a->set_name("k");
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(5.0f);
    }
    return b;
  };
  for (const bool give_k : {false, true}) {
    ModelBuilder b = build(give_k);
    Expected<FlatGraph> flat = ExpandFunctions(b.model(), NeverMapped);
    ASSERT_TRUE(flat.ok()) << flat.status().ToString();
    const onnx::NodeProto& constant = flat->nodes[0].node;
    ASSERT_EQ(constant.attribute_size(), 1);
    EXPECT_EQ(constant.attribute(0).name(), "value_float");
    EXPECT_TRUE(constant.attribute(0).ref_attr_name().empty());
    EXPECT_EQ(constant.attribute(0).f(), give_k ? 5.0f : 3.0f);
  }
}

TEST(OnnxFunctions, OpsWithASpecBodyExpandOnlyWhereNoMappingCovers) {
  // Swish-24 is defined by a body (x * sigmoid(alpha x)) whose alpha defaults to 1.
  ModelBuilder b(24);
  b.Input("x", TensorProto::FLOAT, {4}).Output("y");
  b.Node("Swish", {"x"}, {"y"}, "swish");
  const OnnxSchema* schema = FindOnnxSchema("", "Swish", 24);
  ASSERT_NE(schema, nullptr);
  ASSERT_NE(schema->BodyFor(24), nullptr);
  Expected<FlatGraph> expanded = ExpandFunctions(b.model(), NeverMapped);
  ASSERT_TRUE(expanded.ok()) << expanded.status().ToString();
  EXPECT_EQ(expanded->schema_bodies, 1u);
  EXPECT_GT(expanded->nodes.size(), 1u);
  EXPECT_EQ(expanded->nodes.back().node.output(0), "y");
  Expected<FlatGraph> kept = ExpandFunctions(b.model(), AlwaysMapped);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->nodes.size(), 1u);
  EXPECT_EQ(kept->nodes[0].node.op_type(), "Swish");
}

TEST(OnnxFunctions, BodiesThatCannotBeExpandedAreErrors) {
  {  // A function that calls itself.
    ModelBuilder b(17);
    ImportLocal(b);
    b.Input("x", TensorProto::FLOAT, {1}).Output("y");
    onnx::FunctionProto& f = AddFunction(b, "Loop", {"a"}, {"b"});
    AddBodyNode(f, "Loop", {"a"}, {"b"}).set_domain("local");
    b.Node("Loop", {"x"}, {"y"}, "l").set_domain("local");
    Expected<FlatGraph> flat = ExpandFunctions(b.model(), NeverMapped);
    ASSERT_FALSE(flat.ok());
    EXPECT_NE(flat.status().message().find("function local:Loop calls itself"), std::string::npos)
        << flat.status().message();
  }
  {  // A body reading a name nothing defines.
    ModelBuilder b(17);
    ImportLocal(b);
    b.Input("x", TensorProto::FLOAT, {1}).Output("y");
    onnx::FunctionProto& f = AddFunction(b, "Bad", {"a"}, {"b"});
    AddBodyNode(f, "Add", {"a", "ghost"}, {"b"});
    b.Node("Bad", {"x"}, {"y"}, "bad").set_domain("local");
    Expected<FlatGraph> flat = ExpandFunctions(b.model(), NeverMapped);
    ASSERT_FALSE(flat.ok());
    EXPECT_NE(flat.status().message().find("reads \"ghost\", which is neither an input"),
              std::string::npos)
        << flat.status().message();
  }
  {  // More arguments than the function takes.
    ModelBuilder b(17);
    ImportLocal(b);
    b.Input("x", TensorProto::FLOAT, {1}).Output("y");
    onnx::FunctionProto& f = AddFunction(b, "One", {"a"}, {"b"});
    AddBodyNode(f, "Relu", {"a"}, {"b"});
    b.Node("One", {"x", "x"}, {"y"}, "one").set_domain("local");
    Expected<FlatGraph> flat = ExpandFunctions(b.model(), NeverMapped);
    ASSERT_FALSE(flat.ok());
    EXPECT_NE(flat.status().message().find("passes 2 inputs and 1 outputs to function local:One"),
              std::string::npos)
        << flat.status().message();
  }
}

}  // namespace
}  // namespace sy::onnx_import
