// check_step_count (see step_count.h).
#include "runtime/batch/step_count.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

/// What to do when the times are right and the series is this long.
std::string if_really_this_long(const SolverOptions& solver, double steps) {
  if (!std::isfinite(steps) || steps > 1e12)
    return fmt::format("No step limit makes {:.3g} steps solvable: if the times are right, take a "
                       "larger step (`solve {} step S`)",
                       steps, solver.tableau->name);
  // 10 % of room, rounded up to two significant digits.
  const double room = steps * 1.1;
  const double unit = std::pow(10.0, std::floor(std::log10(room)) - 1);
  return fmt::format("If the series really is this long, raise the limit on the model's solve "
                     "line: `solve {} step {:g} max_steps {:.0f}`",
                     solver.tableau->name, solver.step, std::ceil(room / unit) * unit);
}

} // namespace

Status<SolveFailure> check_step_count(const SolverOptions& solver, const PreparedSample& sample,
                                      const std::string& label) {
  if (solver.adaptive() || !(solver.step > 0)) return {};
  const double steps = (sample.t_end - sample.t0) / solver.step;
  const int64_t limit = solver.step_limit();
  if (!std::isfinite(steps) || steps > static_cast<double>(limit))
    return invalid_argument(
        fmt::format("{}: the series runs from t={:g} to t={:g}: {:.3g} steps of {} at step {:g}, "
                    "more than max_steps ({})",
                    label, sample.t0, sample.t_end, steps, solver.tableau->name, solver.step,
                    limit),
        fmt::format("check the data's time column (a CSV's --time, a .ts file's timestamps, the "
                    "times of an .npy folder): its values are probably in another unit than the "
                    "step (nanoseconds, a date read as a number). {}",
                    if_really_this_long(solver, steps)));
  // Far from 0 a small step is lost in the rounding of t + h (a double holds
  // 16 digits): demand 12 of them for the step.
  const double magnitude = std::max(std::abs(sample.t0), std::abs(sample.t_end));
  if (solver.step < 1e-12 * magnitude)
    return invalid_argument(
        fmt::format("{}: the step {:g} is below the resolution of its times (t near {:g})", label,
                    solver.step, magnitude),
        "shift the times to start near 0 (e.g. seconds since the series began) or take a larger "
        "step");
  return {};
}

} // namespace plastic::rt
