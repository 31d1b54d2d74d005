// `switchyard ops [OP...] [--json | --markdown]`: the op catalogue as this build
// implements it, read from the schemas (so it cannot drift from validation).
#include <iostream>

#include <boost/program_options.hpp>

#include "cli.h"
#include "switchyard/op_schema.h"
#include "switchyard/op_tags.h"

namespace sy::cli {
namespace {

namespace po = boost::program_options;

std::string Arity(int min, int max) {
  if (min == max) return std::to_string(min);
  if (max == OpSchema::kVariadic) return std::to_string(min) + "+";
  return std::to_string(min) + "-" + std::to_string(max);
}

std::string DescribeInputs(const OpSchema& s) {
  std::string text;
  for (const InputSpec& in : s.inputs) {
    if (!text.empty()) text += ", ";
    text += std::string(in.name) + ": " + std::string(s.type_vars[in.type_var].name);
    if (in.optional) text += " (optional)";
    if (in.variadic) text += "...";
  }
  return text.empty() ? "(none)" : text;
}

std::string DescribeTypeVars(const OpSchema& s) {
  std::string text;
  for (const TypeVar& v : s.type_vars) {
    if (!text.empty()) text += "; ";
    text += std::string(v.name) + " = " + v.allowed.ToString();
  }
  return text;
}

std::string DescribeAttr(const AttrSpec& a) {
  std::string text = std::string(a.name) + " (" + std::string(AttrKindName(a.kind));
  if (a.required) {
    text += ", required";
  } else if (a.default_value) {
    text += ", default " + AttrValueToString(*a.default_value);
  } else {
    text += ", optional";
  }
  if (!a.allowed.empty()) {
    text += ", one of";
    for (std::string_view v : a.allowed) text.append(" ").append(v);
  }
  return text + ")";
}

std::string DescribeAttrs(const OpSchema& s, std::string_view separator) {
  std::string text;
  for (const AttrSpec& a : s.attrs) {
    if (!text.empty()) text += separator;
    text += DescribeAttr(a);
  }
  return text;
}

// Every catalogue op has a tag (op_tags_test holds the table to that); -1 would say one
// was forgotten.
int64_t TagOf(const OpSchema& s) {
  const std::optional<uint16_t> tag = FindOpTag(s.name);
  return tag ? int64_t{*tag} : -1;
}

boost::json::object SchemaToJson(const OpSchema& s) {
  boost::json::array inputs;
  for (const InputSpec& in : s.inputs) {
    inputs.push_back({{"name", in.name},
                      {"type", s.type_vars[in.type_var].name},
                      {"optional", in.optional},
                      {"variadic", in.variadic}});
  }
  boost::json::object types;
  for (const TypeVar& v : s.type_vars) types[v.name] = v.allowed.ToString();
  boost::json::array attrs;
  for (const AttrSpec& a : s.attrs) {
    boost::json::object attr{
        {"name", a.name}, {"kind", AttrKindName(a.kind)}, {"required", a.required}};
    if (a.default_value) attr["default"] = AttrValueToString(*a.default_value);
    if (!a.allowed.empty()) {
      boost::json::array allowed;
      for (std::string_view v : a.allowed) allowed.emplace_back(v);
      attr["allowed"] = std::move(allowed);
    }
    attrs.push_back(std::move(attr));
  }
  return {{"name", s.name},
          {"tag", TagOf(s)},
          {"onnx", s.onnx_name},
          {"family", s.family},
          {"inputs", std::move(inputs)},
          {"types", std::move(types)},
          {"outputs", Arity(s.min_outputs, s.max_outputs)},
          {"attrs", std::move(attrs)}};
}

}  // namespace

int RunOps(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: switchyard ops [OP...] [--json | --markdown]\n\n"
      "Lists the op catalogue as this build implements it: each op's inputs and their\n"
      "dtype constraints, outputs, attributes with defaults and allowed values, and\n"
      "its op tag: the stable number that names it in the binary graph encoding.\n"
      "With OP names, only those ops (an unknown name is an error).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("json", "print a JSON array")(
      "markdown", "print a Markdown table (used for docs/ops.md)");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("ops", args, visible, "op", vm, exit_code)) return exit_code;
  if (vm.count("json") && vm.count("markdown")) {
    PrintError("ops", "--json and --markdown are exclusive");
    return kExitUsage;
  }
  const OpRegistry& registry = OpRegistry::Global();
  std::vector<const OpSchema*> selected;
  if (vm.count("op")) {
    for (const std::string& name : vm["op"].as<std::vector<std::string>>()) {
      const OpSchema* s = registry.Find(name);
      if (s == nullptr) {
        PrintError("ops", "unknown op \"" + name + "\" (run 'switchyard ops' for the catalogue)");
        return kExitFailure;
      }
      selected.push_back(s);
    }
  } else {
    for (const OpSchema& s : registry.schemas()) selected.push_back(&s);
  }

  if (vm.count("json")) {
    boost::json::array out;
    for (const OpSchema* s : selected) out.push_back(SchemaToJson(*s));
    std::cout << boost::json::serialize(out) << "\n";
  } else if (vm.count("markdown")) {
    std::cout << "| op | tag | family | ONNX | inputs | types | outputs | attributes |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const OpSchema* s : selected) {
      std::cout << "| " << s->name << " | " << TagOf(*s) << " | " << s->family << " | "
                << (s->onnx_name.empty() ? "-" : s->onnx_name) << " | " << DescribeInputs(*s)
                << " | " << DescribeTypeVars(*s) << " | " << Arity(s->min_outputs, s->max_outputs)
                << " | " << (s->attrs.empty() ? "-" : DescribeAttrs(*s, "<br>")) << " |\n";
    }
  } else {
    for (const OpSchema* s : selected) {
      std::cout << s->name;
      if (!s->onnx_name.empty()) std::cout << " (ONNX " << s->onnx_name << ")";
      std::cout << "\n  tag:     " << TagOf(*s) << "\n  family:  " << s->family
                << "\n  inputs:  " << DescribeInputs(*s) << "\n  types:   " << DescribeTypeVars(*s)
                << "\n  outputs: " << Arity(s->min_outputs, s->max_outputs) << "\n";
      if (!s->attrs.empty())
        std::cout << "  attrs:   " << DescribeAttrs(*s, "\n           ") << "\n";
    }
    std::cout << selected.size() << " ops\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
