// The checker's declaration-level rules (parameters and layers: layers.cpp;
// expression shapes and their resolved form: shape_domain.cpp; name
// resolution: evaluator.h; constants: constants.cpp).
#include "dsl/checker_impl.h"

#include <cmath>
#include <unordered_set>

namespace plastic::dsl {

std::string_view to_string(GradientMethod m) {
  switch (m) {
  case GradientMethod::Direct:
    return "direct";
  case GradientMethod::Checkpoint:
    return "checkpoint";
  case GradientMethod::Adjoint:
    return "adjoint";
  case GradientMethod::Auto:
    return "auto";
  }
  return "?";
}

int64_t CheckedModel::param_count() const {
  int64_t n = 0;
  for (const ParamInfo& p : params)
    n += element_count(p.shape);
  return n;
}

int64_t CheckedModel::state_size() const {
  int64_t n = 0;
  for (const StateInfo& s : states)
    n += element_count(s.shape);
  return n;
}

const InputInfo* CheckedModel::find_input(std::string_view name) const {
  for (const InputInfo& in : inputs)
    if (in.name == name) return &in;
  return nullptr;
}

const StateInfo* CheckedModel::find_state(std::string_view name) const {
  for (const StateInfo& s : states)
    if (s.name == name) return &s;
  return nullptr;
}

namespace detail {

namespace {
const std::vector<std::string> kFixedSolvers = {"euler", "midpoint", "heun",
                                                "rk3",   "rk4",      "rk4_38"};
const std::vector<std::string> kAdaptiveSolvers = {"dopri5", "tsit5", "bosh3"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

template <class T> const T* first_of(const Module& m) {
  for (const Decl& d : m.decls)
    if (auto* p = std::get_if<T>(&d)) return p;
  return nullptr;
}
} // namespace

void Checker::declare(const std::string& name, Span span, const char* what) {
  auto [it, inserted] = declared_.emplace(name, span);
  if (inserted) return;
  auto lc =
      it->second.valid() ? it->second.file->line_col(it->second.begin) : SourceFile::LineCol{};
  diag_.error(
      span, fmt::format("'{}' is already declared", name),
      it->second.valid()
          ? fmt::format("the first declaration is on line {}; rename this {}", lc.line, what)
          : "");
}

std::optional<int64_t> Checker::positive_int(const Expr& e, std::string_view what,
                                             const LayerInstance* layer) {
  auto v = eval_.constant(e, layer);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v) || *v <= 0 || *v > 1e9) {
    bool division = e.kind == ExprKind::Binary && e.binary_op == BinaryOp::Div && *v > 0 &&
                    *v != std::floor(*v);
    if (division)
      diag_.error(e.span, fmt::format("{} division does not divide evenly (= {})", what, *v),
                  "dims are integers; make the numerator a multiple of the denominator");
    else
      diag_.error(e.span, fmt::format("{} must be a positive integer{}, got {}", what,
                                      *v > 1e9 ? " of at most 10^9" : "", *v));
    return std::nullopt;
  }
  return static_cast<int64_t>(*v);
}

std::optional<Shape> Checker::shape_of(const std::vector<ExprPtr>& dims,
                                       const LayerInstance* layer) {
  Shape shape;
  bool ok = true;
  for (const ExprPtr& d : dims) {
    auto v = positive_int(*d, "a dimension", layer);
    if (!v)
      ok = false;
    else
      shape.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return shape;
}

namespace {

/// "which dim, what would fit": the largest named dim of the shape and the
/// value of it that keeps the product within kMaxElements, others fixed.
std::string size_hint(const std::vector<ExprPtr>* dims, const Shape* shape) {
  std::string generic =
      "the element count is the product of the dims: lower them (--set NAME=VALUE)";
  if (!dims || !shape || dims->size() != shape->size()) return generic;
  std::string name;
  int64_t value = 0;
  for (size_t i = 0; i < dims->size(); ++i)
    if ((*dims)[i]->kind == ExprKind::Name && (*shape)[i] > value)
      name = (*dims)[i]->text, value = (*shape)[i];
  if (name.empty()) return generic;
  int uses = 0;
  double rest = 1;
  for (size_t i = 0; i < dims->size(); ++i)
    if ((*dims)[i]->kind == ExprKind::Name && (*dims)[i]->text == name)
      ++uses;
    else
      rest *= static_cast<double>((*shape)[i]);
  const double fit =
      std::floor(std::pow(static_cast<double>(kMaxElements) / rest, 1.0 / uses) * (1 + 1e-12));
  if (fit < 1) return generic;
  return fmt::format("{} = {} here; {} <= {:.0f} would fit (the element count is the product of "
                     "the dims)",
                     name, value, name, fit);
}

} // namespace

bool Checker::within_size_limit(Span where, const std::string& what, double count,
                                const std::vector<ExprPtr>* dims, const Shape* shape, double& total,
                                const char* kind) {
  total += count;
  const auto limit = static_cast<double>(kMaxElements);
  if (count > limit) {
    diag_.error(where,
                fmt::format("{} has {:.3g} elements, more than the 2^40 (about {:.2g}) a model "
                            "may hold in its {}",
                            what, count, limit, kind),
                size_hint(dims, shape));
    return false;
  }
  if (total > limit) {
    diag_.error(where,
                fmt::format("with {} ({:.3g} elements) the model's {} hold {:.3g} elements, more "
                            "than the 2^40 (about {:.2g}) allowed",
                            what, count, kind, total, limit),
                size_hint(dims, shape));
    return false;
  }
  return true;
}

// `gradient auto budget 512 MB`: the memory the chosen method may use.
void Checker::check_budget(const Option& o, GradientInfo& info) {
  auto v = eval_.constant(*o.value);
  if (!v) return;
  static const std::vector<std::string> units = {"KB", "MB", "GB", "TB"};
  const auto unit = std::find(units.begin(), units.end(), o.unit.name);
  if (o.unit.name.empty() || unit == units.end()) {
    diag_.error(o.unit.name.empty() ? o.value->span : o.unit.span,
                o.unit.name.empty() ? "the budget needs a unit"
                                    : fmt::format("unknown unit '{}'", o.unit.name),
                "write e.g. `budget 512 MB` (KB, MB, GB or TB, powers of 1024)");
    return;
  }
  if (!(*v > 0) || !std::isfinite(*v)) {
    diag_.error(o.value->span, "the budget must be positive");
    return;
  }
  info.budget_bytes = *v * std::pow(1024.0, static_cast<double>(unit - units.begin() + 1));
}

// dim_decl / const_decl: evaluated in order; --set overrides the value.
void Checker::check_dim(const DimDecl& d) {
  declare(d.name.name, d.name.span, d.is_const ? "const" : "dim");
  DimValue v{d.name.name, 0, d.is_const, false, {}, d.name.span, {}};
  if (d.from_data) {
    if (!check_data_dim(d, v)) return void(bindings_.broken.insert(d.name.name));
  } else if (auto it = options_.overrides.find(d.name.name); it != options_.overrides.end()) {
    used_overrides_.insert(d.name.name);
    v.value = it->second;
    v.overridden = true;
    // `dim d_in = 1 + 2 * d_feat` with --set d_in=35: d_feat is not unused.
    if (d.value) eval_.note_constant_uses(*d.value);
    // The same bound as positive_int's: a --set value out of it is a usage
    // error (exit 2), whether it is 0 or 2^40.
    if (!d.is_const && (v.value != std::floor(v.value) || v.value <= 0 || v.value > 1e9)) {
      diag_.error(d.name.span,
                  fmt::format("--set {}={}: a dim must be a positive integer{}", d.name.name,
                              v.value, v.value > 1e9 ? " of at most 10^9" : ""));
      usage_error_ = true;
      // Broken, like a dim whose expression failed: what depends on it is
      // not reported again (one error for one bad value).
      return void(bindings_.broken.insert(d.name.name));
    }
  } else if (d.is_const) {
    auto c = eval_.constant(*d.value);
    if (!c) return void(bindings_.broken.insert(d.name.name));
    v.value = *c;
  } else {
    auto n = positive_int(*d.value, fmt::format("dim '{}'", d.name.name));
    if (!n) return void(bindings_.broken.insert(d.name.name));
    v.value = static_cast<double>(*n);
  }
  if (d.tune) v.tune = check_tune(d);
  m_.dims.push_back(v);
}

// `tune log(lo, hi)`, `tune (lo, hi)`, `tune [a, b, …]`: constant values, two
// ordered bounds (positive for a log scale), integers for a dim. A bad range
// is an error of its own; the dim keeps its value.
std::optional<TuneRange> Checker::check_tune(const DimDecl& d) {
  const TuneDecl& t = *d.tune;
  auto refuse = [&](std::string message, std::string hint) -> std::optional<TuneRange> {
    diag_.error(t.span, std::move(message), std::move(hint));
    return std::nullopt;
  };
  TuneRange range{t.scale, {}};
  for (const ExprPtr& e : t.values) {
    auto c = eval_.constant(*e);
    if (!c) return std::nullopt;
    range.values.push_back(*c);
  }
  const std::string& name = d.name.name;
  const std::vector<double>& v = range.values;
  if (t.scale == TuneScale::Choice) {
    if (v.size() < 2)
      return refuse(fmt::format("'{}' is tuned over one value", name),
                    "give two or more (`tune [16, 32]`), or drop `tune` to fix the value");
  } else {
    const char* form = t.scale == TuneScale::Log ? "tune log(0.003, 0.3)" : "tune (0, 1)";
    if (v.size() != 2)
      return refuse(fmt::format("a range has two bounds, this one has {}", v.size()),
                    fmt::format("written `{}`; a list of values is `tune [a, b, c]`", form));
    if (!(v[0] < v[1]))
      return refuse(fmt::format("the range of '{}' is empty: {} is not below {}", name, v[0], v[1]),
                    "the lower bound comes first");
    if (t.scale == TuneScale::Log && v[0] <= 0)
      return refuse(fmt::format("a log range needs positive bounds, not {}", v[0]),
                    "use `tune (lo, hi)` for a range that includes zero");
  }
  if (!d.is_const)
    for (double x : v)
      if (x != std::floor(x) || x <= 0 || x > 1e9)
        return refuse(fmt::format("dim '{}' is a positive integer; {} is not", name, x),
                      "tune a dim over whole numbers (`tune [16, 32, 64]`)");
  return range;
}

// `dim d from data.X`: the data's value; a --set must agree with it (it
// stands in for the data only where there are none, e.g. `plastic check`).
bool Checker::check_data_dim(const DimDecl& d, DimValue& v) {
  const std::string& what = d.from_data->name;
  v.from_data = what;
  auto set = options_.overrides.find(d.name.name);
  if (set != options_.overrides.end()) used_overrides_.insert(d.name.name);
  auto given = options_.data_quantities.find(what);
  if (given == options_.data_quantities.end()) {
    if (set == options_.overrides.end()) {
      if (d.value) {
        // No data at hand (check, emit, the REPL): the `else` value.
        auto n = positive_int(*d.value, fmt::format("dim '{}'", d.name.name));
        if (!n) return false;
        v.value = static_cast<double>(*n);
        return true;
      }
      diag_.error(
          d.from_data->span,
          fmt::format("dim '{}' comes from the data, and this command reads none", d.name.name),
          fmt::format("give --data, or the value: --set {}=N (or write `dim {} from "
                      "data.{} else N`)",
                      d.name.name, d.name.name, what));
      return false;
    }
    v.value = set->second;
    v.overridden = true;
    if (v.value != std::floor(v.value) || v.value <= 0) {
      diag_.error(d.name.span, fmt::format("--set {}={}: a dim must be a positive integer",
                                           d.name.name, v.value));
      usage_error_ = true;
    }
    return true;
  }
  v.value = static_cast<double>(given->second);
  if (set != options_.overrides.end() && set->second != v.value) {
    diag_.error(d.from_data->span,
                fmt::format("--set {}={} contradicts the data: {} has {} {} (dim '{}' comes from "
                            "data.{})",
                            d.name.name, set->second, options_.data_name, given->second, what,
                            d.name.name, what),
                fmt::format("leave out --set {}, or give --set {}={}", d.name.name, d.name.name,
                            given->second));
    usage_error_ = true;
  }
  return true;
}

// input_decl: sizes, interpolation, log-signature parameters.
void Checker::check_input(const InputDecl& in) {
  declare(in.name.name, in.name.span, "input");
  InputInfo info;
  info.name = in.name.name;
  info.kind = in.kind;
  info.interp = in.interp;
  info.per_observation = in.per_observation;
  info.with_time = in.with_time;
  info.unit_increments = in.unit_increments;
  info.span = in.name.span;
  auto shape = shape_of(in.sizes);
  if (!shape) return void(bindings_.broken.insert(in.name.name));
  double input_elements = 0; // each input on its own: they are not stored together
  if (!in.sizes.empty() &&
      !within_size_limit(in.sizes.front()->span.to(in.sizes.back()->span),
                         fmt::format("input '{}'", in.name.name), element_count_real(*shape),
                         &in.sizes, &*shape, input_elements, "inputs"))
    return void(bindings_.broken.insert(in.name.name));
  info.shape = *shape;
  if (in.kind == InputKind::Label) {
    info.classes = info.shape[0];
    info.shape = {};
    if (info.classes < 2) diag_.error(in.sizes[0]->span, "a label needs at least 2 classes");
  }
  info.drive_size = in.kind == InputKind::Path ? info.shape[0] : 0;
  // The grammar has the word (torchcde's rectilinear paths) but the runtime
  // builds no such path: refused here, not by `train` as "a bug".
  if (in.kind == InputKind::Path && in.interp == Interpolation::Rectilinear)
    diag_.error(in.interp_span,
                "`rectilinear` interpolation is not supported yet: the runtime builds cubic, "
                "hermite, linear and logsig paths",
                "use `linear` (piecewise linear between observations), or `hermite` for an "
                "online path that only looks back");
  if (in.kind == InputKind::Path && in.interp == Interpolation::LogSig) {
    auto depth = positive_int(*in.logsig_depth, "the log-signature depth");
    auto step = positive_int(*in.logsig_step, "the log-signature step");
    if (!depth || !step) return void(bindings_.broken.insert(in.name.name));
    if (*depth > 4)
      diag_.error(in.logsig_depth->span,
                  fmt::format("log-signature depth {} is not supported", *depth),
                  "depths 1 to 4 are supported (paper 002 uses 1 to 3)");
    info.logsig_depth = *depth;
    info.logsig_step = *step;
    info.drive_size = logsig_dimension(info.shape[0], *depth);
  }
  m_.inputs.push_back(info);
}

void Checker::check_state(const StateDecl& s) {
  declare(s.name.name, s.name.span, "state");
  auto shape = shape_of(s.shape);
  if (!shape) return void(bindings_.broken.insert(s.name.name));
  if (!s.shape.empty() &&
      !within_size_limit(s.shape.front()->span.to(s.shape.back()->span),
                         fmt::format("state '{}'", s.name.name), element_count_real(*shape),
                         &s.shape, &*shape, state_elements_, "state"))
    return void(bindings_.broken.insert(s.name.name));
  StateInfo info;
  info.name = s.name.name;
  info.shape = *shape;
  info.span = s.name.span;
  info.decl = &s;
  m_.states.push_back(info);
}

// Each state: its initial value, exactly one flow of its shape, at most one jump.
void Checker::check_flows_and_jumps(const Module& user) {
  for (const Decl& d : user.decls) {
    const Ident* target = nullptr;
    bool is_flow = false;
    if (auto* f = std::get_if<FlowDecl>(&d))
      target = &f->state, is_flow = true;
    else if (auto* j = std::get_if<JumpDecl>(&d))
      target = &j->state;
    else
      continue;
    StateInfo* st = nullptr;
    for (StateInfo& s : m_.states)
      if (s.name == target->name) st = &s;
    if (!st && bindings_.broken.count(target->name)) continue; // the state's own error was reported
    if (!st) {
      std::vector<std::string> names;
      names.reserve(m_.states.size());
      for (const StateInfo& s : m_.states)
        names.push_back(s.name);
      std::string near = closest_name(target->name, names);
      diag_.error(target->span,
                  fmt::format("unknown name '{}': {} needs a state", target->name,
                              is_flow ? "a flow" : "a jump"),
                  near.empty() ? fmt::format("declare it: `state {} : [n] = 0`", target->name)
                               : fmt::format("did you mean '{}'?", near));
      continue;
    }
    if (is_flow) {
      if (st->flow)
        diag_.error(target->span, fmt::format("a flow for '{}' is already declared", st->name));
      else
        st->flow = &std::get<FlowDecl>(d);
    } else {
      if (st->jump)
        diag_.error(target->span, fmt::format("a jump for '{}' is already declared", st->name));
      else
        st->jump = &std::get<JumpDecl>(d);
    }
  }
  for (StateInfo& st : m_.states) {
    auto check_shape = [&](const ShapeValue& v, Span span, const char* what) {
      if (domain_.failed(v)) return;
      if (v.kind != ShapeValue::Tensor || (v.shape != st.shape && !v.shape.empty()))
        diag_.error(span,
                    fmt::format("{} of shape {} does not match state '{}' of shape {}", what,
                                format_shape(v.shape), st.name, format_shape(st.shape)),
                    "a flow gives the state's time derivative, so it has the state's shape (or is "
                    "a scalar)");
    };
    check_shape(resolve(*st.decl->init, Where::Init, st.init_value), st.decl->init->span,
                "the initial value");
    if (!st.flow) {
      diag_.error(
          st.span, fmt::format("state '{}' has no flow", st.name),
          fmt::format("add `flow {}' = ...` (write `flow {}' = 0` for a state that only jumps)",
                      st.name, st.name));
      continue;
    }
    check_shape(resolve(*st.flow->body, Where::Flow, st.flow_value), st.flow->body->span,
                "the flow");
    if (st.jump)
      check_shape(resolve(*st.jump->body, Where::Jump, st.jump_value), st.jump->body->span,
                  "the jump");
  }
}

ShapeValue Checker::resolve(const Expr& e, Where where, ResolvedExpr& out) {
  out = {};
  domain_.record_into(&out);
  ShapeValue v = eval_.eval_root(e, where);
  domain_.record_into(nullptr);
  out.root = v.node;
  return v;
}

void Checker::check_outputs(const Module& user) {
  for (const Decl& d : user.decls) {
    auto* o = std::get_if<OutputDecl>(&d);
    if (!o) continue;
    declare(o->name.name, o->name.span, "output");
    ResolvedExpr value;
    ShapeValue v = resolve(*o->body, o->per_observation ? Where::ObsOutput : Where::Output, value);
    if (domain_.failed(v)) {
      bindings_.broken.insert(o->name.name);
      continue;
    }
    m_.outputs.push_back({o->name.name, v.shape, o->per_observation, o, std::move(value)});
  }
}

void Checker::check_loss(const Module& user) {
  for (const Decl& d : user.decls) {
    auto* l = std::get_if<LossDecl>(&d);
    if (!l) continue;
    if (m_.loss) {
      diag_.error(l->keyword, "a loss is already declared",
                  "combine terms in one loss: `loss mse(a, r) + 0.1 * mse(b, s)`");
      continue;
    }
    m_.loss = l;
    ShapeValue v = resolve(*l->body, Where::Loss, m_.loss_value);
    if (!domain_.failed(v) && v.kind != ShapeValue::Loss)
      diag_.error(l->body->span,
                  "the loss must be cross_entropy, bce_with_logits, mse or a weighted sum of them");
  }
  if (!m_.loss)
    diag_.error(user.model.span, fmt::format("model '{}' has no loss", user.model.name),
                "add e.g. `loss cross_entropy(logits, y)`");
}

void Checker::check_solver(const SolveDecl* solve) {
  SolverInfo& s = m_.solver;
  if (!solve) {
    s.method = "dopri5";
    s.adaptive = true;
    return;
  }
  s.span = solve->method.span;
  s.method = solve->method.name;
  s.adaptive = contains(kAdaptiveSolvers, s.method);
  if (!s.adaptive && !contains(kFixedSolvers, s.method)) {
    std::vector<std::string> all = kFixedSolvers;
    all.insert(all.end(), kAdaptiveSolvers.begin(), kAdaptiveSolvers.end());
    std::string near = closest_name(s.method, all);
    diag_.error(
        solve->method.span, fmt::format("unknown solver '{}'", s.method),
        near.empty()
            ? "fixed step: euler, midpoint, heun, rk3, rk4, rk4_38; adaptive: dopri5, tsit5, bosh3"
            : fmt::format("did you mean '{}'?", near));
    return;
  }
  std::vector<std::string> allowed =
      s.adaptive ? std::vector<std::string>{"rtol", "atol", "max_steps", "step", "dt_min", "dt_max"}
                 : std::vector<std::string>{"step", "max_steps"};
  bool has_step = false;
  for (const Option& o : solve->options) {
    if (!contains(allowed, o.name.name)) {
      std::string near = closest_name(o.name.name, allowed);
      diag_.error(o.name.span,
                  fmt::format("unknown option '{}' for solver {}", o.name.name, s.method),
                  near.empty() ? fmt::format("{} takes: {}", s.method, fmt::join(allowed, ", "))
                               : fmt::format("did you mean '{}'?", near));
      continue;
    }
    auto v = eval_.constant(*o.value);
    if (!v) continue;
    if (*v <= 0) {
      diag_.error(o.value->span, fmt::format("{} must be positive", o.name.name));
      continue;
    }
    if (o.name.name == "step") s.step = *v, has_step = true;
    if (o.name.name == "rtol") s.rtol = *v;
    if (o.name.name == "atol") s.atol = *v;
    if (o.name.name == "dt_min") s.dt_min = *v;
    if (o.name.name == "dt_max") s.dt_max = *v;
    if (o.name.name == "max_steps") {
      if (*v != std::floor(*v)) diag_.error(o.value->span, "max_steps must be a positive integer");
      s.max_steps = static_cast<int64_t>(*v);
    }
  }
  if (!s.adaptive && !has_step)
    diag_.error(
        solve->method.span, fmt::format("fixed-step solver {} needs a step", s.method),
        fmt::format("write e.g. `solve {} step 0.1`, or use an adaptive solver such as dopri5",
                    s.method));
}

void Checker::check_gradient(const GradientDecl* g) {
  GradientInfo& info = m_.gradient;
  if (!g) return;
  info.span = g->method.span;
  const std::string& name = g->method.name;
  if (name == "direct")
    info.method = GradientMethod::Direct;
  else if (name == "checkpoint")
    info.method = GradientMethod::Checkpoint;
  else if (name == "adjoint")
    info.method = GradientMethod::Adjoint;
  else if (name == "auto")
    info.method = GradientMethod::Auto;
  else {
    std::string near = closest_name(name, {"direct", "checkpoint", "adjoint", "auto"});
    diag_.error(g->method.span, fmt::format("unknown gradient method '{}'", name),
                near.empty() ? "use direct, checkpoint N, adjoint or auto [budget 512 MB]"
                             : fmt::format("did you mean '{}'?", near));
    return;
  }
  if (info.method == GradientMethod::Checkpoint) {
    if (!g->count) {
      diag_.error(g->method.span, "checkpoint needs the number of steps between checkpoints",
                  "write e.g. `gradient checkpoint 16`");
    } else if (auto n = positive_int(*g->count, "the checkpoint interval")) {
      info.checkpoint_every = *n;
    }
  } else if (g->count) {
    diag_.error(g->count->span, fmt::format("gradient {} takes no count", name));
  }
  for (const Option& o : g->options) {
    if (info.method == GradientMethod::Auto && o.name.name == "budget") {
      check_budget(o, info);
      continue;
    }
    bool allowed =
        info.method == GradientMethod::Adjoint && (o.name.name == "rtol" || o.name.name == "atol");
    if (!allowed) {
      diag_.error(o.name.span,
                  fmt::format("unknown option '{}' for gradient {}", o.name.name, name),
                  info.method == GradientMethod::Adjoint ? "adjoint takes rtol and atol"
                  : info.method == GradientMethod::Auto  ? "auto takes a budget: `budget 512 MB`"
                                                         : "only adjoint and auto take options");
      continue;
    }
    auto v = eval_.constant(*o.value);
    if (!v) continue;
    if (*v <= 0)
      diag_.error(o.value->span, fmt::format("{} must be positive", o.name.name));
    else
      (o.name.name == "rtol" ? info.rtol : info.atol) = *v;
  }
}

namespace {
/// The indices of `table`'s used entries by name: one pass, so checking
/// every declaration stays linear in the model (10^5 consts).
template <class Info>
std::unordered_set<std::string> used_names(const std::vector<Info>& table,
                                           const std::set<int>& used) {
  std::unordered_set<std::string> names;
  for (int i : used)
    if (i >= 0 && static_cast<size_t>(i) < table.size())
      names.insert(table[static_cast<size_t>(i)].name);
  return names;
}
} // namespace

void Checker::warn_unused(const Module& user) {
  const auto dims = used_names(m_.dims, uses_.dims), inputs = used_names(m_.inputs, uses_.inputs),
             params = used_names(m_.params, uses_.params);
  for (const Decl& d : user.decls) {
    if (auto* dim = std::get_if<DimDecl>(&d)) {
      if (!dims.count(dim->name.name))
        diag_.warning(dim->name.span, fmt::format("{} '{}' is never used",
                                                  dim->is_const ? "const" : "dim", dim->name.name));
    } else if (auto* in = std::get_if<InputDecl>(&d)) {
      if (!inputs.count(in->name.name))
        diag_.warning(in->name.span, fmt::format("input '{}' is never used", in->name.name));
    } else if (auto* p = std::get_if<ParamDecl>(&d)) {
      bool used = false;
      if (p->layer) {
        auto it = bindings_.top_layers.find(p->name.name);
        used = it != bindings_.top_layers.end() && uses_.layers.count(it->second) > 0;
      } else {
        used = params.count(p->name.name) > 0;
      }
      if (!used)
        diag_.warning(p->name.span, fmt::format("parameter '{}' is never used", p->name.name),
                      "an unused parameter gets no gradient; remove it");
    } else if (auto* f = std::get_if<FnDecl>(&d)) {
      if (!uses_.fns.count(f))
        diag_.warning(f->name.span, fmt::format("fn '{}' is never used", f->name.name));
    }
  }
}

bool Checker::run(const Module& prelude, const Module& user) {
  m_.name = user.model.name;
  index_declarations(user);
  for (const Module* mod : {&prelude, &user})
    for (const Decl& d : mod->decls) {
      if (auto* l = std::get_if<LayerDecl>(&d)) {
        if (l->name.name == "mlp" || layer_defs_.count(l->name.name))
          diag_.error(l->name.span,
                      fmt::format("layer type '{}' is already declared", l->name.name),
                      mod == &user ? "the prelude defines it; choose another name" : "");
        else
          layer_defs_[l->name.name] = l;
      } else if (auto* f = std::get_if<FnDecl>(&d)) {
        if (mod == &user) declare(f->name.name, f->name.span, "fn");
        if (!bindings_.fns.emplace(f->name.name, f).second && mod == &prelude)
          throw InternalError("duplicate fn in the prelude");
      }
    }
  const SolveDecl* solve = nullptr;
  const GradientDecl* gradient = nullptr;
  for (const Decl& d : user.decls) {
    if (auto* dim = std::get_if<DimDecl>(&d))
      check_dim(*dim);
    else if (auto* in = std::get_if<InputDecl>(&d))
      check_input(*in);
    else if (auto* p = std::get_if<ParamDecl>(&d))
      check_param(*p, nullptr, "");
    else if (auto* s = std::get_if<StateDecl>(&d))
      check_state(*s);
    else if (auto* sv = std::get_if<SolveDecl>(&d)) {
      if (solve) diag_.error(sv->method.span, "a solve declaration is already declared");
      solve = sv;
    } else if (auto* g = std::get_if<GradientDecl>(&d)) {
      if (gradient) diag_.error(g->method.span, "a gradient declaration is already declared");
      gradient = g;
    }
  }
  for (auto& [name, value] : options_.overrides)
    if (!used_overrides_.count(name)) {
      std::vector<std::string> dims;
      dims.reserve(m_.dims.size());
      for (const DimValue& d : m_.dims)
        dims.push_back(d.name);
      std::string near = closest_name(name, dims);
      diag_.error(
          {}, fmt::format("--set {}: model '{}' has no dim or const of that name", name, m_.name),
          near.empty() ? "" : fmt::format("did you mean '{}'?", near));
      usage_error_ = true;
    }
  check_flows_and_jumps(user);
  check_outputs(user);
  check_loss(user);
  check_solver(solve);
  check_gradient(gradient);
  if (!diag_.has_errors()) warn_unused(user);
  index_checked();

  int64_t offset = 0;
  for (ParamInfo& p : m_.params)
    p.offset = offset, offset += element_count(p.shape);
  offset = 0;
  for (StateInfo& s : m_.states)
    s.offset = offset, offset += element_count(s.shape);
  return !diag_.has_errors();
}

} // namespace detail

CheckResult check(std::unique_ptr<Module> prelude, std::unique_ptr<Module> model,
                  const CheckOptions& options, DiagnosticEngine& diag) {
  auto checked = std::make_unique<CheckedModel>();
  const Module& p = *prelude;
  const Module& u = *model;
  checked->modules.push_back(std::move(prelude));
  checked->modules.push_back(std::move(model));
  detail::Checker checker(*checked, options, diag);
  bool ok = checker.run(p, u);
  CheckResult result;
  result.usage_error = checker.usage_error();
  if (ok) result.model = std::move(checked);
  return result;
}

std::vector<std::string> solver_names() {
  std::vector<std::string> all = detail::kFixedSolvers;
  all.insert(all.end(), detail::kAdaptiveSolvers.begin(), detail::kAdaptiveSolvers.end());
  return all;
}

std::vector<std::string> gradient_methods() {
  return {"direct", "checkpoint", "adjoint", "auto"};
}

} // namespace plastic::dsl
