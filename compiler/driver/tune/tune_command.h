// `plastic tune MODEL --data D`: search the learning rate, weight decay,
// batch size and the model's `tune` dims and consts for the setting that
// validates best, by random or grid search with successive halving
// (halving.h). Trials are ordinary `train` runs (job_pool.h) in the search's
// folder, validated by k-fold cross-validation on small training sets and
// by a validation split on large ones; the best becomes OUT/best, an
// ordinary run folder that `eval`, `predict` and `build --run` take as it is.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compiler/driver/commands.h"

namespace plastic::driver {

class TuneCommand {
public:
  /// Registers `tune` on `app`: train's options (each trial gets those
  /// given) and the search's own; `add_model_options` adds --set and the
  /// driver's other model-file options.
  TuneCommand(CLI::App& app, const std::function<void(CLI::App*)>& add_model_options);
  ~TuneCommand();
  /// The exit code of `tune`, or nullopt when it was not the command given.
  std::optional<int> run(const CommonOptions& common);

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace plastic::driver
