// The language server's answers (see features.h).
#include "compiler/driver/lsp/features.h"

#include "dsl/builtins.h"
#include "dsl/lexer.h"

#include <fmt/format.h>

#include <cctype>

namespace plastic::driver::lsp {
namespace {

using dsl::Symbol;
using dsl::SymbolKind;

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The identifier around byte `offset` ("" if none), and where it starts.
std::string_view word_at(const dsl::SourceFile& file, uint32_t offset, uint32_t* start = nullptr) {
  const std::string& text = file.text();
  uint32_t b = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t e = b;
  while (b > 0 && is_name_char(text[b - 1]))
    --b;
  while (e < text.size() && is_name_char(text[e]))
    ++e;
  if (start) *start = b;
  return std::string_view(text).substr(b, e - b);
}

/// How a symbol reads in a hover: `param W : [heads, d_head, d_head]`.
std::string signature(const Symbol& s) {
  const std::string kind(to_string(s.kind));
  switch (s.kind) {
  case SymbolKind::Dim:
  case SymbolKind::Const:
    return fmt::format("{} {} = {}", kind, s.name, s.declared.empty() ? s.type : s.declared);
  case SymbolKind::Fn:
    return fmt::format("fn {}{}", s.name, s.type);
  default: {
    const std::string& shape = s.declared.empty() ? s.type : s.declared;
    return shape.empty() ? kind + " " + s.name : fmt::format("{} {} : {}", kind, s.name, shape);
  }
  }
}

/// What the checker proved, when the signature does not already say it.
std::string proved(const Symbol& s) {
  if (s.declared.empty() || s.type.empty() || s.type == s.declared) return "";
  if (s.kind == SymbolKind::Dim || s.kind == SymbolKind::Const) return "value `" + s.type + "`";
  return "shape `" + s.type + "`";
}

/// A builtin's call as documentation: `softmax(x, axis = -1)`.
std::string builtin_signature(const dsl::BuiltinSpec& spec) {
  std::string args;
  size_t tensor = 0;
  for (size_t i = 0; i < spec.kinds.size(); ++i) {
    std::string arg = spec.kinds[i] == 't'   ? std::string(1, "xyzw"[std::min<size_t>(tensor++, 3)])
                      : spec.kinds[i] == 'i' ? "axis"
                      : spec.kinds[i] == 'l' ? "[dims]"
                                             : "\"spec\"";
    if (!args.empty()) args += ", ";
    args += i >= spec.required ? "[" + arg + "]" : arg;
  }
  if (spec.variadic) args += ", ...";
  for (const dsl::BuiltinOption& o : spec.options)
    args += fmt::format(", {} = {}", o.name, o.default_value);
  return fmt::format("{}({})", spec.name, args);
}

json markdown(const std::string& code, const std::string& text = {}) {
  std::string value = "```plastic\n" + code + "\n```";
  if (!text.empty()) value += "\n" + text;
  return {{"kind", "markdown"}, {"value", value}};
}

std::string time_meaning(std::string_view word) {
  if (word == "t") return "the current time (in flows, jumps and per-observation outputs)";
  if (word == "T") return "the final time of the series";
  if (word == "t0") return "the time of the first observation";
  return "";
}

/// LSP's CompletionItemKind and SymbolKind for a symbol.
int completion_kind(SymbolKind k) {
  switch (k) {
  case SymbolKind::Dim:
  case SymbolKind::Const:
    return 21; // Constant
  case SymbolKind::Fn:
    return 3; // Function
  case SymbolKind::Layer:
    return 7; // Class
  case SymbolKind::Param:
  case SymbolKind::State:
    return 5; // Field
  default:
    return 6; // Variable
  }
}

int symbol_kind(SymbolKind k) {
  switch (k) {
  case SymbolKind::Dim:
  case SymbolKind::Const:
    return 14; // Constant
  case SymbolKind::Fn:
    return 12; // Function
  case SymbolKind::Layer:
    return 5; // Class
  case SymbolKind::Param:
    return 8; // Field
  case SymbolKind::Output:
    return 7; // Property
  default:
    return 13; // Variable
  }
}

json location(const Document& doc, const dsl::Span& span, PositionEncoding encoding) {
  return {{"uri", doc.uri}, {"range", range_of(*doc.file, span.begin, span.end, encoding)}};
}

/// Where the declaration holding `offset` begins: the last line at or
/// before it that starts with a declaration keyword (the lexer ends a
/// declaration at such a line, lexer.h).
uint32_t declaration_start(const dsl::SourceFile& file, uint32_t offset) {
  for (uint32_t line = file.line_col(offset).line; line >= 1; --line) {
    const std::string_view text = file.line_text(line);
    size_t n = 0;
    while (n < text.size() && is_name_char(text[n]))
      ++n;
    if (n > 0 && dsl::is_declaration_keyword(text.substr(0, n)))
      return static_cast<uint32_t>(text.data() - file.text().data());
  }
  return 0;
}

/// The word before the one being typed on its line ("init" in `init glo|`).
std::string_view previous_word(const dsl::SourceFile& file, uint32_t word_start) {
  const std::string& text = file.text();
  uint32_t e = word_start;
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t'))
    --e;
  uint32_t b = e;
  while (b > 0 && is_name_char(text[b - 1]))
    --b;
  return std::string_view(text).substr(b, e - b);
}

json items(const std::vector<std::string>& names, int kind, const std::string& detail) {
  json all = json::array();
  for (const std::string& n : names)
    all.push_back({{"label", n}, {"kind", kind}, {"detail", detail}});
  return all;
}

/// The names visible at `offset`: top-level declarations, the lets and
/// arguments of the declaration being written that precede it, times,
/// builtins and keywords.
json visible_names(const Document& doc, uint32_t offset) {
  json all = json::array();
  const uint32_t start = declaration_start(*doc.file, offset);
  for (const Symbol& s : doc.symbols.symbols()) {
    const bool local = s.kind == SymbolKind::Let || s.kind == SymbolKind::Argument;
    const bool visible =
        s.top_level || (local && doc.holds(s.decl) && s.decl.begin >= start && s.decl.end < offset);
    if (visible)
      all.push_back(
          {{"label", s.name}, {"kind", completion_kind(s.kind)}, {"detail", signature(s)}});
  }
  for (const char* t : {"t", "T", "t0"})
    all.push_back({{"label", t}, {"kind", 6}, {"detail", time_meaning(t)}});
  for (const std::string& b : dsl::builtin_names())
    all.push_back(
        {{"label", b}, {"kind", 3}, {"detail", builtin_signature(*dsl::find_builtin(b))}});
  for (std::string_view k : dsl::keywords())
    all.push_back({{"label", std::string(k)}, {"kind", 14}});
  return all;
}

} // namespace

json hover(const Document& doc, uint32_t offset, PositionEncoding encoding) {
  uint32_t start = 0;
  const std::string_view word = word_at(*doc.file, offset, &start);
  if (word.empty()) return nullptr;
  const json range =
      range_of(*doc.file, start, start + static_cast<uint32_t>(word.size()), encoding);
  if (const int id = doc.symbols.at(doc.file.get(), offset); id >= 0) {
    const Symbol& s = doc.symbols.symbols()[static_cast<size_t>(id)];
    std::string where;
    if (doc.holds(s.decl))
      where = fmt::format("declared on line {}", doc.file->line_col(s.decl.begin).line);
    else if (s.decl.valid())
      where = "declared in " + s.decl.file->name();
    const std::string facts = proved(s);
    return {{"contents", markdown(signature(s), facts.empty() ? where : facts + ", " + where)},
            {"range", range}};
  }
  if (const dsl::BuiltinSpec* b = dsl::find_builtin(word))
    return {{"contents", markdown(builtin_signature(*b), "built-in function")}, {"range", range}};
  if (std::string meaning = time_meaning(word); !meaning.empty())
    return {{"contents", markdown(std::string(word), meaning)}, {"range", range}};
  return nullptr;
}

json definition(const Document& doc, uint32_t offset, PositionEncoding encoding) {
  const int id = doc.symbols.at(doc.file.get(), offset);
  if (id < 0) return nullptr;
  const Symbol& s = doc.symbols.symbols()[static_cast<size_t>(id)];
  if (!doc.holds(s.decl)) return nullptr;
  return location(doc, s.decl, encoding);
}

json references(const Document& doc, uint32_t offset, bool with_declaration,
                PositionEncoding encoding) {
  json all = json::array();
  const int id = doc.symbols.at(doc.file.get(), offset);
  if (id < 0) return all;
  const Symbol& s = doc.symbols.symbols()[static_cast<size_t>(id)];
  if (with_declaration && doc.holds(s.decl)) all.push_back(location(doc, s.decl, encoding));
  for (const dsl::SymbolUse& u : doc.symbols.uses())
    if (u.symbol == id && doc.holds(u.at)) all.push_back(location(doc, u.at, encoding));
  return all;
}

json completion(const Document& doc, uint32_t offset) {
  uint32_t start = 0;
  word_at(*doc.file, offset, &start);
  const std::string_view before = previous_word(*doc.file, start);
  if (before == "init") return items(dsl::initializer_names(), 12, "initializer");
  if (before == "solve") return items(dsl::solver_names(), 12, "solver");
  if (before == "gradient") return items(dsl::gradient_methods(), 12, "gradient method");
  // `param ff : ffn[...]`: a layer type after the colon of a param.
  const std::string& text = doc.file->text();
  uint32_t colon = start;
  while (colon > 0 && (text[colon - 1] == ' ' || text[colon - 1] == '\t'))
    --colon;
  const uint32_t decl = declaration_start(*doc.file, offset);
  if (colon > 0 && text[colon - 1] == ':' && text.compare(decl, 6, "param ") == 0) {
    json all = items(dsl::layer_type_names(), 7, "layer type");
    all.push_back({{"label", "["}, {"kind", 15}, {"detail", "a tensor's shape: [n, m]"}});
    return all;
  }
  return visible_names(doc, offset);
}

json document_symbols(const Document& doc, PositionEncoding encoding) {
  json all = json::array();
  for (const Symbol& s : doc.symbols.symbols()) {
    if (!s.top_level || !doc.holds(s.decl)) continue;
    const json range = range_of(*doc.file, s.decl.begin, s.decl.end, encoding);
    all.push_back({{"name", s.name},
                   {"detail", signature(s)},
                   {"kind", symbol_kind(s.kind)},
                   {"range", range},
                   {"selectionRange", range}});
  }
  return all;
}

} // namespace plastic::driver::lsp
