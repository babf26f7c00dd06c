// The checker's part of the symbol index (symbols.h): every top-level
// declaration of the model file, entered before anything is checked so
// that uses can find them by name, then completed with what the check
// proved (values and shapes). The evaluator records the uses.
#include "dsl/checker_impl.h"

namespace plastic::dsl::detail {
namespace {

/// The source text from `begin` to the end of its line, without a comment
/// or trailing blanks: how an input was declared ("path[d_in] cubic").
std::string rest_of_line(Span from) {
  if (!from.valid()) return {};
  std::string_view text(from.file->text());
  text = text.substr(from.begin);
  text = text.substr(0, std::min(text.find('\n'), text.find('#')));
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return std::string(text);
}

std::string dim_declared(const DimDecl& d) {
  std::string value = d.value ? std::string(d.value->span.text()) : std::string();
  if (!d.from_data) return value;
  return fmt::format("from data.{}{}", d.from_data->name, value.empty() ? "" : " else " + value);
}

Symbol top(std::string name, SymbolKind kind, Span decl, std::string declared) {
  return {std::move(name), kind, decl, {}, std::move(declared), true};
}

} // namespace

void Checker::index_declarations(const Module& user) {
  SymbolIndex* index = options_.symbols;
  if (!index) return;
  for (const Decl& decl : user.decls) {
    if (const auto* d = std::get_if<DimDecl>(&decl)) {
      index->define(top(d->name.name, d->is_const ? SymbolKind::Const : SymbolKind::Dim,
                        d->name.span, dim_declared(*d)));
    } else if (const auto* in = std::get_if<InputDecl>(&decl)) {
      index->define(
          top(in->name.name, SymbolKind::Input, in->name.span, rest_of_line(in->kind_span)));
    } else if (const auto* p = std::get_if<ParamDecl>(&decl)) {
      if (p->layer)
        index->define(
            top(p->name.name, SymbolKind::Layer, p->name.span, std::string(p->layer->span.text())));
      else
        index->define(
            top(p->name.name, SymbolKind::Param, p->name.span, std::string(p->shape_span.text())));
    } else if (const auto* st = std::get_if<StateDecl>(&decl)) {
      index->define(
          top(st->name.name, SymbolKind::State, st->name.span, std::string(st->shape_span.text())));
    } else if (const auto* f = std::get_if<FnDecl>(&decl)) {
      Symbol fn = symbol_of(*f);
      fn.top_level = true;
      index->define(std::move(fn));
    } else if (const auto* o = std::get_if<OutputDecl>(&decl)) {
      index->define(top(o->name.name, SymbolKind::Output, o->name.span, {}));
    }
  }
  // `flow W' = …` and `jump W = …` name their state.
  for (const Decl& decl : user.decls) {
    const Ident* state = nullptr;
    if (const auto* f = std::get_if<FlowDecl>(&decl)) state = &f->state;
    if (const auto* j = std::get_if<JumpDecl>(&decl)) state = &j->state;
    if (!state) continue;
    if (const int id = index->top_level(state->name); id >= 0) index->use(state->span, id);
  }
}

void Checker::index_checked() {
  SymbolIndex* index = options_.symbols;
  if (!index) return;
  for (const DimValue& d : m_.dims)
    index->define(symbol_of(d));
  for (const InputInfo& in : m_.inputs)
    index->define(symbol_of(in));
  for (const ParamInfo& p : m_.params)
    index->define(symbol_of(p));
  for (const StateInfo& st : m_.states)
    index->define(symbol_of(st));
  for (const OutputInfo& o : m_.outputs)
    index->define(symbol_of(o));
}

} // namespace plastic::dsl::detail
