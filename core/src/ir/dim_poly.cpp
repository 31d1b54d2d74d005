// DimPoly: canonical polynomials over size atoms, and DimAlgebra, which builds them.
#include "ir/dim_poly.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace sy {
namespace {

// Beyond these a form is not worth keeping: a product of many sums has as many terms as
// the product of their lengths.
constexpr size_t kMaxTerms = 256;
constexpr size_t kMaxDegree = 32;
// An opaque term's key holds its operands' keys; terms built from terms could double at
// each step, so a longer one is a fresh atom instead.
constexpr size_t kMaxKeyLength = 512;

// The key of an atom that prints as `?`: '?' then its number.
bool IsFreshAt(const std::string& text, size_t i) {
  return text[i] == '?' && i + 1 < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[i + 1]));
}

// True when `key` has a '/' or '%' outside brackets: a quotient or remainder atom, which
// needs brackets as a factor of a product (`2*(seq/3)`).
bool IsQuotientAtom(const std::string& key) {
  int depth = 0;
  for (char c : key) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == '/' || c == '%')) return true;
  }
  return false;
}

// Degree first (highest first), then the atoms' order: `batch*seq+past+seq+1`.
bool TermBefore(const DimPoly::Monomial& a, const DimPoly::Monomial& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a < b;
}

std::string TermText(const DimPoly::Monomial& atoms, int64_t coefficient) {
  if (atoms.empty()) return std::to_string(coefficient);
  const bool product = atoms.size() > 1 || (coefficient != 1 && coefficient != -1);
  std::string text;
  for (const std::string& atom : atoms) {
    if (!text.empty()) text += "*";
    text += product && IsQuotientAtom(atom) ? "(" + atom + ")" : atom;
  }
  if (coefficient == 1) return text;
  if (coefficient == -1) return "-" + text;
  return std::to_string(coefficient) + "*" + text;
}

// The key of `p` as an operand of / or %: bracketed unless it is one atom or a
// non-negative constant.
std::string Operand(const DimPoly& p) {
  std::string key = p.Key();
  const std::optional<int64_t> c = p.AsConst();
  if (c && *c >= 0) return key;
  if (p.terms().size() == 1 && p.terms().begin()->second == 1 &&
      p.terms().begin()->first.size() == 1 && !IsQuotientAtom(key)) {
    return key;
  }
  return "(" + key + ")";
}

// Removes the atoms of `part` from `whole` (both sorted); false when some is missing.
bool RemoveAtoms(const DimPoly::Monomial& whole, const DimPoly::Monomial& part,
                 DimPoly::Monomial& rest) {
  if (!std::includes(whole.begin(), whole.end(), part.begin(), part.end())) return false;
  rest.clear();
  std::set_difference(whole.begin(), whole.end(), part.begin(), part.end(),
                      std::back_inserter(rest));
  return true;
}

}  // namespace

DimPoly::DimPoly(int64_t constant) {
  if (constant != 0) terms_[{}] = constant;
}

DimPoly DimPoly::Atom(std::string key) {
  DimPoly p;
  p.terms_[{std::move(key)}] = 1;
  return p;
}

std::optional<int64_t> DimPoly::AsConst() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

bool DimPoly::HasOpaque() const {
  for (const auto& [atoms, coefficient] : terms_) {
    for (const std::string& atom : atoms) {
      if (IsOpaqueAtom(atom)) return true;
    }
  }
  return false;
}

bool DimPoly::NonNegative() const {
  return std::all_of(terms_.begin(), terms_.end(), [](const auto& t) { return t.second >= 0; });
}

std::string DimPoly::Key() const {
  if (terms_.empty()) return "0";
  std::vector<const std::pair<const Monomial, int64_t>*> order;
  for (const auto& term : terms_) order.push_back(&term);
  std::sort(order.begin(), order.end(),
            [](const auto* a, const auto* b) { return TermBefore(a->first, b->first); });
  std::string text;
  for (const auto* term : order) {
    std::string t = TermText(term->first, term->second);
    if (!text.empty() && t[0] != '-') text += "+";
    text += t;
  }
  return text;
}

std::string DimPoly::ToString() const {
  const std::string key = Key();
  std::string text;
  for (size_t i = 0; i < key.size(); ++i) {
    text += key[i];
    if (IsFreshAt(key, i)) {
      while (i + 1 < key.size() && std::isdigit(static_cast<unsigned char>(key[i + 1]))) ++i;
    }
  }
  return text;
}

