// The op catalogue's schemas: for each op of spec/ops.md, its arity, its inputs' dtype
// constraints, its attributes (kinds, defaults, allowed values) and its shape rule.
// This is the one place that decides what an op produces; validation, plugins' support
// queries and the CLI all read it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/dtype.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy {

// A type variable in the ONNX sense: every input bound to the same variable must have
// the same dtype, and that dtype must be in `allowed`.
struct TypeVar {
  std::string_view name;  // "T", "Tind", ...
  DTypeSet allowed;
};

struct InputSpec {
  std::string_view name;  // "x", "w", "bias": used in error messages
  int type_var = 0;       // index into OpSchema::type_vars
  bool optional = false;  // may be omitted (only trailing inputs are optional)
  bool variadic = false;  // the last input only: repeats 1..N times (concat)
};

struct AttrSpec {
  std::string_view name;
  AttrKind kind = AttrKind::kInt;
  // Filled in when the attribute is absent; nullopt means "optional, no default"
  // (the shape rule decides) unless `required`.
  std::optional<AttrValue> default_value;
  bool required = false;
  // For kString / kStrings: the allowed values; empty means any string.
  std::vector<std::string_view> allowed;
};

// What a shape rule sees. Input and attribute checks of the schema (arity, dtypes, type
// variables, attribute kinds and allowed values) have passed; attributes are normalised
// to their schema kinds, with defaults filled in.
struct InferContext {
  std::span<const TensorType> inputs;  // as given; optional inputs that were omitted are absent
  const Attrs& attrs;
  int num_outputs = 1;  // as the node declares; the rule must reject a count it cannot produce

  const TensorType& input(size_t i) const { return inputs[i]; }
  size_t num_inputs() const { return inputs.size(); }
};

// Returns the output types, or an error that says what is wrong without naming the node
// (the caller prefixes the node index, op and name). Messages refer to inputs by their
// InputSpec names and to attributes by name, e.g. "input w has shape [12, 8] but its
// dimension 0 must equal input x's last dimension 16".
using ShapeRule = Expected<std::vector<TensorType>> (*)(const InferContext& ctx);

// How an op's work grows with its data, for the scheduler. kCompute: faster than its
// bytes (products, convolutions, attention), which is where a preferred device earns its
// place, so the island pass never moves such a node to save a copy; kMemory: about as its
// bytes (elementwise, movement, reductions, norms).
enum class OpCost : uint8_t { kMemory, kCompute };

struct OpSchema {
  std::string_view name;       // lower_snake_case catalogue name
  std::string_view onnx_name;  // the ONNX operator whose semantics it has ("" if none)
  std::string_view family;     // its file under core/src/ops/ and in every plugin (docs/ops.md)
  std::vector<TypeVar> type_vars;
  std::vector<InputSpec> inputs;
  int min_outputs = 1;
  int max_outputs = 1;  // kVariadic: any number >= min_outputs
  std::vector<AttrSpec> attrs;
  ShapeRule infer = nullptr;
  OpCost cost = OpCost::kMemory;

  static constexpr int kVariadic = INT32_MAX;

  const AttrSpec* FindAttr(std::string_view attr_name) const;
  int min_inputs() const;
  int max_inputs() const;  // kVariadic when the last input is variadic
};

// All schemas of the catalogue, built once on first use (thread-safe) and destroyed at
// exit (or, in a plugin that links core, when the plugin is unloaded).
class OpRegistry {
 public:
  static const OpRegistry& Global();

  const OpSchema* Find(std::string_view name) const;
  std::span<const OpSchema> schemas() const { return schemas_; }

 private:
  OpRegistry();
  std::vector<OpSchema> schemas_;  // sorted by name
};

// Checks a node's inputs and attributes against `schema` and returns its output types.
// Normalises `attrs` in place (kinds coerced, defaults filled in). Errors do not name the
// node; the caller adds that context.
Expected<std::vector<TensorType>> InferOutputTypes(const OpSchema& schema,
                                                   std::span<const TensorType> inputs, Attrs& attrs,
                                                   int num_outputs);

// The canonical form of a validated node's attributes: what the plugin host sends across
// the boundary (docs/plugin-abi.md, "Canonical nodes"), so that no plugin resolves them
// again. Every `axis` and `axes` entry is made non-negative (they count the first
// input's axes); reduce_* list their `axes` explicitly, in increasing order (every axis
// when absent or empty); slice gives starts, ends, axes and steps for every axis of x in
// order, starts the first index read and ends resolved so that ONNX Slice reads the same
// elements. `attrs` must have passed InferOutputTypes for `inputs` (defaults filled in).
Attrs CanonicalAttrs(const OpSchema& schema, std::span<const TensorType> inputs,
                     const Attrs& attrs);
// False when CanonicalAttrs returns every node of `schema`'s op unchanged (the op has no
// axis, axes or slice bounds), so that callers can skip the copy.
bool HasCanonicalForm(const OpSchema& schema);

}  // namespace sy
