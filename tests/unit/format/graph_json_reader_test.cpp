// Pass 1 of loading (ParseGraphJson): the document, its header and top-level keys, value
// declarations, id references and the "defined exactly once, before it is read" rule.
// Constants, inline data, attributes and backend hints are in
// graph_json_reader_values_test.cpp.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "format/graph_doc.h"
#include "switchyard/model_io.h"
#include "test_util.h"

namespace sy {
namespace {

using test::GraphDoc;
using test::NodesDoc;

Expected<Graph> ParseText(const std::string& text) { return ParseGraphJson(text, nullptr); }

// Every failure of pass 1 is kInvalidModel.
void ExpectInvalidModel(const Expected<Graph>& result) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidModel) << result.status().message();
}

// Three values for id tests: x (input), y = relu(x), z = relu(y).
constexpr const char* kChainValues = R"([
  {"name": "x", "dtype": "f32", "shape": [4]},
  {"name": "y", "dtype": "f32", "shape": [4]},
  {"name": "z", "dtype": "f32", "shape": [4]}])";

TEST(GraphJsonReader, DefaultDocumentIsValid) {
  Expected<Graph> graph = GraphDoc().Parse();
  SY_ASSERT_OK(graph);
  EXPECT_EQ(graph->values.size(), 3u);
  EXPECT_EQ(graph->nodes.size(), 1u);
}

// --- The document ---------------------------------------------------------------------

TEST(GraphJsonReader, EmptyDocument) {
  SY_EXPECT_ERROR(ParseText(""), "not valid JSON at line 1, column 1: empty document");
  SY_EXPECT_ERROR(ParseText("  \n "), "empty document");
  ExpectInvalidModel(ParseText(""));
}

TEST(GraphJsonReader, TruncatedJson) {
  const std::string text = GraphDoc().Text();
  for (size_t cut : {size_t{1}, size_t{10}, text.size() / 2, text.size() - 1}) {
    SCOPED_TRACE(cut);
    SY_EXPECT_ERROR(ParseText(text.substr(0, cut)), "not valid JSON at line");
    ExpectInvalidModel(ParseText(text.substr(0, cut)));
  }
}

TEST(GraphJsonReader, SyntaxErrorNamesLineAndColumn) {
  SY_EXPECT_ERROR(ParseText("{\n  \"format\": \"rml-graph\",\n  \"version\": tru }"),
                  "not valid JSON at line 3, column");
  SY_EXPECT_ERROR(ParseText("{\"format\": 'rml-graph'}"), "line 1, column 12");
}

TEST(GraphJsonReader, NonStandardJsonIsRejected) {
  SY_EXPECT_ERROR(ParseText("{\"a\": 1, }"), "not valid JSON");        // trailing comma
  SY_EXPECT_ERROR(ParseText("{\"a\": 1 /* c */}"), "not valid JSON");  // comment
  SY_EXPECT_ERROR(ParseText("{\"a\": NaN}"), "not valid JSON");
  SY_EXPECT_ERROR(ParseText("{\"a\": \"\xff\"}"), "not valid JSON");  // invalid UTF-8
}

TEST(GraphJsonReader, DocumentThatIsNotAnObject) {
  SY_EXPECT_ERROR(ParseText("[]"), "the document is an array, expected a JSON object");
  SY_EXPECT_ERROR(ParseText("42"), "the document is a number, expected a JSON object");
  SY_EXPECT_ERROR(ParseText("1.5"), "the document is a number, expected a JSON object");
  SY_EXPECT_ERROR(ParseText("\"graph\""), "the document is a string, expected a JSON object");
  SY_EXPECT_ERROR(ParseText("null"), "the document is null, expected a JSON object");
  SY_EXPECT_ERROR(ParseText("true"), "the document is a boolean, expected a JSON object");
}

