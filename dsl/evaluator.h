// The evaluator: one walk over expressions, name resolution in one place.
//
// Name resolution, `let` scopes, calls of `fn`s and layers (inlined, with
// recursion detected), paths and states at a time (`x(t)`, `dx(T)`,
// `W(T)`), built-in calls checked against their table — all of it lives here
// once; the constant parts (dims, indices, axes, `^`'s exponent) are folded
// by constants.h, which needs no Domain. What a value *is* belongs to a
// Domain: the checker's ShapeDomain computes shapes, reports errors and
// records the resolved form (resolved.h) irgen builds IR from, so the walk
// runs once per expression, in the checker. A Domain provides:
//
//   using Value = ...;                       // cheap to copy
//   Value error();  bool failed(const Value&);
//   Value number(double v, Span);
//   Value leaf(const Leaf&, Span);
//   Value unary(const Value&, Span);                          // negation
//   Value binary(BinaryOp, const Value&, const Value&, Span);  // + - * / ^ @
//   Value builtin(Builtin, std::vector<Value>&, const BuiltinConsts&, Span, const
//   std::vector<Span>&); Value index(const Value&, const std::vector<IndexItem>&, Span);
//   std::string describe(const Value&);   // for editors' hovers: "[4, 20]"
//
// Internal header of dsl/: the checker uses it.
#pragma once

#include "dsl/builtins.h"
#include "dsl/constants.h"
#include "dsl/diagnostics.h"
#include "dsl/model.h"
#include "dsl/resolved.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace plastic::dsl {

/// Where an expression is evaluated; decides which names mean what.
enum class Where { Init, Flow, Jump, Output, ObsOutput, Loss };

