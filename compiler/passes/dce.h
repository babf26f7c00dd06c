// Dead-code elimination.
//
// In a hash-consed DAG a Function is exactly the nodes reachable from its
// outputs, so dead expressions never execute; what can still be dead is
// (a) inputs no output depends on, which internal helper functions may
// drop (ABI functions must keep them: the runtime passes every slot), and
// (b) arena memory: nodes of a Context that no live Function reaches. The
// first is eliminate_dead_code, the second compact_into, which copies a
// function's live nodes into a fresh Context (the REPL does this between
// edits so a long session does not grow without bound).
#pragma once

#include "compiler/ir/function.h"

namespace plastic::passes {

struct DceOptions {
  /// Drop inputs that no output depends on (changes the calling convention).
  bool prune_inputs = false;
};

/// The function without dead inputs (when asked); outputs unchanged.
ir::Function eliminate_dead_code(const ir::Function& f, const DceOptions& options = {});

/// A copy of `f` whose nodes live in `into` (only the live ones are copied;
/// node structure, attributes and locations are preserved exactly).
ir::Function compact_into(const ir::Function& f, ir::Context& into);

} // namespace plastic::passes
