// A terminal progress bar for training epochs and evaluation passes.
//
// On a terminal it redraws one line in place with '\r' at most every
// `min_interval` seconds (10 Hz by default):
//   epoch 3/100  45% [=========>           ] 450/1000 00:12<00:15 37.5 it/s loss 0.1234 acc 0.912
// When the stream is not a terminal (CI logs, files) carriage returns would
// garble the log, so it prints plain lines instead — one per update, but no
// more often than every `plain_interval` seconds and every `plain_percent`
// percent of progress — plus a final line. Time comes from an injectable
// clock so tests are deterministic; output goes to a FILE* or a sink.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

namespace plastic::rt {

struct ProgressOptions {
  std::string label;       ///< "epoch 3/100"
  std::string unit = "it"; ///< "it", "samples", "batches"
  std::string metric_name = "metric";
  /// Terminal mode: -1 detects (isatty of the stream), 0 plain lines, 1 redraw in place.
  int tty = -1;
  int width = 0;                              ///< line width; 0 = the terminal's (or 100)
  double min_interval = 0.1;                  ///< seconds between redraws on a terminal
  double plain_interval = 10.0;               ///< seconds between plain lines at least
  double plain_percent = 10.0;                ///< percent of progress between plain lines at least
  std::FILE* stream = stderr;                 ///< where to write unless `sink` is set
  std::function<void(std::string_view)> sink; ///< replaces `stream` (tests)
  std::function<double()> clock;              ///< seconds; default steady_clock
};

class ProgressBar {
public:
  /// A bar for `total` items (0 or less: unknown total, no percentage or ETA).
  ProgressBar(int64_t total, ProgressOptions options = {});
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Reports `done` items finished, with the running loss and metric (NaN: not shown).
  /// Draws only when the rate limits allow.
  void update(int64_t done, double loss = std::numeric_limits<double>::quiet_NaN(),
              double metric = std::numeric_limits<double>::quiet_NaN());
  /// Draws the final state and ends the line. Called by the destructor if needed.
  void finish();

  /// The line for the current state, without '\r' or padding (tests, logs).
  std::string line() const;
  bool tty() const { return tty_; }

private:
  void emit(std::string_view text);
  double now() const;

  int64_t total_;
  ProgressOptions o_;
  bool tty_ = false;
  int width_ = 100;
  double start_ = 0;
  double last_draw_ = -1;
  double last_bucket_ = 0; ///< progress bucket of the last plain line
  size_t last_len_ = 0;
  int64_t done_ = 0;
  double loss_ = std::numeric_limits<double>::quiet_NaN();
  double metric_ = std::numeric_limits<double>::quiet_NaN();
  bool finished_ = false;
  bool drawn_ = false;
  int64_t plain_done_ = -1; ///< `done` of the last plain line
};

/// "01:05", "1:02:03" (hours only when needed); "--:--" for unknown.
std::string format_clock(double seconds);

} // namespace plastic::rt
