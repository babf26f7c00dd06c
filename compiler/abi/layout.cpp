// Layout of a compiled model (see layout.h).
#include "compiler/abi/layout.h"

#include "compiler/ir/traversal.h"

#include <fmt/format.h>

#include "compiler/ir/node.h"
#include "compiler/ir/op.h"
#include "compiler/ir/types.h"

namespace plastic::abi {

namespace {

int64_t numel(const dsl::Shape& s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

// The ABI's interpolation codes (abi.h: 0 linear, 1 natural cubic, 2 cubic
// Hermite with backward differences, 3 rectilinear).
int32_t interpolation_code(dsl::Interpolation i) {
  switch (i) {
  case dsl::Interpolation::Linear:
    return PLASTIC_INTERP_LINEAR;
  case dsl::Interpolation::Cubic:
    return PLASTIC_INTERP_CUBIC;
  case dsl::Interpolation::Hermite:
    return PLASTIC_INTERP_HERMITE;
  case dsl::Interpolation::Rectilinear:
    return PLASTIC_INTERP_RECTILINEAR;
  case dsl::Interpolation::LogSig:
    return PLASTIC_INTERP_LINEAR; // x(t) of a log-ODE path: piecewise linear
  }
  return PLASTIC_INTERP_LINEAR;
}

// The task follows the loss's head: `cross_entropy(...)`, `mse(...)`, ...; for
// a sum of terms (`mse(a, y) + 0.1 * mse(b, z)`) the first term decides, as
// it is conventionally the data term and the rest regularisers. Read from
// the resolved loss, so a user `fn` wrapping cross_entropy counts as well.
int32_t task_of(const dsl::ResolvedExpr& loss) {
  if (loss.empty()) return PLASTIC_TASK_REGRESSION;
  const dsl::ResolvedNode* n = &loss.value();
  while (true) {
    if (n->kind == dsl::ResolvedKind::Builtin) {
      if (n->builtin == dsl::Builtin::CrossEntropy) return PLASTIC_TASK_CLASSIFICATION;
      if (n->builtin == dsl::Builtin::BceWithLogits) return PLASTIC_TASK_BINARY;
      if (n->builtin == dsl::Builtin::Mse) return PLASTIC_TASK_REGRESSION;
    }
    if (n->args.empty() ||
        (n->kind != dsl::ResolvedKind::Builtin && n->kind != dsl::ResolvedKind::Unary &&
         n->kind != dsl::ResolvedKind::Binary))
      return PLASTIC_TASK_REGRESSION;
    n = &loss.nodes.at(static_cast<size_t>(n->args.front()));
  }
}

double arg_or(const dsl::InitInfo& init, const char* key, double fallback) {
  auto it = init.args.find(key);
  return it == init.args.end() ? fallback : it->second;
}

} // namespace

std::optional<bool> path_leaf_is_deriv(std::string_view leaf, std::string_view input_name) {
  for (std::string_view suffix : {"", "@T", "@t0"}) {
    if (leaf == fmt::format("{}{}", input_name, suffix)) return false;
    if (leaf == fmt::format("d{}{}", input_name, suffix)) return true;
  }
  return std::nullopt;
}

void fill_init(const dsl::InitInfo& init, double step, plastic_param& out) {
  using K = dsl::InitKind;
  for (double& a : out.init_args)
    a = 0;
  double* args = out.init_args;
  switch (init.kind) {
  case K::UniformFanIn:
    out.init = PLASTIC_INIT_UNIFORM_FAN_IN;
    break;
  case K::GlorotUniform:
    out.init = PLASTIC_INIT_GLOROT_UNIFORM;
    args[0] = arg_or(init, "gain", 0);
    break;
  case K::GlorotNormal:
    out.init = PLASTIC_INIT_GLOROT_NORMAL;
    args[0] = arg_or(init, "gain", 0);
    break;
  case K::KaimingUniform:
    out.init = PLASTIC_INIT_KAIMING_UNIFORM;
    args[0] = arg_or(init, "gain", 0);
    break;
  case K::KaimingNormal:
    out.init = PLASTIC_INIT_KAIMING_NORMAL;
    args[0] = arg_or(init, "gain", 0);
    break;
  case K::Zeros:
    out.init = PLASTIC_INIT_ZEROS;
    break;
  case K::Ones:
    out.init = PLASTIC_INIT_ONES;
    break;
  case K::Constant:
    out.init = PLASTIC_INIT_CONSTANT;
    args[0] = arg_or(init, "value", 0);
    break;
  case K::Normal:
    out.init = PLASTIC_INIT_NORMAL;
    args[0] = arg_or(init, "std", 1);
    args[1] = arg_or(init, "mean", 0);
    break;
  case K::Uniform:
    out.init = PLASTIC_INIT_UNIFORM;
    args[0] = arg_or(init, "lo", 0);
    args[1] = arg_or(init, "hi", 1);
    break;
  case K::Orthogonal:
    out.init = PLASTIC_INIT_ORTHOGONAL;
    args[0] = arg_or(init, "gain", 1);
    break;
  case K::Critical:
    // sigma_w = 0 asks the runtime for the paper's sqrt(2^(1 - 1/L)).
    out.init = PLASTIC_INIT_CRITICAL;
    args[1] = arg_or(init, "depth", 1);
    break;
  case K::StabilityInformed:
    // Radius and tries 0: the runtime's defaults (Algorithm 1's).
    out.init = PLASTIC_INIT_STABILITY_INFORMED;
    args[0] = step;
    break;
  }
  out.fan_in = init.fan_in;
  out.fan_out = init.fan_out;
  out.init_group = init.group;
}

namespace {

void add_states(const dsl::CheckedModel& m, ModelLayout& L) {
  for (const dsl::StateInfo& s : m.states) {
    L.states.push_back({s.name, s.offset, numel(s.shape)});
    L.n_state = std::max(L.n_state, s.offset + numel(s.shape));
  }
}

// Parameters: dsl order and offsets; init_index counts the members of a
// group in declaration order (the layers of one mlp, weight before bias).
void add_params(const dsl::CheckedModel& m, ModelLayout& L) {
  std::map<int, int> group_count;
  for (const dsl::ParamInfo& p : m.params) {
    ParamEntry e;
    e.name = p.name;
    if (p.shape.size() > PLASTIC_MAX_RANK)
      throw LayoutError(
          fmt::format("parameter {} has rank {} > {}", p.name, p.shape.size(), PLASTIC_MAX_RANK));
    e.c.rank = static_cast<int32_t>(p.shape.size());
    for (size_t d = 0; d < p.shape.size(); ++d)
      e.c.shape[d] = p.shape[d];
    e.c.offset = p.offset;
    e.c.size = numel(p.shape);
    fill_init(p.init, m.solver.step, e.c);
    e.c.init_index = p.init.group >= 0 ? group_count[p.init.group]++ : 0;
    L.n_params = std::max(L.n_params, p.offset + e.c.size);
    L.params.push_back(std::move(e));
  }
}

// The span of theta the field reads: the offsets, min to max, of the
// parameters its outputs depend on (its inputs list every parameter).
void find_field_theta_span(const model::ModelFunctions& fns, ModelLayout& L) {
  L.field_theta_begin = L.n_params;
  L.field_theta_end = 0;
  if (const ir::Function* field = fns.find(model::FnKind::Field)) {
    std::vector<const ir::Node*> roots;
    for (const ir::Output& o : field->outputs())
      roots.push_back(o.node);
    for (const ir::Node* leaf : ir::topo_order(roots)) {
      const ParamEntry* e = leaf->op() == ir::Op::Param ? L.param(leaf->name()) : nullptr;
      if (!e) continue;
      L.field_theta_begin = std::min(L.field_theta_begin, e->c.offset);
      L.field_theta_end = std::max(L.field_theta_end, e->c.offset + e->c.size);
    }
  }
  if (L.field_theta_end <= L.field_theta_begin) L.field_theta_begin = L.field_theta_end = 0;
}

// Which parts of each declared input the model reads anywhere.
struct InputReads {
  std::vector<bool> value, deriv, statics;
};

// Every primal function but the loss (its inputs are targets).
InputReads find_input_reads(const model::ModelFunctions& fns) {
  const dsl::CheckedModel& m = *fns.model;
  InputReads r{std::vector<bool>(m.inputs.size()), std::vector<bool>(m.inputs.size()),
               std::vector<bool>(m.inputs.size())};
  for (const model::NamedFunction& nf : fns.primal) {
    if (nf.role.kind == model::FnKind::Loss) continue;
    for (const ir::Node* leaf : nf.fn.inputs()) {
      if (leaf->op() == ir::Op::Arg && leaf->name() == "t0")
        throw LayoutError(fmt::format("{}: the {} reads t0, which the model ABI does not pass",
                                      m.name, model::to_string(nf.role)));
      if (leaf->op() != ir::Op::Input) continue;
      size_t i = static_cast<size_t>(leaf->slot());
      const dsl::InputInfo& in = m.inputs.at(i);
      if (in.kind == dsl::InputKind::Static) r.statics[i] = true;
      if (in.kind != dsl::InputKind::Path) continue;
      std::optional<bool> d = path_leaf_is_deriv(leaf->name(), in.name);
      if (!d)
        throw LayoutError(
            fmt::format("unexpected path leaf '{}' of input {}", leaf->name(), in.name));
      (*d ? r.deriv : r.value)[i] = true;
    }
  }
  return r;
}

// One slot of the input block: `channels` values of input `i` read as `kind`.
void add_input_slot(const dsl::InputInfo& in, size_t i, plastic_input_kind kind, int64_t channels,
                    ModelLayout& L) {
  InputSlot s;
  s.name = in.name;
  s.c.kind = kind;
  s.c.source = static_cast<int32_t>(i);
  s.c.offset = L.n_input;
  s.c.channels = channels;
  s.c.path_channels =
      static_cast<int32_t>(in.kind == dsl::InputKind::Path ? numel(in.shape) : channels);
  if (in.kind == dsl::InputKind::Path) {
    s.c.interpolation = interpolation_code(in.interp);
    s.c.path_options = (in.with_time ? PLASTIC_PATH_WITH_TIME : 0) |
                       (in.unit_increments ? PLASTIC_PATH_UNIT_INCREMENTS : 0);
    if (in.interp == dsl::Interpolation::LogSig) {
      s.c.logsig_depth = static_cast<int32_t>(in.logsig_depth);
      s.c.logsig_step = static_cast<int32_t>(in.logsig_step);
    }
  }
  L.n_input += channels;
  L.inputs.push_back(std::move(s));
}

void add_inputs(const model::ModelFunctions& fns, ModelLayout& L) {
  const dsl::CheckedModel& m = *fns.model;
  const InputReads reads = find_input_reads(fns);
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const dsl::InputInfo& in = m.inputs[i];
    if (reads.value[i]) add_input_slot(in, i, PLASTIC_INPUT_PATH_VALUE, numel(in.shape), L);
    if (reads.deriv[i])
      add_input_slot(in, i,
                     in.interp == dsl::Interpolation::LogSig ? PLASTIC_INPUT_LOGSIG_DRIVER
                                                             : PLASTIC_INPUT_PATH_DERIV,
                     in.drive_size, L);
    if (reads.statics[i]) {
      add_input_slot(in, i, PLASTIC_INPUT_STATIC, numel(in.shape), L);
      L.n_static += numel(in.shape);
    }
  }
}

// Outputs in declaration order; the readout follows the per-observation flag.
void add_outputs(const dsl::CheckedModel& m, ModelLayout& L) {
  bool per_obs = false, final = false;
  for (const dsl::OutputInfo& o : m.outputs) {
    L.outputs.push_back({o.name, L.n_outputs, numel(o.shape)});
    L.n_outputs += numel(o.shape);
    (o.per_observation ? per_obs : final) = true;
  }
  if (per_obs && final)
    throw LayoutError(
        fmt::format("{} mixes final and per-observation outputs; the ABI has one readout", m.name));
  L.readout = per_obs ? PLASTIC_READOUT_EACH_OBSERVATION : PLASTIC_READOUT_FINAL;
}

// Targets: the loss's Input leaves, in declaration order.
void add_targets(const model::ModelFunctions& fns, ModelLayout& L) {
  const dsl::CheckedModel& m = *fns.model;
  const ir::Function* loss = fns.find(model::FnKind::Loss);
  for (const dsl::InputInfo& in : m.inputs) {
    if (in.kind != dsl::InputKind::Label && in.kind != dsl::InputKind::Target) continue;
    if (!loss || !loss->input(in.name)) continue;
    int64_t size = in.kind == dsl::InputKind::Label ? in.classes : numel(in.shape);
    L.targets.push_back({in.name, L.n_targets, size});
    L.n_targets += size;
  }
  L.task = task_of(m.loss_value);
}

void set_solver(const dsl::CheckedModel& m, ModelLayout& L) {
  L.solver_method = m.solver.method;
  L.solver.step = m.solver.step;
  L.solver.rtol = m.solver.adaptive ? m.solver.rtol : 0;
  L.solver.atol = m.solver.adaptive ? m.solver.atol : 0;
  L.solver.dt_min = m.solver.dt_min;
  L.solver.dt_max = m.solver.dt_max;
  L.solver.max_steps = m.solver.max_steps;
}

void set_gradient(const dsl::CheckedModel& m, ModelLayout& L) {
  switch (m.gradient.method) {
  case dsl::GradientMethod::Direct:
    L.gradient.kind = PLASTIC_GRAD_DIRECT;
    break;
  case dsl::GradientMethod::Checkpoint:
    L.gradient.kind = PLASTIC_GRAD_CHECKPOINT;
    break;
  case dsl::GradientMethod::Adjoint:
    L.gradient.kind = PLASTIC_GRAD_ADJOINT;
    break;
  case dsl::GradientMethod::Auto:
    L.gradient.kind = PLASTIC_GRAD_AUTO;
    L.gradient.memory_budget = m.gradient.budget_bytes;
    break;
  }
  L.gradient.checkpoint_every = static_cast<int32_t>(m.gradient.checkpoint_every);
  if (m.gradient.method == dsl::GradientMethod::Adjoint) {
    L.gradient.adjoint_rtol = m.gradient.rtol;
    L.gradient.adjoint_atol = m.gradient.atol;
  }
}

} // namespace

ModelLayout compute_layout(const model::ModelFunctions& fns) {
  const dsl::CheckedModel& m = *fns.model;
  ModelLayout L;
  L.name = m.name;
  add_states(m, L);
  add_params(m, L);
  find_field_theta_span(fns, L);
  add_inputs(fns, L);
  add_outputs(m, L);
  add_targets(fns, L);
  set_solver(m, L);
  set_gradient(m, L);
  // The fused kernels implement the model's own method when it has a tableau.
  if (fns.step(rt::find_tableau(m.solver.method))) L.step_method = m.solver.method;
  // Per-observation outputs read the state after that time's jumps (GRAMMAR.md
  // "Outputs": an ODE-RNN reads out h_n = jump(u_n, x_n), paper 000 Eq. 27).
  L.observe_after_jump = 1;
  return L;
}

const InputSlot* ModelLayout::path_slot(int input, bool deriv) const {
  for (const InputSlot& s : inputs)
    if (s.c.source == input &&
        (deriv ? (s.c.kind == PLASTIC_INPUT_PATH_DERIV || s.c.kind == PLASTIC_INPUT_LOGSIG_DRIVER)
               : s.c.kind == PLASTIC_INPUT_PATH_VALUE))
      return &s;
  return nullptr;
}

const InputSlot* ModelLayout::static_slot(int input) const {
  for (const InputSlot& s : inputs)
    if (s.c.source == input && s.c.kind == PLASTIC_INPUT_STATIC) return &s;
  return nullptr;
}

namespace {
template <class T> const T* find_named(const std::vector<T>& v, std::string_view name) {
  for (const T& x : v)
    if (x.name == name) return &x;
  return nullptr;
}
} // namespace

const Slice* ModelLayout::state(std::string_view n) const {
  return find_named(states, n);
}
const Slice* ModelLayout::output(std::string_view n) const {
  return find_named(outputs, n);
}
const Slice* ModelLayout::target(std::string_view n) const {
  return find_named(targets, n);
}
const ParamEntry* ModelLayout::param(std::string_view n) const {
  return find_named(params, n);
}

} // namespace plastic::abi