template <class Domain> class Evaluator {
public:
  using Value = typename Domain::Value;

  Evaluator(const CheckedModel& model, const Bindings& bindings, Domain& domain,
            DiagnosticEngine& diag, Uses* uses = nullptr)
      : model_(model), bindings_(bindings), domain_(domain), diag_(diag), uses_(uses),
        consts_(model, bindings, diag, uses) {}

  /// Evaluates a declaration's right-hand side.
  Value eval_root(const Expr& e, Where where) {
    Scope scope;
    scope.where = where;
    return eval(e, scope);
  }

  /// Folds an expression of dims, consts and numbers (in a layer: its args).
  std::optional<double> constant(const Expr& e, const LayerInstance* layer = nullptr) {
    return consts_.eval(e, layer);
  }
  /// Records the dims `e` names as used, without folding it (constants.h).
  void note_constant_uses(const Expr& e) { consts_.note_uses(e); }

private:
  struct Local {
    std::string name;
    Value value;
    mutable bool used = false;
    int symbol = -1; ///< in the symbol index, when there is one
  };
  struct Scope {
    const Scope* parent = nullptr;
    std::vector<Local> locals;
    const LayerInstance* layer = nullptr;
    Where where = Where::Flow;
    bool barrier = false; ///< a function body: caller's locals are not visible
  };

  // ---- lookups ----------------------------------------------------------

  const Local* find_local(const Scope& s, const std::string& name) {
    for (const Scope* p = &s; p; p = p->parent) {
      for (auto it = p->locals.rbegin(); it != p->locals.rend(); ++it)
        if (it->name == name) {
          it->used = true;
          return &*it;
        }
      if (p->barrier) break;
    }
    return nullptr;
  }

  const Scope& root(const Scope& s) {
    const Scope* p = &s;
    while (p->parent)
      p = p->parent;
    return *p;
  }

  /// Records a use of the declaration `key` of the kind `set` names.
  template <class Key> void use(std::set<Key> Uses::* set, Key key) {
    if (uses_) (uses_->*set).insert(key);
  }

  // ---- the symbol index (symbols.h), when the check fills one -------------

  SymbolIndex* index() const { return uses_ ? uses_->index : nullptr; }
  void note(Span at, Symbol symbol) {
    if (uses_) uses_->note(at, std::move(symbol));
  }
  /// A let or a fn's argument bound to `v`: its symbol, with the shape of
  /// its first evaluation.
  int bind(const Ident& name, SymbolKind kind, const Value& v) {
    if (!index()) return -1;
    return index()->define({name.name, kind, name.span, domain_.describe(v), {}, false});
  }
  void note_local(Span at, const Local& l) {
    if (index() && l.symbol >= 0) index()->use(at, l.symbol);
  }
  void note_top_level(Span at, const std::string& name) {
    if (!index()) return;
    if (int id = index()->top_level(name); id >= 0) index()->use(at, id);
  }

  std::vector<std::string> visible_names(const Scope& s) {
    std::vector<std::string> names;
    for (const Scope* p = &s; p; p = p->parent) {
      for (const Local& l : p->locals)
        names.push_back(l.name);
      if (p->barrier) break;
    }
    if (s.layer) {
      for (auto& [n, v] : s.layer->dims)
        names.push_back(n);
      for (auto& [n, v] : s.layer->params)
        names.push_back(n);
      for (auto& [n, v] : s.layer->layers)
        names.push_back(n);
    } else {
      for (const DimValue& d : model_.dims)
        names.push_back(d.name);
      for (const ParamInfo& p : model_.params)
        if (p.name.find('.') == std::string::npos) names.push_back(p.name);
      for (auto& [n, l] : bindings_.top_layers)
        names.push_back(n);
      for (const StateInfo& st : model_.states)
        names.push_back(st.name);
      for (const InputInfo& in : model_.inputs)
        names.push_back(in.name);
      for (const OutputInfo& o : model_.outputs)
        names.push_back(o.name);
      for (auto& [n, f] : bindings_.fns)
        names.push_back(n);
    }
    for (const char* n : {"t", "T", "t0"})
      names.emplace_back(n);
    for (auto& b : builtin_names())
      names.push_back(b);
    return names;
  }

  Value unknown(const Expr& e, const Scope& s, const std::string& what = "name") {
    if (!s.layer && bindings_.broken.count(e.text)) return domain_.error(); // already reported
    std::string near = closest_name(e.text, visible_names(s));
    std::string hint = near.empty() ? "" : fmt::format("did you mean '{}'?", near);
    if (near.empty() && s.layer)
      hint = "inside a layer only its arguments, parameters, sub-layers and fns are visible";
    diag_.error(e.span, fmt::format("unknown {} '{}'", what, e.text), hint);
    return domain_.error();
  }

  // ---- constants (constants.cpp) -----------------------------------------

  std::optional<double> const_eval(const Expr& e, const Scope& s) {
    return consts_.eval(e, s.layer);
  }

  std::optional<int64_t> const_int(const Expr& e, const Scope& s, std::string_view what) {
    return consts_.integer(e, s.layer, what);
  }

  // ---- expressions --------------------------------------------------------

  Value eval(const Expr& e, const Scope& s) {
    switch (e.kind) {
    case ExprKind::Number:
      return domain_.number(e.number, e.span);
    case ExprKind::String:
      diag_.error(e.span, "a string is only allowed as the first argument of einsum");
      return domain_.error();
    case ExprKind::Name:
      return eval_name(e, s);
    case ExprKind::Unary: {
      Value a = eval(e.child(0), s);
      if (domain_.failed(a)) return a;
      return domain_.unary(a, e.span);
    }
    case ExprKind::Binary: {
      Value a = eval(e.child(0), s);
      if (e.binary_op == BinaryOp::Pow) {
        auto exponent = const_eval(e.child(1), s);
        if (!exponent || domain_.failed(a)) return domain_.error();
        return domain_.binary(BinaryOp::Pow, a, domain_.number(*exponent, e.child(1).span), e.span);
      }
      Value b = eval(e.child(1), s);
      if (domain_.failed(a) || domain_.failed(b)) return domain_.error();
      return domain_.binary(e.binary_op, a, b, e.span);
    }
    case ExprKind::Call:
      return eval_call(e, s);
    case ExprKind::Index:
      return eval_index(e, s);
    case ExprKind::List:
      diag_.error(e.span, "a list is only allowed as the shape argument of reshape");
      return domain_.error();
    case ExprKind::Block:
      return eval_block(e, s);
    case ExprKind::Slice:
    case ExprKind::Ellipsis:
      diag_.error(e.span, "a slice is only allowed inside [ ]");
      return domain_.error();
    }
    throw InternalError("unhandled expression kind");
  }

  Value eval_block(const Expr& e, const Scope& s) {
    Scope inner;
    inner.parent = &s;
    inner.layer = s.layer;
    inner.where = s.where;
    inner.locals.reserve(e.lets.size());
    for (size_t i = 0; i < e.lets.size(); ++i) {
      Value v = eval(e.child(i), inner);
      inner.locals.push_back({e.lets[i].name, v, false, bind(e.lets[i], SymbolKind::Let, v)});
    }
    Value result = eval(*e.children.back(), inner);
    // Warn once per binding (a fn body is evaluated once per call).
    if (uses_)
      for (size_t i = 0; i < e.lets.size(); ++i)
        if (!inner.locals[i].used && warned_lets_.insert(e.lets[i].span.begin).second &&
            e.lets[i].span.file == e.span.file)
          diag_.warning(e.lets[i].span, fmt::format("'{}' is never used", e.lets[i].name),
                        "remove the binding, or use it");
    return result;
  }

  Value eval_name(const Expr& e, const Scope& s) {
    const std::string& n = e.text;
    if (const Local* l = find_local(s, n)) {
      note_local(e.span, *l);
      return l->value;
    }
    if (s.layer) {
      if (auto it = s.layer->params.find(n); it != s.layer->params.end()) {
        use(&Uses::params, it->second);
        note(e.span, symbol_of(model_.params[static_cast<size_t>(it->second)]));
        return domain_.leaf({Leaf::Param, it->second}, e.span);
      }
      if (auto it = s.layer->dims.find(n); it != s.layer->dims.end())
        return domain_.number(it->second, e.span);
      if (s.layer->layers.count(n) || layer_fn(s.layer, n))
        return not_a_value(e, fmt::format("'{}' is a layer or function; call it", n));
      return unknown(e, s);
    }
    for (size_t i = 0; i < model_.params.size(); ++i)
      if (model_.params[i].name == n) {
        use(&Uses::params, static_cast<int>(i));
        note(e.span, symbol_of(model_.params[i]));
        return domain_.leaf({Leaf::Param, static_cast<int>(i)}, e.span);
      }
    for (size_t i = 0; i < model_.dims.size(); ++i)
      if (model_.dims[i].name == n) {
        use(&Uses::dims, static_cast<int>(i));
        note(e.span, symbol_of(model_.dims[i]));
        return domain_.number(model_.dims[i].value, e.span);
      }
    for (size_t i = 0; i < model_.states.size(); ++i)
      if (model_.states[i].name == n) return state_leaf(static_cast<int>(i), When::Now, e, s);
    for (size_t i = 0; i < model_.inputs.size(); ++i)
      if (model_.inputs[i].name == n) return input_leaf(static_cast<int>(i), e, s);
    for (size_t i = 0; i < model_.outputs.size(); ++i)
      if (model_.outputs[i].name == n) {
        if (s.where != Where::Loss)
          return not_a_value(e, fmt::format("output '{}' can only be used in the loss", n));
        use(&Uses::outputs, static_cast<int>(i));
        note(e.span, symbol_of(model_.outputs[i]));
        return domain_.leaf({Leaf::Output, static_cast<int>(i)}, e.span);
      }
    if (n == "t" || n == "T" || n == "t0") {
      When w = n == "t" ? When::Now : n == "T" ? When::Final : When::Initial;
      if (w == When::Now &&
          (s.where == Where::Init || s.where == Where::Output || s.where == Where::Loss))
        return not_a_value(e, "'t' is the current time, which exists only in flows, jumps and "
                              "per-observation outputs");
      return domain_.leaf({Leaf::Time, 0, w}, e.span);
    }
    if (bindings_.top_layers.count(n) || bindings_.fns.count(n) || find_builtin(n))
      return not_a_value(e, fmt::format("'{}' is a function; call it with arguments", n));
    return unknown(e, s);
  }

  Value not_a_value(const Expr& e, std::string message, std::string hint = {}) {
    diag_.error(e.span, std::move(message), std::move(hint));
    return domain_.error();
  }

  Value state_leaf(int index, When when, const Expr& e, const Scope& s) {
    const StateInfo& st = model_.states[index];
    use(&Uses::states, index);
    note(e.kind == ExprKind::Call ? e.child(0).span : e.span, symbol_of(st));
    if (s.where == Where::Init)
      return not_a_value(
          e, fmt::format("state '{}' has no value while initial values are computed", st.name),
          "initial values may use parameters, static inputs and x(t0)");
    if (s.where == Where::Loss)
      return not_a_value(e, fmt::format("state '{}' cannot be used in the loss", st.name),
                         "declare an output that reads it and use the output");
    if (s.where == Where::Output && when == When::Now) when = When::Final;
    if (when == When::Initial)
      return not_a_value(e, fmt::format("state '{}' is read at t or T, not t0", st.name));
    return domain_.leaf({Leaf::State, index, when}, e.span);
  }

  Value input_leaf(int index, const Expr& e, const Scope& s) {
    const InputInfo& in = model_.inputs[index];
    use(&Uses::inputs, index);
    note(e.span, symbol_of(in));
    switch (in.kind) {
    case InputKind::Path:
      return not_a_value(e, fmt::format("path '{}' must be read at a time", in.name),
                         fmt::format("write {}(t) for its value now, d{}(t) for its derivative",
                                     in.name, in.name));
    case InputKind::Static:
      return domain_.leaf({Leaf::Static, index}, e.span);
    case InputKind::Label:
    case InputKind::Target:
      if (s.where != Where::Loss)
        return not_a_value(
            e, fmt::format("'{}' is a training target; it can only be used in the loss", in.name));
      return domain_.leaf({in.kind == InputKind::Label ? Leaf::Label : Leaf::Target, index},
                          e.span);
    }
    throw InternalError("unhandled input kind");
  }

  const FnDecl* layer_fn(const LayerInstance* layer, const std::string& name) {
    for (const FnDecl& f : layer->def->fns)
      if (f.name.name == name && !f.is_apply) return &f;
    return nullptr;
  }

  std::optional<When> time_arg(const Expr& call, const std::string& what) {
    if (call.args.size() != 1 || !call.args[0].name.name.empty() ||
        call.args[0].value->kind != ExprKind::Name ||
        (call.args[0].value->text != "t" && call.args[0].value->text != "T" &&
         call.args[0].value->text != "t0")) {
      diag_.error(call.span, fmt::format("{} is read at t, T or t0", what),
                  "write x(t) for now, x(T) for the final time, x(t0) for the first observation");
      return std::nullopt;
    }
    const std::string& w = call.args[0].value->text;
    return w == "t" ? When::Now : w == "T" ? When::Final : When::Initial;
  }

  Value eval_call(const Expr& e, const Scope& s) {
    const Expr& callee = e.child(0);
    if (callee.kind != ExprKind::Name) {
      diag_.error(callee.span, "this expression is not a function",
                  "only names of functions, layers, paths and states can be called");
      return domain_.error();
    }
    const std::string& n = callee.text;
    if (!s.layer && bindings_.broken.count(n) && !find_local(s, n))
      return domain_.error(); // already reported
    if (find_local(s, n))
      return not_a_value(callee, fmt::format("'{}' is not a function", n),
                         "it is a value bound by let or a parameter of the function");
    if (s.layer) {
      if (auto it = s.layer->layers.find(n); it != s.layer->layers.end())
        return apply_layer(*it->second, e, s);
      if (const FnDecl* f = layer_fn(s.layer, n)) {
        note(callee.span, symbol_of(*f));
        return call_fn(*f, s.layer, e, s);
      }
      if (s.layer->params.count(n))
        return not_a_value(callee, fmt::format("'{}' is not a function", n),
                           "it is a parameter tensor");
    } else {
      if (auto it = bindings_.top_layers.find(n); it != bindings_.top_layers.end()) {
        use(&Uses::layers, it->second);
        note_top_level(callee.span, n);
        return apply_layer(*it->second, e, s);
      }
      if (auto it = bindings_.fns.find(n); it != bindings_.fns.end()) {
        use(&Uses::fns, it->second);
        note(callee.span, symbol_of(*it->second));
        return call_fn(*it->second, nullptr, e, s);
      }
      for (size_t i = 0; i < model_.states.size(); ++i)
        if (model_.states[i].name == n) {
          auto when = time_arg(e, fmt::format("state '{}'", n));
          if (!when) return domain_.error();
          return state_leaf(static_cast<int>(i), *when, e, s);
        }
      if (auto r = path_call(e, s)) return *r;
      for (const ParamInfo& p : model_.params)
        if (p.name == n)
          return not_a_value(callee, fmt::format("'{}' is not a function", n),
                             "it is a parameter tensor; use '@' to apply a matrix");
    }
    if (const BuiltinSpec* b = find_builtin(n)) return call_builtin(*b, e, s);
    return unknown(callee, s, "function");
  }

  // x(t), dx(t): the value or derivative of a path input at a time.
  std::optional<Value> path_call(const Expr& e, const Scope& s) {
    const std::string& n = e.child(0).text;
    for (int derivative = 0; derivative < 2; ++derivative) {
      std::string base =
          derivative ? (n.size() > 1 && n[0] == 'd' ? n.substr(1) : std::string()) : n;
      if (base.empty()) continue;
      for (size_t i = 0; i < model_.inputs.size(); ++i) {
        const InputInfo& in = model_.inputs[i];
        if (in.name != base) continue;
        use(&Uses::inputs, static_cast<int>(i));
        note(e.child(0).span, symbol_of(in));
        if (in.kind != InputKind::Path) {
          diag_.error(e.child(0).span, fmt::format("'{}' is not a path", in.name),
                      derivative ? "only path inputs have a derivative dx(t)"
                                 : "only path inputs are read at a time");
          return domain_.error();
        }
        auto when = time_arg(e, fmt::format("path '{}'", in.name));
        if (!when) return domain_.error();
        if (*when == When::Now &&
            (s.where == Where::Init || s.where == Where::Output || s.where == Where::Loss)) {
          diag_.error(e.span, "there is no current time here",
                      "use T (final time) or t0 (first observation)");
          return domain_.error();
        }
        return domain_.leaf(
            {derivative ? Leaf::PathDerivative : Leaf::PathValue, static_cast<int>(i), *when},
            e.span);
      }
    }
    return std::nullopt;
  }

  bool check_arity(const Expr& e, size_t want, const std::string& what) {
    size_t got = e.args.size();
    for (const Arg& a : e.args)
      if (!a.name.name.empty()) {
        diag_.error(a.name.span, fmt::format("{} takes no named arguments", what));
        return false;
      }
    if (got != want) {
      diag_.error(e.span,
                  fmt::format("wrong number of arguments: {} takes {}, got {}", what, want, got));
      return false;
    }
    return true;
  }

  Value apply_layer(const LayerInstance& layer, const Expr& e, const Scope& s) {
    const FnDecl* apply = nullptr;
    for (const FnDecl& f : layer.def->fns)
      if (f.is_apply) apply = &f;
    if (!apply)
      return not_a_value(e.child(0),
                         fmt::format("layer '{}' has no apply function", layer.def->name.name));
    return call_fn(*apply, &layer, e, s);
  }

  Value call_fn(const FnDecl& f, const LayerInstance* layer, const Expr& e, const Scope& s) {
    std::string what =
        f.is_apply ? fmt::format("layer '{}'", e.child(0).text) : fmt::format("'{}'", f.name.name);
    if (!check_arity(e, f.params.size(), what)) return domain_.error();
    for (const FnDecl* active : stack_)
      if (active == &f) {
        diag_.error(e.span, fmt::format("'{}' calls itself", f.name.name),
                    "functions are inlined, so recursion is not allowed");
        return domain_.error();
      }
    if (stack_.size() > 64) return not_a_value(e, "functions nested too deeply");
    Scope body;
    body.parent = &s;
    body.barrier = true;
    body.layer = layer;
    body.where = s.where;
    for (size_t i = 0; i < f.params.size(); ++i) {
      Value v = eval(*e.args[i].value, s);
      if (domain_.failed(v)) return v;
      body.locals.push_back(
          {f.params[i].name, v, false, bind(f.params[i], SymbolKind::Argument, v)});
    }
    stack_.push_back(&f);
    Value result = eval(*f.body, body);
    stack_.pop_back();
    return result;
  }

  Value call_builtin(const BuiltinSpec& spec, const Expr& e, const Scope& s) {
    if (is_loss_builtin(spec.id) && s.where != Where::Loss)
      return not_a_value(
          e.child(0),
          fmt::format("{} is a loss; it can only be used in the loss declaration", spec.name));
    BuiltinConsts consts;
    std::vector<Value> tensors;
    std::vector<Span> spans;
    std::vector<const Arg*> positional;
    bool ok = true;
    for (const Arg& a : e.args) {
      if (a.name.name.empty()) {
        positional.push_back(&a);
        continue;
      }
      const BuiltinOption* opt = nullptr;
      for (const BuiltinOption& o : spec.options)
        if (o.name == a.name.name) opt = &o;
      if (!opt) {
        diag_.error(a.name.span, fmt::format("{} has no option '{}'", spec.name, a.name.name),
                    spec.options.empty() ? ""
                                         : fmt::format("its option is '{}'", spec.options[0].name));
        ok = false;
        continue;
      }
      if (opt->integer) {
        auto v = const_int(*a.value, s, opt->name);
        if (!v)
          ok = false;
        else
          consts.axis = v;
      } else {
        auto v = const_eval(*a.value, s);
        if (!v)
          ok = false;
        else if (opt->name == "pos_weight" && !(*v > 0 && std::isfinite(*v))) {
          diag_.error(a.value->span,
                      fmt::format("pos_weight must be a finite number > 0, not {}", *v),
                      "it weights the positive class's term: 1 is the plain loss, the ratio "
                      "of negatives to positives balances the classes");
          ok = false;
        } else
          (opt->name == "pos_weight" ? consts.pos_weight : consts.eps) = *v;
      }
    }
    for (const BuiltinOption& o : spec.options)
      if (o.integer && !consts.axis && o.name == "axis" && spec.id != Builtin::Sum &&
          spec.id != Builtin::Mean && spec.id != Builtin::Max)
        consts.axis = static_cast<int64_t>(o.default_value);
    // Walk the signature (parsed once with the table, builtins.cpp).
    const std::string& kinds = spec.kinds;
    size_t required = spec.required;
    bool variadic = spec.variadic;
    size_t max_args = variadic ? SIZE_MAX : kinds.size();
    if (positional.size() < required || positional.size() > max_args) {
      std::string want = variadic ? fmt::format("at least {}", required)
                         : required == kinds.size()
                             ? std::to_string(required)
                             : fmt::format("{} to {}", required, kinds.size());
      diag_.error(e.span, fmt::format("wrong number of arguments: {} takes {}, got {}", spec.name,
                                      want, positional.size()));
      return domain_.error();
    }
    for (size_t i = 0; i < positional.size(); ++i) {
      char kind = i < kinds.size() ? kinds[i] : (spec.id == Builtin::Einsum ? 't' : kinds.back());
      const Expr& a = *positional[i]->value;
      switch (kind) {
      case 't': {
        Value v = eval(a, s);
        if (domain_.failed(v)) ok = false;
        tensors.push_back(v);
        spans.push_back(a.span);
        break;
      }
      case 'i': {
        auto v = const_int(a, s, "an axis");
        if (!v)
          ok = false;
        else
          consts.axis = v;
        break;
      }
      case 's':
        if (a.kind != ExprKind::String) {
          diag_.error(a.span,
                      fmt::format("{} expects a string such as \"ij,j->i\" here", spec.name));
          ok = false;
        } else {
          consts.spec = a.text;
        }
        break;
      case 'l':
        if (a.kind != ExprKind::List) {
          diag_.error(a.span,
                      fmt::format("{} expects a list of dims such as [4, 20] here", spec.name));
          ok = false;
        } else {
          for (const ExprPtr& item : a.children) {
            auto v = const_int(*item, s, "a dimension");
            if (!v)
              ok = false;
            else
              consts.shape.push_back(*v);
          }
        }
        break;
      default:
        throw InternalError(
            fmt::format("unknown argument kind '{}' in {}'s signature", kind, spec.name));
      }
    }
    if (spec.id == Builtin::Einsum && tensors.empty()) {
      diag_.error(e.span,
                  "wrong number of arguments: einsum needs a spec and at least one operand");
      return domain_.error();
    }
    if (!ok) return domain_.error();
    return domain_.builtin(spec.id, tensors, consts, e.span, spans);
  }

  Value eval_index(const Expr& e, const Scope& s) {
    Value base = eval(e.child(0), s);
    std::vector<IndexItem> items;
    bool ok = !domain_.failed(base);
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr& item = e.child(i);
      IndexItem it;
      if (item.kind == ExprKind::Ellipsis) {
        it.kind = IndexItem::Ellipsis;
      } else if (item.kind == ExprKind::Slice) {
        it.kind = IndexItem::Slice;
        if (item.children[0]) {
          auto v = const_int(item.child(0), s, "a slice bound");
          if (!v)
            ok = false;
          else
            it.lo = v;
        }
        if (item.children[1]) {
          auto v = const_int(item.child(1), s, "a slice bound");
          if (!v)
            ok = false;
          else
            it.hi = v;
        }
      } else {
        auto v = const_int(item, s, "an index");
        if (!v)
          ok = false;
        else
          it.index = *v;
      }
      items.push_back(it);
    }
    if (!ok) return domain_.error();
    return domain_.index(base, items, e.span);
  }

  const CheckedModel& model_;
  const Bindings& bindings_;
  Domain& domain_;
  DiagnosticEngine& diag_;
  Uses* uses_;
  ConstantEvaluator consts_;
  std::vector<const FnDecl*> stack_;
  std::set<uint32_t> warned_lets_;
};

} // namespace plastic::dsl
