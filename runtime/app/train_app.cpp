// The `train` command (see train_app.h).
#include "runtime/app/train_app.h"
#include "runtime/app/program_name.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>

#include <fmt/format.h>

#include "runtime/app/binding.h"
#include "runtime/app/cross_validation.h"
#include "runtime/app/curriculum.h"
#include "runtime/app/input_noise.h"
#include "runtime/app/kernels_ready.h"
#include "runtime/app/memory_plan.h"
#include "runtime/app/model_data.h"
#include "runtime/app/model_hash.h"
#include "runtime/app/rank_agreement.h"
#include "runtime/app/run_folder.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/batch/stability_reporter.h"
#include "runtime/batch/train_hooks.h"
#include "runtime/distributed/communicator.h"
#include "runtime/init/init.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/param_table.h"
#include "runtime/support/interrupt.h"
#include "runtime/train/train_loop.h"

namespace plastic::rt {

nlohmann::json schedule_config(const std::string& schedule, int64_t epochs) {
  if (schedule == "plateau") return {{"kind", "plateau"}, {"factor", 0.1}, {"patience", 15}};
  // The training loop steps the schedule once per epoch (lr_schedule.h), so
  // the cosine's length is the number of epochs, not of batches.
  if (schedule == "cosine")
    return {{"kind", "cosine"}, {"total_steps", std::max<int64_t>(epochs, 1)}};
  return {{"kind", "constant"}};
}

namespace {

/// The validation value a run reports: the task's metric, or for a binary
/// task trained with --select accuracy the accuracy of the logit's sign —
/// the value Kidger et al.'s training loop (which paper 000 App. B trains
/// with) keeps the best epoch by.
MetricInfo run_metric(const TrainRequest& r, int32_t task) {
  if (task == PLASTIC_TASK_BINARY && r.select == "accuracy") return {"accuracy", MetricMode::Max};
  return task_metric(task);
}

/// Which validation value picks the best epoch: --select, checked against
/// the run's metric (a classifier reports accuracy, not MSE).
Result<Monitor, AppError> selection(const TrainRequest& r, const MetricInfo& metric) {
  if (r.select == "auto")
    return std::string_view(metric.name) == "accuracy" ? Monitor::ValidMetric : Monitor::ValidLoss;
  if (r.select == "loss") return Monitor::ValidLoss;
  if (r.select == metric.name) return Monitor::ValidMetric;
  const std::string_view binary_also =
      std::string_view(metric.name) == "auroc" ? ", or accuracy (the logit's sign)" : "";
  return AppError{kUsageError,
                  fmt::format("--select {}: this model's task reports {}; select loss or {}{}",
                              r.select, metric.name, metric.name, binary_also)};
}

/// --patience as given, or its default (requests.h): stop after
/// kAutoPatience epochs without a better validation value when there is
/// validation data to watch and no curriculum.
int effective_patience(const TrainRequest& r, bool validated) {
  if (r.patience >= 0) return r.patience;
  return validated && r.curriculum.empty() ? TrainRequest::kAutoPatience : 0;
}

int fail(const AppError& e) {
  fmt::print(stderr, "{}: {}\n", program_name(), e.message);
  return e.exit_code;
}

/// `whole` (the hooks of the whole series) behind a curriculum of prefixes
/// (curriculum.h): each stage's prefixes are prepared into `prefix_data`,
/// which must outlive the hooks returned.
template <class T>
Result<TrainHooks<T>, AppError>
with_curriculum(const plastic_model& m, const TrainRequest& r, const ModelData& md,
                const PreparedData* valid, const HookOptions& ho,
                std::vector<PreparedData>& prefix_data, TrainHooks<T> whole) {
  auto stages = parse_curriculum(r.curriculum);
  if (!stages) return AppError{kUsageError, "--curriculum " + r.curriculum + ": " + stages.error()};
  int64_t staged = 0;
  for (const CurriculumStage& s : stages.value())
    staged += s.epochs;
  if (staged >= r.epochs)
    return AppError{kUsageError,
                    fmt::format("--curriculum spans {} epochs of --epochs {}: the whole series "
                                "would never be trained (give more --epochs)",
                                staged, r.epochs)};
  PrepareOptions po;
  po.require_targets = true;
  po.threads = r.run.threads;
  prefix_data.reserve(stages.value().size()); // the hooks keep references: no reallocation
  for (const CurriculumStage& s : stages.value()) {
    auto p = prepare(m, prefixes(md.splits.train, static_cast<size_t>(s.length)), po);
    if (!p)
      return AppError{kInputError, fmt::format("--curriculum: preparing the first {} observations "
                                               "of the training series: {}",
                                               s.length, p.error().describe())};
    prefix_data.push_back(std::move(p).value());
  }
  std::vector<TrainHooks<T>> per_stage;
  per_stage.reserve(prefix_data.size() + 1);
  for (const PreparedData& p : prefix_data)
    per_stage.push_back(make_train_hooks<T>(m, p, valid, ho));
  per_stage.push_back(std::move(whole));
  fmt::print("curriculum {}\n", describe_curriculum(stages.value()));
  return curriculum_hooks<T>(std::move(stages).value(), std::move(per_stage));
}

/// Claims the run folder (rank 0 holds the lock until the run ends: no
/// other process writes into it meanwhile) and settles --resume: a folder
/// with no checkpoint starts a new run, said, not silent.
Result<std::optional<RunLock>, AppError> claim_run_folder(Communicator& comm, TrainRequest& r) {
  // runs/latest is the scratch folder: a new run there replaces the last
  // one, saying so, so that the README's command can be run again as it is.
  const std::filesystem::path out(r.out);
  const bool replaces_latest =
      !r.resume && !r.force && r.out == TrainRequest::kLatestRun &&
      (std::filesystem::exists(out / "train.jsonl") || recorded_folds(r.out).has_value());
  std::optional<RunLock> folder;
  if (comm.root()) {
    auto taken = take_run_folder(r.out, r.resume, r.force || replaces_latest);
    if (!taken) return taken.error();
    folder.emplace(std::move(taken).value());
  }
  comm.barrier(); // the folder is ready (cleaned with --force) before any rank reads it
  if (replaces_latest)
    fmt::print("run       replacing the previous run in {} (give --out DIR to keep runs)\n", r.out);
  std::error_code ec;
  if (r.resume && (std::filesystem::is_empty(out / "checkpoints", ec) || ec)) {
    // Nothing to lose: a script can always pass --resume.
    fmt::print("run       nothing to resume in {}: starting a new run\n", r.out);
    r.resume = false;
  }
  return folder;
}

/// --resume continues the run as its binding says (binding.h,
/// run_record.h): the record must exist and agree with `m` and `r`, and
/// the options not given are filled in from it.
Status<AppError> check_resumable(const plastic_model& m, TrainRequest& r) {
  const std::filesystem::path out(r.out);
  auto record = read_binding(out);
  if (!record) return record.error();
  // Without the record nothing says which model, data and options the
  // checkpoints belong to: a new --lr would be ignored and a new --set
  // applied, both without a word. Refused rather than guessed.
  if (!record.value())
    return AppError{
        kUsageError,
        fmt::format("{} holds checkpoints but no run.json, the record of how the run was made: "
                    "--resume cannot check that it continues the same model, data and options. "
                    "Start a new run (--force replaces this one, or give another --out)",
                    r.out)};
  return check_resume(record.value()->record, m, out, r);
}

/// The data read as the model needs it — with --resume, as the run read it,
/// without the flags repeated — and its split described.
Result<ModelData, AppError> open_run_data(const plastic_model& m, const TrainRequest& r,
                                          RunOptions& run) {
  if (r.resume && !r.out.empty())
    if (Status<AppError> s = recall_data_flags(r.out, RecordedFlags::Resume, run.data_flags); !s)
      return s.error();
  auto data = open_model_data(m, run);
  if (!data) return data.error();
  if (InterruptGuard::requested())
    return AppError{InterruptGuard::exit_code(),
                    "interrupted before training began; nothing was saved"};
  const ModelData& md = data.value();
  fmt::print("data      {}\n", md.splits.description);
  fmt::print("          {} training, {} validation, {} test samples (split seed {})\n",
             md.splits.train.size(), md.splits.validation.size(), md.splits.test.size(),
             run.data_seed());
  return data;
}

/// What a step will hold, before anything model-sized is allocated: a model
/// that cannot fit is refused here with its numbers, not by bad_alloc
/// mid-epoch. Then the run's binding of model to data (binding.h: run.json
/// and data.json), written once the data has been read as the model needs
/// it and the plan fits: a refused run leaves no record behind. A resumed
/// run keeps the binding it was started with (check_resume refused any
/// other).
Result<MemoryPlan, AppError> plan_and_record(const plastic_model& m, const TrainRequest& r,
                                             const ModelData& md, const Communicator& comm) {
  MemoryRequest mr{r.run.batch, r.run.threads, r.memory.gradient, r.memory.budget, r.memory.limit};
  auto plan = plan_memory(m, *md.train, mr);
  if (!plan) return plan.error();
  if (!plan.value().line.empty()) fmt::print("{}\n", plan.value().line);
  if (!r.resume && comm.root()) {
    auto binding = bind_run(m, r, md.splits, comm.size());
    if (!binding) return binding.error();
    if (Status<AppError> s = write_binding(r.out, binding.value(), r.run.model); !s)
      return s.error();
  }
  return plan;
}

/// The initial parameters (a resumed run overwrites them from its
/// checkpoint), and for a new run the stability line at initialisation.
template <class T>
Result<std::vector<T>, AppError> initial_parameters(const plastic_model& m, const TrainRequest& r,
                                                    uint64_t seed, const Communicator& comm) {
  std::vector<T> theta(static_cast<size_t>(m.n_params));
  auto init = initialise_parameters<T>(m, std::span<T>(theta), seed);
  if (!init)
    return AppError{kInputError,
                    fmt::format("initialising {}: {}", m.name, init.error().describe())};
  if (const StabilityReporter& stability = stability_reporter(); stability && !r.resume) {
    const std::vector<double> wide(theta.begin(), theta.end());
    StabilitySummary s = stability(wide);
    if (!s.line.empty()) fmt::print("{}\n", s.line);
    if (!s.warning.empty() && comm.root())
      fmt::print(stderr, "{}: warning: {}\n", program_name(), s.warning);
  }
  return theta;
}

/// How the batches are computed: threads, the gradient method the memory
/// plan chose, the ranks, and what a failed or non-finite batch reports.
HookOptions hook_options(const TrainRequest& r, const MemoryPlan& plan, Communicator& comm,
                         const MetricInfo& metric, bool log_steps) {
  HookOptions ho;
  ho.validate_by_accuracy = std::string_view(metric.name) == "accuracy";
  ho.batch_size = r.run.batch;
  ho.batch.threads = r.run.threads;
  ho.batch.gradient = plan.gradient;
  ho.batch.comm = &comm;
  if (comm.root()) // every rank meets the same failure; one says it
    ho.on_failure = [](const std::string& what) {
      fmt::print(stderr, "\nplastic: batch skipped: {}\n", what);
    };
  ho.explain = nonfinite_explainer(); // the driver's, which knows the model's source
  ho.sample_ids = log_steps && comm.root();
  return ho;
}

/// The training loop's configuration from the request.
TrainConfig train_config(const plastic_model& m, const TrainRequest& r, const RunOptions& run,
                         const MetricInfo& metric, bool validated, bool log_steps,
                         const Communicator& comm) {
  TrainConfig cfg;
  cfg.epochs = r.epochs;
  cfg.seed = run.seed;
  cfg.optimizer.kind = r.optimizer;
  cfg.optimizer.lr = r.lr;
  cfg.optimizer.momentum = r.momentum;
  if (r.weight_decay >= 0) cfg.optimizer.weight_decay = r.weight_decay;
  cfg.schedule = schedule_config(r.schedule, r.epochs);
  cfg.clip_norm = r.clip_norm;
  cfg.monitor = !validated ? Monitor::TrainLoss : selection(r, metric).value();
  cfg.metric_mode = metric.mode;
  cfg.metric_name = metric.name;
  cfg.early_stopping_patience = effective_patience(r, validated);
  cfg.run_dir = r.out;
  cfg.resume = r.resume;
  cfg.plot = r.plot;
  cfg.log_steps = log_steps;
  cfg.progress = r.progress && comm.root();
  // Into a file, a pipe or a cluster's log, each epoch's row as it ends: a
  // run killed mid-way keeps every line it printed (train_loop.h).
  cfg.live_rows = isatty(STDOUT_FILENO) == 0;
  cfg.pause_after = r.until;
  cfg.writer = comm.root();
  cfg.model_hash = model_hash(m);
  cfg.dims = r.run.dims;
  cfg.run_config = {{"data", run.data},         {"batch", run.batch}, {"dtype", run.dtype},
                    {"optimizer", r.optimizer}, {"lr", r.lr},         {"schedule", r.schedule},
                    {"seed", run.seed},         {"oi", run.oi}};
  return cfg;
}

/// An interrupted or paused run's exit: the code a script tells it by, or
/// nothing when the run finished.
std::optional<int> unfinished_exit(const TrainOutcome& outcome, const TrainRequest& r) {
  if (outcome.interrupted) {
    fmt::print("interrupted: checkpoint saved in {}; continue with --resume\n", r.out);
    // As a shell reports a process killed by the signal, so a script can
    // tell an interrupted run from a finished one.
    return InterruptGuard::exit_code() != 0 ? InterruptGuard::exit_code() : 130;
  }
  if (outcome.paused) {
    // Asked for, so a success; the run is unfinished (no summary.json).
    fmt::print("paused after epoch {} of {}: checkpoint in {}; continue with --resume\n",
               outcome.epochs_completed, r.epochs, r.out);
    return kOk;
  }
  return std::nullopt;
}

/// Evaluates the kept parameters on the validation and test splits, prints
/// them and writes OUT/summary.json.
template <class T>
Status<AppError> write_summary(const plastic_model& m, const TrainRequest& r, const ModelData& md,
                               std::span<const T> theta, const TrainOutcome& outcome,
                               Communicator& comm) {
  nlohmann::ordered_json summary;
  summary["model"] = m.name;
  summary["model_hash"] = model_hash(m);
  summary["epochs"] = outcome.epochs_completed;
  summary["best_epoch"] = outcome.best_epoch;
  summary["skipped_steps"] = outcome.skipped_steps;
  BatchOptions eval_options;
  eval_options.threads = r.run.threads;
  eval_options.comm = &comm;
  for (const char* name : {"validation", "test"}) {
    const PreparedData* prepared = md.split(name).prepared;
    if (!prepared) continue;
    auto ev = evaluate<T>(m, *prepared, all_samples(*prepared), theta, eval_options);
    if (!ev)
      return AppError{kInputError,
                      fmt::format("evaluating on the {} split: {}", name, ev.status().describe())};
    const Evaluation& e = ev.value();
    print_evaluation(name, e);
    summary[name] = {{"loss", e.loss}, {e.metric_name, e.metric}, {"samples", e.samples}};
    if (e.metric_name != "accuracy" && std::isfinite(e.accuracy)) // binary: the logit's sign too
      summary[name]["accuracy"] = e.accuracy;
  }
  if (!comm.root()) return {};
  if (Status<TrainError> s =
          write_file_atomic(std::filesystem::path(r.out) / "summary.json", summary.dump(2) + "\n");
      !s)
    return AppError{kInputError, s.describe()};
  return {};
}

/// Whether the loop logs every step (steps.jsonl): asked for, or a resumed
/// run that logged its steps goes on logging them.
bool logs_steps(const TrainRequest& r) {
  return r.log_steps ||
         (r.resume && std::filesystem::exists(std::filesystem::path(r.out) / "steps.jsonl"));
}

/// The hooks the loop trains through: on the training series, on its noisy
/// copies with --input-noise, behind the curriculum's prefixes with
/// --curriculum (prepared into `prefix_data`). `ho` and `prefix_data` must
/// outlive the hooks returned.
template <class T>
Result<TrainHooks<T>, AppError>
training_hooks(const plastic_model& m, const TrainRequest& r, const RunOptions& run,
               const ModelData& md, const HookOptions& ho, std::vector<PreparedData>& prefix_data) {
  const PreparedData* valid = md.validation ? &*md.validation : nullptr;
  TrainHooks<T> hooks = make_train_hooks<T>(m, *md.train, valid, ho);
  if (r.input_noise > 0) {
    if (!r.curriculum.empty())
      return AppError{kUsageError, "--input-noise with --curriculum is not supported yet: "
                                   "choose one"};
    auto noisy = input_noise_hooks<T>(m, md.splits.train, split_prepare_options(run), valid, ho,
                                      r.input_noise, run.seed);
    if (!noisy) return AppError{kInputError, noisy.error().describe()};
    hooks = std::move(noisy).value();
    fmt::print("noise     N(0, {}^2) on the training series' measured values, new each epoch\n",
               r.input_noise);
  }
  if (!r.curriculum.empty())
    return with_curriculum<T>(m, r, md, valid, ho, prefix_data, std::move(hooks));
  return hooks;
}

/// The --norm-penalty of the request over the model's tensors, checked
/// before any data is read (and after --resume recalled the run's options).
Result<NormPenalty, AppError> requested_norm_penalty(const ParamTable& table,
                                                     const TrainRequest& r) {
  if (r.norm_penalty == 0 && !r.norm_penalty_on.empty())
    return AppError{kUsageError, "--norm-penalty-on without --norm-penalty: give the penalty's "
                                 "weight too (e.g. --norm-penalty 0.03)"};
  auto penalty = norm_penalty_over(table, r.norm_penalty, r.norm_penalty_on);
  if (!penalty)
    return AppError{kUsageError, fmt::format("--norm-penalty-on: {}", penalty.error().describe())};
  return std::move(penalty).value();
}

/// What follows the loop: its warnings, then an interrupted or paused
/// run's exit, or the summary and where the parameters are. Returns the
/// exit code.
template <class T>
int finish_run(const plastic_model& m, const TrainRequest& r, const ModelData& md,
               std::span<const T> theta, const TrainOutcome& outcome, Communicator& comm) {
  if (comm.root())
    for (const std::string& w : outcome.warnings)
      fmt::print(stderr, "{}: warning: {}\n", program_name(), w);
  if (std::optional<int> code = unfinished_exit(outcome, r)) return *code;
  if (Status<AppError> s = write_summary<T>(m, r, md, theta, outcome, comm); !s)
    return fail(s.error());
  fmt::print("parameters {}/model.safetensors\n", r.out);
  return kOk;
}

template <class T> int train_typed(const plastic_model& m, const TrainRequest& given) {
  TrainRequest r = given; // --resume fills in the run's options
  // Under mpirun every rank runs this function on the same data; rank 0
  // alone owns the run folder (lock, records, checkpoints, logs) and
  // prints, the others only read it to --resume (runtime/distributed).
  Communicator& comm = world();
  const MetricInfo metric = run_metric(r, m.task);
  if (auto s = selection(r, metric); !s) return fail(s.error());
  if (!r.resume && r.run.data.empty())
    return fail(AppError{kUsageError, "--data is required: the data to train on"});
  auto folder = claim_run_folder(comm, r); // held until the run ends
  if (!folder) return fail(folder.error());
  if (r.resume)
    if (Status<AppError> s = check_resumable(m, r); !s) return fail(s.error());
  if (r.run.data.empty())
    return fail(AppError{kUsageError, "--data is required: the data to train on"});
  auto table = ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table)
    return fail(AppError{kInternalError,
                         fmt::format("internal error (a bug): {}", table.error().describe())});
  // After --resume has filled in the run's options: a resumed run keeps its
  // penalty without the flag repeated.
  auto penalty = requested_norm_penalty(table.value(), r);
  if (!penalty) return fail(penalty.error());

