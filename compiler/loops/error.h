// Error types of the code generator (loop IR, LLVM lowering, JIT, AOT).
//
// Two kinds, never mixed. A `CodegenError` is something the user or the
// environment can act on: an output file that cannot be written, a host the
// LLVM build has no target for, a JIT link failure because a symbol is
// missing. An `InternalError` means an invariant the compiler guarantees was
// broken — a malformed loop program handed over by the lowering, LLVM IR that
// fails LLVM's verifier — so it is a bug in Plastic and says so.
//
// InternalError is the project's one type (runtime/support/internal_error.h),
// checked with PLASTIC_CHECK.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "runtime/support/internal_error.h"

namespace plastic::loops {

/// A failure the user can act on (environment, toolchain, file system).
class CodegenError : public std::runtime_error {
public:
  explicit CodegenError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace plastic::loops
