// The runtime's one value-or-error type (std::expected is C++23).
//
// A user error in the runtime — a bad data file, a solve that fails, an
// option out of range — is returned, never thrown: `Result<T, E>` holds a T
// or an error E, and `Status<E>` (= `Result<void, E>`) is "ok, or an error".
// E is a plain struct that says where and why, with a `describe()` giving the
// message a user reads: rt::SolveFailure (solvers, gradients, batches),
// rt::TrainError (files, optimisers, initialisation), rt::DataError (data
// readers), rt::PathError (control paths, log-signatures), rt::AppError
// (model commands). A bug is not an error value: it is a
// plastic::InternalError (support/internal_error.h), and so is asking a
// Result for the value it does not hold.
//
// Both sides convert implicitly, so a function returns either `value` or
// `error` as it is; the result must be looked at ([[nodiscard]]).
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "runtime/support/internal_error.h"

namespace plastic {

template <class T, class E> class Result;

/// Ok, or an error E. Cheap when ok (no allocation).
template <class E> using Status = Result<void, E>;

/// A T, or an error E that says why there is none.
template <class T, class E> class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T> && !std::is_same_v<std::decay_t<T>, E>,
                "Result<T, E> holds a value type different from its error type");

public:
  using value_type = T;
  using error_type = E;

  /// A value (implicit on purpose: `return value;`).
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {} // NOLINT
  /// An error (implicit on purpose: `return error;`).
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {} // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  /// The value; requires ok(). By value on temporaries, so that
  /// `for (auto& x : f().value())` does not dangle.
  const T& value() const& { return std::get<0>(checked()); }
  T& value() & { return std::get<0>(checked()); }
  T value() && { return std::get<0>(std::move(checked())); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T operator*() && { return std::move(*this).value(); }

  /// The error; requires !ok().
  const E& error() const {
    PLASTIC_CHECK(!ok(), "error() of a Result that holds a value");
    return std::get<1>(v_);
  }
  E& error() {
    PLASTIC_CHECK(!ok(), "error() of a Result that holds a value");
    return std::get<1>(v_);
  }

  /// Ok, or a copy of the error.
  Status<E> status() const { return ok() ? Status<E>{} : Status<E>{error()}; }
  /// "ok", or the error's describe().
  std::string describe() const { return ok() ? std::string("ok") : error().describe(); }

private:
  const std::variant<T, E>& checked() const {
    PLASTIC_CHECK(ok(), "value() of a Result that holds an error");
    return v_;
  }
  std::variant<T, E>& checked() {
    PLASTIC_CHECK(ok(), "value() of a Result that holds an error");
    return v_;
  }

  std::variant<T, E> v_;
};

/// Status<E>: ok (default-constructed, `return {};`) or an error E.
template <class E> class [[nodiscard]] Result<void, E> {
public:
  using value_type = void;
  using error_type = E;

  /// Ok.
  Result() = default;
  /// An error (implicit on purpose: `return error;`).
  Result(E error) : error_(std::move(error)) {} // NOLINT

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }

  /// The error; requires !ok().
  const E& error() const {
    PLASTIC_CHECK(!ok(), "error() of an ok Status");
    return *error_;
  }
  E& error() {
    PLASTIC_CHECK(!ok(), "error() of an ok Status");
    return *error_;
  }

  /// Itself (so generic code can call status() on any Result).
  const Result& status() const { return *this; }
  /// "ok", or the error's describe().
  std::string describe() const { return ok() ? std::string("ok") : error_->describe(); }

private:
  std::optional<E> error_;
};

} // namespace plastic
