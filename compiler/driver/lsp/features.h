// What the language server answers about an open document: hover,
// definition, references, completion and the outline, each computed from
// the document's symbol index (dsl/symbols.h) and the language's tables
// (builtins, initializers, solvers, layer types, keywords).
#pragma once

#include "compiler/driver/lsp/document.h"

namespace plastic::driver::lsp {

/// A Hover for the name at `offset` (a symbol, a builtin or a time), or null.
json hover(const Document& doc, uint32_t offset, PositionEncoding encoding);
/// The Location where the name at `offset` is declared, or null (a name of
/// the prelude or a builtin has no place in the document).
json definition(const Document& doc, uint32_t offset, PositionEncoding encoding);
/// The Locations of every use of the name at `offset` (and its declaration
/// when `with_declaration`).
json references(const Document& doc, uint32_t offset, bool with_declaration,
                PositionEncoding encoding);
/// CompletionItems for the word being typed at `offset`: what fits the
/// place (an initializer after `init`, a solver after `solve`, …) or the
/// names visible there, builtins and keywords.
json completion(const Document& doc, uint32_t offset);
/// DocumentSymbols: the model's top-level declarations.
json document_symbols(const Document& doc, PositionEncoding encoding);

} // namespace plastic::driver::lsp
