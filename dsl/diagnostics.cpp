// Rendering of diagnostics and near-miss name suggestions.
#include "dsl/diagnostics.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tuple>

namespace plastic::dsl {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i], 0 if there is none.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || c >= 0xF5 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

/// The code point of the valid UTF-8 sequence of `n` bytes at s[i].
char32_t code_point(std::string_view s, size_t i, size_t n) {
  const auto byte = [&](size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[k]));
  };
  if (n == 2) return ((byte(i) & 0x1F) << 6) | (byte(i + 1) & 0x3F);
  if (n == 3) return ((byte(i) & 0x0F) << 12) | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
  return ((byte(i) & 0x07) << 18) | ((byte(i + 1) & 0x3F) << 12) | ((byte(i + 2) & 0x3F) << 6) |
         (byte(i + 3) & 0x3F);
}

/// Characters that are invisible or reorder the text around them (the
/// bidirectional controls of "Trojan Source", zero-width spaces, the byte
/// order mark): echoed raw, a diagnostic would show another line than the
/// file holds. They are shown escaped, as compilers do (\u{202e}).
bool is_invisible(char32_t c) {
  return c == 0x061C || c == 0x200B || c == 0x200C || c == 0x200D || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x2028 ||
         c == 0x2029 || c == 0xFEFF;
}

/// Longest echoed source line, in display columns; longer ones are cut around the caret.
constexpr size_t kMaxEchoColumns = 120;

/// A source line as echoed: escaped, cut around the span, with the caret's
/// padding and width in the same columns.
struct EchoedLine {
  std::string text, pad;
  uint32_t width = 1;
};

/// Each piece of the line as displayed: printable ASCII, tabs and valid
/// UTF-8 as they are (one column each), invisible and bidirectional
/// characters as \u{NNNN}, any other byte as \xNN.
std::vector<std::pair<size_t, std::string>> display_pieces(std::string_view line) {
  std::vector<std::pair<size_t, std::string>> pieces; // (byte offset, shown text)
  for (size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c >= 0x20 && c < 0x7F) || c == '\t') {
      pieces.emplace_back(i, std::string(1, line[i]));
      ++i;
    } else if (size_t n = c >= 0x80 ? utf8_length(line, i) : 0; n > 0) {
      const char32_t cp = code_point(line, i, n);
      pieces.emplace_back(i, is_invisible(cp)
                                 ? fmt::format("\\u{{{:04x}}}", static_cast<uint32_t>(cp))
                                 : std::string(line.substr(i, n)));
      i += n;
    } else {
      pieces.emplace_back(i, fmt::format("\\x{:02x}", c));
      ++i;
    }
  }
  return pieces;
}

size_t columns(const std::string& piece) {
  return piece.size() > 1 && piece[0] == '\\' ? piece.size() : 1;
}

EchoedLine echo_line(std::string_view line, uint32_t start, uint32_t width) {
  const auto pieces = display_pieces(line);
  // The first and last piece of the span, and the window of pieces to show.
  size_t first = pieces.size(), last = pieces.size();
  for (size_t p = 0; p < pieces.size(); ++p) {
    if (first == pieces.size() && pieces[p].first + 1 > start) first = p;
    if (pieces[p].first < start + width) last = p;
  }
  size_t total = 0;
  for (const auto& piece : pieces)
    total += columns(piece.second);
  size_t begin = 0, end = pieces.size();
  if (total > kMaxEchoColumns) {
    // Keep a third of the window before the caret.
    size_t before = 0;
    begin = std::min(first, pieces.size());
    while (begin > 0 && before + columns(pieces[begin - 1].second) <= kMaxEchoColumns / 3)
      before += columns(pieces[--begin].second);
    size_t used = before;
    end = begin;
    while (end < pieces.size() && used + columns(pieces[end].second) <= kMaxEchoColumns)
      used += columns(pieces[end++].second);
  }
  EchoedLine out;
  if (begin > 0) out.text = out.pad = "...";
  if (begin > 0) out.pad = "   ";
  uint32_t shown_width = 0;
  for (size_t p = begin; p < end; ++p) {
    const std::string& piece = pieces[p].second;
    out.text += piece;
    if (p < first)
      out.pad += piece == "\t" ? "\t" : std::string(columns(piece), ' ');
    else if (p <= last)
      shown_width += static_cast<uint32_t>(columns(piece));
  }
  if (end < pieces.size()) out.text += "...";
  out.width = std::max<uint32_t>(1, shown_width);
  return out;
}

/// A message with control bytes shown as \xNN (it may quote the source).
std::string printable(const std::string& message) {
  std::string out;
  for (const auto& piece : display_pieces(message))
    out += piece.second;
  return out;
}

} // namespace

void DiagnosticEngine::error(Span span, std::string message, std::string hint) {
  if (++errors_ > max_errors_) return; // counted in the closing line of render()
  diags_.push_back({Severity::Error, span, std::move(message), std::move(hint)});
}

void DiagnosticEngine::warning(Span span, std::string message, std::string hint) {
  if (++warnings_ > warning_limit()) return; // counted in the closing line of render()
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
  if (errors_ > max_errors_)
    os << "plastic: " << errors_ - max_errors_ << " more errors not shown (the limit is "
       << max_errors_ << "; --error-limit N changes it, 0 shows all)\n";
  if (warnings_ > warning_limit())
    os << "plastic: " << warnings_ - warning_limit() << " more warnings not shown (the limit is "
       << warning_limit() << "; --error-limit 0 shows all)\n";
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
     << ": " << reset << bold << printable(d.message) << reset << "\n";

  // The source line and a caret under the whole span (clipped to that line).
  std::string_view line = file.line_text(lc.line);
  std::string gutter = std::to_string(lc.line);
  uint32_t start = lc.col - 1;
  uint32_t width = std::max<uint32_t>(1, d.span.end - d.span.begin);
  if (start > line.size()) start = static_cast<uint32_t>(line.size());
  width =
      std::min<uint32_t>(width, std::max<uint32_t>(1, static_cast<uint32_t>(line.size()) - start));
  const EchoedLine echo = echo_line(line, start, width);
  os << " " << gutter << " | " << echo.text << "\n";
  os << " " << std::string(gutter.size(), ' ') << " | ";
  os << echo.pad << tint << "^" << std::string(echo.width - 1, '~') << reset << "\n";
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
