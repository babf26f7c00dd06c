// Taking a run folder for `train` (see run_folder.h).
#include "runtime/app/run_folder.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;

/// Whether a run writes a file of this name at the top of its folder
/// (train_loop.h, train_app.cpp, preprocessing.h, run_record.h, plot.h,
/// step_log.h, a cross-validation's folds.json and fold-K folders,
/// cross_validation.h, and a search's records and trial-K and best run
/// folders, compiler/driver/tune).
bool is_numbered(const std::string& name, std::string_view prefix) {
  return name.rfind(prefix, 0) == 0 && name.size() > prefix.size() &&
         name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

bool is_run_file(const std::string& name) {
  static constexpr std::array<std::string_view, 14> kNames = {"checkpoints",
                                                              "train.jsonl",
                                                              "model.safetensors",
                                                              "summary.json",
                                                              "data.json",
                                                              "run.json",
                                                              "model.ode",
                                                              "learning_curve.png",
                                                              "learning_curve.dat",
                                                              "learning_curve.gp",
                                                              "learning_curve.gnuplot.log",
                                                              "steps.jsonl",
                                                              "initial.safetensors",
                                                              "last.safetensors"};
  for (std::string_view n : kNames)
    if (name == n) return true;
  for (std::string_view n : {"folds.json", "tune.json", "tune.jsonl", "best", "logs"})
    if (name == n) return true;
  if (is_numbered(name, "fold-") || is_numbered(name, "trial-")) return true;
  return is_temporary_name(name);
}

} // namespace

Result<RunLock, AppError> take_run_folder(const fs::path& dir, bool resume, bool force) {
  auto lock = RunLock::acquire(dir);
  if (!lock) {
    const TrainError& e = lock.error();
    return AppError{kInputError, e.file.empty() ? e.message + " (" + e.advice + ")" : e.describe()};
  }
  std::error_code ec;
  std::vector<fs::path> run_files;
  std::vector<std::string> foreign;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == RunLock::kFileName) continue;
    if (is_temporary_name(name)) { // left by a writer killed mid-write; we own the folder now
      stale.push_back(it->path());
      continue;
    }
    if (is_run_file(name))
      run_files.push_back(it->path());
    else
      foreign.push_back(name);
  }
  if (ec)
    return AppError{kInputError, fmt::format("cannot list {}: {}", dir.string(), ec.message())};
  if (!foreign.empty())
    return AppError{kUsageError,
                    fmt::format("run folder {} holds files Plastic did not write ({}{}); choose "
                                "another --out",
                                dir.string(), foreign.front(), foreign.size() > 1 ? ", ..." : "")};
  for (const fs::path& p : stale)
    if (Status<TrainError> s = remove_file(p); !s) return AppError{kInputError, s.describe()};
  if (run_files.empty()) return std::move(lock).value();
  const bool has_checkpoints = !fs::is_empty(dir / "checkpoints", ec) && !ec;
  const bool finished = fs::exists(dir / "model.safetensors") || fs::exists(dir / "summary.json");
  if (resume) {
    if (has_checkpoints) return std::move(lock).value();
    // A run that stopped before its first checkpoint (killed, a full disk)
    // has nothing to lose: it starts again. A finished one is kept.
    if (finished)
      return AppError{kUsageError,
                      fmt::format("nothing to resume: run folder {} holds a finished run and no "
                                  "checkpoint; replace it with --force or choose another --out",
                                  dir.string())};
  } else if (!force) {
    return AppError{kUsageError,
                    fmt::format("run folder {} already holds a run; continue it with --resume, "
                                "replace it with --force, or choose another --out",
                                dir.string())};
  }
  for (const fs::path& p : run_files) {
    fs::remove_all(p, ec);
    if (ec)
      return AppError{kInputError,
                      fmt::format("cannot remove {} of the old run: {}", p.string(), ec.message())};
  }
  if (Status<TrainError> s = sync_directory(dir); !s) return AppError{kInputError, s.describe()};
  return std::move(lock).value();
}

} // namespace plastic::rt
