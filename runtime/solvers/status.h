// Failures as values: what the solvers and gradient methods return instead of
// crashing or throwing.
//
// A failed solve says which sample, at which time and with which step size it
// failed, and gives advice a user can act on (in the spirit of diffrax's
// error messages). Nothing in the numerical code throws; the public entry
// points also catch allocation failures and exceptions thrown by caller
// callbacks and turn them into a Status<SolveFailure>; a value comes back as
// a Result<V, SolveFailure> (runtime/support/result.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "runtime/support/result.h"

namespace plastic::rt {

/// Why a solve or gradient computation stopped.
enum class FailureKind {
  InvalidModel,      ///< the ABI table is inconsistent or lacks a needed kernel
  InvalidArgument,   ///< bad options, times or buffers from the caller
  NonFiniteState,    ///< the state (or error estimate) became inf/NaN
  StepSizeUnderflow, ///< the adaptive step size fell below dt_min or round-off
  MaxStepsExceeded,  ///< more than max_steps steps were attempted
  Interrupted,       ///< SIGINT/SIGTERM arrived while an InterruptGuard lives
  Internal,          ///< out of memory, or an exception from a caller callback
};

/// Short lower-case name ("step size underflow").
const char* failure_kind_name(FailureKind kind);

/// A failure with its location and advice.
struct SolveFailure {
  FailureKind kind = FailureKind::Internal;
  int lane = -1;       ///< lane of the tile that failed, -1 if not lane specific
  int64_t sample = -1; ///< sample index (tile's first sample + lane), -1 if unknown
  double t = std::numeric_limits<double>::quiet_NaN(); ///< time of failure
  double h = std::numeric_limits<double>::quiet_NaN(); ///< step size in use
  std::string message;                                 ///< what happened, with numbers
  std::string advice;                                  ///< what to try

  /// "step size underflow at t=0.99999 in sample 5: ... Advice: ..."
  std::string describe() const;
};

/// Shorthands used across the runtime.
SolveFailure invalid_model(std::string message, std::string advice = {});
SolveFailure invalid_argument(std::string message, std::string advice = {});
SolveFailure internal_failure(std::string message);

} // namespace plastic::rt
