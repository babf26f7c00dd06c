// The REPL's training and inspection actions (see actions.h).
#include "compiler/driver/repl/actions.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#include "compiler/analysis/nonfinite_locator.h"
#include "compiler/analysis/stability.h"
#include "compiler/driver/analyze_setup.h"
#include "runtime/app/bench_app.h"
#include "runtime/app/binding.h"
#include "runtime/app/model_hash.h"
#include "runtime/app/prediction_csv.h"
#include "runtime/app/preprocessing.h"
#include "runtime/app/run_folder.h"
#include "runtime/batch/nonfinite_explainer.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/train_hooks.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/support/interrupt.h"
#include "runtime/train/state_tensors.h"
#include "runtime/train/train_loop.h"

namespace plastic::driver::repl {

namespace {

template <class T> std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class To, class From> rt::OptimizerState<To> convert(const rt::OptimizerState<From>& s) {
  rt::OptimizerState<To> out{s.kind, s.step, s.hyper, {}};
  for (const auto& [name, buffer] : s.buffers)
    out.buffers.emplace_back(name, std::vector<To>(buffer.begin(), buffer.end()));
  return out;
}

const rt::PreparedData* split_of(rt::ModelData& md, const std::string& name) {
  if (name != "train" && name != "validation" && name != "test") {
    std::cerr << fmt::format("plastic: split '{}': expected train, validation or test\n", name);
    return nullptr;
  }
  const rt::PreparedData* p = md.split(name).prepared;
  if (!p) std::cerr << fmt::format("plastic: the {} split is empty\n", name);
  return p;
}

/// Traces a NaN or inf met while running to the session's model source,
/// as `plastic train` and `eval` do.
rt::NonFiniteExplainer explainer_of(const Session& s) {
  return analysis::make_nonfinite_explainer(s.current().fns, s.common.color);
}

template <class T>
bool train_typed(Session& s, const plastic_model& m, rt::ModelData& md, int64_t count, bool steps) {
  const TrainSettings& ts = s.settings;
  rt::HookOptions ho;
  ho.explain = explainer_of(s);
  ho.batch_size = ts.batch;
  ho.batch.threads = ts.threads;
  ho.on_failure = [](const std::string& what) {
    fmt::print(stderr, "\nplastic: batch skipped: {}\n", what);
  };
  const rt::PreparedData* valid = md.validation ? &*md.validation : nullptr;
  rt::TrainHooks<T> hooks = rt::make_train_hooks<T>(m, *md.train, valid, ho);
  rt::TrainConfig cfg;
  cfg.epochs = steps ? 1 : count;
  if (steps) {
    // N steps are one epoch of N batches, wrapping around the data.
    const int64_t per_epoch = hooks.batches_per_epoch;
    hooks.batches_per_epoch = count;
    hooks.train_batch = [inner = hooks.train_batch,
                         per_epoch](int64_t e, int64_t b, std::span<const T> p, std::span<T> g,
                                    rt::Rng& rng) { return inner(e, b % per_epoch, p, g, rng); };
  }
  // Each call continues the session's epochs, so shuffles differ per call.
  cfg.seed = ts.seed + static_cast<uint64_t>(s.epochs_done);
  cfg.optimizer.kind = ts.optimizer;
  cfg.optimizer.lr = ts.lr;
  if (ts.weight_decay >= 0) cfg.optimizer.weight_decay = ts.weight_decay;
  cfg.clip_norm = ts.clip;
  rt::MetricInfo metric = rt::task_metric(m.task);
  cfg.monitor = valid ? rt::Monitor::ValidLoss : rt::Monitor::TrainLoss;
  cfg.metric_mode = metric.mode;
  cfg.metric_name = metric.name;
  // The session keeps the last parameters, as an interactive user expects
  // after watching them train; `train` on the command line rolls back.
  cfg.restore_best = false;
  cfg.progress = isatty(STDERR_FILENO) != 0;
  cfg.print_summary = !steps;

  auto table = rt::ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table) {
    std::cerr << fmt::format("plastic: internal error (a bug): {}\n", table.error().describe());
    return false;
  }
  auto penalty = rt::norm_penalty_over(table.value(), ts.norm_penalty, "");
  if (!penalty) {
    std::cerr << fmt::format("plastic: {}\n", penalty.error().describe());
    return false;
  }
  cfg.norm_penalty = std::move(penalty).value();
  auto made = rt::make_optimizer<T>(cfg.optimizer, m.n_params);
  if (!made) {
    std::cerr << fmt::format("plastic: {}\n", made.error().describe());
    return false;
  }
  std::unique_ptr<rt::Optimizer<T>> opt = std::move(made).value();
  auto& carried = s.optimizer_state();
  if (carried && carried->kind == opt->kind()) {
    if (auto st = opt->load_state(convert<T>(*carried)); !st)
      std::cerr << fmt::format("plastic: note: optimiser state not restored: {}\n",
                               st.error().describe());
  } else if (carried) {
    std::cout << fmt::format("optimiser changed from {} to {}: its state starts afresh\n",
                             carried->kind, opt->kind());
  }
  std::vector<T> theta = as<T>(s.theta());
  auto outcome = rt::train<T>(table.value(), std::span<T>(theta), hooks, cfg, opt.get());
  // Whatever happened, the parameters and moments reached are the session's.
  s.theta().assign(theta.begin(), theta.end());
  carried = convert<double>(opt->state());
  if (!outcome) {
    std::cerr << fmt::format("plastic: training stopped: {}\n", outcome.error().describe());
    return false;
  }
  const rt::TrainOutcome& o = outcome.value();
  s.epochs_done += o.epochs_completed;
  for (const std::string& w : o.warnings)
    if (w.find("no validation") == std::string::npos)
      std::cerr << fmt::format("plastic: warning: {}\n", w);
  if (o.interrupted)
    std::cout << fmt::format("interrupted after {} steps: parameters and optimiser state kept\n",
                             o.steps);
  else if (steps)
    std::cout << fmt::format("trained {} steps ({} optimiser steps in this session)\n", o.steps,
                             opt->steps());
  return true;
}

template <class T>
std::optional<rt::Evaluation> evaluate_typed(Session& s, const rt::PreparedData& p,
                                             const std::string& split) {
  rt::BatchOptions options;
  options.threads = s.settings.threads;
  std::vector<T> theta = as<T>(s.theta());
  auto ev = rt::evaluate<T>(s.table(), p, rt::all_samples(p), std::span<const T>(theta), options);
  if (!ev) {
    const rt::NonFiniteExplainerScope explain(explainer_of(s));
    std::cerr << fmt::format(
        "plastic: evaluating on the {} split: {}{}\n", split, ev.status().describe(),
        rt::explain_failure<T>(ev.error(), p, rt::all_samples(p), std::span<const T>(theta)));
    return std::nullopt;
  }
  rt::print_evaluation(split, ev.value());
  return ev.value();
}

template <class T>
bool predict_typed(Session& s, const rt::PreparedData& p, const std::string& split, int64_t i) {
  std::vector<T> theta = as<T>(s.theta());
  std::vector<int64_t> one = {i};
  auto pr = rt::predict<T>(s.table(), p, one, std::span<const T>(theta));
  if (!pr) {
    std::cerr << fmt::format("plastic: predicting sample {}: {}\n", i, pr.status().describe());
    return false;
  }
  const auto& r = pr.value();
  const size_t rows = r.rows();
  std::cout << fmt::format("sample {} of the {} split ({}): {} readout{}, loss {:.4g}\n", i, split,
                           p.id(static_cast<size_t>(i)), rows, rows == 1 ? "" : "s",
                           r.sample_loss(0));
  const rt::PreparedSample& sample = p.sample(static_cast<size_t>(i));
  const size_t n_targets = rows ? sample.targets.size() / std::max<size_t>(rows, 1) : 0;
  // Long sequences show their first and last rows.
  for (size_t row = 0; row < rows; ++row) {
    if (rows > 12 && row == 5) {
      std::cout << fmt::format("  ... {} rows ...\n", rows - 10);
      row = rows - 5;
    }
    std::string line = fmt::format("  t {:<8.4g}", r.times[row]);
    for (T v : r.row(row))
      line += fmt::format(" {:>9.4f}", static_cast<double>(v));
    if (n_targets && sample.targets.size() == rows * n_targets) {
      line += "   target";
      for (size_t k = 0; k < n_targets; ++k)
        line += fmt::format(" {:>8.4f}", sample.targets[row * n_targets + k]);
    }
    std::cout << line << "\n";
  }
  if (p.label(static_cast<size_t>(i)) >= 0)
    std::cout << fmt::format("  label {}\n", p.label(static_cast<size_t>(i)));
  return true;
}

} // namespace

