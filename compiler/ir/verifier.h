// The IR verifier: re-checks every node of a Function against the typing
// rules (type_infer.h) and the structural invariants the factories and the
// Function constructor establish. Passes and the pipeline run it after each
// transformation, so a pass that breaks the IR is caught where it happened.
#pragma once

#include <string>

#include "compiler/ir/function.h"

namespace plastic::ir {

/// The first violated invariant, or "" if the function is well formed.
std::string verify_error(const Function& f);

/// Throws InternalError (a bug in Plastic: the IR was built by the compiler)
/// naming the violated invariant and the pass, if `after_pass` is given.
void verify(const Function& f, std::string_view after_pass = {});

} // namespace plastic::ir
