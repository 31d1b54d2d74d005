// Canonical form of dim expressions (docs/dynamic-shapes.md, "Symbolic checking"): a
// polynomial with int64 coefficients over atoms, so that `seq*batch`, `batch*seq` and
// `dim(3,0)*seq` (value 3's axis 0 being batch) are one form and can be compared.
//
// An atom is a symbol (`batch`), or an opaque term for what is not a polynomial: a
// quotient, a remainder, min, max, a dim(V,A) that could not be resolved, and "?". An
// opaque term is itself built from canonical forms, so `seq/2` and `(seq*1)/2` are the
// same atom; each "?" is a fresh atom equal only to itself. Every atom stands for a
// size, at least 0.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/dim_expr.h"

namespace sy {

class DimPoly {
 public:
  // Sorted atom keys; an atom appears once per power (seq*seq is {seq, seq}).
  using Monomial = std::vector<std::string>;

  DimPoly() = default;        // 0
  DimPoly(int64_t constant);  // NOLINT: a constant converts implicitly
  // An atom: a symbol name, or the key of an opaque term (see DimAlgebra).
  static DimPoly Atom(std::string key);

  // The constant, when the polynomial has no atom.
  std::optional<int64_t> AsConst() const;
  bool is_const() const { return AsConst().has_value(); }
  // True when some term has an opaque atom: then equality of sizes is not decided by
  // comparing the forms.
  bool HasOpaque() const;
  // True when every coefficient is >= 0: the size is >= 0 for every binding of its atoms.
  bool NonNegative() const;

  const std::map<Monomial, int64_t>& terms() const { return terms_; }

  // Readable text for messages: `batch*seq`, `past+seq`, `2*seq`, `seq/2+1`; each fresh
  // "?" prints as `?`.
  std::string ToString() const;
  // The exact text, fresh atoms numbered: what opaque keys are built from.
  std::string Key() const;

  bool operator==(const DimPoly&) const = default;

  // Arithmetic; nullopt when a coefficient overflows int64 or the form grows beyond
  // what is worth keeping (then the result is unknown).
  friend std::optional<DimPoly> Add(const DimPoly& a, const DimPoly& b);
  friend std::optional<DimPoly> Sub(const DimPoly& a, const DimPoly& b);
  friend std::optional<DimPoly> Mul(const DimPoly& a, const DimPoly& b);

 private:
  std::map<Monomial, int64_t> terms_;  // no zero coefficients
};

// q with q * b == a as polynomials, when b is one term (c * atoms) dividing every term of
// a; nullopt otherwise (b may still divide a at every binding: `(seq*seq - seq) / (seq -
// 1)` is not found).
std::optional<DimPoly> DivideExact(const DimPoly& a, const DimPoly& b);

enum class DimOrder : uint8_t {
  kEqual,      // the same size at every binding
  kDifferent,  // different sizes (distinct symbols are independent sizes)
  kUnknown,    // not decided: an opaque term is involved
};

// kEqual when the canonical forms are equal; kDifferent when both are polynomials
// without opaque atoms and differ, or when they differ by a non-zero constant; else
// kUnknown.
DimOrder Compare(const DimPoly& a, const DimPoly& b);

// True when `key` names an opaque atom rather than a symbol.
bool IsOpaqueAtom(std::string_view key);

// Builds canonical forms: from DimExprs, and the operations that are not polynomial,
// each exact where it can be (`(2*seq)/2` is seq, `x/1` is x, `min(a,a)` is a) and an
// opaque atom otherwise. Numbers the fresh atoms, so one algebra serves one graph.
class DimAlgebra {
 public:
  // The canonical form of dim(VALUE, AXIS), or nullopt to keep it as an opaque atom.
  using DimOfResolver = std::function<std::optional<DimPoly>(int32_t value, int64_t axis)>;

  // A new atom that equals no other: a "?", or what overflowed.
  DimPoly Fresh();
  DimPoly FromExpr(const DimExpr& expr, const DimOfResolver& dim_of = nullptr);

  // The arithmetic of DimPoly with a fresh atom in place of an overflow.
  DimPoly Plus(const DimPoly& a, const DimPoly& b);
  DimPoly Minus(const DimPoly& a, const DimPoly& b);
  DimPoly Times(const DimPoly& a, const DimPoly& b);
  // a / b truncating (ONNX Div), a % b with the divisor's sign (ONNX Mod), min, max.
  DimPoly Div(const DimPoly& a, const DimPoly& b);
  DimPoly Mod(const DimPoly& a, const DimPoly& b);
  DimPoly Min(const DimPoly& a, const DimPoly& b);
  DimPoly Max(const DimPoly& a, const DimPoly& b);
  // An opaque atom `name(a, b)` for an operation of the caller's (a convolution's
  // ceil division): equal for equal operands, unequal to anything else.
  DimPoly Opaque(std::string_view name, const std::vector<DimPoly>& operands);

 private:
  // The atom `key`, or a fresh one when the key is too long to be worth comparing.
  DimPoly OpaqueAtom(std::string key);

  int64_t next_fresh_ = 0;
};

}  // namespace sy
