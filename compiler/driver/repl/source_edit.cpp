// Statement boundaries in a model's source (see source_edit.h).
#include "compiler/driver/repl/source_edit.h"

#include <algorithm>
#include <cctype>

namespace plastic::driver::repl {

namespace {

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// The word starting at `pos` (identifier characters).
std::string_view word_at(std::string_view s, size_t pos) {
  size_t end = pos;
  while (end < s.size() && is_ident_char(s[end]))
    ++end;
  return s.substr(pos, end - pos);
}

// Removes a trailing comment (`#` to the end of the line).
std::string_view strip_comment(std::string_view line) {
  size_t hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

} // namespace

const std::vector<std::string>& statement_keywords() {
  static const std::vector<std::string> keywords = {"model",  "dim",  "const", "input",   "param",
                                                    "state",  "fn",   "layer", "flow",    "jump",
                                                    "output", "loss", "solve", "gradient"};
  return keywords;
}

std::optional<std::string> statement_key(std::string_view text) {
  text = trim(text);
  std::string_view keyword = word_at(text, 0);
  const auto& keywords = statement_keywords();
  if (std::find(keywords.begin(), keywords.end(), keyword) == keywords.end()) return std::nullopt;
  // The keyword must stand alone (`flowx = 1` is not a flow).
  if (keyword.size() < text.size() && is_ident_char(text[keyword.size()])) return std::nullopt;
  // Statements of which a model has one are keyed by their keyword alone.
  if (keyword == "model" || keyword == "loss" || keyword == "solve" || keyword == "gradient")
    return std::string(keyword);
  size_t pos = keyword.size();
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
    ++pos;
  std::string_view name = word_at(text, pos);
  if (name.empty()) return std::string(keyword);
  return std::string(keyword) + " " + std::string(name);
}

std::vector<StatementSpan> find_statements(std::string_view source) {
  std::vector<StatementSpan> out;
  size_t pos = 0;
  auto close_last = [&](size_t at) {
    if (!out.empty() && out.back().end == 0) out.back().end = at;
  };
  while (pos < source.size()) {
    size_t eol = source.find('\n', pos);
    size_t next = eol == std::string_view::npos ? source.size() : eol + 1;
    std::string_view line = source.substr(pos, next - pos);
    const bool first_column = !line.empty() && !std::isspace(static_cast<unsigned char>(line[0]));
    if (first_column) {
      close_last(pos);
      if (auto key = statement_key(strip_comment(line))) out.push_back({*key, pos, 0});
    }
    pos = next;
  }
  close_last(source.size());
  // A statement ends before the blank lines that follow it.
  for (StatementSpan& s : out)
    while (s.end > s.begin && std::isspace(static_cast<unsigned char>(source[s.end - 1])))
      --s.end;
  return out;
}

std::string replace_statement(std::string_view source, std::string_view statement, bool& replaced) {
  replaced = false;
  std::string typed(trim(statement));
  auto key = statement_key(typed);
  if (!key) return std::string(source);
  for (const StatementSpan& s : find_statements(source))
    if (s.key == *key) {
      replaced = true;
      return std::string(source.substr(0, s.begin)) + typed + std::string(source.substr(s.end));
    }
  std::string out(source);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + typed + "\n";
}

bool needs_more_input(std::string_view typed) {
  int depth = 0;
  for (char c : typed) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
  }
  if (depth > 0) return true;
  // The last non-empty line, without its comment.
  std::string_view rest = typed;
  std::string_view last;
  while (!rest.empty()) {
    size_t eol = rest.find('\n');
    std::string_view line = trim(strip_comment(rest.substr(0, eol)));
    if (!line.empty()) last = line;
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  }
  if (last.empty()) return false;
  const char end = last.back();
  if (end == '=' || end == ',' || end == '+' || end == '-' || end == '*' || end == '/' ||
      end == '@' || end == '^')
    return true;
  return word_at(last, 0) == "let";
}

} // namespace plastic::driver::repl
