// Making a search's plan from the command line (`plastic tune`): check the
// model, gather the space (the model's `tune` ranges, the training options,
// --space), draw the points, set the rungs, and choose how trials are
// validated. See tune_record.h for what the plan holds.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "compiler/driver/commands.h"
#include "compiler/driver/tune/tune_record.h"
#include "runtime/app/requests.h"

namespace plastic::driver {

/// What the command line asks of a search.
struct TuneRequest {
  std::string file;            ///< the model
  rt::TrainRequest train;      ///< train's options as given (each trial gets them)
  std::set<std::string> given; ///< long names of the options given ("--lr")
  /// The given train options as arguments, to pass to every trial.
  std::vector<std::string> forwarded;
  int64_t trials = 16;
  std::string search = "random";  ///< random | grid
  int64_t grid_points = 3;        ///< per continuous range, for a grid
  std::vector<std::string> space; ///< NAME=RANGE
  int64_t min_epochs = 0;         ///< 0 = epochs / eta²
  int64_t eta = 3;
  int jobs = 0;                   ///< trials at a time; 0 = cores / threads per trial
  std::string selection = "auto"; ///< auto | folds | split
};

/// Below this many samples to train on, `--selection auto` validates each
/// trial by k-fold cross-validation: a 15 % split of them would be fewer
/// than 150 samples, too few to rank settings that differ by a few points.
constexpr int64_t kSmallTrainingSet = 1000;

/// The plan of a new search, or the error (already printed for a model that
/// does not check, as `code`).
Result<TunePlan, rt::AppError> make_plan(const TuneRequest& request, const CommonOptions& common);

} // namespace plastic::driver