  RunOptions run = r.run;
  auto data = open_run_data(m, r, run);
  if (!data) return fail(data.error());
  const ModelData& md = data.value();
  // Under mpirun: every rank the same model, data and options, before the
  // first collective that depends on them (rank_agreement.h).
  if (Status<AppError> s =
          check_ranks_agree(comm, train_binding(model_identity(m, r.run.model, r.run.dtype),
                                                data_digest(md.splits), r));
      !s)
    return refuse_disagreement(comm, s.error());

  auto plan = plan_and_record(m, r, md, comm);
  if (!plan) return fail(plan.error());

  auto theta = initial_parameters<T>(m, r, run.seed, comm);
  if (!theta) return fail(theta.error());

  const bool log_steps = logs_steps(r);
  const HookOptions ho = hook_options(r, plan.value(), comm, metric, log_steps);
  // The curriculum's prefixes, prepared once; the hooks refer to them.
  std::vector<PreparedData> prefix_data;
  auto hooks = training_hooks<T>(m, r, run, md, ho, prefix_data);
  if (!hooks) return fail(hooks.error());

  const bool validated = md.validation.has_value();
  TrainConfig cfg = train_config(m, r, run, metric, validated, log_steps, comm);
  cfg.norm_penalty = penalty.value();
  if (cfg.norm_penalty.active() && comm.root())
    fmt::print("penalty   {} x the sum of {} parameter tensors' norms in the training loss\n",
               r.norm_penalty, cfg.norm_penalty.groups.size());
  if (Status<AppError> s = kernels_ready(); !s) return fail(s.error());
  auto outcome = train<T>(table.value(), std::span<T>(theta.value()), hooks.value(), cfg);
  if (!outcome)
    return fail(
        AppError{kInputError, fmt::format("training stopped: {}", outcome.error().describe())});
  return finish_run<T>(m, r, md, std::span<const T>(theta.value()), outcome.value(), comm);
}

} // namespace

int run_train(const plastic_model& m, const TrainRequest& given) {
  TrainRequest r = given;
  // --resume on a cross-validation's folder continues the cross-validation.
  if (r.resume && r.run.fold == 0)
    if (std::optional<int64_t> k = recorded_folds(r.out)) {
      if (r.run.folds != 0 && r.run.folds != *k)
        return fail(
            AppError{kUsageError, fmt::format("--folds {} given, the cross-validation in {} has {} "
                                              "folds: --resume continues it with its own",
                                              r.run.folds, r.out, *k)});
      r.run.folds = *k;
    }
  if (r.run.folds >= 2 && r.run.fold > r.run.folds)
    return fail(AppError{kUsageError, fmt::format("--fold {}: --folds {} numbers its folds 1 to {}",
                                                  r.run.fold, r.run.folds, r.run.folds)});
  if (r.run.folds >= 2 && r.run.fold == 0) {
    if (r.until > 0)
      return fail(AppError{kUsageError, "--until pauses one run: with --folds K, pause each fold "
                                        "apart (--fold I --until N)"});
    return run_cross_validation(m, r);
  }
  if (m.dtype == PLASTIC_F64) return train_typed<double>(m, r);
  return train_typed<float>(m, r);
}

} // namespace plastic::rt