TEST(GraphJsonReader, DeepNestingIsAnErrorNotARecursion) {
  const std::string open(10000, '[');
  SY_EXPECT_ERROR(ParseText(open), "not valid JSON");
  SY_EXPECT_ERROR(ParseText(open + std::string(10000, ']')), "not valid JSON");
  std::string objects;
  for (int i = 0; i < 10000; ++i) objects += "{\"a\":";
  SY_EXPECT_ERROR(ParseText(objects), "not valid JSON");
  // Within a graph: an attribute nested past the limit.
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "attrs": {"a": )" +
              std::string(100, '[') + std::string(100, ']') + "}}]";
  SY_EXPECT_ERROR(doc.Parse(), "not valid JSON");
}

TEST(GraphJsonReader, NestingUpToTheLimitParses) {
  // The depth limit only rejects nesting; 32 levels are still a well-formed document
  // (which then fails on content, not syntax).
  const std::string text =
      std::string(kMaxGraphJsonDepth, '[') + std::string(kMaxGraphJsonDepth, ']');
  SY_EXPECT_ERROR(ParseText(text), "the document is an array");
}

TEST(GraphJsonReader, TrailingGarbage) {
  const std::string text = GraphDoc().Text();
  SY_EXPECT_ERROR(ParseText(text + " x"),
                  "unexpected data after the document at byte " + std::to_string(text.size() + 1));
  SY_EXPECT_ERROR(ParseText(text + "{}"), "unexpected data after the document");
  SY_EXPECT_OK(ParseText(text + " \n\t\r\n"));  // trailing whitespace is fine
}

TEST(GraphJsonReader, DuplicateKeyInAnObject) {
  GraphDoc doc;
  doc.extra = R"("nodes": [])";
  SY_EXPECT_ERROR(doc.Parse(), "duplicate key \"nodes\"");
  doc = GraphDoc();
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "inputs": [1, 0], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "duplicate key \"inputs\"");
}

TEST(GraphJsonReader, NumberBeyondTheDoubleRange) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "data": [1, 1e400, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(), "number 1e400 is out of the range of a 64-bit float");
}

// --- Header and top-level keys ----------------------------------------------------------

TEST(GraphJsonReader, WrongFormat) {
  GraphDoc doc;
  doc.format = R"("onnx")";
  SY_EXPECT_ERROR(doc.Parse(), "format is \"onnx\", expected \"rml-graph\"");
  doc.format = "1";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"format\" is a number, expected a string");
  doc.format.clear();
  SY_EXPECT_ERROR(doc.Parse(), "top level: missing \"format\" (expected a string)");
}

TEST(GraphJsonReader, WrongVersion) {
  GraphDoc doc;
  for (const char* version : {"0", "2", "-1", "1.5"}) {
    doc.version = version;
    SY_EXPECT_ERROR(doc.Parse(), std::string("version is ") + version + ", expected 1");
  }
  doc.version = R"("1")";
  SY_EXPECT_ERROR(doc.Parse(), "version is \"1\", expected 1");
  doc.version = "null";
  SY_EXPECT_ERROR(doc.Parse(), "version is null, expected 1");
  doc.version = "[1]";
  SY_EXPECT_ERROR(doc.Parse(), "version is an array, expected 1");
  doc.version.clear();
  SY_EXPECT_ERROR(doc.Parse(), "missing \"version\" (expected 1)");
}

TEST(GraphJsonReader, FormatAndVersionAreCheckedBeforeKeys) {
  // A later version may add keys; the error must be about the version.
  GraphDoc doc;
  doc.version = "2";
  doc.extra = R"("subgraphs": [])";
  SY_EXPECT_ERROR(doc.Parse(), "version is 2, expected 1");
}

TEST(GraphJsonReader, UnknownTopLevelKey) {
  GraphDoc doc;
  doc.extra = R"("node": [])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "top level: unknown key \"node\" (expected format, version, "
                  "producer, symbols, values, inputs, outputs, constants, nodes, state)");
}

