// The parser: tokens to an AST, with panic-mode recovery.
//
// A recursive-descent parser; the grammar rule a function implements is
// written above it (the whole grammar is in GRAMMAR.md). On a syntax error it
// reports, skips to the next declaration boundary (a significant newline)
// and goes on, so one run reports every independent error.
#pragma once

#include "dsl/ast.h"
#include "dsl/diagnostics.h"

namespace plastic::dsl {

/// Parses a model file (`library = false`: must start with `model NAME`) or a
/// library of layers and fns such as the prelude (`library = true`).
Module parse(SourceFilePtr source, DiagnosticEngine& diag, bool library = false);

} // namespace plastic::dsl
