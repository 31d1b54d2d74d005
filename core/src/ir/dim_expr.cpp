// DimExpr: building with constant simplification, text form, evaluation.
#include "switchyard/dim_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

namespace sy {
namespace {

constexpr size_t kMaxSymbolLength = 128;
constexpr int kMaxParseDepth = 64;
// Longer text is refused: a chain such as a+a+...+a builds a tree as deep as it is long,
// and the recursive walks (printing, evaluation, destruction) must stay shallow.
constexpr size_t kMaxExpressionLength = 1024;

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// Truncating division and divisor-signed modulo; b != 0 and not (INT64_MIN, -1).
int64_t TruncDiv(int64_t a, int64_t b) { return a / b; }
int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// a op b for constants; nullopt on overflow or division by zero.
std::optional<int64_t> Apply(DimExpr::Kind kind, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (kind) {
    case DimExpr::Kind::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return r;
    case DimExpr::Kind::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return r;
    case DimExpr::Kind::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return r;
    case DimExpr::Kind::kDiv:
    case DimExpr::Kind::kMod:
      if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
      return kind == DimExpr::Kind::kDiv ? TruncDiv(a, b) : FloorMod(a, b);
    case DimExpr::Kind::kMin:
      return std::min(a, b);
    case DimExpr::Kind::kMax:
      return std::max(a, b);
    default:
      return std::nullopt;
  }
}

std::string_view OperatorText(DimExpr::Kind kind) {
  switch (kind) {
    case DimExpr::Kind::kAdd:
      return "+";
    case DimExpr::Kind::kSub:
      return "-";
    case DimExpr::Kind::kMul:
      return "*";
    case DimExpr::Kind::kDiv:
      return "/";
    case DimExpr::Kind::kMod:
      return "%";
    case DimExpr::Kind::kMin:
      return "min";
    case DimExpr::Kind::kMax:
      return "max";
    default:
      return "?";
  }
}

// Binding strength for printing: sums 1, products 2, atoms 3.
int Precedence(DimExpr::Kind kind) {
  switch (kind) {
    case DimExpr::Kind::kAdd:
    case DimExpr::Kind::kSub:
      return 1;
    case DimExpr::Kind::kMul:
    case DimExpr::Kind::kDiv:
    case DimExpr::Kind::kMod:
      return 2;
    default:
      return 3;
  }
}

// Recursive descent over the text form; `depth` bounds nesting so that hostile input
// cannot exhaust the stack.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<DimExpr> ParseAll() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '?') {
      ++pos_;
      SkipSpace();
      if (pos_ != text_.size()) return Error("expected nothing after '?'");
      return DimExpr::Unknown();
    }
    SY_ASSIGN_OR_RETURN(DimExpr e, Sum(0));
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidModel("dim expression \"" + std::string(text_.substr(0, 200)) + "\": " + what +
                        " at offset " + std::to_string(pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      SkipSpace();
      return true;
    }
    return false;
  }

  Expected<DimExpr> Sum(int depth) {
    SY_ASSIGN_OR_RETURN(DimExpr e, Product(depth));
    while (true) {
      if (Accept('+')) {
        SY_ASSIGN_OR_RETURN(DimExpr r, Product(depth));
        e = e + r;
      } else if (Accept('-')) {
        SY_ASSIGN_OR_RETURN(DimExpr r, Product(depth));
        e = e - r;
      } else {
        return e;
      }
    }
  }
  Expected<DimExpr> Product(int depth) {
    SY_ASSIGN_OR_RETURN(DimExpr e, Factor(depth));
    while (true) {
      DimExpr::Kind kind;
      if (Accept('*')) {
        kind = DimExpr::Kind::kMul;
      } else if (Accept('/')) {
        kind = DimExpr::Kind::kDiv;
      } else if (Accept('%')) {
        kind = DimExpr::Kind::kMod;
      } else {
        return e;
      }
      SY_ASSIGN_OR_RETURN(DimExpr r, Factor(depth));
      e = DimExpr::Binary(kind, e, r);
    }
  }
  Expected<int64_t> Integer() {
    SkipSpace();
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + static_cast<uint64_t>(text_[pos_] - '0');
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Error("integer out of range");
      }
      ++pos_;
    }
    if (pos_ == start) return Error("expected an integer");
    return static_cast<int64_t>(v);
  }
  Expected<DimExpr> Factor(int depth) {
    if (depth > kMaxParseDepth) return Error("nesting deeper than 64");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end");
    const char c = text_[pos_];
    if (Accept('(')) {
      SY_ASSIGN_OR_RETURN(DimExpr e, Sum(depth + 1));
      if (!Accept(')')) return Error("expected ')'");
      return e;
    }
    if (Accept('-')) {
      SY_ASSIGN_OR_RETURN(DimExpr e, Factor(depth + 1));
      return DimExpr(0) - e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      SY_ASSIGN_OR_RETURN(int64_t v, Integer());
      SkipSpace();
      return DimExpr(v);
    }
    if (!IsIdentStart(c)) return Error("unexpected '" + std::string(1, c) + "'");
    const size_t start = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    const std::string name(text_.substr(start, pos_ - start));
    if (name.size() > kMaxSymbolLength) return Error("a symbol longer than 128 characters");
    SkipSpace();
    if (!Accept('(')) return DimExpr::Symbol(name);
    if (name == "dim") {
      SY_ASSIGN_OR_RETURN(int64_t id, Integer());
      if (!Accept(',')) return Error("expected ',' in dim(VALUE, AXIS)");
      SY_ASSIGN_OR_RETURN(int64_t axis, Integer());
      if (!Accept(')')) return Error("expected ')' closing dim(VALUE, AXIS)");
      if (id > std::numeric_limits<int32_t>::max()) return Error("value id out of range");
      return DimExpr::DimOf(static_cast<int32_t>(id), axis);
    }
    if (name != "min" && name != "max") return Error("unknown function '" + name + "'");
    SY_ASSIGN_OR_RETURN(DimExpr a, Sum(depth + 1));
    if (!Accept(',')) return Error("expected ',' in " + name + "(A, B)");
    SY_ASSIGN_OR_RETURN(DimExpr b, Sum(depth + 1));
    if (!Accept(')')) return Error("expected ')' closing " + name + "(A, B)");
    return DimExpr::Binary(name == "min" ? DimExpr::Kind::kMin : DimExpr::Kind::kMax, a, b);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

DimExpr::DimExpr(int64_t value) {
  auto node = std::make_shared<Node>();
  node->value = value;
  node_ = std::move(node);
}

DimExpr DimExpr::Symbol(std::string name) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kSymbol;
  node->name = std::move(name);
  return DimExpr(std::move(node));
}

