// K-fold cross-validation (see cross_validation.h).
#include "runtime/app/cross_validation.h"
#include "runtime/app/program_name.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "runtime/app/app_error.h"
#include "runtime/app/run_folder.h"
#include "runtime/app/train_app.h"
#include "runtime/distributed/communicator.h"
#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kSummary = "folds.json";

int fail(int code, const std::string& message) {
  fmt::print(stderr, "{}: {}\n", program_name(), message);
  return code;
}

Result<json, AppError> read_json(const fs::path& path) {
  auto bytes = read_file(path, 1 << 24);
  if (!bytes) return AppError{kInputError, bytes.error().describe()};
  const auto* text = reinterpret_cast<const char*>(bytes.value().data());
  json j = json::parse(text, text + bytes.value().size(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return AppError{kInputError, fmt::format("{}: not a JSON object", path.string())};
  return j;
}

Status<AppError> write_json(const fs::path& path, const nlohmann::ordered_json& j) {
  if (Status<TrainError> s = write_file_atomic(path, j.dump(2) + "\n"); !s)
    return AppError{kInputError, s.describe()};
  return {};
}

std::string cell(const json& summary, const char* split, const std::string& key) {
  if (!summary.contains(split) || !summary[split].contains(key) || !summary[split][key].is_number())
    return "-";
  return fmt::format("{:.4f}", summary[split][key].get<double>());
}

std::string mean_std(const nlohmann::ordered_json& stats, const char* split,
                     const std::string& key) {
  if (!stats.contains(split) || !stats[split].contains(key)) return "-";
  const auto& s = stats[split][key];
  return fmt::format("{:.4f} ± {:.4f}", s["mean"].get<double>(), s["std"].get<double>());
}

/// The table printed at the end: one row per fold, then mean ± std.
void print_table(const std::vector<json>& summaries, const nlohmann::ordered_json& stats,
                 const std::string& metric, const fs::path& out) {
  const bool test = stats.contains("test");
  fmt::print("\ncross-validation over {} folds ({})\n", summaries.size(),
             (out / kSummary).string());
  fmt::print("{:<6} {:>17} {:>17}", "fold", "valid loss", "valid " + metric);
  if (test) fmt::print(" {:>17} {:>17}", "test loss", "test " + metric);
  fmt::print("\n");
  for (size_t k = 0; k < summaries.size(); ++k) {
    fmt::print("{:<6} {:>17} {:>17}", k + 1, cell(summaries[k], "validation", "loss"),
               cell(summaries[k], "validation", metric));
    if (test)
      fmt::print(" {:>17} {:>17}", cell(summaries[k], "test", "loss"),
                 cell(summaries[k], "test", metric));
    fmt::print("\n");
  }
  fmt::print("{:<6} {:>17} {:>17}", "mean", mean_std(stats, "validation", "loss"),
             mean_std(stats, "validation", metric));
  if (test)
    fmt::print(" {:>17} {:>17}", mean_std(stats, "test", "loss"), mean_std(stats, "test", metric));
  fmt::print("\n");
}

/// The metric a fold's summary reports besides the loss ("accuracy", ...).
std::string metric_of(const json& summary) {
  for (const char* split : {"validation", "test"})
    if (summary.contains(split))
      for (const auto& [key, value] : summary[split].items())
        if (key != "loss" && key != "samples") return key;
  return "metric";
}

} // namespace

fs::path fold_folder(const fs::path& out, int64_t fold) {
  return out / fmt::format("fold-{}", fold);
}

std::optional<int64_t> recorded_folds(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out / kSummary, ec)) return std::nullopt;
  auto j = read_json(out / kSummary);
  if (!j || !j.value().contains("folds") || !j.value()["folds"].is_number_integer())
    return std::nullopt;
  return j.value()["folds"].get<int64_t>();
}

nlohmann::ordered_json fold_statistics(const std::vector<json>& fold_summaries) {
  nlohmann::ordered_json stats = nlohmann::ordered_json::object();
  for (const char* split : {"validation", "test"}) {
    if (fold_summaries.empty() || !fold_summaries.front().contains(split)) continue;
    for (const auto& [key, first] : fold_summaries.front()[split].items()) {
      if (key == "samples" || !first.is_number()) continue;
      double sum = 0, sum_sq = 0;
      size_t n = 0;
      for (const json& s : fold_summaries) {
        if (!s.contains(split) || !s[split].contains(key) || !s[split][key].is_number()) continue;
        const double x = s[split][key].get<double>();
        sum += x;
        sum_sq += x * x;
        ++n;
      }
      if (n == 0) continue;
      const double mean = sum / static_cast<double>(n);
      // The sample standard deviation (n - 1): the folds are a sample of
      // the ways the data could have been divided.
      const double var = n > 1 ? std::max(0.0, (sum_sq - static_cast<double>(n) * mean * mean) /
                                                   static_cast<double>(n - 1))
                               : 0.0;
      stats[split][key] = {{"mean", mean}, {"std", std::sqrt(var)}, {"folds", n}};
    }
  }
  return stats;
}

