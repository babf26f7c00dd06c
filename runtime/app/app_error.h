// Failures of a model command, with the exit code they should end the
// process with: 1 for bad input (data, parameters files, a model that does
// not fit the data), 2 for a bad command line. Messages are complete
// sentences a user can act on; the commands print them and return the code.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace plastic::rt {

struct AppError {
  int exit_code = 1;
  std::string message;
};

template <class V> class AppResult {
public:
  AppResult(V value) : v_(std::move(value)) {}      // NOLINT: implicit on purpose
  AppResult(AppError error) : v_(std::move(error)) {} // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  V& value() { return std::get<0>(v_); }
  const V& value() const { return std::get<0>(v_); }
  V* operator->() { return &value(); }
  const AppError& error() const { return std::get<1>(v_); }

private:
  std::variant<V, AppError> v_;
};

} // namespace plastic::rt
