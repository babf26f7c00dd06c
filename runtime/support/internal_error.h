// The one internal-error type of the whole project.
//
// An InternalError is a bug in Plastic — an invariant broken, never the
// user's fault — and is the only exception type that means that: user
// errors are diagnostics (dsl/), located IR errors (ir::IRError), backend
// errors (loops::CodegenError) or result values (the runtime). The driver
// catches InternalError by type and exits with code 3; any other exception
// escaping a command is reported the same way, because it is a bug too.
//
// Header-only so that every layer (front end, compiler, runtime) can use it
// without a link dependency between them.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace plastic {

class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& message)
      : std::logic_error("internal error (this is a bug in Plastic, please report it): " +
                         message) {}
};

/// Throws InternalError("<file below the project root>:<line>: message").
[[noreturn]] inline void internal_error(const char* file, int line, const std::string& message) {
  // Keep only the path below the project root: stable messages, short logs.
  const char* rel = nullptr;
  for (const char* top : {"compiler/", "dsl/", "runtime/"})
    if (const char* p = std::strstr(file, top); p && (!rel || p < rel)) rel = p;
  throw InternalError(fmt::format("{}:{}: {}", rel ? rel : file, line, message));
}

} // namespace plastic

/// Checks an invariant; on failure throws InternalError with a formatted
/// message: PLASTIC_CHECK(n > 0, "empty shape for {}", name).
#define PLASTIC_CHECK(cond, ...)                                                                   \
  do {                                                                                             \
    if (!(cond)) ::plastic::internal_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__));        \
  } while (0)
