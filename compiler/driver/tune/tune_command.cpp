// `plastic tune` (see tune_command.h).
#include "compiler/driver/tune/tune_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "compiler/driver/backend_choice.h"
#include "compiler/driver/tune/halving.h"
#include "compiler/driver/tune/job_pool.h"
#include "compiler/driver/tune/tune_plan.h"
#include "compiler/driver/tune/tune_record.h"
#include "dsl/frontend.h"
#include "runtime/app/cli_options.h"
#include "runtime/app/model_hash.h"
#include "runtime/app/option_checks.h"
#include "runtime/app/run_folder.h"
#include "runtime/distributed/communicator.h"
#include "runtime/io/run_lock.h"
#include "runtime/support/interrupt.h"
#include "runtime/support/json_util.h"

namespace plastic::driver {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// Options the search sets for each trial itself, never passed on as given.
const std::set<std::string> kSearchOwned = {
    "--out",   "--resume",     "--force",       "--epochs", "--until",    "--folds",
    "--fold",  "--threads",    "--no-progress", "--trials", "--search",   "--grid-points",
    "--space", "--min-epochs", "--eta",         "--jobs",   "--selection"};

/// Options a resumed search may be given: the rest come from tune.json.
const std::set<std::string> kResumeMay = {"--out", "--resume", "--jobs", "--no-progress"};

/// The given options of `cmd` as arguments (`--lr 0.01`, `--plot`), in
/// command-line order per option, without those in `skip`.
std::vector<std::string> given_arguments(const CLI::App& cmd, const std::set<std::string>& skip) {
  std::vector<std::string> args;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    const std::string flag = "--" + o->get_lnames().front();
    if (skip.count(flag)) continue;
    if (o->get_expected_min() == 0) {
      args.push_back(flag);
      continue;
    }
    for (const std::string& v : o->results()) {
      args.push_back(flag);
      args.push_back(v);
    }
  }
  return args;
}

/// --data and --valid as absolute paths: trials and a resumed search may
/// run from another folder.
void absolute_data_paths(std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--data" || args[i] == "--valid") {
      std::error_code ec;
      if (fs::exists(args[i + 1], ec))
        args[i + 1] = fs::absolute(args[i + 1], ec).lexically_normal().string();
    }
}

int fail(const rt::AppError& e) {
  if (!e.message.empty()) fmt::print(stderr, "plastic tune: {}\n", e.message);
  return e.exit_code;
}

std::string seconds_text(double s) {
  return s < 100 ? fmt::format("{:.1f}", s) : fmt::format("{:.0f}", s);
}

/// Copies run folder `from` to `to` (replacing it), without its lock file.
Status<rt::AppError> copy_run(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::create_directories(to, ec);
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == rt::RunLock::kFileName) continue;
    const fs::path target = to / fs::relative(it->path(), from, ec);
    if (it->is_directory(ec))
      fs::create_directories(target, ec);
    else
      fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing, ec);
    if (ec) break;
  }
  if (ec)
    return rt::AppError{rt::kInputError, fmt::format("copying the best run {} to {}: {}",
                                                     from.string(), to.string(), ec.message())};
  return {};
}

/// One search, run or continued in its folder.
class Search {
public:
  Search(TunePlan plan, fs::path out, int jobs, rt::Communicator& comm)
      : plan_(std::move(plan)), out_(std::move(out)), jobs_(jobs), comm_(comm),
        rows_(read_rows(out_, plan_.by)) {}

  /// Every rung, then the best run; the exit code.
  int run();

private:
  struct Pending { // a trial's folds still running in a rung
    int remaining = 0;
    std::vector<std::optional<double>> values;
    std::string error;
    bool interrupted = false;
    double seconds = 0; ///< its jobs' training time, summed
  };

  void print_plan() const;
  void print_header() const;
  void print_row(const TrialRow& row, bool earlier) const;
  fs::path run_folder(int64_t trial, int64_t fold) const;
  fs::path log_file(int64_t trial, int64_t fold) const;
  std::vector<std::string> train_arguments(int64_t trial, const fs::path& folder,
                                           std::optional<int64_t> until) const;
  /// Runs the trials of rung `rung` that tune.jsonl does not have; false
  /// when interrupted.
  bool run_rung(size_t rung, const std::vector<int64_t>& trials);
  void job_ended(int64_t trial, size_t rung, size_t fold, int code, double seconds, Pending& p);
  /// Whether every rank says `ok` (one rank's failure stops them all).
  bool all_ranks(bool ok) const;
  int finish(const std::vector<RungScore>& last);
  int keep_best(const std::vector<RungScore>& last);
  int refit_best(int64_t trial);

