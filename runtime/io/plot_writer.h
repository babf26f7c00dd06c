// The files of one plot: a PNG rendered by gnuplot, with the data and the
// script that drew it beside it (`<stem>.dat`, `<stem>.gp`: the user can
// edit the script and render it again).
//
// Plots are user-facing files like CSVs and checkpoints, so they get the
// same guard: the PNG must be a regular file or nothing yet, in an existing
// folder — a device (/dev/full), a FIFO or a folder is refused before any
// file is written. gnuplot draws into a temporary beside the PNG that is
// renamed over it only when it holds an image, so a failed render leaves
// the old PNG as it was. A failure (gnuplot's, a full disk) removes every
// file this plot wrote and says why; only a missing gnuplot keeps the data
// and the script, with the command that renders them later.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// The files a rendered plot consists of.
struct PlotFiles {
  std::filesystem::path png, script;
};

class PlotWriter {
public:
  /// Checks that `png` can take a plot (see above).
  static Result<PlotWriter, TrainError> open(const std::filesystem::path& png);

  PlotWriter(PlotWriter&& other) noexcept;
  PlotWriter& operator=(PlotWriter&&) = delete;
  PlotWriter(const PlotWriter&) = delete;
  PlotWriter& operator=(const PlotWriter&) = delete;
  /// Removes the files written unless render() succeeded or gnuplot was missing.
  ~PlotWriter();

  /// The PNG, absolute, symbolic links resolved.
  const std::filesystem::path& png() const { return png_; }
  /// The PNG's path with `suffix` for its extension (".dat", ".region.dat").
  std::filesystem::path beside(std::string_view suffix) const;
  /// Writes a data file the script reads (atomically), remembering it.
  Status<TrainError> write(const std::filesystem::path& file, std::string_view text);
  /// Writes `script` as `<stem>.gp` and has `gnuplot` render it into png().
  /// The script's `set output` line is pointed at the temporary while it runs.
  Result<PlotFiles, TrainError> render(const std::string& script,
                                       const std::string& gnuplot = "gnuplot");

private:
  explicit PlotWriter(std::filesystem::path png) : png_(std::move(png)) {}

  std::filesystem::path png_;
  std::vector<std::filesystem::path> written_;
  bool keep_ = false;
};

/// A gnuplot single-quoted string: no escapes except '' for a quote.
std::string gnuplot_quote(const std::string& s);

/// The program `name` as PATH would find it, or nullopt.
std::optional<std::filesystem::path> find_executable(const std::string& name);

} // namespace plastic::rt
