// Learning-curve plots (`--plot`): a gnuplot script and data file next to
// the PNG, rendered by running gnuplot.
//
// The loss curves (train, valid) use the left axis and the validation metric
// the right one; a dashed line marks the best epoch. The script picks the
// cairo PNG terminal when this gnuplot has it and falls back to the libgd
// `png` terminal (Debian's gnuplot-nox has both). The files are guarded as
// plot_writer.h says: without gnuplot the data and script are still written
// and the error says how to render them later; nothing here can crash a
// training run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/io/epoch_log.h"
#include "runtime/io/plot_writer.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

struct PlotOptions {
  std::string title = "learning curve";
  bool log_loss = false;           ///< logarithmic loss axis
  int width = 960, height = 540;   ///< pixels
  std::string gnuplot = "gnuplot"; ///< program name (looked up on PATH) or path
  /// Epoch marked "best"; -1 picks the highest metric (else the lowest valid loss).
  int64_t best_epoch = -1;
};

/// Writes `<png stem>.dat` and `.gp` next to `png` and runs gnuplot on them.
/// Unavailable when gnuplot is missing or fails (with its message); Io when
/// `png` cannot take a plot.
Result<PlotFiles, TrainError> plot_learning_curve(const std::vector<EpochRecord>& records,
                                                  const std::filesystem::path& png,
                                                  const PlotOptions& options = {});

} // namespace plastic::rt