  TunePlan plan_;
  fs::path out_;
  int jobs_;
  rt::Communicator& comm_;
  std::map<std::pair<int64_t, int64_t>, TrialRow> rows_;
  bool write_failed_ = false;
};

void Search::print_plan() const {
  std::string space;
  for (const TuneDimension& d : plan_.space.dims)
    space += fmt::format("{}{} {}", space.empty() ? "" : ", ", d.name, describe_range(d.range));
  fmt::print("search    {} trials of {} search over {}\n", plan_.points.size(), plan_.search,
             space);
  std::string rungs;
  for (int64_t r : plan_.rungs)
    rungs += fmt::format("{}{}", rungs.empty() ? "" : ", ", r);
  if (plan_.rungs.size() > 1)
    fmt::print("budget    successive halving: trials compared at {} epochs; the best 1/{} go on\n",
               rungs, plan_.eta);
  else
    fmt::print("budget    every trial trains {} epochs\n", plan_.epochs);
  fmt::print("selection {}, by the best {} over the epochs\n", plan_.selection_note,
             plan_.by.heading());
  fmt::print("jobs      {} at a time, {} thread{} each; logs in {}\n", jobs_, plan_.threads,
             plan_.threads == 1 ? "" : "s", (out_ / "logs").string());
}

void Search::print_header() const {
  std::string h = fmt::format("{:>5} {:>6}", "trial", "epochs");
  for (const TuneDimension& d : plan_.space.dims)
    h += fmt::format(" {:>12}", d.name);
  h += fmt::format(" {:>14} {:>8}", plan_.by.heading(), "seconds");
  fmt::print("\n{}\n", h);
}