bool train(Session& s, int64_t count, bool steps) {
  rt::ModelData* md = s.data();
  if (!md) return false;
  if (!md->train) {
    std::cerr << "plastic: the training split is empty\n";
    return false;
  }
  if (count <= 0) {
    std::cerr << "plastic: train N: N must be at least 1\n";
    return false;
  }
  const plastic_model* m = s.trainable_table();
  if (!m) return false;
  return m->dtype == PLASTIC_F64 ? train_typed<double>(s, *m, *md, count, steps)
                                 : train_typed<float>(s, *m, *md, count, steps);
}

std::optional<rt::Evaluation> evaluate(Session& s, const std::string& split) {
  rt::ModelData* md = s.data();
  if (!md) return std::nullopt;
  const rt::PreparedData* p = split_of(*md, split);
  if (!p) return std::nullopt;
  return s.table().dtype == PLASTIC_F64 ? evaluate_typed<double>(s, *p, split)
                                        : evaluate_typed<float>(s, *p, split);
}

bool predict_sample(Session& s, const std::string& split, int64_t index) {
  rt::ModelData* md = s.data();
  if (!md) return false;
  const rt::PreparedData* p = split_of(*md, split);
  if (!p) return false;
  if (index < 0 || static_cast<size_t>(index) >= p->size()) {
    std::cerr << fmt::format("plastic: sample {}: the {} split has samples 0..{}\n", index, split,
                             p->size() - 1);
    return false;
  }
  return s.table().dtype == PLASTIC_F64 ? predict_typed<double>(s, *p, split, index)
                                        : predict_typed<float>(s, *p, split, index);
}

