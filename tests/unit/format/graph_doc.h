// Test helper: an rml-graph v1 JSON document assembled from replaceable parts, so that
// each malformed-model test changes exactly one thing of a graph that is otherwise valid.
#pragma once

#include <string>

#include "switchyard/model_io.h"

namespace sy::test {

// The default document is a valid graph:
//   value 0 "x" f32 [2, 3]  (graph input)
//   value 1 "w" f32 [3]     (inline constant [1, 2, 3])
//   value 2 "y" f32 [2, 3]  (node 0: add(x, w), named "sum"; the graph output)
// Each member is the JSON text of one top-level key; an empty string omits the key.
struct GraphDoc {
  std::string format = R"("rml-graph")";
  std::string version = "1";
  std::string producer;
  std::string values = R"([
    {"name": "x", "dtype": "f32", "shape": [2, 3]},
    {"name": "w", "dtype": "f32", "shape": [3]},
    {"name": "y", "dtype": "f32", "shape": [2, 3]}])";
  std::string inputs = "[0]";
  std::string outputs = "[2]";
  std::string constants = R"([{"value": 1, "data": [1, 2, 3]}])";
  std::string nodes = R"([{"op": "add", "inputs": [0, 1], "outputs": [2], "name": "sum"}])";
  std::string extra;  // raw members appended verbatim, e.g. R"("node": [])"

  std::string Text() const {
    std::string out = "{";
    auto add = [&](const char* key, const std::string& json) {
      if (json.empty()) return;
      if (out.size() > 1) out += ",\n";
      out += std::string("\"") + key + "\": " + json;
    };
    add("format", format);
    add("version", version);
    add("producer", producer);
    add("values", values);
    add("inputs", inputs);
    add("outputs", outputs);
    add("constants", constants);
    add("nodes", nodes);
    if (!extra.empty()) out += (out.size() > 1 ? ",\n" : "") + extra;
    return out + "}";
  }

  Expected<Graph> Parse(const SafetensorsFile* weights = nullptr) const {
    return ParseGraphJson(Text(), weights);
  }
};

// A document whose node list is `nodes` (JSON) over `values` (JSON), with graph input 0,
// no constants and graph output `output`.
inline GraphDoc NodesDoc(std::string values, std::string nodes, std::string outputs = "[]",
                         std::string inputs = "[0]") {
  GraphDoc doc;
  doc.values = std::move(values);
  doc.nodes = std::move(nodes);
  doc.outputs = std::move(outputs);
  doc.inputs = std::move(inputs);
  doc.constants.clear();
  return doc;
}

}  // namespace sy::test