TEST(GraphJsonReader, MissingRequiredArrays) {
  for (std::string GraphDoc::*member :
       {&GraphDoc::values, &GraphDoc::inputs, &GraphDoc::outputs, &GraphDoc::nodes}) {
    GraphDoc doc;
    (doc.*member).clear();
    Expected<Graph> result = doc.Parse();
    ExpectInvalidModel(result);
    EXPECT_NE(result.status().message().find("top level: missing \""), std::string::npos)
        << result.status().message();
    EXPECT_NE(result.status().message().find("(expected an array)"), std::string::npos);
  }
  GraphDoc doc;
  doc.values.clear();
  SY_EXPECT_ERROR(doc.Parse(), "top level: missing \"values\" (expected an array)");
  doc = GraphDoc();
  doc.nodes.clear();
  SY_EXPECT_ERROR(doc.Parse(), "top level: missing \"nodes\" (expected an array)");
}

TEST(GraphJsonReader, ConstantsAreOptional) {
  GraphDoc doc;
  doc.constants.clear();
  doc.inputs = "[0, 1]";
  SY_EXPECT_OK(doc.Parse());
}

TEST(GraphJsonReader, TopLevelMembersOfTheWrongKind) {
  GraphDoc doc;
  doc.values = "{}";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"values\" is an object, expected an array");
  doc = GraphDoc();
  doc.inputs = "0";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"inputs\" is a number, expected an array");
  doc = GraphDoc();
  doc.outputs = R"("y")";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"outputs\" is a string, expected an array");
  doc = GraphDoc();
  doc.nodes = "null";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"nodes\" is null, expected an array");
  doc = GraphDoc();
  doc.constants = "{}";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"constants\" is an object, expected an array");
  doc = GraphDoc();
  doc.producer = "7";
  SY_EXPECT_ERROR(doc.Parse(), "top level: \"producer\" is a number, expected a string");
}

// --- Value declarations -----------------------------------------------------------------

TEST(GraphJsonReader, ValueThatIsNotAnObject) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [2, 3]}, "w"])";
  SY_EXPECT_ERROR(doc.Parse(), "values[1] is a string, expected an object");
  doc.values = "[[]]";
  SY_EXPECT_ERROR(doc.Parse(), "values[0] is an array, expected an object");
}

TEST(GraphJsonReader, UnknownValueKey) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [2, 3], "layout": "nchw"}])";
  SY_EXPECT_ERROR(doc.Parse(), "values[0]: unknown key \"layout\" (expected name, dtype, shape)");
}

TEST(GraphJsonReader, MissingOrMistypedValueMembers) {
  GraphDoc doc;
  doc.values = R"([{"dtype": "f32", "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "values[0]: missing \"name\" (expected a string)");
  doc.values = R"([{"name": 3, "dtype": "f32", "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "values[0]: \"name\" is a number, expected a string");
  doc.values = R"([{"name": "x", "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\": missing \"dtype\" (expected a string)");
  doc.values = R"([{"name": "x", "dtype": "f32"}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\": missing \"shape\" (expected an array)");
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": 4}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\": \"shape\" is a number, expected an array");
}

TEST(GraphJsonReader, EmptyValueName) {
  GraphDoc doc;
  doc.values =
      R"([{"name": "x", "dtype": "f32", "shape": [2]}, {"name": "", "dtype": "f32", "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "values[1]: name is empty");
}

TEST(GraphJsonReader, DuplicateValueName) {
  GraphDoc doc;
  doc.values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "w", "dtype": "f32", "shape": [3]},
    {"name": "x", "dtype": "f32", "shape": [2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 2 \"x\": name is also used by value 0 (expected unique names)");
}

TEST(GraphJsonReader, UnknownDType) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "float32", "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 0 \"x\": unknown dtype \"float32\" (expected one of f32 "
                  "f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 bool)");
  doc.values = R"([{"name": "x", "dtype": "F32", "shape": [2]}])";  // safetensors spelling
  SY_EXPECT_ERROR(doc.Parse(), "unknown dtype \"F32\"");
  doc.values = R"([{"name": "x", "dtype": 1, "shape": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\": \"dtype\" is a number, expected a string");
}

