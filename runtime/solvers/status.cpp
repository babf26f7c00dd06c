// Text of failures: the one place that formats a SolveFailure for people.
#include "runtime/solvers/status.h"

#include <fmt/format.h>

#include <cmath>

namespace plastic::rt {

const char* failure_kind_name(FailureKind kind) {
  switch (kind) {
  case FailureKind::InvalidModel:
    return "invalid model";
  case FailureKind::InvalidArgument:
    return "invalid argument";
  case FailureKind::NonFiniteState:
    return "non-finite state";
  case FailureKind::StepSizeUnderflow:
    return "step size underflow";
  case FailureKind::MaxStepsExceeded:
    return "max_steps exceeded";
  case FailureKind::Interrupted:
    return "interrupted";
  case FailureKind::Internal:
    return "internal error";
  }
  return "unknown failure";
}

std::string SolveFailure::describe() const {
  std::string out = failure_kind_name(kind);
  if (!std::isnan(t)) out += fmt::format(" at t={:.10g}", t);
  if (sample >= 0)
    out += fmt::format(" in sample {}", sample);
  else if (lane >= 0)
    out += fmt::format(" in lane {}", lane);
  if (!message.empty()) out += ": " + message;
  if (!advice.empty()) out += " Advice: " + advice;
  return out;
}

SolveFailure invalid_model(std::string message, std::string advice) {
  SolveFailure f;
  f.kind = FailureKind::InvalidModel;
  f.message = std::move(message);
  f.advice = advice.empty() ? "this is a bug in the code that produced the model table "
                              "(the compiler, or a hand-written kernel table)"
                            : std::move(advice);
  return f;
}

SolveFailure invalid_argument(std::string message, std::string advice) {
  SolveFailure f;
  f.kind = FailureKind::InvalidArgument;
  f.message = std::move(message);
  f.advice = std::move(advice);
  return f;
}

SolveFailure internal_failure(std::string message) {
  SolveFailure f;
  f.kind = FailureKind::Internal;
  f.message = std::move(message);
  return f;
}

} // namespace plastic::rt
