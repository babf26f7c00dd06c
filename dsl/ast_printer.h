// Prints an AST back as source text in canonical form.
//
// `plastic emit --ast` shows it; the printer's output parses back to an AST
// that prints identically (the round-trip tests keep both honest).
#pragma once

#include "dsl/ast.h"

#include <string>

namespace plastic::dsl {

std::string print_expr(const Expr& e);
std::string print_module(const Module& m);

} // namespace plastic::dsl