TEST(GraphJsonReader, NegativeDim) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [2, -3]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 0 \"x\": shape[1] is -3, expected a non-negative integer or a dim "
                  "expression string");
}

TEST(GraphJsonReader, NonIntegerDim) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [1.5]}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\": shape[0] is 1.5, expected a non-negative integer");
  // A string is a dim expression (docs/dynamic-shapes.md); one that does not parse is
  // refused where it stops.
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [2, "3+"]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 0 \"x\": shape[1]: dim expression \"3+\": unexpected end at offset 2");
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [null]}])";
  SY_EXPECT_ERROR(doc.Parse(), "shape[0] is null, expected a non-negative integer");
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [[2]]}])";
  SY_EXPECT_ERROR(doc.Parse(), "shape[0] is an array, expected a non-negative integer");
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [18446744073709551615]}])";
  SY_EXPECT_ERROR(doc.Parse(), "shape[0] is 18446744073709551615, expected a non-negative");
}

TEST(GraphJsonReader, ElementCountOverflow) {
  GraphDoc doc;
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [1099511627776, 1099511627776]}])";
  Expected<Graph> result = doc.Parse();
  ExpectInvalidModel(result);
  SY_EXPECT_ERROR(result,
                  "value 0 \"x\": element count of shape [1099511627776, 1099511627776] "
                  "overflows the limit of 2^");
  // An overflowing product that contains a 0 is an empty tensor, not an overflow.
  doc.values = R"([{"name": "x", "dtype": "f32", "shape": [1099511627776, 1099511627776, 0]}])";
  doc.constants.clear();
  doc.nodes = "[]";
  doc.outputs = "[]";
  SY_EXPECT_OK(doc.Parse());
}

// --- Id references ----------------------------------------------------------------------

TEST(GraphJsonReader, GraphInputIdOutOfRange) {
  GraphDoc doc;
  doc.inputs = "[-1]";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is -1, expected a value id in [0, 3)");
  doc.inputs = "[0, 3]";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[1] is 3, expected a value id in [0, 3)");
  doc.inputs = "[0.5]";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is 0.5, expected a value id in [0, 3)");
  doc.inputs = R"(["x"])";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is \"x\", expected a value id in [0, 3)");
  doc.inputs = "[9223372036854775808]";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is 9223372036854775808, expected a value id");
  doc.inputs = "[4294967296]";  // would wrap to 0 as an int32
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is 4294967296, expected a value id in [0, 3)");
}

TEST(GraphJsonReader, GraphOutputIdOutOfRange) {
  GraphDoc doc;
  doc.outputs = "[7]";
  SY_EXPECT_ERROR(doc.Parse(), "outputs[0] is 7, expected a value id in [0, 3)");
  doc.outputs = "[2, -5]";
  SY_EXPECT_ERROR(doc.Parse(), "outputs[1] is -5, expected a value id in [0, 3)");
  doc.outputs = "[null]";
  SY_EXPECT_ERROR(doc.Parse(), "outputs[0] is null, expected a value id in [0, 3)");
}

TEST(GraphJsonReader, NodeInputIdOutOfRange) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "inputs": [0, 9], "outputs": [2], "name": "sum"}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "node 0 (add) \"sum\": inputs[1] is 9, expected a value id in [0, 3)");
  doc.nodes = R"([{"op": "add", "inputs": [-1, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): inputs[0] is -1, expected a value id in [0, 3)");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1.25], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): inputs[1] is 1.25, expected a value id");
}

TEST(GraphJsonReader, NodeOutputIdOutOfRange) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [3], "name": "sum"}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "node 0 (add) \"sum\": outputs[0] is 3, expected a value id in [0, 3)");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [-2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): outputs[0] is -2, expected a value id in [0, 3)");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": ["y"]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): outputs[0] is \"y\", expected a value id");
}

