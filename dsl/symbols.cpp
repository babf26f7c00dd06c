// The symbol index (see symbols.h).
#include "dsl/symbols.h"

#include <fmt/format.h>

namespace plastic::dsl {

std::string_view to_string(SymbolKind kind) {
  switch (kind) {
  case SymbolKind::Dim:
    return "dim";
  case SymbolKind::Const:
    return "const";
  case SymbolKind::Input:
    return "input";
  case SymbolKind::Param:
    return "param";
  case SymbolKind::Layer:
    return "layer";
  case SymbolKind::State:
    return "state";
  case SymbolKind::Output:
    return "output";
  case SymbolKind::Fn:
    return "fn";
  case SymbolKind::Let:
    return "let";
  case SymbolKind::Argument:
    return "argument";
  }
  return "name";
}

int SymbolIndex::define(Symbol symbol) {
  const auto key = std::make_pair(symbol.decl.file, symbol.decl.begin);
  if (auto it = by_decl_.find(key); it != by_decl_.end()) {
    Symbol& known = symbols_[static_cast<size_t>(it->second)];
    if (known.type.empty()) known.type = std::move(symbol.type);
    if (known.declared.empty()) known.declared = std::move(symbol.declared);
    known.top_level = known.top_level || symbol.top_level;
    return it->second;
  }
  const int id = static_cast<int>(symbols_.size());
  symbols_.push_back(std::move(symbol));
  by_decl_.emplace(key, id);
  return id;
}

void SymbolIndex::use(Span at, int symbol) {
  // A fn body is evaluated once per call: its uses are recorded once.
  if (seen_uses_.emplace(at.file, at.begin, symbol).second) uses_.push_back({at, symbol});
}

int SymbolIndex::top_level(std::string_view name) const {
  for (size_t i = 0; i < symbols_.size(); ++i)
    if (symbols_[i].top_level && symbols_[i].name == name) return static_cast<int>(i);
  return -1;
}

int SymbolIndex::at(const SourceFile* file, uint32_t offset) const {
  // The innermost span wins; a name's uses do not nest, so the first hit is it.
  for (const SymbolUse& u : uses_)
    if (u.at.file == file && u.at.begin <= offset && offset <= u.at.end) return u.symbol;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const Span& d = symbols_[i].decl;
    if (d.file == file && d.begin <= offset && offset <= d.end) return static_cast<int>(i);
  }
  return -1;
}

Symbol symbol_of(const FnDecl& fn) {
  std::string args;
  for (const Ident& a : fn.params)
    args += (args.empty() ? "" : ", ") + a.name;
  return {fn.name.name, SymbolKind::Fn, fn.name.span, "(" + args + ")", {}, false};
}

std::string format_value(double value) {
  return fmt::format("{}", value);
}

Symbol symbol_of(const DimValue& dim) {
  return {dim.name, dim.is_const ? SymbolKind::Const : SymbolKind::Dim,
          dim.span, format_value(dim.value),
          {},       false};
}

Symbol symbol_of(const InputInfo& input) {
  std::string type;
  switch (input.kind) {
  case InputKind::Path:
    type = fmt::format("path{} {}", format_shape(input.shape), to_string(input.interp));
    break;
  case InputKind::Static:
    type = fmt::format("static{}", format_shape(input.shape));
    break;
  case InputKind::Label:
    type = fmt::format("label[{}]", input.classes);
    break;
  case InputKind::Target:
    type = fmt::format("target{}{}", format_shape(input.shape),
                       input.per_observation ? " per observation" : "");
    break;
  }
  return {input.name, SymbolKind::Input, input.span, std::move(type), {}, false};
}

Symbol symbol_of(const ParamInfo& param) {
  return {param.name, SymbolKind::Param, param.span, format_shape(param.shape), {}, false};
}

Symbol symbol_of(const StateInfo& state) {
  return {state.name, SymbolKind::State, state.span, format_shape(state.shape), {}, false};
}

Symbol symbol_of(const OutputInfo& output) {
  const Span decl = output.decl ? output.decl->name.span : Span{};
  return {output.name, SymbolKind::Output, decl, format_shape(output.shape), {}, false};
}

} // namespace plastic::dsl
