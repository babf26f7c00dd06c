// The symbol index: where each name of a model is declared and used.
//
// Editors ask what a name is (hover), where it comes from (go to
// definition) and what names there are (completion, outline). The
// evaluator already resolves every name in one place; when a check is
// given an index (CheckOptions::symbols) it also records each resolution
// here: the span of the use, the declaration it resolved to, and what the
// checker proved about it — a dim's value, a tensor's shape, a let's shape
// at its first evaluation. The index is filled even when the check fails,
// so an editor keeps its hovers while the file has an error elsewhere.
#pragma once

#include "dsl/model.h"
#include "dsl/source.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace plastic::dsl {

enum class SymbolKind { Dim, Const, Input, Param, Layer, State, Output, Fn, Let, Argument };
std::string_view to_string(SymbolKind kind);

struct Symbol {
  std::string name;
  SymbolKind kind = SymbolKind::Dim;
  Span decl;              ///< the name where it is declared
  std::string type;       ///< what the checker proved: "[4, 20, 20]", "4", "path[13] cubic"
  std::string declared;   ///< the shape as written, when it says more: "[heads, d_head, d_head]"
  bool top_level = false; ///< declared at the model's top level (not a let, argument or member)
};

struct SymbolUse {
  Span at;
  int symbol = -1;
};

class SymbolIndex {
public:
  /// Adds a symbol, or completes the one already declared at the same
  /// place (a declaration met again keeps its first type; a missing
  /// `declared` text or top-level flag is filled in). Returns its number.
  int define(Symbol symbol);
  void use(Span at, int symbol);

  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::vector<SymbolUse>& uses() const { return uses_; }
  /// The symbol named at byte `offset` of `file` (a use or a declaration);
  /// -1 if none.
  int at(const SourceFile* file, uint32_t offset) const;
  /// The top-level symbol of that name; -1 if none.
  int top_level(std::string_view name) const;

private:
  std::vector<Symbol> symbols_;
  std::vector<SymbolUse> uses_;
  std::map<std::pair<const SourceFile*, uint32_t>, int> by_decl_;
  std::set<std::tuple<const SourceFile*, uint32_t, int>> seen_uses_;
};

/// The symbols of the checked model's tables, with what the checker proved.
Symbol symbol_of(const DimValue& dim);
Symbol symbol_of(const InputInfo& input);
Symbol symbol_of(const ParamInfo& param);
Symbol symbol_of(const StateInfo& state);
Symbol symbol_of(const OutputInfo& output);
Symbol symbol_of(const FnDecl& fn); ///< its type: the arguments, "(a, b)"
/// A dim's or const's value as written in hover text: "4", "0.5".
std::string format_value(double value);

} // namespace plastic::dsl
