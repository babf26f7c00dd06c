// The training loop (behaviour and files in train_loop.h).
#include "runtime/train/train_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"
#include "runtime/io/checkpoint.h"
#include "runtime/io/plot.h"
#include "runtime/io/progress.h"
#include "runtime/support/interrupt.h"
#include "runtime/support/json_util.h"
#include "runtime/support/printable.h"
#include "runtime/train/clip.h"
#include "runtime/train/early_stopping.h"
#include "runtime/train/lr_schedule.h"
#include "runtime/train/state_tensors.h"

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;
constexpr const char* kBestPrefix = "best/";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Where an epoch stands: enough to continue it exactly after an interruption.
struct EpochProgress {
  int64_t next_batch = 0;
  double loss_sum = 0; ///< sum of batch mean losses times batch sizes
  int64_t samples = 0;
  double seconds = 0;
  int64_t skipped = 0;
  std::string failure; ///< the last skipped step's solver failure (not checkpointed)
  std::string refused; ///< the last step the optimiser refused, why (not checkpointed)
};

/// Why epoch `epoch` trained nothing (every step skipped), and what to try.
TrainError all_steps_skipped(int64_t epoch, const EpochProgress& p) {
  // A solver that gave up (max_steps, a step size underflow) is said as
  // such: its loss was never computed, so it is not a "non-finite loss".
  if (!p.failure.empty())
    return TrainError{
        TrainErrorKind::InvalidArgument,
        {},
        fmt::format("every step of epoch {} failed in the solver (the last: {})", epoch, p.failure),
        "if the parameters grew without bound, lower the learning rate or clip the gradient "
        "(--clip; `set clip` in the REPL)"};
  if (!p.refused.empty())
    return TrainError{
        TrainErrorKind::InvalidArgument,
        {},
        fmt::format("every step of epoch {} was skipped: the gradients are finite but too "
                    "large for the optimiser (the last: {})",
                    epoch, p.refused),
        "clip the gradient (--clip; `set clip` in the REPL), lower the learning rate, or train "
        "in f64 (--dtype f64)"};
  return TrainError{
      TrainErrorKind::InvalidArgument,
      {},
      fmt::format("training diverged: every step of epoch {} had a non-finite loss or gradient",
                  epoch),
      "lower the learning rate, clip the gradient (--clip; `set clip` in the REPL), or check "
      "the data for NaN"};
}

