// A new search's plan (see tune_plan.h).
#include "compiler/driver/tune/tune_plan.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "compiler/driver/load_model.h"
#include "compiler/driver/tune/halving.h"
#include "dsl/frontend.h"
#include "runtime/app/model_data.h"
#include "runtime/app/model_hash.h"

namespace plastic::driver {

namespace {

namespace fs = std::filesystem;
using rt::AppError;
using rt::kInputError;
using rt::kUsageError;

/// The training options a search may vary, with the range searched when
/// the command line neither fixes nor gives one.
struct OptionRange {
  const char* name;
  const char* default_range; ///< empty: searched only when --space names it
  bool integer;
};
constexpr OptionRange kOptions[] = {
    {"lr", "log(1e-4, 1e-2)", false},
    {"weight-decay", "[0, 1e-5, 1e-4, 1e-3]", false},
    {"batch", "[16, 32, 64]", true},
    {"momentum", "", false},
    {"clip", "", false},
    {"input-noise", "", false},
};

const OptionRange* option_range(const std::string& name) {
  for (const OptionRange& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

/// The model's dims and consts, checked with the command's --set values
/// (and the data's channels and classes for `dim d from data.X`).
Result<std::vector<dsl::DimValue>, AppError> model_dims(const TuneRequest& r,
                                                        const CommonOptions& common) {
  CommonOptions c = common;
  if (dsl::declares_data_dims(r.file)) {
    auto q = rt::data_quantities(r.train.run);
    if (!q) return q.error();
    c.data_quantities = std::move(q).value();
    c.data_name = r.train.run.data;
  }
  int code = kOk;
  auto fns = load_model(r.file, c, code);
  if (!fns) return AppError{code, ""}; // its diagnostics are printed
  return fns->model->dims;
}

/// The space: the model's `tune` ranges and the training options not fixed
/// on the command line, then --space, which adds or replaces.
Result<SearchSpace, AppError> gather_space(const TuneRequest& r, const CommonOptions& common,
                                           const std::vector<dsl::DimValue>& dims) {
  SearchSpace space;
  for (const OptionRange& o : kOptions)
    if (*o.default_range && r.given.count(std::string("--") + o.name) == 0)
      space.dims.push_back(
          {o.name, parse_range(o.default_range).value(), o.integer, true, "default"});
  for (const dsl::DimValue& d : dims)
    if (d.tune && common.overrides.count(d.name) == 0)
      space.dims.push_back({d.name, *d.tune, !d.is_const, false, "model"});
  for (const std::string& item : r.space) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return AppError{kUsageError, fmt::format("--space {}: expected NAME=RANGE, e.g. "
                                               "--space lr=log(1e-4,1e-2)",
                                               item)};
    const std::string name = item.substr(0, eq);
    auto range = parse_range(item.substr(eq + 1));
    if (!range) return AppError{kUsageError, fmt::format("--space {}: {}", name, range.error())};
    const OptionRange* option = option_range(name);
    auto dim = std::find_if(dims.begin(), dims.end(),
                            [&](const dsl::DimValue& d) { return d.name == name; });
    if (!option && (dim == dims.end() || !dim->from_data.empty()))
      return AppError{kUsageError,
                      fmt::format("--space {}: neither a training option (lr, weight-decay, batch, "
                                  "momentum, clip, input-noise) nor a dim or const of {}",
                                  name, r.file)};
    if (option && r.given.count("--" + name))
      return AppError{kUsageError,
                      fmt::format("--{} is given and --space searches it: give one", name)};
    if (!option && common.overrides.count(name))
      return AppError{kUsageError,
                      fmt::format("--set {} fixes it and --space searches it: give one", name)};
    const bool integer = option ? option->integer : !dim->is_const;
    if (integer)
      for (double v : range.value().values)
        if (v != std::floor(v) || v <= 0)
          return AppError{
              kUsageError,
              fmt::format("--space {}: {} takes positive whole numbers, not {}", name, name, v)};
    TuneDimension d{name, range.value(), integer, option != nullptr, "--space"};
    auto same = std::find_if(space.dims.begin(), space.dims.end(),
                             [&](const TuneDimension& x) { return x.name == name; });
    if (same != space.dims.end())
      *same = d;
    else
      space.dims.push_back(d);
  }
  if (space.dims.empty())
    return AppError{kUsageError,
                    "nothing to search: every training option is fixed on the command line and "
                    "the model marks no dim or const with `tune` (add --space NAME=RANGE)"};
  return space;
}

/// k-fold cross-validation for a small training set, one validation split
/// for a large one (or when the data decide the validation part), and why.
Result<std::pair<int64_t, std::string>, AppError> choose_selection(const TuneRequest& r) {
  const int64_t k = r.train.run.folds >= 2 ? r.train.run.folds : 5;
  const bool fixed_validation =
      !r.train.run.valid.empty() || r.train.run.data.rfind("synthetic:", 0) == 0;
  if (r.selection == "split")
    return std::pair<int64_t, std::string>{0, "a validation split (--selection split)"};
  if (fixed_validation) {
    if (r.selection == "folds")
      return AppError{kUsageError, "--selection folds: the data fix the validation set "
                                   "(--valid, or a synthetic task); use --selection split"};
    return std::pair<int64_t, std::string>{0, "the data's validation set"};
  }
  if (r.selection == "folds")
    return std::pair<int64_t, std::string>{
        k, fmt::format("{}-fold cross-validation (--selection folds)", k)};
  auto pool = rt::training_pool(r.train.run);
  if (!pool) return pool.error();
  const int64_t n = pool.value().samples;
  if (pool.value().given_validation)
    return std::pair<int64_t, std::string>{0, "the data's own validation part"};
  if (n < kSmallTrainingSet)
    return std::pair<int64_t, std::string>{
        k, fmt::format("{}-fold cross-validation: {} samples to train on, fewer than {} "
                       "(--selection split for one validation split)",
                       k, n, kSmallTrainingSet)};
  return std::pair<int64_t, std::string>{
      0, fmt::format("a validation split of {:.0f} %: {} samples to train on "
                     "(--selection folds for cross-validation)",
                     100 * r.train.run.valid_fraction, n)};
}

} // namespace

Result<TunePlan, AppError> make_plan(const TuneRequest& r, const CommonOptions& common) {
  TunePlan plan;
  std::string text, why;
  if (!dsl::read_file(r.file, text, &why))
    return AppError{kInputError, fmt::format("{}: {}", r.file, why)};
  plan.model_file = fs::absolute(r.file).lexically_normal().string();
  plan.model_digest = rt::text_digest(text);
  auto dims = model_dims(r, common);
  if (!dims) return dims.error();
  auto space = gather_space(r, common, dims.value());
  if (!space) return space.error();
  plan.space = std::move(space).value();
  plan.search = r.search;
  plan.seed = r.train.run.seed;
  plan.points = r.search == "grid" ? grid_points(plan.space, r.grid_points)
                                   : random_points(plan.space, r.trials, plan.seed);
  plan.epochs = r.train.epochs;
  plan.eta = r.eta;
  const int64_t min_epochs = r.min_epochs > 0 ? std::min(r.min_epochs, r.train.epochs)
                                              : default_min_epochs(r.train.epochs, r.eta);
  plan.rungs = rung_epochs(r.train.epochs, min_epochs, r.eta);
  auto selection = choose_selection(r);
  if (!selection) return selection.error();
  plan.folds = selection.value().first;
  plan.selection_note = selection.value().second;
  // Trials are compared by their (cross-validated) loss unless --select
  // names a value: averaged over folds it is smooth where accuracy on a
  // few dozen series is not, and it needs no knowledge of the task.
  plan.by = selection_for(r.train.select == "auto" ? "loss" : r.train.select);
  plan.threads = r.train.run.threads > 0 ? r.train.run.threads : 1;
  plan.arguments = r.forwarded;
  return plan;
}

} // namespace plastic::driver
