// The n-bit flip-flop task, generated (paper 003, Kim, Can & Krishnamurthy,
// Sec. 6.1 and App. F.1-F.2; after Sussillo & Barak 2013).
//
// The data set Plastic trains on when no data is given: nothing to
// download, and a task the gated neural ODEs of the zoo were made for. Each
// trial is 1 s binned into 100 bins of 10 ms. The number of pulses (over all
// channels) is Poisson with mean 12; their bins are drawn without
// replacement from the 100 bins and each goes to a uniformly chosen channel.
// A pulse is 20 ms wide (2 bins). Its value is +1 or -1 (fixed amplitude,
// App. F.1) or uniform in [-1, 1] (variable amplitude, App. F.2). The target
// of every channel at every bin is the value of that channel's most recent
// pulse (0 before the first one), so the network must hold n continuous
// memories. Paper sizes: 600 trials, 500 for training, 100 for validation.
//
// Time stamps are the n + 1 bin edges t_0 .. t_n: the input of bin i is
// observed at its start t_i, and its target at its end t_{i+1} (t_0 has no
// target, t_n an input of 0). This is the discrete-time reading of the
// paper's networks, h_i = f(h_{i-1}, x_i) and y_i = W h_i (App. E.3:
// forward Euler, one step per bin): a forward-Euler step from t_i to t_{i+1} reads
// x(t_i), the bin's input, and the output at t_{i+1} is compared with the
// bin's target. With input and target both stamped at the bin's start the
// state at t_i has not seen the pulse of bin i, and every change of a held
// value costs one bin's error: an MSE floor of about 0.07 on the
// fixed-amplitude task (0.02 on the variable one) that no training removes.
//
// Randomness comes from std::mt19937_64, whose output sequence the C++
// standard fixes, turned into uniforms and Poisson draws here (not by
// <random>'s distributions, which differ between standard libraries), so a
// seed gives the same trials everywhere.
#pragma once

#include <cstdint>

#include "runtime/data/dataset.h"

namespace plastic::rt {

struct FlipFlopOptions {
  int bits = 3;                   ///< n channels
  int64_t trials = 600;           ///< App. F: 600 (500 train + 100 validation)
  int bins = 100;                 ///< 1 s of 10 ms bins
  double bin_width = 0.01;        ///< seconds; observation i is at time i * bin_width
  int pulse_bins = 2;             ///< 20 ms pulses
  double mean_pulses = 12;        ///< Poisson mean of the pulse count per trial
  bool variable_amplitude = true; ///< App. F.2 (U[-1, 1]) vs F.1 (+-1)
  uint64_t seed = 0;
};

/// A RegressionPerStep data set: channels "in0".."in{n-1}", targets
/// "out0".."out{n-1}"; bins + 1 observations per trial, every one but the
/// first with a target.
Dataset make_flipflop(const FlipFlopOptions& options);

} // namespace plastic::rt
