// Model checks before the walk (model_checks.h).
#include "model_checks.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

struct Failure {
  ImportProblem problem;
  Status status;
};

bool IsTrainingDomain(const std::string& domain) { return domain == "ai.onnx.preview.training"; }

// Ops that exist for types rml-graph v1 lacks (sequences, optionals, strings): a model
// using them fails on its types more than on the op.
bool IsTypeBoundOp(const std::string& op) {
  return op.find("Sequence") != std::string::npos || op.starts_with("Optional") ||
         op == "StringNormalizer" || op == "StringConcat" || op == "StringSplit" ||
         op == "RegexFullMatch";
}

std::string NodeLabel(const FlatNode& flat) {
  std::string label = "node " + std::to_string(flat.index);
  if (!flat.node.name().empty()) label += " \"" + flat.node.name() + "\"";
  return label + flat.origin;
}

// Whether a mapping covers the op at the version the opsets resolve it to.
bool IsMappedAt(const std::string& domain, const std::string& op, const OpsetMap& opsets) {
  const auto it = opsets.find(CanonicalOnnxDomain(domain));
  if (it == opsets.end()) return false;
  const OnnxSchema* schema = FindOnnxSchema(domain, op, it->second);
  return schema != nullptr && Mappings().Find(MappingKey(domain, op), schema->since_version);
}

// An ONNX graph is in single-assignment form: no two nodes write one name, and no node
// writes a graph input's or an initializer's name. Refused rather than renamed, which
// would silently change what later nodes read.
std::optional<Failure> CheckSingleAssignment(const onnx::GraphProto& graph, const FlatGraph& flat) {
  std::map<std::string, std::string> writer;  // name -> what defines it
  for (const onnx::ValueInfoProto& input : graph.input()) writer[input.name()] = "a graph input";
  for (const onnx::TensorProto& init : graph.initializer()) writer[init.name()] = "an initializer";
  for (const FlatNode& f : flat.nodes) {
    const onnx::NodeProto& node = f.node;
    for (const std::string& out : node.output()) {
      if (out.empty()) continue;  // an omitted optional output
      const std::string label = node.op_type() + " " + NodeLabel(f);
      const auto [it, inserted] = writer.emplace(out, label);
      if (!inserted) {
        return Failure{ImportProblem::kInvalidModel,
                       InvalidModel(label + " writes '" + out + "', which " + it->second +
                                    " already defines (an ONNX graph assigns "
                                    "each name once)")};
      }
    }
  }
  return std::nullopt;
}

// Each node against its op's schema (onnx_schemas.h, at the version the node's opset
// resolves it to): as many inputs and outputs as the op takes, required inputs present,
// required attributes given. Mappings and folds read the inputs the schema requires
// without checking again. Ops the table does not describe are left to CheckAllOpsKnown.
std::optional<Failure> CheckArity(const FlatGraph& flat) {
  for (const FlatNode& f : flat.nodes) {
    const onnx::NodeProto& node = f.node;
    const OnnxSchema* schema = SchemaOf(f);
    if (schema == nullptr) continue;
    const auto count = [](int n, int lo, int hi) { return n >= lo && n <= hi; };
    // Trailing optional inputs and outputs may be given as "" (absent); they still count.
    if (!count(node.input_size(), schema->min_inputs, schema->max_inputs) ||
        !count(node.output_size(), schema->min_outputs, schema->max_outputs)) {
      const auto range = [](int lo, int hi) {
        return hi == std::numeric_limits<int32_t>::max()
                   ? std::to_string(lo) + " or more"
                   : (lo == hi ? std::to_string(lo)
                               : std::to_string(lo) + " to " + std::to_string(hi));
      };
      return Failure{
          ImportProblem::kInvalidModel,
          InvalidModel(node.op_type() + " " + NodeLabel(f) + " has " +
                       std::to_string(node.input_size()) + " inputs and " +
                       std::to_string(node.output_size()) + " outputs; " + schema->Label() +
                       " takes " + range(schema->min_inputs, schema->max_inputs) + " inputs and " +
                       range(schema->min_outputs, schema->max_outputs) + " outputs")};
    }
    // An input the schema does not mark optional must be given (not "").
    const auto formals = schema->Inputs();
    for (int k = 0; k < node.input_size() && !formals.empty(); ++k) {
      const OnnxFormal& formal =
          formals[std::min<size_t>(static_cast<size_t>(k), formals.size() - 1)];
      if (node.input(k).empty() && formal.option != OnnxFormalOption::kOptional) {
        return Failure{ImportProblem::kInvalidModel,
                       InvalidModel(node.op_type() + " " + NodeLabel(f) + ": input " +
                                    std::to_string(k) + " (" + std::string(formal.name) + ") of " +
                                    schema->Label() + " is required but absent")};
      }
    }
    for (const OnnxAttrSpec& spec : schema->Attributes()) {
      if (!spec.required) continue;
      bool given = false;
      for (const auto& attr : node.attribute()) given = given || attr.name() == spec.name;
      if (!given) {
        return Failure{ImportProblem::kInvalidModel,
                       InvalidModel(node.op_type() + " " + NodeLabel(f) + ": attribute '" +
                                    std::string(spec.name) + "' of " + schema->Label() +
                                    " is required but absent")};
      }
    }
  }
  return std::nullopt;
}