void Search::print_row(const TrialRow& row, bool earlier) const {
  std::string line =
      fmt::format("{:>5} {:>6}", row.trial, plan_.rungs[static_cast<size_t>(row.rung)]);
  for (double v : plan_.points[static_cast<size_t>(row.trial)])
    line += fmt::format(" {:>12.4g}", v);
  if (row.value)
    line += fmt::format(" {:>14.6g} {:>8}", *row.value, seconds_text(row.seconds));
  else
    line += fmt::format(" {:>14} {:>8}  {}", "failed", seconds_text(row.seconds), row.error);
  if (earlier) line += "  (earlier)";
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

fs::path Search::run_folder(int64_t trial, int64_t fold) const {
  const fs::path t = trial_folder(out_, trial);
  return plan_.folds ? t / fmt::format("fold-{}", fold) : t;
}

fs::path Search::log_file(int64_t trial, int64_t fold) const {
  return out_ / "logs" /
         (plan_.folds ? fmt::format("trial-{:03}-fold-{}.log", trial, fold)
                      : fmt::format("trial-{:03}.log", trial));
}

std::vector<std::string> Search::train_arguments(int64_t trial, const fs::path& folder,
                                                 std::optional<int64_t> until) const {
  std::vector<std::string> a = {self_executable(), "train", plan_.model_file};
  a.insert(a.end(), plan_.arguments.begin(), plan_.arguments.end());
  std::vector<std::string> point =
      trial >= 0 ? point_arguments(plan_.space, plan_.points[static_cast<size_t>(trial)])
                 : std::vector<std::string>{};
  a.insert(a.end(), point.begin(), point.end());
  // Each trial keeps the epoch by the value the search compares.
  if (std::find(a.begin(), a.end(), "--select") == a.end()) {
    a.emplace_back("--select");
    a.push_back(plan_.by.select);
  }
  for (const std::string& s : {std::string("--out"), folder.string(), std::string("--epochs"),
                               std::to_string(plan_.epochs), std::string("--threads"),
                               std::to_string(plan_.threads), std::string("--no-progress")})
    a.push_back(s);
  if (until && *until < plan_.epochs) {
    a.emplace_back("--until");
    a.push_back(std::to_string(*until));
  }
  std::error_code ec;
  if (fs::exists(folder / "run.json", ec)) a.emplace_back("--resume");
  return a;
}

void Search::job_ended(int64_t trial, size_t rung, size_t fold, int code, double seconds,
                       Pending& p) {
  p.seconds += seconds;
  const fs::path folder = run_folder(trial, static_cast<int64_t>(fold) + (plan_.folds ? 1 : 0));
  if (code == 0) {
    p.values[fold] = best_value(folder, plan_.by, plan_.rungs[rung]);
    if (!p.values[fold] && p.error.empty())
      p.error = fmt::format("no finite {} by epoch {}", plan_.by.heading(), plan_.rungs[rung]);
  } else if ((code == 130 || code == 143) && rt::InterruptGuard::requested()) {
    p.interrupted = true;
  } else if (p.error.empty()) {
    p.error = fmt::format(
        "exit {}: {}", code,
        failure_reason(log_file(trial, static_cast<int64_t>(fold) + (plan_.folds ? 1 : 0))));
  }
  if (--p.remaining > 0 || p.interrupted) return;
  TrialRow row;
  row.trial = trial;
  row.rung = static_cast<int64_t>(rung);
  row.seconds = p.seconds;
  const bool all = std::all_of(p.values.begin(), p.values.end(),
                               [](const std::optional<double>& v) { return v.has_value(); });
  if (all) {
    double sum = 0;
    for (const std::optional<double>& v : p.values)
      sum += *v;
    row.value = sum / static_cast<double>(p.values.size()); // the folds' mean
  } else {
    row.error = p.error;
  }
  rows_[{trial, row.rung}] = row;
  if (!comm_.root()) return; // rank 0 keeps the record
  if (Status<rt::AppError> s = append_row(out_, plan_, row); !s) {
    fmt::print(stderr, "plastic tune: {}\n", s.error().message);
    write_failed_ = true;
  }
  print_row(row, false);
}

bool Search::all_ranks(bool ok) const {
  const double mine = ok ? 0 : 1;
  return comm_.ordered_sum(std::span<const double>(&mine, 1), 1).at(0) == 0;
}

bool Search::run_rung(size_t rung, const std::vector<int64_t>& trials) {
  const int64_t folds = std::max<int64_t>(plan_.folds, 1);
  // The jobs of the trials tune.jsonl does not have, in one order on every
  // rank: rank r trains jobs r, r + K, ... (K ranks). One process reports
  // each trial as it ends; several report after the rung, from every
  // rank's exit codes.
  std::vector<std::pair<int64_t, int64_t>> jobs; // (trial, fold index)
  std::map<int64_t, Pending> pending;
  for (int64_t t : trials) {
    if (auto row = rows_.find({t, static_cast<int64_t>(rung)}); row != rows_.end()) {
      if (comm_.root()) print_row(row->second, true);
      continue;
    }
    Pending& p = pending[t];
    p.remaining = static_cast<int>(folds);
    p.values.assign(static_cast<size_t>(folds), std::nullopt);
    for (int64_t f = 0; f < folds; ++f)
      jobs.emplace_back(t, f);
  }
  const bool live = comm_.size() == 1;
  std::vector<double> ended(2 * jobs.size() + 1, 0.0); // per job: exit code + 1, seconds
  std::vector<std::chrono::steady_clock::time_point> starts(jobs.size());
  JobPool pool(jobs_);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(comm_.size())) != comm_.rank()) continue;
    const auto [t, f] = jobs[i];
    const int64_t fold = plan_.folds ? f + 1 : 0;
    const fs::path folder = run_folder(t, fold);
    auto done = [this, &ended, &starts, &pending, &jobs, live, rung, i](int code) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - starts[i]).count();
      ended[2 * i] = code + 1;
      ended[2 * i + 1] = seconds;
      const auto [trial, fold_index] = jobs[i];
      if (live)
        job_ended(trial, rung, static_cast<size_t>(fold_index), code, seconds, pending[trial]);
    };
    starts[i] = std::chrono::steady_clock::now();
    if (run_ended(folder)) { // ended (--patience, or before a kill): nothing to train
      done(0);
      continue;
    }
    Job job;
    job.argv = train_arguments(t, folder, plan_.rungs[rung]);
    if (plan_.folds) {
      for (const std::string& a : {std::string("--folds"), std::to_string(plan_.folds),
                                   std::string("--fold"), std::to_string(fold)})
        job.argv.push_back(a);
    }
    job.log = log_file(t, fold);
    job.started = [&starts, i] { starts[i] = std::chrono::steady_clock::now(); };
    job.done = done;
    pool.submit(std::move(job));
  }
  ended.back() = pool.run() ? 0 : 1;
  const std::vector<double> all = comm_.ordered_sum(ended, ended.size()); // each job ran once
  if (all.back() != 0) return false; // a rank was interrupted: every rank stops
  if (!live)
    for (size_t i = 0; i < jobs.size(); ++i)
      job_ended(jobs[i].first, rung, static_cast<size_t>(jobs[i].second),
                static_cast<int>(all[2 * i]) - 1, all[2 * i + 1], pending[jobs[i].first]);
  if (!all_ranks(!write_failed_)) write_failed_ = true; // rank 0's record failed: all stop
  return true;
}

