// Editing a model's source one statement at a time, as the REPL does when a
// user types a statement (`flow W' = ...`, `solve rk4 step 0.5`): the typed
// text replaces the statement of the same kind and name, or is appended when
// there is none. The edited text then goes through the real front end, so
// this file only finds statement boundaries in text and never judges it.
//
// A statement starts at a line whose first column holds one of the
// language's statement keywords and runs until the next line that starts in
// the first column (a statement, a comment or the end of the file); its
// continuation lines are indented, as every model in examples/ writes them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plastic::driver::repl {

/// The statement keywords of the language (dsl/GRAMMAR.md).
const std::vector<std::string>& statement_keywords();

/// What a typed statement replaces: "flow W", "param Wk", "solve", "loss",
/// ...; nullopt when `text` does not start with a statement keyword.
std::optional<std::string> statement_key(std::string_view text);

/// One statement of a source: its key and its byte range [begin, end).
struct StatementSpan {
  std::string key;
  size_t begin = 0, end = 0;
};

/// Every statement of `source`, in order.
std::vector<StatementSpan> find_statements(std::string_view source);

/// `source` with the statement of the same key as `statement` replaced by it,
/// or with it appended. `replaced` says which happened.
std::string replace_statement(std::string_view source, std::string_view statement, bool& replaced);

/// Whether typed input is unfinished and the editor should ask for another
/// line: an open bracket, a trailing operator, `=` or `,`, or a flow body
/// whose last line so far is a `let`.
bool needs_more_input(std::string_view typed);

} // namespace plastic::driver::repl
