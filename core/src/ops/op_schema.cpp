// The registry of op schemas and the schema-driven checks every node goes through
// before its op's shape rule runs: arity, input dtypes, type variables, attributes.
#include "switchyard/op_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "ops/op_families.h"

namespace sy {

const AttrSpec* OpSchema::FindAttr(std::string_view attr_name) const {
  for (const AttrSpec& spec : attrs) {
    if (spec.name == attr_name) return &spec;
  }
  return nullptr;
}

int OpSchema::min_inputs() const {
  int count = 0;
  for (const InputSpec& in : inputs) {
    if (!in.optional) ++count;
  }
  return count;
}

int OpSchema::max_inputs() const {
  if (!inputs.empty() && inputs.back().variadic) return kVariadic;
  return static_cast<int>(inputs.size());
}

OpRegistry::OpRegistry() {
  // One family per file under core/src/ops/ (<family>_schemas.cpp); each plugin names its
  // op files the same way (docs/ops.md, "Op families").
  const std::pair<std::string_view, void (*)(std::vector<OpSchema>&)> families[] = {
      {"elementwise", ops::AddElementwiseSchemas},
      {"linalg", ops::AddLinalgSchemas},
      {"movement", ops::AddMovementSchemas},
      {"indexing", ops::AddIndexingSchemas},
      {"reduction", ops::AddReductionSchemas},
      {"normalization", ops::AddNormalizationSchemas},
      {"conv_pool", ops::AddConvPoolSchemas},
      {"neural", ops::AddNeuralSchemas},
      {"fused", ops::AddFusedSchemas},
      {"selection", ops::AddSelectionSchemas},
      {"sampling", ops::AddSamplingSchemas},
  };
  for (const auto& [family, add] : families) {
    const size_t first = schemas_.size();
    add(schemas_);
    for (size_t i = first; i < schemas_.size(); ++i) schemas_[i].family = family;
  }
  std::sort(schemas_.begin(), schemas_.end(),
            [](const OpSchema& a, const OpSchema& b) { return a.name < b.name; });
}

const OpRegistry& OpRegistry::Global() {
  // A static object, not a leaked heap one: plugins link core statically and are
  // unloaded, and their copy must be destroyed with them.
  static const OpRegistry registry;
  return registry;
}

const OpSchema* OpRegistry::Find(std::string_view name) const {
  auto it = std::lower_bound(schemas_.begin(), schemas_.end(), name,
                             [](const OpSchema& s, std::string_view n) { return s.name < n; });
  return it != schemas_.end() && it->name == name ? &*it : nullptr;
}

namespace {

std::string ListNames(const std::vector<std::string_view>& names) {
  std::string text;
  for (std::string_view n : names) {
    if (!text.empty()) text += ", ";
    text += n;
  }
  return text;
}

std::string AttrNames(const OpSchema& schema) {
  std::vector<std::string_view> names;
  for (const AttrSpec& spec : schema.attrs) names.push_back(spec.name);
  return names.empty() ? "takes no attributes" : "takes " + ListNames(names);
}

bool IsIntegral(double v) {
  return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.2e18;
}

// Coerces `value` to `kind` where that loses nothing (1.0 -> 1, 2 -> 2.0, [] -> any list);
// false when it cannot.
bool Coerce(AttrValue& value, AttrKind kind) {
  const AttrKind have = KindOf(value);
  if (have == kind) return true;
  switch (kind) {
    case AttrKind::kInt:
      if (have == AttrKind::kFloat && IsIntegral(std::get<double>(value))) {
        value = static_cast<int64_t>(std::get<double>(value));
        return true;
      }
      return false;
    case AttrKind::kFloat:
      if (have == AttrKind::kInt) {
        value = static_cast<double>(std::get<int64_t>(value));
        return true;
      }
      return false;
    case AttrKind::kString:
      return false;
    case AttrKind::kInts:
      if (have == AttrKind::kFloats) {
        std::vector<int64_t> ints;
        for (double d : std::get<std::vector<double>>(value)) {
          if (!IsIntegral(d)) return false;
          ints.push_back(static_cast<int64_t>(d));
        }
        value = std::move(ints);
        return true;
      }
      if (have == AttrKind::kStrings && std::get<std::vector<std::string>>(value).empty()) {
        value = std::vector<int64_t>{};
        return true;
      }
      return false;
    case AttrKind::kFloats:
      if (have == AttrKind::kInts) {
        std::vector<double> floats;
        for (int64_t i : std::get<std::vector<int64_t>>(value)) {
          floats.push_back(static_cast<double>(i));
        }
        value = std::move(floats);
        return true;
      }
      if (have == AttrKind::kStrings && std::get<std::vector<std::string>>(value).empty()) {
        value = std::vector<double>{};
        return true;
      }
      return false;
    case AttrKind::kStrings:
      if (have == AttrKind::kInts && std::get<std::vector<int64_t>>(value).empty()) {
        value = std::vector<std::string>{};
        return true;
      }
      if (have == AttrKind::kFloats && std::get<std::vector<double>>(value).empty()) {
        value = std::vector<std::string>{};
        return true;
      }
      return false;
  }
  return false;
}

Status CheckAllowed(const AttrSpec& spec, const AttrValue& value) {
  if (spec.allowed.empty()) return Status::Ok();
  auto is_allowed = [&](const std::string& s) {
    return std::find(spec.allowed.begin(), spec.allowed.end(), s) != spec.allowed.end();
  };
  std::vector<std::string> given;
  if (const auto* s = std::get_if<std::string>(&value)) given.push_back(*s);
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) given = *list;
  for (const std::string& s : given) {
    if (!is_allowed(s)) {
      return InvalidModel("attribute " + std::string(spec.name) + " is \"" + s +
                          "\" but must be one of: " + ListNames(spec.allowed));
    }
  }
  return Status::Ok();
}

Status NormalizeAttrs(const OpSchema& schema, Attrs& attrs) {
  for (const auto& [name, value] : attrs) {
    if (schema.FindAttr(name) == nullptr) {
      return InvalidModel("unknown attribute " + name + " (" + std::string(schema.name) + " " +
                          AttrNames(schema) + ")");
    }
  }
  for (const AttrSpec& spec : schema.attrs) {
    const AttrValue* present = attrs.Find(spec.name);
    if (present == nullptr) {
      if (spec.default_value) {
        attrs.Set(std::string(spec.name), *spec.default_value);
      } else if (spec.required) {
        return InvalidModel("missing required attribute " + std::string(spec.name) + " (" +
                            std::string(AttrKindName(spec.kind)) + ")");
      }
      continue;
    }
    AttrValue value = *present;
    if (!Coerce(value, spec.kind)) {
      return InvalidModel("attribute " + std::string(spec.name) + " is " +
                          AttrValueToString(*present) + " (" +
                          std::string(AttrKindName(KindOf(*present))) + ") but must be " +
                          std::string(AttrKindName(spec.kind)));
    }
    SY_RETURN_IF_ERROR(CheckAllowed(spec, value));
    attrs.Set(std::string(spec.name), std::move(value));
  }
  return Status::Ok();
}

Status CheckInputs(const OpSchema& schema, std::span<const TensorType> inputs) {
  const int count = static_cast<int>(inputs.size());
  const int min = schema.min_inputs();
  const int max = schema.max_inputs();
  if (count < min || count > max) {
    std::string expected = min == max ? std::to_string(min)
                           : max == OpSchema::kVariadic
                               ? "at least " + std::to_string(min)
                               : std::to_string(min) + " to " + std::to_string(max);
    const bool plural = max == OpSchema::kVariadic ? min != 1 : max != 1;
    return InvalidModel("takes " + expected + " input" + (plural ? "s" : "") + " but has " +
                        std::to_string(count));
  }
  // First input seen for each type variable, to check they agree.
  std::vector<int> bound(schema.type_vars.size(), -1);
  for (int i = 0; i < count; ++i) {
    const InputSpec& spec = schema.inputs[std::min<size_t>(i, schema.inputs.size() - 1)];
    const TypeVar& var = schema.type_vars[spec.type_var];
    const DType dtype = inputs[i].dtype;
    if (!var.allowed.contains(dtype)) {
      return InvalidModel("input " + std::to_string(i) + " (" + std::string(spec.name) +
                          ") has dtype " + std::string(DTypeName(dtype)) + " but " +
                          std::string(schema.name) + " accepts " + var.allowed.ToString());
    }
    int& first = bound[spec.type_var];
    if (first < 0) {
      first = i;
    } else if (inputs[first].dtype != dtype) {
      return InvalidModel("input " + std::to_string(i) + " (" + std::string(spec.name) +
                          ") has dtype " + std::string(DTypeName(dtype)) +
                          " but must match input " + std::to_string(first) + " (" +
                          std::string(DTypeName(inputs[first].dtype)) + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<std::vector<TensorType>> InferOutputTypes(const OpSchema& schema,
                                                   std::span<const TensorType> inputs, Attrs& attrs,
                                                   int num_outputs) {
  SY_RETURN_IF_ERROR(CheckInputs(schema, inputs));
  if (num_outputs < schema.min_outputs || num_outputs > schema.max_outputs) {
    std::string expected =
        schema.min_outputs == schema.max_outputs ? std::to_string(schema.min_outputs)
        : schema.max_outputs == OpSchema::kVariadic
            ? "at least " + std::to_string(schema.min_outputs)
            : std::to_string(schema.min_outputs) + " to " + std::to_string(schema.max_outputs);
    return InvalidModel("produces " + expected + " output" + (schema.max_outputs == 1 ? "" : "s") +
                        " but the node lists " + std::to_string(num_outputs));
  }
  SY_RETURN_IF_ERROR(NormalizeAttrs(schema, attrs));
  if (schema.infer == nullptr)
    return Internal("op " + std::string(schema.name) + " has no shape rule");
  InferContext ctx{inputs, attrs, num_outputs};
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> outputs, schema.infer(ctx));
  if (static_cast<int>(outputs.size()) != num_outputs) {
    return Internal("shape rule of " + std::string(schema.name) + " produced " +
                    std::to_string(outputs.size()) + " outputs for " + std::to_string(num_outputs) +
                    " declared");
  }
  for (const TensorType& out : outputs) {
    SY_RETURN_IF_ERROR(CheckedElementCount(out.shape).status());
  }
  return outputs;
}

}  // namespace sy
