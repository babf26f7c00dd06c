// Error types of the code generator (loop IR, LLVM lowering, JIT, AOT).
//
// Two kinds, never mixed. A `CodegenError` is something the user or the
// environment can act on: an output file that cannot be written, a host the
// LLVM build has no target for, a JIT link failure because a symbol is
// missing. An `InternalError` means an invariant the compiler guarantees was
// broken — a malformed loop program handed over by the lowering, LLVM IR that
// fails LLVM's verifier — so it is a bug in Plastic and says so.
//
// The code generator links neither the tensor IR nor the front end, so it has
// its own pair of types rather than reusing plastic::ir's.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace plastic::loops {

/// A failure the user can act on (environment, toolchain, file system).
class CodegenError : public std::runtime_error {
public:
  explicit CodegenError(const std::string& message) : std::runtime_error(message) {}
};

/// A bug in Plastic: a malformed loop program or invalid generated LLVM IR.
class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& message);
};

/// Throws an InternalError naming the source position of the failed check.
[[noreturn]] void internal_error(const char* file, int line, const std::string& message);

}  // namespace plastic::loops

/// Checks an internal invariant of the code generator; on failure throws
/// loops::InternalError with a fmt-formatted message. Always on.
#define PLASTIC_LOOPS_CHECK(cond, ...)                                                           \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      ::plastic::loops::internal_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__));          \
  } while (0)