namespace {

template <class T>
bool write_predictions(Session& s, const std::vector<rt::ModelData::Part>& parts, bool alone,
                       std::ostream& out) {
  const std::vector<T> theta = as<T>(s.theta());
  rt::BatchOptions options;
  options.threads = s.settings.threads;
  options.series_alone = alone;
  bool header = false;
  for (const rt::ModelData::Part& part : parts) {
    if (!part.split.prepared) continue;
    const rt::PreparedData& p = *part.split.prepared;
    auto pred =
        rt::predict<T>(s.table(), p, rt::all_samples(p), std::span<const T>(theta), options);
    if (!pred) {
      std::cerr << fmt::format("plastic: predicting the {} split: {}\n", part.name,
                               pred.status().describe());
      return false;
    }
    if (!header) rt::write_prediction_header(out, s.table(), part.split.data);
    header = true;
    rt::write_prediction_rows(out, s.table(), part.split.data, part.name, pred.value());
  }
  return true;
}

} // namespace

bool predict_to_csv(Session& s, const std::string& split, const std::string& file, bool alone) {
  rt::ModelData* md = s.data();
  if (!md) return false;
  const bool known =
      split == "all" || (md->whole ? split == "data" || split == "train" || split == "test"
                                   : split == "train" || split == "validation" || split == "test");
  const std::vector<rt::ModelData::Part> parts =
      known ? md->parts(split, true) : std::vector<rt::ModelData::Part>{};
  if (parts.empty()) {
    std::cerr << fmt::format("plastic: split '{}': expected {} or all\n", split,
                             md->whole ? "the new data's parts (data, or train and test)"
                                       : "train, validation, test");
    return false;
  }
  // With every kernel loaded: the fused step kernels compile in the
  // background with the gradients, and until then the runtime steps through
  // the field kernel, whose rounding (fused multiply-adds placed otherwise)
  // is not the fused step's. A file written here is `plastic predict`'s, bit
  // for bit.
  if (!s.trainable_table()) return false;
  std::ostringstream text;
  const bool done = s.table().dtype == PLASTIC_F64
                        ? write_predictions<double>(s, parts, alone, text)
                        : write_predictions<float>(s, parts, alone, text);
  if (!done) return false;
  if (Status<rt::TrainError> w = rt::write_file_atomic(file, std::move(text).str()); !w) {
    std::cerr << fmt::format("plastic: {}\n", w.describe());
    return false;
  }
  std::cout << fmt::format("predictions of {} written to {}\n", split, file);
  return true;
}

void print_parameters(const Session& s) {
  std::cout << fmt::format("{:<24} {:<16} {:>8} {:>11} {:>11}\n", "parameter", "shape", "size",
                           "norm", "max |x|");
  double total = 0;
  for (const rt::ParamTensor& t : s.params().tensors()) {
    double sq = 0, mx = 0;
    for (int64_t k = 0; k < t.size(); ++k) {
      const double v = s.theta()[static_cast<size_t>(t.offset + k)];
      sq += v * v;
      mx = std::max(mx, std::abs(v));
    }
    total += sq;
    std::cout << fmt::format("{:<24} {:<16} {:>8} {:>11.4g} {:>11.4g}\n", t.name,
                             rt::shape_string(t.shape), t.size(), std::sqrt(sq), mx);
  }
  std::cout << fmt::format("{:<24} {:<16} {:>8} {:>11.4g}\n", "total", "", s.params().total(),
                           std::sqrt(total));
}

