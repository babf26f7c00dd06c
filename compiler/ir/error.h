// Error types of the compiler core.
//
// Two kinds, never mixed (Halide, CasADi): an `IRError` means the input is
// wrong — shapes that do not contract, an unknown op in IR text — and is
// reported to the user with a source location when one is known. An
// `InternalError` means an invariant the compiler itself guarantees was
// broken: it is a bug in Plastic, and its message says so.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "compiler/ir/types.h"
#include "runtime/support/internal_error.h"

namespace plastic::ir {

/// A user-facing error: a malformed model or IR text. `loc` is where it
/// happened (invalid when unknown); `what()` is the message without location,
/// `describe()` prefixes `file:line:col: error: `.
class IRError : public std::runtime_error {
public:
  explicit IRError(const std::string& message, SourceLoc loc = {});
  const SourceLoc& loc() const { return loc_; }
  /// `file:line:col: error: message` (or `error: message` without a location).
  std::string describe() const;

private:
  SourceLoc loc_;
};

} // namespace plastic::ir
