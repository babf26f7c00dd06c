// Checks of single command-line values, as CLI11 validators, so a bad value
// is refused while the command line is parsed — before any data is read or
// any kernel compiled — with exit code 2 and the option's name. CLI11's own
// numeric checks let NaN through (NaN <= 0 is false) and its unsigned
// conversion turns "-1" into 2^64 - 1; these do not.
#pragma once

#include <CLI/CLI.hpp>

namespace plastic::rt {

/// A finite number (not NaN, not ±inf).
CLI::Validator finite_number();
/// A finite number > 0.
CLI::Validator positive_finite();
/// A finite number >= 0.
CLI::Validator non_negative_finite();
/// A fraction of the samples to hold out for validation: in (0, 0.8], so
/// that training (and a 15 % test part) keep samples.
CLI::Validator validation_fraction();
/// A share of a set: (0, 1].
CLI::Validator share_fraction();
/// An integer in [lo, hi], written as digits (no "1e20", no sign on unsigned options).
CLI::Validator integer_in(long long lo, long long hi);
/// Any text but the empty one (a path, say).
CLI::Validator non_empty();

} // namespace plastic::rt
