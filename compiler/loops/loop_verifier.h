// Verifier of loop functions: every rule the backends rely on, checked in
// one place so that they never have to defend against malformed input.
//
// Checked: C identifiers and unique parameter names; lanes in 1..64; buffer
// declarations and the scratch layout; expression typing (uniform/varying
// classes, masks only as select conditions); scoping (loop variables used
// inside their loop, variables assigned before they are read, nullable
// buffers touched only inside if_present); store rules (no store to a
// read-only buffer, varying values reach uniform buffers only through a lane
// sum); and static bounds: every affine index stays inside its buffer for all
// values of the enclosing loops.
//
// A violation is a bug in whoever built the function (the lowering), so
// verify_or_throw throws InternalError.
#pragma once

#include <string>
#include <vector>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// All problems found, one message each (empty: the function is valid).
std::vector<std::string> verify(const Function& fn);
/// Problems of every function, plus duplicate function names.
std::vector<std::string> verify(const Module& module);

/// Throws InternalError listing the problems, if any.
void verify_or_throw(const Function& fn);
void verify_or_throw(const Module& module);

/// True for [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(std::string_view s);

} // namespace plastic::loops