namespace {

/// What --folds cannot be combined with, refused before the folder is made.
std::optional<AppError> refused_request(const TrainRequest& r) {
  if (r.run.was_given("--valid"))
    return AppError{kUsageError, "--folds validates on folds of --data: leave out --valid"};
  // Every rank would write the cross-validation's own files: not yet.
  if (world().size() > 1)
    return AppError{kUsageError, "--folds under mpirun is not supported: run each fold as its "
                                 "own job (--folds K --fold I, one mpirun each)"};
  if (r.run.was_given("--valid-fraction"))
    return AppError{kUsageError,
                    "--folds K validates on 1/K of the training data: leave out --valid-fraction"};
  // The data reader would refuse it too, but only in fold 1, after
  // folds.json was written.
  if (r.run.data.rfind("synthetic:", 0) == 0)
    return AppError{kUsageError,
                    fmt::format("{}: a synthetic task has fixed training and validation trials: "
                                "--folds needs a data set to divide",
                                r.run.data)};
  return std::nullopt;
}

/// The cross-validation's own folder: locked while it runs, and like a run
/// folder never mixed with an old run (run_folder.h) — except that --resume
/// keeps what is there: each fold resumes in its own folder.
Result<RunLock, AppError> claim_folder(const TrainRequest& r) {
  const fs::path out(r.out);
  std::error_code ec;
  if (r.resume) {
    auto held = RunLock::acquire(out);
    if (!held) return AppError{kInputError, held.error().describe()};
    if (fs::exists(out / "train.jsonl", ec))
      return AppError{kUsageError,
                      fmt::format("--resume --folds: {} holds a single run, not a "
                                  "cross-validation (leave out --folds to continue it)",
                                  out.string())};
    return std::move(held).value();
  }
  const bool replaces_latest =
      !r.force && r.out == TrainRequest::kLatestRun &&
      (fs::exists(out / "train.jsonl", ec) || fs::exists(out / kSummary, ec));
  auto held = take_run_folder(out, /*resume=*/false, r.force || replaces_latest);
  if (!held) return held.error();
  if (replaces_latest)
    fmt::print("run       replacing the previous run in {} (give --out DIR to keep runs)\n", r.out);
  return held;
}

/// Trains (or, resuming, keeps) fold 1..K in OUT/fold-K; each fold's
/// summary.json, or the exit code of the fold that stopped.
Result<std::vector<json>, int> train_folds(const plastic_model& m, const TrainRequest& r) {
  const fs::path out(r.out);
  const int64_t folds = r.run.folds;
  std::vector<json> summaries;
  for (int64_t k = 1; k <= folds; ++k) {
    TrainRequest one = r;
    one.out = fold_folder(out, k).string();
    one.run.fold = k;
    one.run.given.insert("--fold");
    one.force = false; // a new cross-validation starts in an emptied folder
    const fs::path done = fold_folder(out, k) / "summary.json";
    std::error_code ec;
    if (r.resume && fs::exists(done, ec)) {
      fmt::print("fold {} of {}: finished earlier, kept ({})\n", k, folds, one.out);
    } else {
      fmt::print("\n── fold {} of {} ── {}\n", k, folds, one.out);
      std::fflush(stdout);
      if (int code = run_train(m, one); code != 0) {
        if (!r.resume && k == 1 && !fs::exists(one.out, ec)) { // failed before it began
          fs::remove(out / kSummary, ec);
          return code;
        }
        fmt::print(stderr,
                   "{}: cross-validation stopped in fold {} of {}; continue it with "
                   "`--resume --out {}`\n",
                   program_name(), k, folds, r.out);
        return code;
      }
    }
    auto fold_summary = read_json(done);
    if (!fold_summary) return fail(fold_summary.error().exit_code, fold_summary.error().message);
    summaries.push_back(std::move(fold_summary).value());
  }
  return summaries;
}

/// OUT/folds.json of a finished cross-validation: each fold's run and
/// values, and their mean and std per split.
nlohmann::ordered_json finished_summary(const plastic_model& m, const TrainRequest& r,
                                        const std::vector<json>& summaries,
                                        const nlohmann::ordered_json& stats) {
  nlohmann::ordered_json summary;
  summary["folds"] = r.run.folds;
  summary["finished"] = true;
  summary["model"] = m.name ? m.name : "model";
  summary["split_seed"] = r.run.data_seed();
  summary["seed"] = r.run.seed;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (size_t k = 0; k < summaries.size(); ++k) {
    nlohmann::ordered_json one;
    one["fold"] = k + 1;
    one["run"] = fmt::format("fold-{}", k + 1);
    for (const char* key : {"epochs", "best_epoch", "validation", "test"})
      if (summaries[k].contains(key)) one[key] = summaries[k][key];
    runs.push_back(std::move(one));
  }
  summary["runs"] = std::move(runs);
  for (const auto& [split, values] : stats.items())
    summary[split] = values;
  return summary;
}

} // namespace

int run_cross_validation(const plastic_model& m, const TrainRequest& r) {
  if (std::optional<AppError> refused = refused_request(r))
    return fail(refused->exit_code, refused->message);
  const fs::path out(r.out);
  auto lock = claim_folder(r); // held until the last fold ends
  if (!lock) return fail(lock.error().exit_code, lock.error().message);
  // An unfinished cross-validation says so until its last fold ends.
  if (Status<AppError> s =
          write_json(out / kSummary, {{"folds", r.run.folds}, {"finished", false}});
      !s)
    return fail(s.error().exit_code, s.error().message);
  auto summaries = train_folds(m, r);
  if (!summaries) return summaries.error();
  const nlohmann::ordered_json stats = fold_statistics(summaries.value());
  if (Status<AppError> s =
          write_json(out / kSummary, finished_summary(m, r, summaries.value(), stats));
      !s)
    return fail(s.error().exit_code, s.error().message);
  print_table(summaries.value(), stats, metric_of(summaries.value().front()), out);
  return kOk;
}

} // namespace plastic::rt