// Every node the table has no entry for, listed in one message.
std::optional<Failure> CheckAllOpsKnown(const FlatGraph& flat) {
  std::map<std::string, std::vector<std::string>> unknown;
  bool training = false;
  bool only_type_bound = true;
  for (const FlatNode& f : flat.nodes) {
    const onnx::NodeProto& node = f.node;
    const std::string key = MappingKey(node.domain(), node.op_type());
    const int64_t opset = OpsetOf(f, node.domain());
    const OnnxSchema* schema = SchemaOf(f);
    if (opset == 0 && !IsDefaultDomain(node.domain()) && !IsTrainingDomain(node.domain())) {
      return Failure{
          ImportProblem::kInvalidModel,
          InvalidModel(node.op_type() + " " + NodeLabel(f) + " is in domain '" + node.domain() +
                       "', which the model does not import (no "
                       "opset_import entry for it)")};
    }
    if (schema != nullptr && Mappings().Find(key, schema->since_version) != nullptr) continue;
    if (schema != nullptr && Mappings().Knows(key)) {
      // A version of a mapped op that no mapping has been checked against.
      std::string ranges;
      for (const VersionRange& r : Mappings().Ranges(key)) {
        ranges += (ranges.empty() ? "" : ", ") + std::to_string(r.first) +
                  (r.last == r.first ? "" : " to " + std::to_string(r.last));
      }
      return Failure{ImportProblem::kUnsupportedOp,
                     Unsupported(node.op_type() + " " + NodeLabel(f) + ": the model's opset " +
                                 std::to_string(opset) + " resolves it to " + schema->Label() +
                                 ", and the importer maps versions " + ranges + " of " + key)};
    }
    if (schema == nullptr && opset > 0) {
      const auto versions = OnnxSchemaVersions(node.domain(), node.op_type());
      if (!versions.empty() && versions.front().since_version > opset) {
        return Failure{
            ImportProblem::kInvalidModel,
            InvalidModel(node.op_type() + " " + NodeLabel(f) + ": " + key + " exists from opset " +
                         std::to_string(versions.front().since_version) +
                         " of its domain on, but the model imports opset " +
                         std::to_string(opset))};
      }
    }
    training = training || IsTrainingDomain(node.domain());
    only_type_bound = only_type_bound && IsTypeBoundOp(node.op_type());
    std::string op = IsDefaultDomain(node.domain()) ? node.op_type() : key;
    if (schema != nullptr && schema->context_dependent_body) {
      op += " [ONNX defines it by a body built from its input types, not expanded yet]";
    }
    unknown[op].push_back(NodeLabel(f));
  }
  if (unknown.empty()) return std::nullopt;
  std::string message =
      training ? "the model uses training-only ops, which the importer does not map: "
               : "the model uses ONNX ops that the importer cannot map onto the catalogue: ";
  bool first = true;
  for (const auto& [op, nodes] : unknown) {
    if (!first) message += "; ";
    first = false;
    message += op + " (";
    for (size_t i = 0; i < nodes.size() && i < 3; ++i) message += (i ? ", " : "") + nodes[i];
    if (nodes.size() > 3) message += ", and " + std::to_string(nodes.size() - 3) + " more";
    message += ")";
  }
  return Failure{training          ? ImportProblem::kTrainingOnly
                 : only_type_bound ? ImportProblem::kUnsupportedType
                                   : ImportProblem::kUnsupportedOp,
                 Unsupported(message)};
}

}  // namespace