bool time_step(Session& s) {
  rt::BenchRequest r;
  r.batch = s.settings.batch;
  r.threads = s.settings.threads;
  r.steps = 3;
  r.seed = s.settings.seed;
  const plastic_model* m = s.trainable_table();
  return m && rt::run_bench_train(*m, r) == 0;
}

bool stability(Session& s, const std::string& plot) {
  const plastic_model& m = s.table();
  analysis::StabilityOptions options;
  options.stability_informed = uses_stability_informed(m);
  if (!s.data_spec().empty()) {
    rt::ModelData* md = s.data();
    if (!md) return false;
    options.data = md->train ? &*md->train : nullptr;
  }
  options.progress = stability_progress();
  // Ctrl-C stops after the state at hand and reports the states done.
  rt::InterruptGuard interrupts(/*quiet=*/true);
  const analysis::StabilityReport report = analysis::stability_report(
      s.current().fns, s.current().compiled.layout(), s.theta(), options);
  options.progress = nullptr; // ends the progress line before the report
  std::cout << fmt::format("states from         {}\n", analysis::states_origin(report));
  std::cout << analysis::format_stability(report);
  if (report.stopped) return false;
  if (plot.empty()) return true;
  if (std::optional<std::string> failed = analysis::plot_stability(report, plot)) {
    std::cerr << fmt::format("plastic: {}\n", *failed);
    return false;
  }
  std::cout << fmt::format("plot      {}\n", plot);
  return true;
}

bool save_run(Session& s, const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  // The rules of `train --out`: locked while written (a live `train` there
  // holds the lock), a folder holding a run replaced only with --force.
  auto folder = rt::take_run_folder(dir, false, force);
  if (!folder) {
    std::cerr << fmt::format("plastic: {}{}\n", folder.error().message,
                             folder.error().exit_code == rt::kUsageError
                                 ? fmt::format(" (here: save {} --force replaces it)", dir)
                                 : "");
    return false;
  }
  const plastic_model& m = s.table();
  rt::SafetensorsFile file;
  auto tensors = m.dtype == PLASTIC_F64
                     ? rt::params_to_tensors<double>(s.params(), std::span<const double>(s.theta()))
                     : [&] {
                         std::vector<float> f = as<float>(s.theta());
                         return rt::params_to_tensors<float>(s.params(), std::span<const float>(f));
                       }();
  if (!tensors) {
    std::cerr << fmt::format("plastic: {}\n", tensors.error().describe());
    return false;
  }
  file.tensors = std::move(tensors).value();
  file.metadata = {{"model_hash", rt::model_hash(m)},
                   {"epochs", std::to_string(s.epochs_done)},
                   {"parameters", "saved from the REPL"}};
  if (auto st = rt::write_safetensors(fs::path(dir) / "model.safetensors", file); !st) {
    std::cerr << fmt::format("plastic: {}\n", st.describe());
    return false;
  }
  // The run's binding, as `train` writes it (run.json, model.ode as edited,
  // data.json): eval, predict, build --run and `load DIR` then bind this
  // model to its data as they bind a trained run.
  rt::TrainRequest made;
  made.run = s.run_options();
  made.run.model = s.model_source();
  made.epochs = s.epochs_done;
  made.optimizer = s.settings.optimizer;
  made.lr = s.settings.lr;
  made.weight_decay = s.settings.weight_decay;
  made.clip_norm = s.settings.clip;
  made.norm_penalty = s.settings.norm_penalty;
  rt::ModelData* md = s.data_spec().empty() ? nullptr : s.data();
  if (!s.data_spec().empty() && !md) return false;
  auto binding = rt::bind_run(m, made, md ? md->splits : rt::DataSplits{});
  if (!binding) {
    std::cerr << fmt::format("plastic: {}\n", binding.error().message);
    return false;
  }
  if (!md) binding.value().preparation.reset(); // no data: nothing was prepared
  if (auto st = rt::write_binding(dir, binding.value(), made.run.model); !st) {
    std::cerr << fmt::format("plastic: {}\n", st.error().message);
    return false;
  }
  const fs::path source = fs::path(dir) / "model.ode";
  std::string sets;
  for (const auto& [name, value] : s.overrides())
    sets += fmt::format(" --set {}={}", name, value);
  std::cout << fmt::format("saved {}/model.safetensors and {}; read it back with\n  plastic eval "
                           "{}{} --dtype {} --data {} --parameters {}\n",
                           dir, source.string(), source.string(), sets, s.dtype(),
                           s.data_spec().empty() ? "SPEC" : s.data_spec(), dir);
  return true;
}

} // namespace plastic::driver::repl