TEST(GraphJsonReader, ConstantIdOutOfRange) {
  GraphDoc doc;
  doc.constants = R"([{"value": 99, "data": [1, 2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0].value is 99, expected a value id in [0, 3)");
  doc.constants = R"([{"value": -1, "data": [1, 2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0].value is -1, expected a value id in [0, 3)");
  doc.constants = R"([{"value": 1.5, "data": [1, 2, 3]}])";
  SY_EXPECT_ERROR(doc.Parse(), "constants[0].value is 1.5, expected a value id in [0, 3)");
}

TEST(GraphJsonReader, IdsIntoAnEmptyValueList) {
  GraphDoc doc;
  doc.values = "[]";
  doc.constants.clear();
  doc.nodes = "[]";
  doc.outputs = "[]";
  SY_EXPECT_ERROR(doc.Parse(), "inputs[0] is 0, expected a value id in [0, 0)");
}

// --- Every value defined exactly once, before it is read --------------------------------

TEST(GraphJsonReader, ValueDefinedAsInputAndConstant) {
  GraphDoc doc;
  doc.inputs = "[0, 1]";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 1 \"w\" is defined twice: again as constants[0] for value "
                  "1 \"w\" (expected every value to be produced exactly once)");
}

TEST(GraphJsonReader, GraphInputListedTwice) {
  GraphDoc doc;
  doc.inputs = "[0, 0]";
  SY_EXPECT_ERROR(doc.Parse(), "value 0 \"x\" is defined twice: again as graph inputs[1]");
}

TEST(GraphJsonReader, ConstantDefinedTwice) {
  GraphDoc doc;
  doc.constants = R"([{"value": 1, "data": [1, 2, 3]}, {"value": 1, "data": [4, 5, 6]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 1 \"w\" is defined twice: again as constants[1] for value 1 \"w\"");
}

TEST(GraphJsonReader, NodeOutputThatIsAGraphInputOrConstant) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "relu", "inputs": [0], "outputs": [0], "name": "r"}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 0 \"x\" is defined twice: again as node 0 (relu) \"r\" output 0");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2]},
                  {"op": "relu", "inputs": [2], "outputs": [1]}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 1 \"w\" is defined twice: again as node 1 (relu) output 0");
}

TEST(GraphJsonReader, ValueProducedByTwoNodes) {
  GraphDoc doc = NodesDoc(kChainValues, R"([
    {"op": "relu", "inputs": [0], "outputs": [1], "name": "first"},
    {"op": "relu", "inputs": [0], "outputs": [1], "name": "second"}])");
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 1 \"y\" is defined twice: again as node 1 (relu) \"second\" output 0");
  // The same value twice in one node's outputs.
  doc.nodes = R"([{"op": "split", "inputs": [0], "outputs": [1, 1]}])";
  SY_EXPECT_ERROR(doc.Parse(), "value 1 \"y\" is defined twice: again as node 0 (split) output 1");
}

TEST(GraphJsonReader, ValueReadBeforeItIsDefined) {
  GraphDoc doc = NodesDoc(kChainValues, R"([
    {"op": "relu", "inputs": [2], "outputs": [1], "name": "early"},
    {"op": "relu", "inputs": [0], "outputs": [2], "name": "late"}])");
  SY_EXPECT_ERROR(doc.Parse(),
                  "node 0 (relu) \"early\": input 0 reads value 2 \"z\" before it "
                  "is defined (expected nodes in topological order)");
}

TEST(GraphJsonReader, NodeReadingItsOwnOutput) {
  GraphDoc doc = NodesDoc(kChainValues, R"([
    {"op": "add", "inputs": [0, 1], "outputs": [1]},
    {"op": "relu", "inputs": [1], "outputs": [2]}])");
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): input 1 reads value 1 \"y\" before it is defined");
}

