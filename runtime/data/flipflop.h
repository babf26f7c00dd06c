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
/// "out0".."out{n-1}", every target defined at every bin.
Dataset make_flipflop(const FlipFlopOptions& options);

} // namespace plastic::rt
