// Errors as values.
//
// Every fallible operation in the engine and tools returns a Status (no
// value) or a Result<T> (a value or an error). Errors carry a message written
// for the person who has to act on it; for malformed input it includes the
// byte offset. Nothing in src/ throws across a module boundary.
//
// An Error also carries a kind, for the callers that answer differently by
// kind (the control API's 400/404/409/503). Code that only reports the
// message leaves it at kUnknown: `Error{message}` still compiles.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace core {

// What kind of failure an Error is. A kind is added when some caller
// branches on it, not in advance.
enum class ErrorKind {
  kUnknown,          // not classified: the message is all there is
  kInvalidArgument,  // the caller's input is malformed or out of range
  kNotFound,         // what the caller named does not exist
  kConflict,         // the current state forbids it (already decided, rejected)
  kUnavailable,      // cannot be done now (stopping, storage failing); may work later
};

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kUnknown;
};

// A status with no value: ok, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(Error e) : error_(std::move(e)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // REQUIRES: !ok()
  const Error& error() const { return *error_; }
  const std::string& message() const { return error_->message; }
  ErrorKind kind() const { return error_->kind; }

 private:
  std::optional<Error> error_;
};

// A value of type T, or an Error.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  Result(Status s) : v_(s.error()) { assert(!s.ok()); }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // REQUIRES: ok()
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  // REQUIRES: !ok()
  const Error& error() const { return std::get<1>(v_); }
  const std::string& message() const { return error().message; }
  ErrorKind kind() const { return error().kind; }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

// Propagates an error from an expression yielding Status or Result<T>.
#define CORE_RETURN_IF_ERROR(expr)                       \
  do {                                                   \
    auto core_status_ = (expr);                          \
    if (!core_status_.ok()) return core_status_.error(); \
  } while (0)

}  // namespace core