TEST(GraphJsonReader, ValueNeverProduced) {
  GraphDoc doc = NodesDoc(kChainValues, R"([{"op": "relu", "inputs": [0], "outputs": [1]}])");
  SY_EXPECT_ERROR(doc.Parse(),
                  "value 2 \"z\" is never produced (expected a graph input, a "
                  "constant or a node output)");
}

TEST(GraphJsonReader, OutputListedTwice) {
  GraphDoc doc;
  doc.outputs = "[2, 0, 2]";
  SY_EXPECT_ERROR(doc.Parse(), "outputs[2]: value 2 \"y\" is listed twice as a graph output");
}

// --- Nodes ------------------------------------------------------------------------------

TEST(GraphJsonReader, NodeThatIsNotAnObject) {
  GraphDoc doc;
  doc.nodes = R"(["add"])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 is a string, expected an object");
}

TEST(GraphJsonReader, UnknownNodeKey) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "input": [0, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(),
                  "node 0: unknown key \"input\" (expected op, inputs, outputs, "
                  "attrs, attr_exprs, name, backend)");
}

TEST(GraphJsonReader, MissingOrNonStringOp) {
  GraphDoc doc;
  doc.nodes = R"([{"inputs": [0, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0: missing \"op\" (expected a string)");
  doc.nodes = R"([{"op": 7, "inputs": [0, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0: \"op\" is a number, expected a string");
  doc.nodes = R"([{"op": ["add"], "inputs": [0, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0: \"op\" is an array, expected a string");
  doc.nodes = R"([{"op": "", "inputs": [0, 1], "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0: \"op\" is empty (expected an op name");
}

TEST(GraphJsonReader, MissingOrMistypedNodeMembers) {
  GraphDoc doc;
  doc.nodes = R"([{"op": "add", "outputs": [2], "name": "sum"}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add) \"sum\": missing \"inputs\" (expected an array)");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "name": "sum"}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add) \"sum\": missing \"outputs\" (expected an array)");
  doc.nodes = R"([{"op": "add", "inputs": 0, "outputs": [2]}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0 (add): \"inputs\" is a number, expected an array");
  doc.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": 5}])";
  SY_EXPECT_ERROR(doc.Parse(), "node 0: \"name\" is a number, expected a string");
}

TEST(GraphJsonReader, ErrorsInLaterNodesNameTheirIndex) {
  GraphDoc doc = NodesDoc(kChainValues, R"([
    {"op": "relu", "inputs": [0], "outputs": [1], "name": "r0"},
    {"op": "relu", "inputs": [1, 5], "outputs": [2], "name": "r1"}])");
  SY_EXPECT_ERROR(doc.Parse(), "node 1 (relu) \"r1\": inputs[1] is 5");
}

TEST(GraphJsonReader, RandomlyMutatedDocumentsNeverCrash) {
  // Byte-level mutations of a valid document: each must parse or fail with an error, and
  // a graph that parses must then validate or fail with an error (never crash or throw).
  GraphDoc base;
  base.nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": "sum",
                    "attrs": {"a": [1, 2.5], "s": "x"}, "backend": "cuda:0"}])";
  const std::string text = base.Text();
  const std::string alphabet = "{}[],:\"0123456789-.eE ntfruals\\x";
  std::mt19937 rng(12345);
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string doc = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !doc.empty(); ++e) {
      const size_t at = rng() % doc.size();
      switch (rng() % 3) {
        case 0:
          doc[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          doc.erase(at, 1 + rng() % 8);
          break;
        default:
          doc.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    Expected<Graph> graph = ParseGraphJson(doc, nullptr);
    if (!graph.ok()) {
      EXPECT_FALSE(graph.status().message().empty()) << doc;
      continue;
    }
    ++parsed;
    const Status types = ValidateGraphTypes(*graph);
    if (!types.ok()) {
      EXPECT_FALSE(types.message().empty()) << doc;
    }
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace sy