std::optional<DimPoly> Add(const DimPoly& a, const DimPoly& b) {
  DimPoly out = a;
  for (const auto& [atoms, coefficient] : b.terms_) {
    int64_t& c = out.terms_[atoms];
    if (__builtin_add_overflow(c, coefficient, &c)) return std::nullopt;
    if (c == 0) out.terms_.erase(atoms);
  }
  if (out.terms_.size() > kMaxTerms) return std::nullopt;
  return out;
}

std::optional<DimPoly> Sub(const DimPoly& a, const DimPoly& b) {
  DimPoly negated;
  for (const auto& [atoms, coefficient] : b.terms_) {
    if (coefficient == std::numeric_limits<int64_t>::min()) return std::nullopt;
    negated.terms_[atoms] = -coefficient;
  }
  return Add(a, negated);
}

std::optional<DimPoly> Mul(const DimPoly& a, const DimPoly& b) {
  if (a.terms_.size() * b.terms_.size() > kMaxTerms * 4) return std::nullopt;
  DimPoly out;
  for (const auto& [atoms_a, ca] : a.terms_) {
    for (const auto& [atoms_b, cb] : b.terms_) {
      if (atoms_a.size() + atoms_b.size() > kMaxDegree) return std::nullopt;
      DimPoly::Monomial atoms;
      std::merge(atoms_a.begin(), atoms_a.end(), atoms_b.begin(), atoms_b.end(),
                 std::back_inserter(atoms));
      int64_t product = 0;
      if (__builtin_mul_overflow(ca, cb, &product)) return std::nullopt;
      int64_t& c = out.terms_[atoms];
      if (__builtin_add_overflow(c, product, &c)) return std::nullopt;
      if (c == 0) out.terms_.erase(atoms);
    }
  }
  if (out.terms_.size() > kMaxTerms) return std::nullopt;
  return out;
}

std::optional<DimPoly> DivideExact(const DimPoly& a, const DimPoly& b) {
  if (b.terms().size() != 1) return std::nullopt;
  const auto& [divisor_atoms, divisor] = *b.terms().begin();
  if (divisor == 0) return std::nullopt;
  DimPoly quotient;
  DimPoly::Monomial rest;
  for (const auto& [atoms, coefficient] : a.terms()) {
    if (coefficient == std::numeric_limits<int64_t>::min() && divisor == -1) return std::nullopt;
    if (coefficient % divisor != 0) return std::nullopt;
    if (!RemoveAtoms(atoms, divisor_atoms, rest)) return std::nullopt;
    DimPoly term(coefficient / divisor);
    for (const std::string& atom : rest) {
      std::optional<DimPoly> t = Mul(term, DimPoly::Atom(atom));
      if (!t) return std::nullopt;
      term = std::move(*t);
    }
    std::optional<DimPoly> sum = Add(quotient, term);
    if (!sum) return std::nullopt;
    quotient = std::move(*sum);
  }
  return quotient;
}

DimOrder Compare(const DimPoly& a, const DimPoly& b) {
  if (a == b) return DimOrder::kEqual;
  const std::optional<DimPoly> difference = Sub(a, b);
  if (difference && difference->is_const()) return DimOrder::kDifferent;
  if (!a.HasOpaque() && !b.HasOpaque()) return DimOrder::kDifferent;
  return DimOrder::kUnknown;
}

bool IsOpaqueAtom(std::string_view key) { return !IsSymbolName(key); }

DimPoly DimAlgebra::Fresh() { return DimPoly::Atom("?" + std::to_string(++next_fresh_)); }

DimPoly DimAlgebra::OpaqueAtom(std::string key) {
  if (key.size() > kMaxKeyLength) return Fresh();
  return DimPoly::Atom(std::move(key));
}

DimPoly DimAlgebra::Plus(const DimPoly& a, const DimPoly& b) {
  std::optional<DimPoly> r = Add(a, b);
  return r ? std::move(*r) : Fresh();
}
DimPoly DimAlgebra::Minus(const DimPoly& a, const DimPoly& b) {
  std::optional<DimPoly> r = Sub(a, b);
  return r ? std::move(*r) : Fresh();
}
DimPoly DimAlgebra::Times(const DimPoly& a, const DimPoly& b) {
  std::optional<DimPoly> r = Mul(a, b);
  return r ? std::move(*r) : Fresh();
}