Status Fail(ImportProblem& problem, ImportProblem kind, Status status) {
  problem = kind;
  return status;
}

bool IsDefaultDomain(const std::string& domain) { return CanonicalOnnxDomain(domain).empty(); }

// The opset of `domain` a node binds against (0 when its opsets do not import it).
int64_t OpsetOf(const FlatNode& flat, const std::string& domain) {
  const auto it = flat.opsets->find(CanonicalOnnxDomain(domain));
  return it == flat.opsets->end() ? 0 : it->second;
}

// The schema a node's op resolves to at its opset (null: unknown, or not yet at it).
const OnnxSchema* SchemaOf(const FlatNode& flat) {
  return FindOnnxSchema(flat.node.domain(), flat.node.op_type(), OpsetOf(flat, flat.node.domain()));
}

Expected<FlatGraph> FlattenAndCheck(const onnx::ModelProto& model, ImportProblem& problem) {
  const onnx::GraphProto& graph = model.graph();
  int64_t default_opset = 0;
  for (const auto& o : model.opset_import()) {
    if (IsDefaultDomain(o.domain())) default_opset = o.version();
  }
  const bool default_domain_nodes =
      std::any_of(graph.node().begin(), graph.node().end(),
                  [](const onnx::NodeProto& n) { return IsDefaultDomain(n.domain()); });
  if (default_opset == 0 && default_domain_nodes) {
    return Fail(problem, ImportProblem::kInvalidModel,
                InvalidModel("the model imports no opset of the default ONNX domain"));
  }
  // Opset 7 and later is the contract; earlier models import too where their ops kept
  // their meaning, and the mappings handle the pre-7 differences they know (binary ops'
  // broadcast along an axis, PRelu's per-channel slope). A domain version newer than the
  // schema table may have changed what its ops mean: refused.
  for (const auto& opset : model.opset_import()) {
    const int64_t newest = NewestOnnxOpset(opset.domain());
    const bool default_domain = IsDefaultDomain(opset.domain());
    if ((default_domain && graph.node_size() > 0 && opset.version() < 1) ||
        (newest > 0 && opset.version() > newest)) {
      const std::string domain =
          default_domain ? "the default ONNX domain" : "domain '" + opset.domain() + "'";
      return Fail(problem, ImportProblem::kInvalidModel,
                  InvalidModel("the model imports opset " + std::to_string(opset.version()) +
                               " of " + domain + "; this importer's schema table (" +
                               std::string(OnnxSchemas().source) + ") knows opsets 1 to " +
                               std::to_string(newest)));
    }
  }
  Expected<FlatGraph> flat = ExpandFunctions(model, IsMappedAt);
  if (!flat.ok()) return Fail(problem, ImportProblem::kInvalidModel, flat.status());
  std::optional<Failure> f = CheckAllOpsKnown(*flat);
  if (!f) f = CheckSingleAssignment(graph, *flat);
  if (!f) f = CheckArity(*flat);
  if (f) return Fail(problem, f->problem, f->status);
  return flat;
}

}  // namespace sy::onnx_import
