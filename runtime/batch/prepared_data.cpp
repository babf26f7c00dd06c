// prepare(): validation, then every sample's paths, drivers, statics,
// knots, observations and targets, built in parallel.
#include "runtime/batch/prepared_data.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "runtime/batch/parallel.h"
#include "runtime/batch/step_count.h"
#include "runtime/solvers/model_view.h"

namespace plastic::rt {

namespace {

std::string sample_label(const Dataset& data, size_t i) {
  const std::string& id = data.samples[i].id;
  return id.empty() ? fmt::format("sample {}", i) : fmt::format("sample '{}' (index {})", id, i);
}

/// Log-signature engines of one worker, one per driver build (reused across samples).
using Engines = std::vector<std::unique_ptr<LogSignature>>;

Status<SolveFailure> prepare_sample(const InputPlan& in, const TargetPlan& tp, const Dataset& data,
                                    size_t index, const PrepareOptions& options, Engines& engines,
                                    PreparedSample& out, int64_t& partly_missing) {
  const Sample& s = data.samples[index];
  const size_t n = s.length();
  const size_t channels = data.num_channels();
  auto fail = [&](const std::string& what, std::string advice = {}) -> Status<SolveFailure> {
    return invalid_argument(sample_label(data, index) + ": " + what, std::move(advice));
  };
  if (n == 0) return fail("the series has no observation");
  if (in.data_channels > 0 && n < 2)
    return fail("the series has 1 observation; a control path needs at least 2",
                "drop series shorter than 2 observations from the data");
  if (s.values.size() != n * channels)
    return fail(fmt::format("{} values for {} times x {} channels", s.values.size(), n, channels));
  if (tp.has_targets && tp.task == PLASTIC_TASK_REGRESSION) {
    const size_t g = static_cast<size_t>(tp.width);
    const size_t want = data.target_kind == TargetKind::RegressionPerStep ? n * g : g;
    if (s.target.size() != want)
      return fail(fmt::format("{} regression values; expected {}", s.target.size(), want));
  }
  if ((tp.task == PLASTIC_TASK_CLASSIFICATION || tp.task == PLASTIC_TASK_BINARY) &&
      tp.has_targets && (s.label < 0 || s.label >= static_cast<int>(data.classes.size())))
    return fail(fmt::format("label {} is outside [0, {})", s.label, data.classes.size()));

  out.shift = options.align_start ? s.times[0] : 0.0;
  std::vector<double> times(n);
  for (size_t i = 0; i < n; ++i)
    times[i] = s.times[i] - out.shift;
  out.t0 = times.front();
  out.t_end = times.back();
  const int c = static_cast<int>(channels);
  out.paths.clear();
  for (Interpolation scheme : in.paths) {
    Result<CubicPath, PathError> path = make_path(scheme, times, s.values, c);
    if (!path) return fail(path.error().describe());
    out.paths.push_back(std::move(path).value());
  }
  out.logsigs.clear();
  for (size_t k = 0; k < in.logsigs.size(); ++k) {
    const LogSigBuild& b = in.logsigs[k];
    if (!engines[k]) {
      Result<LogSignature, PathError> engine = LogSignature::make(c, b.depth);
      if (!engine) return fail(engine.error().describe());
      engines[k] = std::make_unique<LogSignature>(std::move(engine).value());
    }
    LogSigOptions lo;
    lo.depth = b.depth;
    lo.step = b.step;
    Result<LogSigPath, PathError> driver = LogSigPath::make(times, s.values, c, lo, *engines[k]);
    if (!driver) return fail(driver.error().describe());
    out.logsigs.push_back(std::move(driver).value());
  }

  out.statics.assign(static_cast<size_t>(in.statics), 0.0);
  if (in.statics > 0) {
    if (s.statics.size() != static_cast<size_t>(in.statics))
      return fail(fmt::format("{} static features; expected {}", s.statics.size(), in.statics));
    for (size_t i = 0; i < out.statics.size(); ++i)
      out.statics[i] = std::isnan(s.statics[i]) ? options.static_fill : s.statics[i];
    for (size_t i = 0; i < out.statics.size(); ++i)
      if (!std::isfinite(out.statics[i]))
        return fail(fmt::format("static feature {} is {}", i, out.statics[i]));
  }

  out.knots.clear();
  if (in.data_channels > 0 && (in.kinks_at_data_times || options.knots_at_data_times))
    out.knots.insert(out.knots.end(), times.begin() + 1, times.end() - 1);
  for (const LogSigPath& p : out.logsigs) {
    std::span<const double> r = p.knots();
    if (r.size() > 2) out.knots.insert(out.knots.end(), r.begin() + 1, r.end() - 1);
  }
  std::sort(out.knots.begin(), out.knots.end());
  out.knots.erase(std::unique(out.knots.begin(), out.knots.end()), out.knots.end());

  schedule_sample(tp, data, s, out.shift, out.observations, out.targets, partly_missing);
  out.target_terms = 0;
  out.readouts = 0;
  for (const SampleObservation& o : out.observations) {
    out.target_terms += o.target >= 0 ? 1 : 0;
    out.readouts += o.readout >= 0 ? 1 : 0;
  }
  return {};
}

bool same_slot(const plastic_input_slot& a, const plastic_input_slot& b) {
  return a.kind == b.kind && a.source == b.source && a.offset == b.offset &&
         a.channels == b.channels && a.path_channels == b.path_channels &&
         a.logsig_depth == b.logsig_depth && a.logsig_step == b.logsig_step &&
         a.interpolation == b.interpolation;
}

} // namespace

Result<PreparedData, SolveFailure> prepare(const plastic_model& m, const Dataset& data,
                                           const PrepareOptions& options) {
  if (Status<SolveFailure> s = validate_model(m, m.dtype); !s) return s.error();
  if (std::optional<std::string> bad = data.check())
    return invalid_argument("the data set is inconsistent: " + *bad);
  PreparedData pd;
  pd.n_input_ = m.n_input;
  Result<InputPlan, SolveFailure> in = plan_inputs(m, data);
  if (!in) return in.error();
  pd.inputs_ = std::move(in.value());
  Result<TargetPlan, SolveFailure> tp = plan_targets(m, data);
  if (!tp) return tp.error();
  pd.targets_ = tp.value();
  if (options.require_targets && !pd.targets_.has_targets)
    return invalid_argument(fmt::format("the data set '{}' has no targets", data.name),
                            "training and evaluation need labelled data");
  pd.slots_.assign(m.input_slots, m.input_slots + m.n_input_slots);

  const size_t count = data.size();
  pd.samples_.resize(count);
  pd.ids_.resize(count);
  pd.labels_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    pd.ids_[i] = data.samples[i].id;
    pd.labels_[i] = data.samples[i].label;
  }
  const int workers = resolve_threads(options.threads, count);
  std::vector<Engines> engines(static_cast<size_t>(workers));
  for (Engines& e : engines)
    e.resize(pd.inputs_.logsigs.size());
  std::vector<Status<SolveFailure>> status(count);
  std::vector<int64_t> partly(count, 0);
  parallel_for(count, workers, [&](size_t i, int w) {
    status[i] = prepare_sample(pd.inputs_, pd.targets_, data, i, options,
                               engines[static_cast<size_t>(w)], pd.samples_[i], partly[i]);
    return true;
  });
  for (size_t i = 0; i < count; ++i) {
    if (!status[i]) return status[i].error();
    pd.partly_missing_ += partly[i];
  }
  Result<SolverOptions, SolveFailure> solver = SolverOptions::from_desc(m.solver);
  if (!solver) return solver.error();
  for (size_t i = 0; i < count; ++i)
    if (Status<SolveFailure> s =
            check_step_count(solver.value(), pd.samples_[i], sample_label(data, i));
        !s)
      return s.error();
  return pd;
}

Status<SolveFailure> PreparedData::check_model(const plastic_model& m) const {
  // Compares copies, not the table pointer: a REPL recompile may free the old table.
  bool same = m.n_input == n_input_ && m.n_input_slots == static_cast<int32_t>(slots_.size()) &&
              m.n_targets == targets_.width && m.task == targets_.task &&
              m.readout == targets_.readout && (m.kernels.jump != nullptr) == targets_.jumps;
  for (int32_t i = 0; same && i < m.n_input_slots; ++i)
    same = same_slot(m.input_slots[i], slots_[static_cast<size_t>(i)]);
  if (!same)
    return invalid_argument(
        fmt::format("the data was prepared for a model with other inputs or targets than '{}'",
                    m.name ? m.name : "?"),
        "prepare the data again for this model");
  return {};
}

} // namespace plastic::rt