int Search::run() {
  std::error_code ec;
  fs::create_directories(out_ / "logs", ec);
  print_plan();
  print_header();
  std::vector<int64_t> trials(plan_.points.size());
  for (size_t k = 0; k < trials.size(); ++k)
    trials[k] = static_cast<int64_t>(k);
  std::vector<RungScore> scores;
  for (size_t rung = 0; rung < plan_.rungs.size(); ++rung) {
    if (!run_rung(rung, trials)) {
      fmt::print("interrupted: every running trial saved a checkpoint; continue the search with "
                 "`plastic tune --resume --out {}`\n",
                 out_.string());
      return rt::InterruptGuard::exit_code() != 0 ? rt::InterruptGuard::exit_code() : 130;
    }
    if (write_failed_) return rt::kInputError;
    scores.clear();
    for (int64_t t : trials)
      scores.push_back({t, rows_.at({t, static_cast<int64_t>(rung)}).value});
    if (rung + 1 == plan_.rungs.size()) break;
    trials = promoted(scores, plan_.eta, plan_.by.mode);
    if (trials.empty()) break;
    std::string which;
    for (int64_t t : trials)
      which += fmt::format("{}{}", which.empty() ? "" : ", ", t);
    fmt::print("rung {} of {}: {} of {} trials go on to {} epochs: {}\n", rung + 1,
               plan_.rungs.size(), trials.size(), scores.size(), plan_.rungs[rung + 1], which);
  }
  return finish(scores);
}

int Search::refit_best(int64_t trial) {
  const fs::path best = out_ / "best";
  if (run_ended(best)) return rt::kOk;
  Job job;
  job.argv = train_arguments(trial, best, std::nullopt);
  job.log = out_ / "logs" / "best.log";
  int code = 0;
  job.done = [&code](int c) { code = c; };
  fmt::print("refit     trial {} on one validation split, {} epochs, into {}\n", trial,
             plan_.epochs, best.string());
  std::fflush(stdout);
  JobPool pool(1);
  pool.submit(std::move(job));
  if (!pool.run()) {
    fmt::print("interrupted: continue with `plastic tune --resume --out {}`\n", out_.string());
    return rt::InterruptGuard::exit_code() != 0 ? rt::InterruptGuard::exit_code() : 130;
  }
  if (code != 0)
    return fail(rt::AppError{rt::kInputError,
                             fmt::format("training the best setting failed (exit {}): {}", code,
                                         failure_reason(out_ / "logs" / "best.log"))});
  return rt::kOk;
}

int Search::finish(const std::vector<RungScore>& last) {
  // Rank 0 keeps the best run; the other ranks wait for its exit code.
  std::string code = comm_.root() ? std::to_string(keep_best(last)) : std::string();
  comm_.broadcast(code, 0);
  return std::stoi(code);
}

