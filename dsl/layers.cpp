// Parameters, initializers and layer instances.
//
// A layer instance (`param ff : ffn[80, 320]`) is expanded recursively into
// qualified tensor parameters ("ff.up.weight"), each with its shape and
// initializer. `mlp` is the one built-in layer: its depth is a number, so its
// definition is generated as source text in this language and parsed like
// the prelude — the rest of the compiler sees an ordinary layer.
#include "dsl/checker_impl.h"
#include "dsl/frontend.h"
#include "dsl/parser.h"

namespace plastic::dsl {

std::string_view to_string(InitKind kind) {
  switch (kind) {
  case InitKind::UniformFanIn:
    return "uniform_fan_in";
  case InitKind::GlorotUniform:
    return "glorot_uniform";
  case InitKind::GlorotNormal:
    return "glorot_normal";
  case InitKind::KaimingUniform:
    return "kaiming_uniform";
  case InitKind::KaimingNormal:
    return "kaiming_normal";
  case InitKind::Zeros:
    return "zeros";
  case InitKind::Ones:
    return "ones";
  case InitKind::Constant:
    return "constant";
  case InitKind::Normal:
    return "normal";
  case InitKind::Uniform:
    return "uniform";
  case InitKind::Orthogonal:
    return "orthogonal";
  case InitKind::Critical:
    return "critical";
  case InitKind::StabilityInformed:
    return "stability_informed";
  }
  return "?";
}

namespace detail {

namespace {

/// An initializer's spelling, kind and argument names (positional order).
struct InitSpec {
  std::string_view name;
  InitKind kind;
  std::vector<std::string_view> args;
  size_t required = 0;
};

const std::vector<InitSpec>& init_specs() {
  static const std::vector<InitSpec> specs = {
      {"uniform_fan_in", InitKind::UniformFanIn, {"fan_in"}},
      {"glorot_uniform", InitKind::GlorotUniform, {"gain"}},
      {"xavier_uniform", InitKind::GlorotUniform, {"gain"}},
      {"glorot", InitKind::GlorotUniform, {"gain"}},
      {"glorot_normal", InitKind::GlorotNormal, {"gain"}},
      {"xavier_normal", InitKind::GlorotNormal, {"gain"}},
      {"kaiming_uniform", InitKind::KaimingUniform, {"gain"}},
      {"kaiming_normal", InitKind::KaimingNormal, {"gain"}},
      {"zeros", InitKind::Zeros, {}},
      {"ones", InitKind::Ones, {}},
      {"constant", InitKind::Constant, {"value"}, 1},
      {"normal", InitKind::Normal, {"std", "mean"}, 1},
      {"uniform", InitKind::Uniform, {"lo", "hi"}, 2},
      {"orthogonal", InitKind::Orthogonal, {"gain"}},
      {"critical", InitKind::Critical, {"depth"}, 1},
      {"stability_informed", InitKind::StabilityInformed, {}},
  };
  return specs;
}

const std::vector<std::string> kActivations = {"relu", "tanh",     "sigmoid",
                                               "elu",  "softplus", "none"};

} // namespace

std::optional<InitInfo> Checker::check_init(const ParamDecl& p, const Shape& shape,
                                            const LayerInstance* owner) {
  InitInfo info;
  if (shape.size() >= 2)
    info.fan_in = shape.back(), info.fan_out = shape[shape.size() - 2];
  else if (shape.size() == 1)
    info.fan_in = info.fan_out = shape[0];
  if (!p.init) return info;
  const Invocation& inv = *p.init;
  const InitSpec* spec = nullptr;
  std::vector<std::string> names;
  for (const InitSpec& s : init_specs()) {
    names.emplace_back(s.name);
    if (s.name == inv.name.name) spec = &s;
  }
  if (!spec) {
    std::string near = closest_name(inv.name.name, names);
    diag_.error(inv.name.span, fmt::format("unknown initializer '{}'", inv.name.name),
                near.empty() ? "see GRAMMAR.md for the initializers"
                             : fmt::format("did you mean '{}'?", near));
    return std::nullopt;
  }
  if (spec->kind == InitKind::StabilityInformed) {
    diag_.error(inv.span, "stability_informed initializes a whole network, not one tensor",
                "use it on an mlp layer: `param f : mlp[n, n, width = 64, depth = 2, init = "
                "stability_informed]`");
    return std::nullopt;
  }
  info.kind = spec->kind;
  size_t positional = 0;
  bool ok = true;
  for (const Arg& a : inv.args) {
    std::string name;
    if (a.name.name.empty()) {
      if (positional >= spec->args.size()) {
        diag_.error(a.value->span, fmt::format("wrong number of arguments: {} takes at most {}",
                                               spec->name, spec->args.size()));
        ok = false;
        continue;
      }
      name = spec->args[positional++];
    } else {
      name = a.name.name;
      if (std::find(spec->args.begin(), spec->args.end(), name) == spec->args.end()) {
        diag_.error(a.name.span, fmt::format("{} has no argument '{}'", spec->name, name),
                    spec->args.empty() ? "it takes no arguments"
                                       : fmt::format("it takes {}", fmt::join(spec->args, ", ")));
        ok = false;
        continue;
      }
    }
    auto v = eval_.constant(*a.value, owner);
    if (!v)
      ok = false;
    else
      info.args[name] = *v;
  }
  for (size_t i = 0; i < spec->required; ++i)
    if (!info.args.count(std::string(spec->args[i]))) {
      diag_.error(inv.span,
                  fmt::format("wrong number of arguments: {} needs {}", spec->name, spec->args[i]));
      ok = false;
    }
  if (auto it = info.args.find("fan_in"); it != info.args.end())
    info.fan_in = static_cast<int64_t>(it->second);
  if (info.kind == InitKind::Orthogonal && shape.size() < 2) {
    diag_.error(inv.span, "orthogonal initialization needs a matrix (or a stack of matrices)");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return info;
}

void Checker::check_param(const ParamDecl& p, LayerInstance* owner, const std::string& prefix) {
  std::string qualified = prefix + p.name.name;
  if (!owner)
    declare(p.name.name, p.name.span, "parameter");
  else if (owner->params.count(p.name.name) || owner->layers.count(p.name.name))
    diag_.error(p.name.span, fmt::format("'{}' is already declared in this layer", p.name.name));
  if (p.layer) {
    const size_t first = m_.params.size();
    const LayerInstance* inst = instantiate(*p.layer, qualified, owner);
    if (!inst) {
      if (!owner) bindings_.broken.insert(p.name.name);
      return;
    }
    if (owner)
      owner->layers[p.name.name] = inst;
    else
      bindings_.top_layers[p.name.name] = inst;
    if (!owner) {
      // The layer's tensors, counted at the user's declaration (not inside the prelude).
      double count = 0;
      for (size_t i = first; i < m_.params.size(); ++i)
        count += element_count_real(m_.params[i].shape);
      if (!within_size_limit(p.name.span.to(p.layer->span),
                             fmt::format("parameter '{}'", p.name.name), count, nullptr, nullptr,
                             param_elements_, "parameters"))
        bindings_.broken.insert(p.name.name);
    }
    return;
  }
  auto shape = shape_of(p.shape, owner);
  auto init = shape ? check_init(p, *shape, owner) : std::nullopt;
  if (!shape || !init) {
    if (!owner) bindings_.broken.insert(p.name.name);
    return;
  }
  if (!owner && !p.shape.empty() &&
      !within_size_limit(p.name.span.to(p.shape_span), fmt::format("parameter '{}'", p.name.name),
                         element_count_real(*shape), &p.shape, &*shape, param_elements_,
                         "parameters")) {
    bindings_.broken.insert(p.name.name);
    return;
  }
  ParamInfo info{qualified, *shape, *init, 0, p.name.span};
  m_.params.push_back(info);
  if (owner) owner->params[p.name.name] = static_cast<int>(m_.params.size() - 1);
}

const LayerDecl* Checker::find_layer(const std::string& name) const {
  auto it = layer_defs_.find(name);
  return it == layer_defs_.end() ? nullptr : it->second;
}

const LayerInstance* Checker::instantiate(const Invocation& type, const std::string& path,
                                          const LayerInstance* caller) {
  InitInfo group_init;
  group_init.group = -1;
  const LayerDecl* def = nullptr;
  bool is_mlp = type.name.name == "mlp";
  if (is_mlp) {
    def = synthesize_mlp(type, caller, group_init);
    if (!def) return nullptr;
  } else {
    def = find_layer(type.name.name);
    if (!def) {
      std::vector<std::string> names = {"mlp"};
      for (auto& [n, d] : layer_defs_)
        names.push_back(n);
      std::string near = closest_name(type.name.name, names);
      diag_.error(type.name.span, fmt::format("unknown layer type '{}'", type.name.name),
                  near.empty() ? fmt::format("layers: {}", fmt::join(names, ", "))
                               : fmt::format("did you mean '{}'?", near));
      return nullptr;
    }
    if (type.args.size() != def->args.size()) {
      diag_.error(type.span,
                  fmt::format("wrong number of arguments: layer {} takes {} ({}), got {}",
                              def->name.name, def->args.size(),
                              fmt::join(
                                  [&] {
                                    std::vector<std::string> v;
                                    v.reserve(def->args.size());
                                    for (const Ident& a : def->args)
                                      v.push_back(a.name);
                                    return v;
                                  }(),
                                  ", "),
                              type.args.size()));
      return nullptr;
    }
  }
  auto inst = std::make_unique<LayerInstance>();
  LayerInstance* raw = inst.get();
  raw->path = path;
  raw->def = def;
  if (!is_mlp) {
    bool ok = true;
    for (size_t i = 0; i < type.args.size(); ++i) {
      const Arg& a = type.args[i];
      if (!a.name.name.empty()) {
        diag_.error(a.name.span, fmt::format("layer {} takes no named arguments", def->name.name));
        ok = false;
        continue;
      }
      auto v = positive_int(
          *a.value, fmt::format("argument '{}' of {}", def->args[i].name, def->name.name), caller);
      if (!v)
        ok = false;
      else
        raw->dims[def->args[i].name] = static_cast<double>(*v);
    }
    if (!ok) return nullptr;
  }
  bindings_.layers.push_back(std::move(inst));
  size_t first_param = m_.params.size();
  for (const ParamDecl& p : def->params)
    check_param(p, raw, path + ".");
  if (group_init.group >= 0)
    for (size_t i = first_param; i < m_.params.size(); ++i) {
      InitInfo& init = m_.params[i].init;
      bool bias = m_.params[i].shape.size() == 1;
      init.group = group_init.group;
      init.args = group_init.args;
      // Critical initialisation covers the biases too: the runtime draws a
      // bias of a critical group from N(0, 1e-6) (paper 003 App. H.2-H.4,
      // runtime/init/critical.h), not zero — a ReLU MLP with exactly zero
      // biases has a zero Jacobian at the origin.
      if (group_init.kind == InitKind::Critical)
        init.kind = InitKind::Critical;
      else if (group_init.kind == InitKind::StabilityInformed)
        init.kind = InitKind::StabilityInformed;
      else if (!bias)
        init.kind = group_init.kind;
    }
  return raw;
}

// mlp[n_in, n_out, width = w, depth = L, activation = relu, final = none, init = ...]
const LayerDecl* Checker::synthesize_mlp(const Invocation& type, const LayerInstance* caller,
                                         InitInfo& group_init) {
  std::vector<int64_t> sizes;
  std::optional<int64_t> width, depth;
  std::string activation = "relu", final = "none", init;
  Span init_span;
  bool ok = true;
  auto name_arg = [&](const Arg& a, const std::vector<std::string>& allowed, std::string& out) {
    if (a.value->kind == ExprKind::Call) {
      diag_.error(a.value->span, fmt::format("mlp {} takes a name without arguments", a.name.name),
                  a.name.name == "init"
                      ? "critical and stability_informed take the mlp's own depth and width"
                      : "");
      ok = false;
      return;
    }
    if (a.value->kind != ExprKind::Name ||
        std::find(allowed.begin(), allowed.end(), a.value->text) == allowed.end()) {
      std::string near =
          a.value->kind == ExprKind::Name ? closest_name(a.value->text, allowed) : "";
      std::string what = a.name.name == "init" ? "initializer" : "activation";
      diag_.error(a.value->span,
                  fmt::format("unknown {} '{}' for mlp {}", what, a.value->text, a.name.name),
                  near.empty() ? fmt::format("one of {}", fmt::join(allowed, ", "))
                               : fmt::format("did you mean '{}'?", near));
      ok = false;
      return;
    }
    out = a.value->text;
  };
  for (const Arg& a : type.args) {
    const std::string& n = a.name.name;
    if (n.empty()) {
      if (auto v = positive_int(*a.value, "an mlp size", caller))
        sizes.push_back(*v);
      else
        ok = false;
    } else if (n == "width") {
      width = positive_int(*a.value, "the mlp width", caller);
      ok = ok && width;
    } else if (n == "depth") {
      auto v = eval_.constant(*a.value, caller);
      if (!v || *v < 0 || *v != std::floor(*v)) {
        if (v)
          diag_.error(a.value->span,
                      "the mlp depth must be a non-negative integer (the number of hidden layers)");
        ok = false;
      } else {
        depth = static_cast<int64_t>(*v);
      }
    } else if (n == "activation") {
      name_arg(a, kActivations, activation);
    } else if (n == "final") {
      name_arg(a, kActivations, final);
    } else if (n == "init") {
      std::vector<std::string> inits;
      for (const InitSpec& s : init_specs())
        inits.emplace_back(s.name);
      name_arg(a, inits, init);
      init_span = a.value->span;
    } else {
      diag_.error(a.name.span, fmt::format("mlp has no argument '{}'", n),
                  "it takes n_in, n_out, width, depth, activation, final, init");
      ok = false;
    }
  }
  if (!ok) return nullptr;
  if (sizes.size() != 2) {
    diag_.error(type.span,
                fmt::format("wrong number of arguments: mlp takes 2 sizes (n_in, n_out), got {}",
                            sizes.size()),
                "write e.g. mlp[hidden, hidden * d_in, width = 40, depth = 4, final = tanh]");
    return nullptr;
  }
  int64_t layers = depth.value_or(1);
  if (layers > 0 && !width) {
    diag_.error(type.span, "mlp needs a width for its hidden layers", "add `width = 64`");
    return nullptr;
  }
  if (layers > 64) {
    diag_.error(type.span, fmt::format("mlp depth {} is too large", layers));
    return nullptr;
  }
  if (!init.empty()) {
    for (const InitSpec& s : init_specs())
      if (s.name == init) group_init.kind = s.kind;
    group_init.group = next_group_++;
    group_init.args["depth"] = static_cast<double>(layers + 1);
    if (group_init.kind == InitKind::Constant || group_init.kind == InitKind::Normal ||
        group_init.kind == InitKind::Uniform) {
      diag_.error(
          init_span,
          fmt::format("init {} needs arguments; give it on a tensor parameter instead", init));
      return nullptr;
    }
  }
  // Generate the definition in the language itself.
  std::string name = fmt::format("mlp_{}", m_.modules.size());
  std::string src = fmt::format("layer {}[]\n", name);
  std::string call = "x";
  for (int64_t i = 0; i <= layers; ++i) {
    int64_t in = i == 0 ? sizes[0] : *width;
    int64_t out = i == layers ? sizes[1] : *width;
    src += fmt::format("  param layer{} : linear[{}, {}]\n", i, in, out);
    call = fmt::format("layer{}({})", i, call);
    std::string act = i == layers ? final : activation;
    if (act != "none") call = fmt::format("{}({})", act, call);
  }
  src += fmt::format("  apply(x) = {}\nend\n", call);
  auto file = std::make_shared<SourceFile>(fmt::format("<{}>", type.span.text()), src);
  DiagnosticEngine local;
  auto module = std::make_unique<Module>(parse(file, local, true));
  if (local.has_errors()) throw InternalError("generated mlp does not parse:\n" + src);
  const LayerDecl* def = &std::get<LayerDecl>(module->decls.front());
  m_.modules.push_back(std::move(module));
  return def;
}

} // namespace detail
std::vector<std::string> initializer_names() {
  std::vector<std::string> names;
  for (const detail::InitSpec& spec : detail::init_specs())
    names.emplace_back(spec.name);
  return names;
}

std::vector<std::string> layer_type_names() {
  std::vector<std::string> names{"mlp"};
  const std::unique_ptr<Module> prelude = parse_prelude();
  for (const Decl& d : prelude->decls)
    if (const auto* layer = std::get_if<LayerDecl>(&d)) names.push_back(layer->name.name);
  return names;
}

} // namespace plastic::dsl
