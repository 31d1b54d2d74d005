// Symbolic dimensions (docs/dynamic-shapes.md): the integer expressions that a graph with
// run-time sizes records in place of a dim or an integer attribute.
//
// A DimExpr is an immutable tree over integer constants, named symbols ("batch", "seq":
// the sizes a graph's inputs declare), references to a dim of an earlier value
// (`dim(17, 1)`: value 17's axis 1, for shapes that an exporter reads from an
// intermediate), and + - * / % min max. "?" is the unknown dim: a recorded shape may say
// it, a computation may not. Copies share the tree; building one simplifies constants
// (`seq * 1` is `seq`, `2 * 3` is `6`), nothing more.
//
// Text form (the rml-graph JSON stores it): `batch`, `seq*12`, `past+seq`,
// `dim(17,1)/64`, `max(seq,1)`. `/` truncates toward zero like ONNX integer Div; `%`
// takes the divisor's sign like ONNX Mod (fmod=0).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "switchyard/status.h"

namespace sy {

class DimExpr {
 public:
  enum class Kind : uint8_t {
    kConst,
    kSymbol,
    kDimOf,  // a dim of an earlier value: value_id(), axis()
    kUnknown,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kMin,
    kMax,
  };

  DimExpr() : DimExpr(int64_t{0}) {}
  DimExpr(int64_t value);  // NOLINT: a constant converts implicitly, as in `seq * 2`
  static DimExpr Symbol(std::string name);
  static DimExpr DimOf(int32_t value_id, int64_t axis);
  static DimExpr Unknown();
  static DimExpr Binary(Kind kind, const DimExpr& lhs, const DimExpr& rhs);

  Kind kind() const { return node_->kind; }
  bool is_const() const { return kind() == Kind::kConst; }
  bool is_unknown() const { return kind() == Kind::kUnknown; }
  // Constants only.
  int64_t value() const { return node_->value; }
  // Symbols only.
  const std::string& symbol() const { return node_->name; }
  // kDimOf only.
  int32_t value_id() const { return static_cast<int32_t>(node_->value); }
  int64_t axis() const { return node_->axis; }
  // Binary kinds only.
  const DimExpr& lhs() const { return *node_->lhs; }
  const DimExpr& rhs() const { return *node_->rhs; }

  // True when the expression is at least 0 for every binding of its symbols (dims and
  // symbols are, and sums, products, quotients, min and max of such): what an importer
  // needs to decide `dim == -1` without knowing the dim.
  bool NonNegative() const;
  // The tree's depth (a leaf: 1) and its node count, counting a shared subtree each time
  // it appears; both saturate at 2^31.
  uint32_t depth() const { return node_->depth; }
  uint32_t size() const { return node_->size; }

  // True when both are the same tree (after the constant simplification of building).
  bool SameAs(const DimExpr& other) const;

  // The symbols and the values whose dims it reads.
  void CollectSymbols(std::set<std::string>& out) const;
  void CollectValues(std::set<int32_t>& out) const;

  // The same expression with every dim(VALUE, AXIS) reading map(VALUE) instead: how a
  // graph copied with new value ids keeps its expressions.
  DimExpr MapValues(const std::function<int32_t(int32_t)>& map) const;

  // The text form; parses back to the same tree.
  std::string ToString() const;
  // Parses the text form. Identifiers are [A-Za-z_][A-Za-z0-9_.]*; `?` alone is the
  // unknown dim. Errors say where in `text` parsing stopped.
  static Expected<DimExpr> Parse(std::string_view text);

  // What evaluation looks up: a symbol's value, and a dim of an earlier value.
  struct Bindings {
    const std::map<std::string, int64_t, std::less<>>* symbols = nullptr;
    std::function<Expected<int64_t>(int32_t value_id, int64_t axis)> dim_of;
  };
  // The value, or an error for an unbound symbol, an unknown dim, a division by zero or
  // an overflow of int64, each naming the expression.
  Expected<int64_t> Evaluate(const Bindings& bindings) const;

 private:
  struct Node {
    Kind kind = Kind::kConst;
    int64_t value = 0;  // kConst: the constant; kDimOf: the value id
    int64_t axis = 0;   // kDimOf
    std::string name;   // kSymbol
    uint32_t depth = 1, size = 1;
    std::shared_ptr<const DimExpr> lhs, rhs;
  };
  explicit DimExpr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

DimExpr operator+(const DimExpr& a, const DimExpr& b);
DimExpr operator-(const DimExpr& a, const DimExpr& b);
DimExpr operator*(const DimExpr& a, const DimExpr& b);
DimExpr operator/(const DimExpr& a, const DimExpr& b);
DimExpr operator%(const DimExpr& a, const DimExpr& b);

// A symbol's name is an identifier: [A-Za-z_][A-Za-z0-9_.]*, at most 128 characters.
bool IsSymbolName(std::string_view name);

}  // namespace sy