int Search::keep_best(const std::vector<RungScore>& last) {
  std::optional<RungScore> best;
  for (const RungScore& s : last)
    if (s.value && (!best || better(s.value, best->value, plan_.by.mode))) best = s;
  if (!best)
    return fail(
        rt::AppError{rt::kInputError, fmt::format("every trial failed; their logs are in {}",
                                                  (out_ / "logs").string())});
  std::string values;
  const TrialPoint& point = plan_.points[static_cast<size_t>(best->trial)];
  for (size_t i = 0; i < point.size(); ++i)
    values += fmt::format("{}{} {}", values.empty() ? "" : ", ", plan_.space.dims[i].name,
                          exact(point[i]));
  fmt::print("\nbest      trial {}: {}; {} {:.6g}{}\n", best->trial, values, plan_.by.heading(),
             *best->value, plan_.folds ? fmt::format(" (mean of {} folds)", plan_.folds) : "");
  const fs::path best_run = out_ / "best";
  if (plan_.folds) {
    if (int code = refit_best(best->trial); code != rt::kOk) return code;
  } else if (Status<rt::AppError> s = copy_run(trial_folder(out_, best->trial), best_run); !s) {
    return fail(s.error());
  }
  std::ifstream in(best_run / "summary.json");
  json summary = json::parse(in, nullptr, false);
  json record = {{"trial", best->trial}, {plan_.by.select, *best->value}, {"run", "best"}};
  for (const char* split : {"validation", "test"})
    if (summary.is_object() && summary.contains(split)) {
      record[split] = summary[split];
      std::string line;
      for (const auto& [key, v] : summary[split].items())
        if (key != "samples" && v.is_number())
          line += fmt::format("{}{} {:.6g}", line.empty() ? "" : ", ", key, v.get<double>());
      fmt::print("          {} {}: {}\n", best_run.string(), split, line);
    }
  if (Status<rt::AppError> s = write_plan(out_, plan_, record); !s) return fail(s.error());
  fmt::print("          an ordinary run folder: plastic eval {} --parameters {}\n",
             plan_.model_file, best_run.string());
  return rt::kOk;
}

/// Rank 0's start of a search: the plan made anew (and written) or read
/// back for --resume, the folder locked; the exit code.
int take_search(const TuneRequest& r, const CommonOptions& common, const fs::path& out,
                std::optional<rt::RunLock>& lock, TunePlan& plan) {
  if (r.train.resume) {
    for (const std::string& g : r.given)
      if (!kResumeMay.count(g))
        return fail(rt::AppError{
            rt::kUsageError,
            fmt::format("{} given: --resume continues the search as {}/tune.json records it "
                        "(leave {} out, or start a new search with --force or another --out)",
                        g, out.string(), g)});
    auto held = rt::RunLock::acquire(out);
    if (!held) return fail(rt::AppError{rt::kInputError, held.error().describe()});
    lock.emplace(std::move(held).value());
    auto read = read_plan(out);
    if (!read) return fail(read.error());
    plan = std::move(read).value();
    std::error_code ec;
    if (!r.file.empty() && fs::absolute(r.file, ec).lexically_normal().string() != plan.model_file)
      return fail(rt::AppError{rt::kUsageError,
                               fmt::format("{}: the search in {} tunes {}; leave the model out of "
                                           "--resume or give that one",
                                           r.file, out.string(), plan.model_file)});
    std::string text;
    if (!dsl::read_file(plan.model_file, text) || rt::text_digest(text) != plan.model_digest)
      return fail(rt::AppError{rt::kUsageError,
                               fmt::format("{} changed since the search in {} began: a search "
                                           "continues only with its own model",
                                           plan.model_file, out.string())});
    return rt::kOk;
  }
  if (r.file.empty())
    return fail(rt::AppError{rt::kUsageError, "the model file to tune is required (or --resume)"});
  if (r.given.count("--data") == 0)
    return fail(rt::AppError{rt::kUsageError, "--data is required: the data to tune on"});
  if (r.given.count("--trials") && r.search == "grid")
    return fail(rt::AppError{rt::kUsageError,
                             "--trials is for random search: a grid tries every combination"});
  auto made = make_plan(r, common);
  if (!made) return fail(made.error());
  plan = std::move(made).value();
  auto held = rt::take_run_folder(out, /*resume=*/false, r.train.force);
  if (!held) return fail(held.error());
  lock.emplace(std::move(held).value());
  if (Status<rt::AppError> st = write_plan(out, plan); !st) return fail(st.error());
  return rt::kOk;
}

} // namespace

struct TuneCommand::State {
  CLI::App* cmd = nullptr;
  TuneRequest request;
  std::string backend = "llvm";
};

