// Rendering of diagnostics and near-miss name suggestions.
#include "dsl/diagnostics.h"

#include <algorithm>
#include <tuple>

namespace plastic::dsl {

void DiagnosticEngine::error(Span span, std::string message, std::string hint) {
  ++errors_;
  diags_.push_back({Severity::Error, span, std::move(message), std::move(hint)});
}

void DiagnosticEngine::warning(Span span, std::string message, std::string hint) {
  ++warnings_;
  diags_.push_back({Severity::Warning, span, std::move(message), std::move(hint)});
}

void DiagnosticEngine::note(Span span, std::string message) {
  diags_.push_back({Severity::Note, span, std::move(message), {}});
}

void DiagnosticEngine::render(std::ostream& os, bool color) const {
  // In source order within a file (the lexer reports before the parser).
  std::vector<size_t> order(diags_.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  auto key = [this](size_t i) {
    const Diagnostic& d = diags_[i];
    return std::make_tuple(d.span.valid(), reinterpret_cast<uintptr_t>(d.span.file), d.span.begin,
                           i);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  for (size_t i : order)
    render_one(os, diags_[i], color);
}

void DiagnosticEngine::render_one(std::ostream& os, const Diagnostic& d, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  const char* tint = "";
  const char* label = "error";
  if (d.severity == Severity::Error) tint = color ? "\033[1;31m" : "", label = "error";
  if (d.severity == Severity::Warning) tint = color ? "\033[1;35m" : "", label = "warning";
  if (d.severity == Severity::Note) tint = color ? "\033[1;36m" : "", label = "note";

  if (!d.span.valid()) {
    os << bold << "plastic: " << reset << tint << label << ": " << reset << bold << d.message
       << reset << "\n";
    if (!d.hint.empty()) os << "  hint: " << d.hint << "\n";
    return;
  }
  const SourceFile& file = *d.span.file;
  auto lc = file.line_col(d.span.begin);
  os << bold << file.name() << ":" << lc.line << ":" << lc.col << ": " << reset << tint << label
     << ": " << reset << bold << d.message << reset << "\n";

  // The source line and a caret under the whole span (clipped to that line).
  std::string_view line = file.line_text(lc.line);
  std::string gutter = std::to_string(lc.line);
  os << " " << gutter << " | " << line << "\n";
  os << " " << std::string(gutter.size(), ' ') << " | ";
  uint32_t start = lc.col - 1;
  uint32_t width = std::max<uint32_t>(1, d.span.end - d.span.begin);
  if (start > line.size()) start = static_cast<uint32_t>(line.size());
  width =
      std::min<uint32_t>(width, std::max<uint32_t>(1, static_cast<uint32_t>(line.size()) - start));
  std::string pad;
  for (uint32_t i = 0; i < start; ++i)
    pad += line[i] == '\t' ? '\t' : ' ';
  os << pad << tint << "^" << std::string(width - 1, '~') << reset << "\n";
  if (!d.hint.empty())
    os << " " << std::string(gutter.size(), ' ') << " = hint: " << d.hint << "\n";
}

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(1, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    if (c == name || c.empty()) continue;
    size_t d = edit_distance(name, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

} // namespace plastic::dsl
