// The `train` command (see train_app.h).
#include "runtime/app/train_app.h"
#include "runtime/app/program_name.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>

#include <fmt/format.h>

#include "runtime/app/binding.h"
#include "runtime/app/cross_validation.h"
#include "runtime/app/curriculum.h"
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

/// Which validation value picks the best epoch: --select, checked against
/// the task (a classifier reports accuracy, not MSE).
Result<Monitor, AppError> selection(const TrainRequest& r, const MetricInfo& metric) {
  if (r.select == "auto")
    return metric.name == "accuracy" ? Monitor::ValidMetric : Monitor::ValidLoss;
  if (r.select == "loss") return Monitor::ValidLoss;
  if (r.select == metric.name) return Monitor::ValidMetric;
  return AppError{kUsageError,
                  fmt::format("--select {}: this model's task reports {}; select loss or {}",
                              r.select, metric.name, metric.name)};
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

template <class T> int train_typed(const plastic_model& m, const TrainRequest& given) {
  TrainRequest r = given; // --resume fills in the run's options
  // Under mpirun every rank runs this function on the same data; rank 0
  // alone owns the run folder (lock, records, checkpoints, logs) and
  // prints, the others only read it to --resume (runtime/distributed).
  Communicator& comm = world();
  MetricInfo metric = task_metric(m.task);
  if (auto s = selection(r, metric); !s) return fail(s.error());
  if (!r.resume && r.run.data.empty())
    return fail(AppError{kUsageError, "--data is required: the data to train on"});
  // Held until the run ends: no other process writes into this folder meanwhile.
  // runs/latest is the scratch folder: a new run there replaces the last one,
  // saying so, so that the README's command can be run again as it is.
  const bool replaces_latest =
      !r.resume && !r.force && r.out == TrainRequest::kLatestRun &&
      (std::filesystem::exists(std::filesystem::path(r.out) / "train.jsonl") ||
       recorded_folds(r.out).has_value());
  std::optional<RunLock> folder;
  if (comm.root()) {
    auto taken = take_run_folder(r.out, r.resume, r.force || replaces_latest);
    if (!taken) {
      fmt::print(stderr, "{}: {}\n", program_name(), taken.error().message);
      return taken.error().exit_code;
    }
    folder.emplace(std::move(taken).value());
  }
  comm.barrier(); // the folder is ready (cleaned with --force) before any rank reads it
  if (replaces_latest)
    fmt::print("run       replacing the previous run in {} (give --out DIR to keep runs)\n", r.out);
  const std::filesystem::path out(r.out);
  std::error_code ec;
  if (r.resume && (std::filesystem::is_empty(out / "checkpoints", ec) || ec)) {
    // Nothing to lose: a script can always pass --resume. Said, not silent.
    fmt::print("run       nothing to resume in {}: starting a new run\n", r.out);
    r.resume = false;
  }
  // --resume continues the run as its binding says (binding.h, run_record.h).
  if (r.resume) {
    auto record = read_binding(out);
    if (!record) return fail(record.error());
    // Without the record nothing says which model, data and options the
    // checkpoints belong to: a new --lr would be ignored and a new --set
    // applied, both without a word. Refused rather than guessed.
    if (!record.value())
      return fail(AppError{
          kUsageError,
          fmt::format("{} holds checkpoints but no run.json, the record of how the run was made: "
                      "--resume cannot check that it continues the same model, data and options. "
                      "Start a new run (--force replaces this one, or give another --out)",
                      r.out)});
    if (Status<AppError> s = check_resume(record.value()->record, m, out, r); !s)
      return fail(s.error());
  }
  if (r.run.data.empty())
    return fail(AppError{kUsageError, "--data is required: the data to train on"});

  // --resume reads the data as the run did, without the flags repeated.
  RunOptions run = r.run;
  if (r.resume && !r.out.empty())
    if (Status<AppError> s = recall_data_flags(r.out, RecordedFlags::Resume, run.data_flags); !s) {
      fmt::print(stderr, "{}: {}\n", program_name(), s.error().message);
      return s.error().exit_code;
    }
  auto data = open_model_data(m, run);
  if (!data) {
    fmt::print(stderr, "{}: {}\n", program_name(), data.error().message);
    return data.error().exit_code;
  }
  ModelData& md = data.value();
  if (InterruptGuard::requested()) {
    fmt::print(stderr, "{}: interrupted before training began; nothing was saved\n",
               program_name());
    return InterruptGuard::exit_code();
  }
  fmt::print("data      {}\n", md.splits.description);
  fmt::print("          {} training, {} validation, {} test samples (split seed {})\n",
             md.splits.train.size(), md.splits.validation.size(), md.splits.test.size(),
             run.data_seed());
  // Under mpirun: every rank the same model, data and options, before the
  // first collective that depends on them (rank_agreement.h).
  if (Status<AppError> s =
          check_ranks_agree(comm, train_binding(model_identity(m, r.run.model, r.run.dtype),
                                                data_digest(md.splits), r));
      !s) {
    if (comm.root()) fmt::print(stderr, "{}: {}\n", program_name(), s.error().message);
    return s.error().exit_code;
  }

  // What a step will hold, before anything model-sized is allocated: a
  // model that cannot fit is refused here with its numbers, not by
  // bad_alloc mid-epoch; and before the run is recorded, so a refused run
  // leaves no record.
  MemoryRequest mr{r.run.batch, r.run.threads, r.memory.gradient, r.memory.budget, r.memory.limit};
  auto plan = plan_memory(m, *md.train, mr);
  if (!plan) return fail(plan.error());
  if (!plan.value().line.empty()) fmt::print("{}\n", plan.value().line);

  // How the run binds its model to its data (binding.h: run.json and
  // data.json), once the data has been read as the model needs it: a run
  // refused for its data leaves no record behind. A resumed run keeps the
  // binding it was started with (check_resume refused any other).
  if (!r.resume && comm.root()) {
    auto binding = bind_run(m, r, md.splits, comm.size());
    if (!binding) return fail(binding.error());
    if (Status<AppError> s = write_binding(out, binding.value(), r.run.model); !s)
      return fail(s.error());
  }

  std::vector<T> theta(static_cast<size_t>(m.n_params));
  auto init = initialise_parameters<T>(m, std::span<T>(theta), run.seed);
  if (!init) {
    fmt::print(stderr, "{}: initialising {}: {}\n", program_name(), m.name,
               init.error().describe());
    return kInputError;
  }
  if (const StabilityReporter& stability = stability_reporter(); stability && !r.resume) {
    const std::vector<double> wide(theta.begin(), theta.end());
    StabilitySummary s = stability(wide);
    if (!s.line.empty()) fmt::print("{}\n", s.line);
    if (!s.warning.empty() && comm.root())
      fmt::print(stderr, "{}: warning: {}\n", program_name(), s.warning);
  }
  auto table = ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table) {
    fmt::print(stderr, "{}: internal error (a bug): {}\n", program_name(),
               table.error().describe());
    return kInternalError;
  }

  HookOptions ho;
  ho.batch_size = r.run.batch;
  ho.batch.threads = r.run.threads;
  ho.batch.gradient = plan.value().gradient;
  ho.batch.comm = &comm;
  if (comm.root()) // every rank meets the same failure; one says it
    ho.on_failure = [](const std::string& what) {
      fmt::print(stderr, "\nplastic: batch skipped: {}\n", what);
    };
  ho.explain = nonfinite_explainer(); // the driver's, which knows the model's source
  // A resumed run that logged its steps goes on logging them.
  const bool log_steps =
      r.log_steps ||
      (r.resume && std::filesystem::exists(std::filesystem::path(r.out) / "steps.jsonl"));
  ho.sample_ids = log_steps && comm.root();
  const PreparedData* valid = md.validation ? &*md.validation : nullptr;
  TrainHooks<T> hooks = make_train_hooks<T>(m, *md.train, valid, ho);
  // The curriculum's prefixes, prepared once; the hooks refer to them.
  std::vector<PreparedData> prefix_data;
  if (!r.curriculum.empty()) {
    auto staged = with_curriculum<T>(m, r, md, valid, ho, prefix_data, std::move(hooks));
    if (!staged) return fail(staged.error());
    hooks = std::move(staged).value();
  }

  TrainConfig cfg;
  cfg.epochs = r.epochs;
  cfg.seed = run.seed;
  cfg.optimizer.kind = r.optimizer;
  cfg.optimizer.lr = r.lr;
  cfg.optimizer.momentum = r.momentum;
  if (r.weight_decay >= 0) cfg.optimizer.weight_decay = r.weight_decay;
  cfg.schedule = schedule_config(r.schedule, r.epochs);
  cfg.clip_norm = r.clip_norm;
  cfg.monitor = !valid ? Monitor::TrainLoss : selection(r, metric).value();
  cfg.metric_mode = metric.mode;
  cfg.metric_name = metric.name;
  cfg.early_stopping_patience = effective_patience(r, valid != nullptr);
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
  auto outcome = train<T>(table.value(), std::span<T>(theta), hooks, cfg);
  if (!outcome) {
    fmt::print(stderr, "{}: training stopped: {}\n", program_name(), outcome.error().describe());
    return kInputError;
  }
  if (comm.root())
    for (const std::string& w : outcome.value().warnings)
      fmt::print(stderr, "{}: warning: {}\n", program_name(), w);
  if (outcome.value().interrupted) {
    fmt::print("interrupted: checkpoint saved in {}; continue with --resume\n", r.out);
    // As a shell reports a process killed by the signal, so a script can
    // tell an interrupted run from a finished one.
    return InterruptGuard::exit_code() != 0 ? InterruptGuard::exit_code() : 130;
  }
  if (outcome.value().paused) {
    // Asked for, so a success; the run is unfinished (no summary.json).
    fmt::print("paused after epoch {} of {}: checkpoint in {}; continue with --resume\n",
               outcome.value().epochs_completed, r.epochs, r.out);
    return kOk;
  }

  nlohmann::ordered_json summary;
  summary["model"] = m.name;
  summary["model_hash"] = cfg.model_hash;
  summary["epochs"] = outcome.value().epochs_completed;
  summary["best_epoch"] = outcome.value().best_epoch;
  summary["skipped_steps"] = outcome.value().skipped_steps;
  BatchOptions eval_options;
  eval_options.threads = r.run.threads;
  eval_options.comm = &comm;
  for (const char* name : {"validation", "test"}) {
    const PreparedData* prepared = md.split(name).prepared;
    if (!prepared) continue;
    auto ev =
        evaluate<T>(m, *prepared, all_samples(*prepared), std::span<const T>(theta), eval_options);
    if (!ev) {
      fmt::print(stderr, "{}: evaluating on the {} split: {}\n", program_name(), name,
                 ev.status().describe());
      return kInputError;
    }
    const Evaluation& e = ev.value();
    print_evaluation(name, e);
    summary[name] = {{"loss", e.loss}, {e.metric_name, e.metric}, {"samples", e.samples}};
  }
  if (Status<TrainError> s = comm.root()
                                 ? write_file_atomic(std::filesystem::path(r.out) / "summary.json",
                                                     summary.dump(2) + "\n")
                                 : Status<TrainError>{};
      !s) {
    fmt::print(stderr, "{}: {}\n", program_name(), s.describe());
    return kInputError;
  }
  fmt::print("parameters {}/model.safetensors\n", r.out);
  return kOk;
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
