// Status and Expected<T>: how every fallible function in core reports failure. Part of
// the SDK, so that plugins built on the kit share the type (the kit's own decoding
// throws sy_sdk::Error instead, which plugin_cpp.h's trampolines turn into sy_error).
//
// Errors are values. Nothing in core throws across its API or aborts on bad input; a
// function that can fail returns Status (no payload) or Expected<T> (a payload or a
// Status). Messages name the object at fault (file, node index and op, value id and
// name) and say what was expected, because they are shown to users verbatim.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sy {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,    // a caller passed something malformed (CLI argument, API parameter)
  kInvalidModel,       // a model file (JSON or safetensors) is malformed or inconsistent
  kNotFound,           // a file, tensor, op or name that was asked for does not exist
  kIoError,            // the operating system refused a read, write or mapping
  kUnsupported,        // well-formed but not implemented by this build or device
  kResourceExhausted,  // a size limit or an allocation failed
  kInternal,           // a bug in Switchyard: an invariant did not hold
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message reads "<context>: <message>". Used as an error travels
  // outwards, so that the outermost message says where (file, then node, then input).
  Status WithContext(std::string_view context) const;

  // "invalid model: <message>" style text for logs; CLIs print message() alone.
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status InvalidModel(std::string m) { return {StatusCode::kInvalidModel, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Expected<T> holds either a T or a non-ok Status. Constructing it from an ok Status is
// a bug (there would be no value), and is turned into an internal error.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  Expected(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(state_).ok()) {
      state_ = Internal("Expected constructed from an ok Status without a value");
    }
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  // The error; an ok Status when a value is held.
  Status status() const { return ok() ? Status() : std::get<Status>(state_); }

  T& value() & {
    assert(ok());
    return std::get<T>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace sy

#define SY_CONCAT_INNER_(a, b) a##b
#define SY_CONCAT_(a, b) SY_CONCAT_INNER_(a, b)

// Returns the Status of `expr` from the enclosing function when it is not ok.
#define SY_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::sy::Status sy_status_ = (expr);        \
    if (!sy_status_.ok()) return sy_status_; \
  } while (false)

// `SY_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from an Expected, or returns its error.
#define SY_ASSIGN_OR_RETURN(lhs, expr) \
  SY_ASSIGN_OR_RETURN_IMPL_(SY_CONCAT_(sy_expected_, __LINE__), lhs, expr)
#define SY_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
