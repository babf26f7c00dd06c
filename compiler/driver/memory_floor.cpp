// A training step's memory before compiling (see memory_floor.h).
#include "compiler/driver/memory_floor.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "compiler/driver/run_compiled.h"
#include "compiler/loops/elem_type.h"
#include "compiler/loops/loop_ir.h"
#include "dsl/frontend.h"
#include "runtime/batch/parallel.h"
#include "runtime/solvers/tableau.h"

namespace plastic::driver {

namespace {

/// Series of 100 observations at t = 1..100 from t0 = 0: bench-train's default shape.
rt::WalkLength default_walk(const dsl::CheckedModel& model) {
  std::vector<double> times(100);
  for (size_t i = 0; i < times.size(); ++i)
    times[i] = static_cast<double>(i + 1);
  if (!model.solver.adaptive && model.solver.step > 0)
    return rt::fixed_walk(0.0, model.solver.step, times);
  return {static_cast<int64_t>(times.size()), static_cast<int64_t>(times.size())};
}

/// The smallest step: any method over one step (what no data can make smaller).
rt::StepMemory smallest_step(const rt::MemoryShape& shape, int workers) {
  const rt::WalkLength one{1, 1};
  rt::StepMemory best;
  bool first = true;
  for (rt::GradientMethod method :
       {rt::GradientMethod::Direct, rt::GradientMethod::Checkpoint, rt::GradientMethod::Adjoint}) {
    const rt::StepMemory m = rt::training_step_memory(shape, one, {method, 1}, workers);
    if (first || m.total() < best.total()) best = m;
    first = false;
  }
  return best;
}

/// Dims named in `e` (recursively), into `out`.
void dims_in(const dsl::Expr& e, const dsl::CheckedModel& model, std::vector<std::string>& out) {
  if (e.kind == dsl::ExprKind::Name)
    for (const dsl::DimValue& d : model.dims)
      if (d.name == e.text && !d.is_const && d.from_data.empty()) out.push_back(d.name);
  for (const dsl::ExprPtr& child : e.children)
    if (child) dims_in(*child, model, out);
  for (const dsl::Arg& a : e.args)
    if (a.value) dims_in(*a.value, model, out);
}

/// The dims that size the model file's declaration `name` (a parameter,
/// its layer's arguments, or a state).
std::vector<std::string> dims_of(const dsl::CheckedModel& model, const std::string& name) {
  std::vector<std::string> out;
  if (model.modules.size() < 2) return out;
  for (const dsl::Decl& decl : model.modules[1]->decls) {
    if (const auto* p = std::get_if<dsl::ParamDecl>(&decl); p && p->name.name == name) {
      for (const dsl::ExprPtr& e : p->shape)
        dims_in(*e, model, out);
      if (p->layer)
        for (const dsl::Arg& a : p->layer->args)
          if (a.value) dims_in(*a.value, model, out);
    } else if (const auto* s = std::get_if<dsl::StateDecl>(&decl); s && s->name.name == name) {
      for (const dsl::ExprPtr& e : s->shape)
        dims_in(*e, model, out);
    }
  }
  return out;
}

/// The largest value of `dim` below `current` whose smallest step fits `bound`.
std::optional<int64_t> fitting_value(const std::string& file, const dsl::CheckOptions& options,
                                     const std::string& dim, int64_t current,
                                     const StepSetting& setting, double bound) {
  auto fits = [&](int64_t v) {
    dsl::CheckOptions o = options;
    o.overrides[dim] = static_cast<double>(v);
    dsl::DiagnosticEngine quiet;
    dsl::CheckResult r = dsl::check_file(file, o, quiet);
    return r.model &&
           smallest_step(memory_shape(*r.model, setting), setting.workers).total() <= bound;
  };
  if (current <= 1 || !fits(1)) return std::nullopt;
  int64_t lo = 1, hi = current; // fits(lo), not fits(hi)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

} // namespace

StepSetting memory_setting(StepSetting s) {
  const loops::ElemType type = loops::elem_type(s.dtype);
  if (s.lanes <= 0) s.lanes = tile_lanes(type, s.batch);
  if (s.lanes <= 0) s.lanes = loops::default_lanes(type);
  // Tiles in flight: the batch engine's own count (runtime/batch/parallel.h).
  s.workers =
      rt::resolve_threads(s.threads, static_cast<size_t>((s.batch + s.lanes - 1) / s.lanes));
  return s;
}

rt::MemoryShape memory_shape(const dsl::CheckedModel& model, const StepSetting& setting) {
  rt::MemoryShape shape;
  shape.n_state = model.state_size();
  shape.n_params = model.param_count();
  for (const dsl::InputInfo& in : model.inputs)
    if (in.kind == dsl::InputKind::Path)
      shape.n_input =
          dsl::saturating_add(shape.n_input, dsl::saturating_add(in.shape[0], in.drive_size));
    else if (in.kind == dsl::InputKind::Static)
      shape.n_input = dsl::saturating_add(shape.n_input, dsl::element_count(in.shape));
  for (const dsl::OutputInfo& o : model.outputs)
    shape.n_outputs = dsl::saturating_add(shape.n_outputs, dsl::element_count(o.shape));
  shape.lanes = setting.lanes;
  shape.element_bytes = loops::elem_size(loops::elem_type(setting.dtype));
  if (const rt::ButcherTableau* tab = rt::find_tableau(model.solver.method)) {
    shape.stages = tab->stages;
    shape.adaptive = tab->adaptive();
  }
  shape.max_steps = model.solver.max_steps;
  return shape;
}

std::string memory_summary(const dsl::CheckedModel& model, const StepSetting& setting) {
  const rt::MemoryShape shape = memory_shape(model, setting);
  const rt::WalkLength walk = default_walk(model);
  std::vector<std::string> methods;
  for (rt::GradientMethod method :
       {rt::GradientMethod::Direct, rt::GradientMethod::Checkpoint, rt::GradientMethod::Adjoint}) {
    rt::GradientChoice choice{method, 0};
    if (method == rt::GradientMethod::Checkpoint)
      choice.checkpoint_every = rt::checkpoint_interval(choice, walk);
    const rt::StepMemory m = rt::training_step_memory(shape, walk, choice, setting.workers);
    methods.push_back(fmt::format("{} {}", rt::describe(choice), rt::format_bytes(m.total())));
  }
  return fmt::format("{} (batch {}, {} x {} lanes, {} tile{} in flight; {}{} steps over 100 "
                     "observations; without the kernels' scratch)",
                     fmt::join(methods, ", "), setting.batch, setting.dtype, setting.lanes,
                     setting.workers, setting.workers == 1 ? "" : "s",
                     model.solver.adaptive ? "at least " : "", walk.steps);
}

bool check_memory_floor(const dsl::CheckedModel& model, const StepSetting& setting,
                        std::optional<double> limit, dsl::DiagnosticEngine& diag,
                        const std::string& file, const dsl::CheckOptions& options) {
  const std::optional<double> available = rt::available_memory_bytes();
  const std::optional<double> bound = limit ? limit : available;
  if (!bound) return true;
  const rt::MemoryShape shape = memory_shape(model, setting);
  const rt::StepMemory least = smallest_step(shape, setting.workers);
  if (least.total() <= *bound) return true;

  // Point at the declaration holding the most: the largest parameter or state.
  dsl::Span where;
  std::string what, decl;
  double most = -1;
  for (const dsl::ParamInfo& p : model.params)
    if (dsl::element_count_real(p.shape) > most)
      most = dsl::element_count_real(p.shape), where = p.span,
      decl = p.name.substr(0, p.name.find('.')),
      what = fmt::format("parameter '{}' {}", p.name, dsl::format_shape(p.shape));
  const double state_bytes = least.workers * (least.per_tile + least.per_worker);
  if (state_bytes > least.parameters) {
    most = -1;
    for (const dsl::StateInfo& s : model.states)
      if (dsl::element_count_real(s.shape) > most)
        most = dsl::element_count_real(s.shape), where = s.span, decl = s.name,
        what = fmt::format("state '{}' {}", s.name, dsl::format_shape(s.shape));
  }
  // Which dim to lower, and to what: the declaration's largest dim, bisected.
  std::string fit_text = "lower the dims that size it (--set NAME=VALUE)";
  // Largest first; a dim derived from others (d_hx = N + 3) may not fit at
  // any value alone, then the next is tried.
  std::vector<std::pair<int64_t, std::string>> candidates;
  for (const std::string& name : dims_of(model, decl))
    for (const dsl::DimValue& d : model.dims)
      if (d.name == name) candidates.emplace_back(static_cast<int64_t>(d.value), name);
  std::sort(candidates.rbegin(), candidates.rend());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (const auto& [value, dim] : candidates)
    if (auto fit = fitting_value(file, options, dim, value, setting, *bound)) {
      fit_text = fmt::format("{} = {} here; --set {}={} fits", dim, value, dim, *fit);
      break;
    }
  const std::string against =
      limit ? fmt::format("the --memory-limit of {}", rt::format_bytes(*bound))
            : fmt::format("the {} this machine has available (MemAvailable)",
                          rt::format_bytes(*bound));
  diag.error(
      where,
      fmt::format("a training step of {} needs at least {} (parameters, gradient and optimiser "
                  "{}; states and work buffers {} for {} tile{} of {} samples), more than {}",
                  model.name, rt::format_bytes(least.total()), rt::format_bytes(least.parameters),
                  rt::format_bytes(state_bytes), least.workers, least.workers == 1 ? "" : "s",
                  shape.lanes, against),
      fmt::format("{} takes the most; {}{}", what, fit_text,
                  least.workers > 1 ? ", or train with --threads 1 and a smaller --batch" : ""));
  return false;
}

} // namespace plastic::driver