TuneCommand::TuneCommand(CLI::App& app, const std::function<void(CLI::App*)>& add_model_options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  TuneRequest& r = s.request;
  r.train.out = "runs/tune";
  CLI::App* cmd = app.add_subcommand(
      "tune", "Search learning rate, weight decay, batch and the model's `tune` dims and consts");
  s.cmd = cmd;
  cmd->add_option("file", r.file, "Model file (*.ode); with --resume, the search's own");
  if (add_model_options) add_model_options(cmd);
  add_backend_option(*cmd, s.backend);
  rt::add_train_options(*cmd, r.train);
  cmd->get_option("--out")->description(
      "Search folder: tune.json, tune.jsonl, trial-K run folders, best/ (default runs/tune)");
  cmd->get_option("--epochs")
      ->description("Epochs of a trial that is trained to the end (default 30)");
  cmd->get_option("--resume")->description("Continue the search in --out as tune.json records it");
  cmd->get_option("--folds")->description(
      "Folds of the cross-validation when trials are validated by folds (default 5)");
  const char* group = "Search";
  cmd->add_option("--trials", r.trials, "Random search: trials to draw (default 16)")
      ->check(rt::integer_in(1, 100000))
      ->group(group);
  cmd->add_option("--search", r.search, "random (default) | grid")
      ->check(CLI::IsMember({"random", "grid"}))
      ->group(group);
  cmd->add_option("--grid-points", r.grid_points,
                  "Grid search: values per continuous range (default 3)")
      ->check(rt::integer_in(1, 100))
      ->group(group);
  cmd->add_option("--space", r.space,
                  "NAME=RANGE: search a training option (lr, weight-decay, batch, momentum, clip, "
                  "input-noise) "
                  "or a dim / const over log(a, b), (a, b) or [a, b, ...] (repeatable)")
      ->group(group);
  cmd->add_option("--min-epochs", r.min_epochs,
                  "Successive halving: epochs of the first comparison (default epochs / eta^2; "
                  "= --epochs: no halving)")
      ->check(rt::integer_in(1, 1'000'000'000))
      ->group(group);
  cmd->add_option("--eta", r.eta, "Successive halving: 1/eta of the trials go on (default 3)")
      ->check(rt::integer_in(2, 100))
      ->group(group);
  cmd->add_option("--jobs", r.jobs, "Trials at a time (default: the cores / --threads)")
      ->check(rt::integer_in(1, 4096))
      ->group(group);
  cmd->add_option("--selection", r.selection,
                  "auto (default: k-fold cross-validation below 1000 training samples, else a "
                  "validation split) | folds | split")
      ->check(CLI::IsMember({"auto", "folds", "split"}))
      ->group(group);
}

TuneCommand::~TuneCommand() = default;

std::optional<int> TuneCommand::run(const CommonOptions& common) {
  State& s = *state_;
  if (!s.cmd->parsed()) return std::nullopt;
  TuneRequest r = s.request;
  for (const CLI::Option* o : s.cmd->get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) r.given.insert("--" + o->get_lnames().front());
  if (r.given.count("--until") || r.given.count("--fold"))
    return fail(rt::AppError{rt::kUsageError,
                             fmt::format("{} is set by the search for each trial",
                                         r.given.count("--until") ? "--until" : "--fold")});
  r.forwarded = given_arguments(*s.cmd, kSearchOwned);
  absolute_data_paths(r.forwarded);
  // Ctrl-C / SIGTERM: the running trials save a checkpoint, the search stops.
  rt::InterruptGuard interrupts(/*quiet=*/true);
  const fs::path out(r.train.out);
  // Under mpirun rank 0 makes (or reads) the plan and holds the folder; the
  // other ranks read the plan it wrote (the folder is shared, as a run
  // folder under mpirun is) and train their share of each rung's trials.
  rt::Communicator& comm = rt::world();
  std::optional<rt::RunLock> lock;
  TunePlan plan;
  std::string status = "0";
  if (comm.root()) status = std::to_string(take_search(r, common, out, lock, plan));
  comm.broadcast(status, 0);
  if (std::stoi(status) != rt::kOk) return std::stoi(status);
  if (!comm.root()) {
    auto read = read_plan(out);
    if (!read) return fail(read.error());
    plan = std::move(read).value();
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = r.jobs > 0 ? r.jobs : std::max(1, cores / plan.threads);
  return Search(std::move(plan), out, jobs, comm).run();
}

} // namespace plastic::driver