template <class T> class Run {
public:
  Run(const ParamTable& table, std::span<T> params, const TrainHooks<T>& hooks,
      const TrainConfig& config, Optimizer<T>* carried)
      : table_(table), params_(params), hooks_(hooks), c_(config), opt_(carried) {}

  Result<TrainOutcome, TrainError> run();

private:
  /// The value the schedule and early stopping watch, for messages.
  std::string monitor_name() const {
    if (!hooks_.validate) return "train loss"; // nothing else to watch (see end_epoch)
    return c_.monitor == Monitor::ValidLoss     ? std::string("valid loss")
           : c_.monitor == Monitor::ValidMetric ? "valid " + c_.metric_name
                                                : std::string("train loss");
  }
  MetricMode monitor_mode() const {
    return c_.monitor == Monitor::ValidMetric ? c_.metric_mode : MetricMode::Min;
  }
  Status<TrainError> setup();
  Status<TrainError> restore(const Checkpoint& ckpt, const std::string& file);
  Status<TrainError> restore_unchecked(const Checkpoint& ckpt, const std::string& file);
  Status<TrainError> open_log();
  /// Runs (the rest of) one epoch; sets interrupted_ when a signal stopped it mid-way.
  Status<TrainError> train_epoch(int64_t epoch, Rng& rng, EpochProgress& p);
  Status<TrainError> end_epoch(int64_t epoch, const EpochProgress& p, const Rng& rng);
  /// Steps the schedule and early stopping with the epoch's monitored value.
  void watch(int64_t epoch, const EpochRecord& rec);
  /// The epoch's progress line (stderr) and live table row (stdout).
  void report_epoch(const EpochRecord& rec, const EpochProgress& p);
  Status<TrainError> save(int64_t epochs_done, const EpochProgress* partial, const Rng& rng);
  Status<TrainError> finish();
  /// Writes `params` as the run's model.safetensors, `provenance` in its metadata.
  Status<TrainError> write_model(std::span<const T> params, const std::string& provenance);
  /// Writes `params` as RUN/`file` (a .safetensors), `provenance` in its metadata.
  Status<TrainError> write_parameters(const std::string& file, std::span<const T> params,
                                      const std::string& provenance);
  /// The step log's line for batch `batch` of `epoch` (--log-steps).
  Status<TrainError> log_step(int64_t epoch, int64_t batch, const BatchResult& b, double norm,
                              bool taken);
  /// After a failure in epoch `epoch` (divergence): keeps the best finite
  /// parameters of the epochs before it as model.safetensors, and says so in `e`.
  void keep_best_after_failure(int64_t epoch, TrainError& e);
  /// The table's end on stdout: the whole table, or after live rows the
  /// best epoch's line alone (the rows are above it already).
  void finish_table(int64_t best_epoch);

  const ParamTable& table_;
  std::span<T> params_;
  const TrainHooks<T>& hooks_;
  const TrainConfig& c_;
  Optimizer<T>* opt_; ///< the caller's, or owned_opt_
  std::unique_ptr<Optimizer<T>> owned_opt_;
  std::unique_ptr<LrSchedule> schedule_;
  std::optional<EarlyStopping<T>> stopper_;
  std::optional<CheckpointDir> ckpts_;
  std::optional<JsonlLog> log_;
  std::optional<StepLog> steps_; ///< --log-steps
  std::vector<T> grads_;
  TrainOutcome out_;
  int64_t start_epoch_ = 1;
  std::optional<EpochProgress> resume_progress_;
  std::optional<Rng> resume_rng_;
  bool interrupted_ = false;
  bool warned_monitor_ = false;
  bool printed_header_ = false; ///< live_rows: the table's header is out
};

template <class T> void Run<T>::finish_table(int64_t best_epoch) {
  if (printed_header_)
    fmt::print("{}", format_best_line(out_.history, c_.metric_mode, best_epoch));
  else
    print_summary(out_.history, c_.metric_mode, stdout, best_epoch);
  std::fflush(stdout);
}

template <class T> Status<TrainError> Run<T>::setup() {
  if (static_cast<int64_t>(params_.size()) != table_.total())
    return invalid_argument_error(fmt::format("the parameter vector has {} elements, the table {}",
                                              params_.size(), table_.total()));
  if (!hooks_.train_batch || hooks_.batches_per_epoch <= 0)
    return invalid_argument_error(
        "training needs a train_batch function and at least one batch per epoch");
  if (c_.epochs < 0 || c_.checkpoint_every <= 0)
    return invalid_argument_error(
        fmt::format("bad epochs ({}) or checkpoint_every ({})", c_.epochs, c_.checkpoint_every));
  if (opt_ && opt_->size() != table_.total())
    return invalid_argument_error(
        fmt::format("the optimiser has {} elements, the table {}", opt_->size(), table_.total()));
  if (!opt_) {
    auto opt = make_optimizer<T>(c_.optimizer, table_.total());
    if (!opt) return opt.error();
    owned_opt_ = std::move(opt).value();
    opt_ = owned_opt_.get();
  }
  nlohmann::json sched = c_.schedule;
  if (sched.is_object() && sched.value("kind", std::string()) == "plateau" &&
      !sched.contains("mode"))
    sched["mode"] = monitor_mode() == MetricMode::Min ? "min" : "max";
  auto schedule = make_schedule(sched, c_.optimizer.lr);
  if (!schedule) return schedule.error();
  schedule_ = std::move(schedule).value();
  // Early stopping also keeps the best parameters for the final roll-back, so it always runs.
  stopper_.emplace(EarlyStoppingOptions{monitor_mode(), c_.early_stopping_patience, 0.0});
  grads_.assign(params_.size(), T(0));
  if (c_.run_dir.empty()) return {};
  if (c_.writer) {
    auto dir = CheckpointDir::open(c_.run_dir / "checkpoints", c_.keep_checkpoints);
    if (!dir) return dir.error();
    ckpts_.emplace(std::move(dir).value());
  } else {
    ckpts_.emplace(CheckpointDir::read_only(c_.run_dir / "checkpoints"));
  }
  if (c_.resume && !ckpts_->list().empty()) {
    // Checkpoints exist: resume from one, or fail rather than silently start over.
    auto latest = ckpts_->load_latest();
    if (!latest) return latest.error();
    for (const TrainError& e : latest.value().skipped)
      out_.warnings.push_back("skipped checkpoint: " + e.describe());
    if (Status<TrainError> s =
            restore(latest.value().checkpoint, latest.value().entry.json.string());
        !s)
      return s;
    if (c_.print_summary) {
      std::string best;
      if (stopper_->has_best())
        best = fmt::format(" (best epoch {}, {} {:.6g})", stopper_->best_epoch(), monitor_name(),
                           stopper_->best_metric());
      fmt::print("resuming from epoch {}{}\n", start_epoch_, best);
    }
  }
  return c_.writer ? open_log() : Status<TrainError>{};
}