DimExpr DimExpr::DimOf(int32_t value_id, int64_t axis) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kDimOf;
  node->value = value_id;
  node->axis = axis;
  return DimExpr(std::move(node));
}

DimExpr DimExpr::Unknown() {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kUnknown;
  return DimExpr(std::move(node));
}

DimExpr DimExpr::Binary(Kind kind, const DimExpr& lhs, const DimExpr& rhs) {
  if (lhs.is_const() && rhs.is_const()) {
    // Constants fold unless the result is undefined; then the tree keeps the operation
    // so that evaluation reports it.
    if (std::optional<int64_t> r = Apply(kind, lhs.value(), rhs.value())) return DimExpr(*r);
  }
  const bool lhs_zero = lhs.is_const() && lhs.value() == 0;
  const bool rhs_zero = rhs.is_const() && rhs.value() == 0;
  const bool lhs_one = lhs.is_const() && lhs.value() == 1;
  const bool rhs_one = rhs.is_const() && rhs.value() == 1;
  switch (kind) {
    case Kind::kAdd:
      if (lhs_zero) return rhs;
      if (rhs_zero) return lhs;
      break;
    case Kind::kSub:
      if (rhs_zero) return lhs;
      break;
    case Kind::kMul:
      if (lhs_one) return rhs;
      if (rhs_one) return lhs;
      break;
    case Kind::kDiv:
      if (rhs_one) return lhs;
      break;
    default:
      break;
  }
  auto node = std::make_shared<Node>();
  node->kind = kind;
  constexpr uint32_t kSaturated = uint32_t{1} << 31;
  node->depth = std::min(kSaturated, 1 + std::max(lhs.depth(), rhs.depth()));
  node->size = std::min<uint64_t>(kSaturated, uint64_t{1} + lhs.size() + rhs.size());
  node->lhs = std::make_shared<const DimExpr>(lhs);
  node->rhs = std::make_shared<const DimExpr>(rhs);
  return DimExpr(std::move(node));
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  return DimExpr::Binary(DimExpr::Kind::kAdd, a, b);
}
DimExpr operator-(const DimExpr& a, const DimExpr& b) {
  return DimExpr::Binary(DimExpr::Kind::kSub, a, b);
}
DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  return DimExpr::Binary(DimExpr::Kind::kMul, a, b);
}
DimExpr operator/(const DimExpr& a, const DimExpr& b) {
  return DimExpr::Binary(DimExpr::Kind::kDiv, a, b);
}
DimExpr operator%(const DimExpr& a, const DimExpr& b) {
  return DimExpr::Binary(DimExpr::Kind::kMod, a, b);
}

bool DimExpr::NonNegative() const {
  switch (kind()) {
    case Kind::kConst:
      return value() >= 0;
    case Kind::kSymbol:
    case Kind::kDimOf:
      return true;
    case Kind::kUnknown:
    case Kind::kSub:
      return false;
    case Kind::kMod:  // the divisor's sign
      return rhs().NonNegative();
    case Kind::kMin:
      return lhs().NonNegative() && rhs().NonNegative();
    case Kind::kMax:
      return lhs().NonNegative() || rhs().NonNegative();
    default:  // + * /
      return lhs().NonNegative() && rhs().NonNegative();
  }
}

