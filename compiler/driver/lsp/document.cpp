// Checking an open document for the language server (see document.h).
#include "compiler/driver/lsp/document.h"

#include "dsl/frontend.h"

namespace plastic::driver::lsp {
namespace {

/// LSP's DiagnosticSeverity: 1 error, 2 warning, 3 information.
int severity_of(dsl::Severity s) {
  switch (s) {
  case dsl::Severity::Error:
    return 1;
  case dsl::Severity::Warning:
    return 2;
  case dsl::Severity::Note:
    return 3;
  }
  return 1;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The message with the hint the command line prints under the caret.
std::string message_of(const dsl::Diagnostic& d) {
  return d.hint.empty() ? d.message : d.message + "\nhint: " + d.hint;
}

} // namespace

std::unique_ptr<Document> analyze(std::string uri, int64_t version, std::string text) {
  auto doc = std::make_unique<Document>();
  doc->uri = std::move(uri);
  doc->version = version;
  doc->file = std::make_shared<dsl::SourceFile>(path_of_uri(doc->uri), std::move(text));
  // An editor shows every error at once; the command line's cap of 20 is
  // for a terminal.
  doc->diagnostics.set_max_errors(200);
  dsl::CheckOptions options;
  options.symbols = &doc->symbols;
  doc->checked = dsl::check_source_file(doc->file, options, doc->diagnostics);
  return doc;
}

json diagnostics_json(const Document& doc, PositionEncoding encoding) {
  json all = json::array();
  for (const dsl::Diagnostic& d : doc.diagnostics.all()) {
    json item = {
        {"severity", severity_of(d.severity)}, {"source", "plastic"}, {"message", message_of(d)}};
    if (doc.holds(d.span)) {
      item["range"] = range_of(*doc.file, d.span.begin, d.span.end, encoding);
    } else {
      item["range"] = range_of(*doc.file, 0, 0, encoding);
      if (d.span.valid())
        item["message"] = item["message"].get<std::string>() + "\n(at " + d.span.file->name() +
                          ":" + std::to_string(d.span.file->line_col(d.span.begin).line) + ")";
    }
    all.push_back(std::move(item));
  }
  return all;
}

std::string path_of_uri(const std::string& uri) {
  static const std::string kScheme = "file://";
  if (uri.compare(0, kScheme.size(), kScheme) != 0) return uri;
  std::string path;
  for (size_t i = kScheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      const int hi = hex_digit(uri[i + 1]), lo = hex_digit(uri[i + 2]);
      if (hi >= 0 && lo >= 0) {
        path += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    path += uri[i];
  }
  return path;
}

} // namespace plastic::driver::lsp