template <class T>
Status<TrainError> Run<T>::restore(const Checkpoint& ck, const std::string& file) {
  // The JSON fields below were written by save(); a hand-edited file may
  // have other types, which nlohmann reports by throwing.
  try {
    return restore_unchecked(ck, file);
  } catch (const nlohmann::json::exception& e) {
    return format_error(file,
                        fmt::format("malformed training state: {}", escape_unprintable(e.what())));
  }
}

template <class T>
Status<TrainError> Run<T>::restore_unchecked(const Checkpoint& ck, const std::string& file) {
  if (Status<TrainError> s = check_model_hash(ck.meta, c_.model_hash, file); !s) return s;
  std::vector<T> theta(params_.size());
  if (Status<TrainError> s = params_from_tensors<T>(table_, ck.params, theta, "", file); !s)
    return s;
  auto state = optimizer_from_file<T>(table_, ck.optimizer, file);
  if (!state) return state.error();
  if (Status<TrainError> s = opt_->load_state(state.value()); !s) return s;
  const nlohmann::json& x = ck.meta.extra;
  if (!x.is_object() || !x.contains("schedule") || !x.contains("early_stopping") ||
      !x.contains("epoch"))
    return format_error(file, "the checkpoint lacks the training loop's state");
  if (Status<TrainError> s = schedule_->load_state(x["schedule"]); !s) return s;
  std::vector<T> best;
  if (has_prefix(ck.params, kBestPrefix)) {
    best.resize(params_.size());
    if (Status<TrainError> s = params_from_tensors<T>(table_, ck.params, best, kBestPrefix, file);
        !s)
      return s;
  }
  if (Status<TrainError> s = stopper_->load_state(x["early_stopping"], std::move(best)); !s)
    return s;
  const nlohmann::json& e = x["epoch"];
  if (e.is_object()) { // saved in the middle of an epoch
    EpochProgress p;
    const auto loss = read_json_double(e, "loss_sum"), secs = read_json_double(e, "seconds");
    if (!loss || !secs || !e.contains("next_batch") || !e.contains("samples") ||
        !e.contains("skipped"))
      return format_error(file, "malformed epoch progress in the checkpoint");
    p.next_batch = e["next_batch"].get<int64_t>();
    p.samples = e["samples"].get<int64_t>();
    p.skipped = e["skipped"].get<int64_t>();
    p.loss_sum = *loss;
    p.seconds = *secs;
    auto rng = Rng::from_state(ck.meta.rng_state);
    if (!rng) return rng.error();
    resume_progress_ = p;
    resume_rng_ = rng.value();
  }
  std::copy(theta.begin(), theta.end(), params_.begin());
  start_epoch_ = ck.meta.epoch + 1;
  out_.steps = ck.meta.step;
  out_.skipped_steps = x.value("skipped_steps", int64_t{0});
  if (static_cast<uint64_t>(x.value("seed", c_.seed)) != c_.seed)
    out_.warnings.emplace_back(
        "resumed with a different seed than the checkpoint's: the run is no longer reproducible");
  out_.resumed = true;
  return {};
}

