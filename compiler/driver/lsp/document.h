// One open model file as the language server sees it: its text checked by
// the front end, with the diagnostics and the symbol index (dsl/symbols.h)
// of that check. Checked again, whole, on every change: a model is a page
// of text and its check takes milliseconds.
#pragma once

#include "compiler/driver/lsp/protocol.h"
#include "dsl/check.h"
#include "dsl/diagnostics.h"
#include "dsl/symbols.h"

#include <memory>
#include <string>

namespace plastic::driver::lsp {

struct Document {
  std::string uri;
  int64_t version = 0;
  dsl::SourceFilePtr file; ///< the text; spans are compared with this pointer
  dsl::DiagnosticEngine diagnostics;
  dsl::CheckResult checked; ///< keeps the checked model (and its generated layers) alive
  dsl::SymbolIndex symbols;

  /// Whether a span points into this document.
  bool holds(const dsl::Span& span) const { return span.file == file.get(); }
};

/// Checks `text` as the model at `uri`.
std::unique_ptr<Document> analyze(std::string uri, int64_t version, std::string text);

/// The document's diagnostics as LSP Diagnostic objects. One without a
/// place in this file (a `--set` problem, a line of the prelude) is shown
/// on the first line and says where it belongs.
json diagnostics_json(const Document& doc, PositionEncoding encoding);

/// The file system path of a `file://` URI (percent-escapes decoded); the
/// URI itself for other schemes.
std::string path_of_uri(const std::string& uri);

} // namespace plastic::driver::lsp