DimPoly DimAlgebra::Div(const DimPoly& a, const DimPoly& b) {
  const std::optional<int64_t> ca = a.AsConst();
  const std::optional<int64_t> cb = b.AsConst();
  const bool zero_divisor = cb && *cb == 0;
  if (ca && cb && !zero_divisor && !(*ca == std::numeric_limits<int64_t>::min() && *cb == -1)) {
    return *ca / *cb;
  }
  // A divisor that is 0 at run time makes the evaluation fail; where it is not, an exact
  // quotient is the quotient.
  if (!zero_divisor) {
    if (std::optional<DimPoly> q = DivideExact(a, b)) return std::move(*q);
  }
  return OpaqueAtom(Operand(a) + "/" + Operand(b));
}

DimPoly DimAlgebra::Mod(const DimPoly& a, const DimPoly& b) {
  const std::optional<int64_t> ca = a.AsConst();
  const std::optional<int64_t> cb = b.AsConst();
  const bool zero_divisor = cb && *cb == 0;
  if (ca && cb && !zero_divisor && !(*ca == std::numeric_limits<int64_t>::min() && *cb == -1)) {
    const int64_t r = *ca % *cb;
    return (r != 0 && ((r < 0) != (*cb < 0))) ? r + *cb : r;
  }
  if (!zero_divisor && DivideExact(a, b)) return 0;
  return OpaqueAtom(Operand(a) + "%" + Operand(b));
}

DimPoly DimAlgebra::Min(const DimPoly& a, const DimPoly& b) {
  if (a == b) return a;
  const std::optional<int64_t> ca = a.AsConst();
  const std::optional<int64_t> cb = b.AsConst();
  if (ca && cb) return std::min(*ca, *cb);
  // a - b with only symbols left has a sign when its coefficients do (symbols are >= 0).
  if (std::optional<DimPoly> d = Sub(a, b); d && !d->HasOpaque()) {
    if (d->NonNegative()) return b;
    if (std::optional<DimPoly> e = Sub(b, a); e && e->NonNegative()) return a;
  }
  const std::string x = a.Key();
  const std::string y = b.Key();
  return OpaqueAtom("min(" + std::min(x, y) + "," + std::max(x, y) + ")");
}

DimPoly DimAlgebra::Max(const DimPoly& a, const DimPoly& b) {
  if (a == b) return a;
  const std::optional<int64_t> ca = a.AsConst();
  const std::optional<int64_t> cb = b.AsConst();
  if (ca && cb) return std::max(*ca, *cb);
  if (std::optional<DimPoly> d = Sub(a, b); d && !d->HasOpaque()) {
    if (d->NonNegative()) return a;
    if (std::optional<DimPoly> e = Sub(b, a); e && e->NonNegative()) return b;
  }
  const std::string x = a.Key();
  const std::string y = b.Key();
  return OpaqueAtom("max(" + std::min(x, y) + "," + std::max(x, y) + ")");
}

DimPoly DimAlgebra::Opaque(std::string_view name, const std::vector<DimPoly>& operands) {
  std::string key = std::string(name) + "(";
  for (size_t i = 0; i < operands.size(); ++i) key += (i ? "," : "") + operands[i].Key();
  return OpaqueAtom(key + ")");
}

DimPoly DimAlgebra::FromExpr(const DimExpr& expr, const DimOfResolver& dim_of) {
  using Kind = DimExpr::Kind;
  switch (expr.kind()) {
    case Kind::kConst:
      return expr.value();
    case Kind::kSymbol:
      return DimPoly::Atom(expr.symbol());
    case Kind::kUnknown:
      return Fresh();
    case Kind::kDimOf:
      if (dim_of) {
        if (std::optional<DimPoly> p = dim_of(expr.value_id(), expr.axis())) return std::move(*p);
      }
      return DimPoly::Atom(expr.ToString());
    default:
      break;
  }
  const DimPoly a = FromExpr(expr.lhs(), dim_of);
  const DimPoly b = FromExpr(expr.rhs(), dim_of);
  switch (expr.kind()) {
    case Kind::kAdd:
      return Plus(a, b);
    case Kind::kSub:
      return Minus(a, b);
    case Kind::kMul:
      return Times(a, b);
    case Kind::kDiv:
      return Div(a, b);
    case Kind::kMod:
      return Mod(a, b);
    case Kind::kMin:
      return Min(a, b);
    default:
      return Max(a, b);
  }
}

}  // namespace sy