template <class T> Status<TrainError> Run<T>::open_log() {
  const fs::path path = c_.run_dir / "train.jsonl";
  if (out_.resumed) {
    // Keep the epochs the checkpoint covers; later ones (logged just before a
    // crash) will be trained and logged again.
    if (auto old = read_jsonl_log(path); old) {
      std::string text;
      for (const EpochRecord& r : old.value().records)
        if (r.epoch < start_epoch_) {
          out_.history.push_back(r);
          text += r.to_json().dump() + "\n";
        }
      if (Status<TrainError> s = write_file_atomic(path, text); !s) return s;
    }
  }
  auto log = JsonlLog::open(path, /*truncate=*/!out_.resumed);
  if (!log) return log.error();
  log_.emplace(std::move(log).value());
  if (!c_.log_steps) return {};
  auto steps = StepLog::open(c_.run_dir, out_.resumed, start_epoch_,
                             resume_progress_ ? resume_progress_->next_batch : 0);
  if (!steps) return steps.error();
  steps_.emplace(std::move(steps).value());
  if (out_.resumed) return {};
  return write_parameters("initial.safetensors", params_, "before the first step");
}

template <class T>
Status<TrainError> Run<T>::log_step(int64_t epoch, int64_t batch, const BatchResult& b, double norm,
                                    bool taken) {
  if (!steps_) return {};
  StepRecord r;
  r.epoch = epoch;
  r.batch = batch;
  r.samples = b.sample_ids;
  r.loss = b.loss;
  r.lr = opt_->lr();
  r.grad_norm = norm;
  r.taken = taken;
  return steps_->append(r);
}

