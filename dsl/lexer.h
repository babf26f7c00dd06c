// The lexer: source text to tokens.
//
// Newlines are significant (they end declarations) except inside ( ) and
// [ ], after a token that cannot end an expression (`=`, `,`, a binary
// operator), and when the next line starts with a binary operator. A line
// that starts with a declaration keyword always ends the previous
// declaration, even inside unbalanced brackets, so one missing `)` costs one
// error, not the rest of the file.
#pragma once

#include "dsl/diagnostics.h"
#include "dsl/token.h"

#include <vector>

namespace plastic::dsl {

/// Splits a whole file into tokens (always ending with Newline, End).
/// Lexical errors are reported to `diag` and produce Invalid tokens.
std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diag);

/// The language's keywords: `let` and those that begin a declaration (for
/// editors' completion and highlighting).
std::vector<std::string_view> keywords();
/// Whether `word` begins a declaration (`param`, `flow`, …).
bool is_declaration_keyword(std::string_view word);

} // namespace plastic::dsl