bool DimExpr::SameAs(const DimExpr& other) const {
  if (node_ == other.node_) return true;
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kConst:
      return value() == other.value();
    case Kind::kSymbol:
      return symbol() == other.symbol();
    case Kind::kDimOf:
      return value_id() == other.value_id() && axis() == other.axis();
    case Kind::kUnknown:
      return false;  // two unknown dims need not be equal
    default:
      return lhs().SameAs(other.lhs()) && rhs().SameAs(other.rhs());
  }
}

void DimExpr::CollectSymbols(std::set<std::string>& out) const {
  if (kind() == Kind::kSymbol) out.insert(symbol());
  if (node_->lhs) lhs().CollectSymbols(out);
  if (node_->rhs) rhs().CollectSymbols(out);
}

void DimExpr::CollectValues(std::set<int32_t>& out) const {
  if (kind() == Kind::kDimOf) out.insert(value_id());
  if (node_->lhs) lhs().CollectValues(out);
  if (node_->rhs) rhs().CollectValues(out);
}

DimExpr DimExpr::MapValues(const std::function<int32_t(int32_t)>& map) const {
  if (kind() == Kind::kDimOf) return DimOf(map(value_id()), axis());
  if (!node_->lhs) return *this;
  return Binary(kind(), lhs().MapValues(map), rhs().MapValues(map));
}

std::string DimExpr::ToString() const {
  switch (kind()) {
    case Kind::kConst:
      // A negative constant alone is "-n", which parses as 0 - n and folds back to it
      // (inside a larger tree it is bracketed). The one negative whose magnitude is no
      // int64 is written so that it parses too.
      if (value() == std::numeric_limits<int64_t>::min()) return "(0-9223372036854775807-1)";
      return std::to_string(value());
    case Kind::kSymbol:
      return symbol();
    case Kind::kDimOf:
      return "dim(" + std::to_string(value_id()) + "," + std::to_string(axis()) + ")";
    case Kind::kUnknown:
      return "?";
    case Kind::kMin:
    case Kind::kMax:
      return std::string(OperatorText(kind())) + "(" + lhs().ToString() + "," + rhs().ToString() +
             ")";
    default:
      break;
  }
  const int mine = Precedence(kind());
  auto operand = [&](const DimExpr& e, bool right) {
    std::string text = e.ToString();
    const bool negative = e.is_const() && e.value() < 0;
    const int theirs = Precedence(e.kind());
    // Left-associative: a right operand of equal precedence needs brackets (a-(b-c)).
    if (negative || theirs < mine || (right && theirs == mine)) return "(" + text + ")";
    return text;
  };
  return operand(lhs(), false) + std::string(OperatorText(kind())) + operand(rhs(), true);
}

Expected<DimExpr> DimExpr::Parse(std::string_view text) {
  if (text.size() > kMaxExpressionLength) {
    return InvalidModel("dim expression \"" + std::string(text.substr(0, 40)) + "...\" is " +
                        std::to_string(text.size()) + " characters long (at most 1024)");
  }
  return Parser(text).ParseAll();
}

Expected<int64_t> DimExpr::Evaluate(const Bindings& bindings) const {
  switch (kind()) {
    case Kind::kConst:
      return value();
    case Kind::kSymbol: {
      if (bindings.symbols != nullptr) {
        auto it = bindings.symbols->find(symbol());
        if (it != bindings.symbols->end()) return it->second;
      }
      return InvalidArgument("dim symbol '" + symbol() + "' has no value");
    }
    case Kind::kDimOf:
      if (!bindings.dim_of) return InvalidArgument("no value dims to read for " + ToString());
      return bindings.dim_of(value_id(), axis());
    case Kind::kUnknown:
      return InvalidArgument("an unknown dim '?' cannot be computed");
    default:
      break;
  }
  SY_ASSIGN_OR_RETURN(int64_t a, lhs().Evaluate(bindings));
  SY_ASSIGN_OR_RETURN(int64_t b, rhs().Evaluate(bindings));
  std::optional<int64_t> r = Apply(kind(), a, b);
  if (!r) {
    const bool division = kind() == Kind::kDiv || kind() == Kind::kMod;
    return InvalidArgument(ToString() + " is " + std::to_string(a) + " " +
                           std::string(OperatorText(kind())) + " " + std::to_string(b) + ": " +
                           (division && b == 0 ? "division by zero" : "out of the int64 range"));
  }
  return *r;
}

bool IsSymbolName(std::string_view name) {
  if (name.empty() || name.size() > kMaxSymbolLength || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return name != "dim" && name != "min" && name != "max";
}

}  // namespace sy