template <class T>
Status<TrainError> Run<T>::train_epoch(int64_t epoch, Rng& rng, EpochProgress& p) {
  std::optional<ProgressBar> bar;
  if (c_.progress) {
    ProgressOptions po;
    po.label = fmt::format("epoch {}/{}", epoch, c_.epochs);
    po.unit = "batch";
    bar.emplace(hooks_.batches_per_epoch, po);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double seconds_before = p.seconds;
  for (; p.next_batch < hooks_.batches_per_epoch; ++p.next_batch) {
    if (InterruptGuard::requested()) {
      interrupted_ = true;
      break;
    }
    std::fill(grads_.begin(), grads_.end(), T(0));
    const Rng at_batch_start = rng;
    auto r = hooks_.train_batch(epoch, p.next_batch, params_, grads_, rng);
    if (InterruptGuard::requested()) { // the solver stopped mid-batch: redo it on resume
      rng = at_batch_start;
      interrupted_ = true;
      break;
    }
    if (!r) {
      TrainError e = r.error();
      e.message = fmt::format("epoch {}, batch {}: {}", epoch, p.next_batch, e.message);
      return e;
    }
    BatchResult& b = r.value();
    b.loss += add_norm_penalty<T>(c_.norm_penalty, params_, grads_);
    const double norm = c_.clip_norm > 0 ? clip_grad_norm<T>(grads_, c_.clip_norm)
                                         : grad_norm<T>(std::span<const T>(grads_));
    if (!std::isfinite(b.loss) || !std::isfinite(norm)) {
      ++p.skipped; // a NaN step would poison the optimiser's moments for good
      if (!b.failure.empty()) p.failure = b.failure;
      if (Status<TrainError> s = log_step(epoch, p.next_batch, b, norm, false); !s) return s;
      continue;
    }
    if (c_.clip_value > 0) clip_grad_value<T>(grads_, c_.clip_value);
    // A finite gradient that would overflow the optimiser's moments is
    // skipped like a non-finite one: taken, it would freeze the parameters
    // it touches for good and make every later checkpoint unsavable.
    if (std::string why = opt_->refusal(params_, grads_); !why.empty()) {
      ++p.skipped;
      if (p.refused.empty())
        out_.warnings.push_back(fmt::format("epoch {}, batch {}: step skipped: {} (loss {:.3g})",
                                            epoch, p.next_batch, why, b.loss));
      p.refused = std::move(why);
      if (Status<TrainError> s = log_step(epoch, p.next_batch, b, norm, false); !s) return s;
      continue;
    }
    if (Status<TrainError> s = log_step(epoch, p.next_batch, b, norm, true); !s) return s;
    if (Status<TrainError> s = opt_->step(params_, grads_); !s) return s;
    ++out_.steps;
    p.loss_sum += b.loss * static_cast<double>(b.samples);
    p.samples += b.samples;
    if (bar)
      bar->update(p.next_batch + 1, p.samples ? p.loss_sum / static_cast<double>(p.samples) : NAN);
  }
  p.seconds = seconds_before + seconds_since(t0);
  if (bar) bar->finish();
  return {};
}

template <class T> void Run<T>::watch(int64_t epoch, const EpochRecord& rec) {
  double monitored = c_.monitor == Monitor::ValidLoss     ? rec.valid_loss
                     : c_.monitor == Monitor::ValidMetric ? rec.valid_metric
                                                          : rec.train_loss;
  if (!hooks_.validate && c_.monitor != Monitor::TrainLoss) {
    monitored = rec.train_loss;
    if (!warned_monitor_)
      out_.warnings.emplace_back(
          "no validation: the schedule and early stopping watch the train loss");
    warned_monitor_ = true;
  }
  schedule_->step(monitored);
  // Selecting by a validation metric, the validation loss breaks its ties
  // (early_stopping.h).
  const double tie_break = c_.monitor == Monitor::ValidMetric && hooks_.validate
                               ? rec.valid_loss
                               : std::numeric_limits<double>::quiet_NaN();
  stopper_->update(epoch, monitored, params_, tie_break);
}

template <class T> void Run<T>::report_epoch(const EpochRecord& rec, const EpochProgress& p) {
  if (c_.progress) {
    std::string line =
        fmt::format("epoch {}/{}: train loss {:.4g}", rec.epoch, c_.epochs, rec.train_loss);
    if (!std::isnan(rec.valid_loss)) line += fmt::format(", valid loss {:.4g}", rec.valid_loss);
    if (!std::isnan(rec.valid_metric))
      line += fmt::format(", {} {:.4g}", rec.metric_name, rec.valid_metric);
    line += fmt::format(", lr {:.3g}, {:.1f} s", rec.lr, rec.seconds);
    if (p.skipped)
      line += fmt::format(", {} steps skipped ({})", p.skipped,
                          p.refused.empty() ? "non-finite" : "non-finite or too large");
    fmt::print(stderr, "{}\n", line);
  }
  if (c_.print_summary && c_.live_rows) {
    if (!printed_header_) fmt::print("{}", format_epoch_header(rec.metric_name));
    printed_header_ = true;
    fmt::print("{}", format_epoch_row(rec, stopper_->best_epoch() == rec.epoch));
    std::fflush(stdout);
  }
}

template <class T>
Status<TrainError> Run<T>::end_epoch(int64_t epoch, const EpochProgress& p, const Rng& rng) {
  out_.skipped_steps += p.skipped;
  if (p.skipped == hooks_.batches_per_epoch) return all_steps_skipped(epoch, p);
  EpochRecord rec;
  rec.epoch = epoch;
  rec.train_loss = p.samples ? p.loss_sum / static_cast<double>(p.samples) : NAN;
  rec.lr = opt_->lr();
  rec.seconds = p.seconds;
  rec.evals_per_second = p.seconds > 0 ? static_cast<double>(p.samples) / p.seconds : NAN;
  rec.metric_name = c_.metric_name;
  if (p.skipped) rec.extra["skipped_steps"] = p.skipped;
  if (hooks_.validate) {
    auto ev = hooks_.validate(params_);
    if (InterruptGuard::requested()) { // the solver stopped mid-validation: redo it on resume
      out_.skipped_steps -= p.skipped; // counted again when the epoch ends after --resume
      interrupted_ = true;
      return {};
    }
    if (!ev) {
      TrainError e = ev.error();
      e.message = fmt::format("validation after epoch {}: {}", epoch, e.message);
      return e;
    }
    rec.valid_loss = ev.value().loss;
    rec.valid_metric = ev.value().metric;
  }
  watch(epoch, rec);
  if (hooks_.check_params)
    if (Status<TrainError> s = hooks_.check_params(epoch, params_); !s) return s;
  report_epoch(rec, p);
  out_.history.push_back(rec);
  if (log_)
    if (Status<TrainError> s = log_->append(rec); !s) return s;
  const bool last = epoch == c_.epochs || epoch == c_.pause_after || stopper_->should_stop() ||
                    InterruptGuard::requested();
  if (ckpts_ && c_.writer && (epoch % c_.checkpoint_every == 0 || last))
    if (Status<TrainError> s = save(epoch, nullptr, rng); !s) return s;
  return {};
}

template <class T>
Status<TrainError> Run<T>::save(int64_t epochs_done, const EpochProgress* partial, const Rng& rng) {
  Checkpoint ck;
  auto params = params_to_tensors<T>(table_, params_);
  if (!params) return params.error();
  ck.params.tensors = std::move(params).value();
  if (stopper_->has_best()) {
    auto best = params_to_tensors<T>(table_, stopper_->best_params(), kBestPrefix);
    if (!best) return best.error();
    for (NamedTensor& t : best.value())
      ck.params.tensors.push_back(std::move(t));
  }
  auto optim = optimizer_to_file(table_, opt_->state());
  if (!optim) return optim.error();
  ck.optimizer = std::move(optim).value();
  CheckpointMeta& m = ck.meta;
  m.epoch = epochs_done;
  m.step = out_.steps;
  m.model_hash = c_.model_hash;
  m.dims = c_.dims;
  m.rng_state = rng.state();
  m.best_metric = stopper_->best_metric();
  m.config = c_.run_config;
  m.extra = {{"schedule", schedule_->state()},
             {"early_stopping", stopper_->state()},
             {"skipped_steps", out_.skipped_steps},
             {"seed", c_.seed},
             {"epoch", nullptr}};
  if (partial)
    m.extra["epoch"] = {{"next_batch", partial->next_batch},
                        {"loss_sum", json_double(partial->loss_sum)},
                        {"samples", partial->samples},
                        {"seconds", json_double(partial->seconds)},
                        {"skipped", partial->skipped}};
  auto saved = ckpts_->save(ck);
  return saved ? Status<TrainError>{} : Status<TrainError>{saved.error()};
}

template <class T>
Status<TrainError> Run<T>::write_model(std::span<const T> params, const std::string& provenance) {
  return write_parameters("model.safetensors", params, provenance);
}

template <class T>
Status<TrainError> Run<T>::write_parameters(const std::string& file, std::span<const T> params,
                                            const std::string& provenance) {
  SafetensorsFile model;
  model.tensors = params_to_tensors<T>(table_, params).value();
  model.metadata = {{"model_hash", c_.model_hash},
                    {"epochs", std::to_string(out_.epochs_completed)},
                    {"parameters", provenance}};
  return write_safetensors(c_.run_dir / file, model);
}

template <class T> void Run<T>::keep_best_after_failure(int64_t epoch, TrainError& e) {
  if (c_.run_dir.empty() || !c_.writer || epoch <= 1) return;
  out_.epochs_completed = epoch - 1; // also the epochs a resumed run finished before
  // The failed epoch took no step (every one was skipped), so params_ are
  // still those the last finished epoch ended with.
  std::vector<T> kept(params_.begin(), params_.end());
  const bool best = c_.restore_best && hooks_.validate && stopper_->has_best();
  if (best) (void)stopper_->restore_best(std::span<T>(kept));
  if (!std::all_of(kept.begin(), kept.end(), [](T v) { return std::isfinite(v); })) return;
  const int64_t which = best ? stopper_->best_epoch() : epoch - 1;
  const std::string provenance = fmt::format("{} {} (training failed in epoch {})",
                                             best ? "best epoch" : "last epoch", which, epoch);
  if (Status<TrainError> s = write_model(kept, provenance); !s) {
    e.message +=
        fmt::format("; the parameters of epoch {} could not be kept: {}", which, s.error().message);
    return;
  }
  e.message += fmt::format("; {} keeps the parameters of epoch {}{}",
                           (c_.run_dir / "model.safetensors").string(), which,
                           best ? " (the best)" : " (the last finished)");
}

template <class T> Status<TrainError> Run<T>::finish() {
  if (steps_)
    if (Status<TrainError> s = write_parameters("last.safetensors", params_, "after the last step");
        !s)
      return s;
  out_.best_epoch = stopper_->best_epoch();
  out_.best_value = stopper_->best_metric();
  // A paused run is unfinished like an interrupted one: its checkpoint holds
  // the state to continue from, model.safetensors the best epoch so far.
  const bool unfinished = out_.interrupted || out_.paused;
  const bool rolled_back =
      !unfinished && c_.restore_best && hooks_.validate && stopper_->has_best();
  if (rolled_back) (void)stopper_->restore_best(params_);
  if (!c_.run_dir.empty() && c_.writer) {
    // An interrupted run leaves its best parameters so far too (the
    // checkpoint keeps the state to resume from), so `eval` works on it
    // before the run is finished; the file is replaced atomically.
    std::vector<T> best_so_far;
    const bool interrupted_best =
        unfinished && c_.restore_best && hooks_.validate && stopper_->has_best();
    if (interrupted_best) {
      best_so_far.assign(params_.begin(), params_.end());
      (void)stopper_->restore_best(std::span<T>(best_so_far));
    }
    const std::span<const T> saved =
        interrupted_best ? std::span<const T>(best_so_far) : std::span<const T>(params_);
    const char* why = out_.paused ? "paused" : "interrupted";
    const std::string provenance =
        unfinished
            ? (interrupted_best ? fmt::format("best epoch {} so far ({})", out_.best_epoch, why)
                                : fmt::format("last epoch ({})", why))
        : rolled_back ? fmt::format("best epoch {}", out_.best_epoch)
                      : "last epoch";
    // Not a warning: a run that ends without its parameters has failed.
    if (Status<TrainError> s = write_model(saved, provenance); !s) return s;
  }
  if (c_.print_summary) finish_table(out_.best_epoch);
  if (c_.print_summary && out_.early_stopped)
    fmt::print("stopped early: no better {} in the {} epochs after epoch {} (--patience {}; 0 "
               "trains every epoch)\n",
               monitor_name(), c_.early_stopping_patience + 1, out_.best_epoch,
               c_.early_stopping_patience);
  if (c_.plot && !c_.run_dir.empty() && c_.writer) {
    PlotOptions po;
    po.title = c_.model_hash.empty() ? "learning curve" : "learning curve of " + c_.model_hash;
    po.best_epoch = out_.best_epoch;
    if (auto r = plot_learning_curve(out_.history, c_.run_dir / "learning_curve.png", po); !r)
      out_.warnings.push_back(r.error().describe());
  }
  return {};
}

template <class T> Result<TrainOutcome, TrainError> Run<T>::run() {
  if (Status<TrainError> s = setup(); !s) return s.error();
  // Also before the first step: ranks that start apart (one resumed, one
  // did not find the checkpoint) stop here rather than train out of step.
  if (hooks_.check_params)
    if (Status<TrainError> s = hooks_.check_params(start_epoch_ - 1, params_); !s) return s.error();
  InterruptGuard guard(/*quiet=*/!c_.progress);
  // Resumed at or past its pause: nothing to train until the pause moves on.
  if (c_.pause_after > 0 && start_epoch_ > c_.pause_after && start_epoch_ <= c_.epochs)
    out_.paused = true;
  for (int64_t epoch = start_epoch_; epoch <= c_.epochs && !out_.paused; ++epoch) {
    Rng rng = Rng::for_epoch(c_.seed, epoch);
    if (hooks_.begin_epoch) hooks_.begin_epoch(epoch, rng);
    EpochProgress p;
    if (resume_progress_ && epoch == start_epoch_) {
      p = *resume_progress_;
      rng = *resume_rng_; // after begin_epoch: the data order is rebuilt, the stream continues
    }
    opt_->set_lr(schedule_->lr());
    if (Status<TrainError> s = train_epoch(epoch, rng, p); !s) return s.error();
    if (interrupted_) {
      out_.interrupted = true;
      if (ckpts_ && c_.writer)
        if (Status<TrainError> s = save(epoch - 1, &p, rng); !s) return s.error();
      break;
    }
    if (Status<TrainError> s = end_epoch(epoch, p, rng); !s) {
      // The epochs before the failure are in train.jsonl; show them too.
      if (c_.print_summary && !out_.history.empty()) finish_table(stopper_->best_epoch());
      TrainError e = s.error();
      keep_best_after_failure(epoch, e);
      return e;
    }
    if (interrupted_) { // during validation: every batch is done, the validation is redone
      out_.interrupted = true;
      if (ckpts_ && c_.writer)
        if (Status<TrainError> s = save(epoch - 1, &p, rng); !s) return s.error();
      break;
    }
    out_.epochs_completed = epoch;
    if (c_.early_stopping_patience > 0 && stopper_->should_stop()) {
      out_.early_stopped = true;
      break;
    }
    if (InterruptGuard::requested()) { // arrived during the last batch or validation; already saved
      out_.interrupted = true;
      break;
    }
    if (epoch == c_.pause_after && epoch < c_.epochs) out_.paused = true; // saved by end_epoch
  }
  if (out_.epochs_completed == 0 && start_epoch_ > 1) out_.epochs_completed = start_epoch_ - 1;
  if (Status<TrainError> s = finish(); !s) return s.error();
  return std::move(out_);
}

} // namespace

