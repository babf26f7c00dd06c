// The neural RDE driving signal (paper 002, Eqs. 9–10): the log-ODE method's
// piecewise-constant "dx(t)" made of windowed log-signatures.
//
// Observations t_0 < ... < t_{n-1} are split into windows of `step` samples:
// window i runs from sample i·step to sample min((i+1)·step, n-1), so
// consecutive windows share their boundary sample, r_i = t_{i·step}, and
// r_m = t_{n-1}. There are m = ceil((n-1)/step) windows; when step does not
// divide n-1 the LAST window is shorter (it still holds >= 1 segment). This
// keeps every observation; the reference code (jambo6/neuralRDEs,
// ncdes/data/intervals.py `fixed_step_partition` with its default
// include_end=False) instead drops the trailing partial window.
//
// Over window i the data path is the piecewise-linear interpolation of the
// window's samples (signatory's view of a path); its depth-N log-signature
// LogSig_i has β(d, N) coordinates (words mode by default, as signatory). Then
//     dx(t) = LogSig_i / (r_{i+1} - r_i)        for t in window i,
//     x(t)  = Σ_{j<i} LogSig_j + (t - r_i) dx(t)   (x(r_0) = 0),
// i.e. x is the piecewise-linear path in log-signature space whose derivative
// is the log-ODE driver (the "path in log-signature space" of paper 002 §3).
// At a window boundary `Side` chooses the window (locate.h): Side::right is
// the paper's s ∈ [r_i, r_{i+1}); the default Side::left is torchcde's.
// Outside [r_0, r_m] the first / last window extends.
//
// Missing values (NaN) are forward-filled per channel before anything else,
// as the reference's default imputation ("ffill": experiments/utils/messy.py
// `impute_missing`). The reference then fills leading NaN with the channel's
// mean over the whole dataset and any NaN left with 0; per-series code cannot
// see the dataset, so `leading_fill` takes those per-channel values from the
// data loader, and without it the leading run is back-filled with the first
// observation (torchcde's convention) and a never-observed channel is 0.
//
// The reference code also carries time as channel 0 of its controls;
// `prepend_time` does the same here, making d = channels + 1.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/logsig/logsignature.h"
#include "runtime/paths/locate.h"

namespace plastic::rt {

/// How observations become a log-signature driver (`path[c] logsig(depth N, step s)`).
struct LogSigOptions {
  int depth = 2; ///< truncation depth N >= 1
  int step = 1;  ///< samples per window >= 1
  LogSigMode mode = LogSigMode::words;
  bool prepend_time = false;        ///< add the observation time as channel 0
  std::vector<double> leading_fill; ///< empty, or one value per data channel (see file comment)
};

/// Windowed log-signatures of one series, evaluated as a control path.
/// Immutable once built; const member functions are thread-safe.
class LogSigPath {
public:
  /// An empty driver: a placeholder to assign to, not to evaluate.
  LogSigPath() = default;

  /// Builds from times [n] and values [n][channels] (NaN = missing), n >= 2,
  /// with a temporary LogSignature engine; or says why it cannot (the
  /// observations, step < 1, a leading_fill of the wrong size, a bad depth).
  static Result<LogSigPath, PathError> make(std::span<const double> times,
                                            std::span<const double> values, int channels,
                                            const LogSigOptions& options);

  /// Same, reusing `engine` (its channels must be channels + prepend_time,
  /// its depth and mode those of `options`): build many series with one.
  static Result<LogSigPath, PathError> make(std::span<const double> times,
                                            std::span<const double> values, int channels,
                                            const LogSigOptions& options, LogSignature& engine);

  /// Dimension of dx(t): β(d, N) in words/brackets mode, Σ d^k in expand.
  int channels() const { return channels_; }
  /// d: the data channels, plus one if time was prepended.
  int input_channels() const { return input_channels_; }
  /// Number of windows m.
  int windows() const { return windows_; }
  /// Window boundaries r_0 < ... < r_m.
  std::span<const double> knots() const {
    return {data_.data(), static_cast<std::size_t>(windows_ + 1)};
  }
  /// LogSig of window i, not divided by its length.
  std::span<const double> window_logsig(int i) const {
    return {block(i) + channels_, static_cast<std::size_t>(channels_)};
  }

  /// Window owning time t (see locate.h).
  int locate(double t, Side side = Side::left, int hint = -1) const {
    return locate_interval(knots(), t, side, hint);
  }

  /// x(t) or dx(t) of every coordinate i into out[i * stride]; `hint` as in
  /// CubicPath::evaluate.
  template <class T>
  void evaluate(double t, Quantity q, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
                int* hint = nullptr) const;
  template <class T>
  void value(double t, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
             int* hint = nullptr) const {
    evaluate(t, Quantity::value, out, stride, side, hint);
  }
  template <class T>
  void derivative(double t, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
                  int* hint = nullptr) const {
    evaluate(t, Quantity::derivative, out, stride, side, hint);
  }

private:
  Status<PathError> build(std::span<const double> times, std::span<const double> values,
                          int channels, const LogSigOptions& options, LogSignature& engine);
  // Layout: knots (m+1), 1/(r_{i+1}-r_i) (m), then per window [x(r_i), LogSig_i].
  const double* inv_length() const { return data_.data() + windows_ + 1; }
  const double* block(int i) const {
    return data_.data() + 2 * windows_ + 1 + static_cast<std::ptrdiff_t>(i) * 2 * channels_;
  }

  int channels_ = 0;
  int input_channels_ = 0;
  int windows_ = 0;
  std::vector<double> data_;
};

template <class T>
void LogSigPath::evaluate(double t, Quantity q, T* out, std::ptrdiff_t stride, Side side,
                          int* hint) const {
  const int i = locate(t, side, hint ? *hint : -1);
  if (hint) *hint = i;
  const double* start = block(i);
  const double* logsig = start + channels_;
  const double rate = inv_length()[i];
  if (q == Quantity::derivative) {
    for (int k = 0; k < channels_; ++k)
      out[k * stride] = static_cast<T>(logsig[k] * rate);
  } else {
    const double frac = (t - data_[static_cast<std::size_t>(i)]) * rate;
    for (int k = 0; k < channels_; ++k)
      out[k * stride] = static_cast<T>(start[k] + frac * logsig[k]);
  }
}

} // namespace plastic::rt