TrainConfig neural_rde_config(int64_t batch_size, int64_t max_epochs) {
  TrainConfig c;
  c.epochs = max_epochs;
  c.optimizer.kind = "adam";
  c.optimizer.lr = 0.032 / static_cast<double>(std::max<int64_t>(batch_size, 1));
  c.schedule = {{"kind", "plateau"}, {"factor", 0.1}, {"patience", 15}, {"mode", "min"}};
  c.monitor = Monitor::ValidLoss;
  c.early_stopping_patience = 60;
  c.restore_best = true;
  return c;
}

template <class T>
Result<TrainOutcome, TrainError> train(const ParamTable& table, std::span<T> params,
                                       const TrainHooks<T>& hooks, const TrainConfig& config,
                                       Optimizer<T>* optimizer) {
  Run<T> run(table, params, hooks, config, optimizer);
  return run.run();
}

template Result<TrainOutcome, TrainError> train<float>(const ParamTable&, std::span<float>,
                                                       const TrainHooks<float>&, const TrainConfig&,
                                                       Optimizer<float>*);
template Result<TrainOutcome, TrainError> train<double>(const ParamTable&, std::span<double>,
                                                        const TrainHooks<double>&,
                                                        const TrainConfig&, Optimizer<double>*);

} // namespace plastic::rt
