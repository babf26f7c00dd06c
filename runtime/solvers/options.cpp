// SolverOptions: reading the spec's `solve` line and checking the numbers.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "runtime/solvers/problem.h"

namespace plastic::rt {

namespace {
std::string known_methods() {
  std::string names;
  for (const ButcherTableau& t : all_tableaus())
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}
} // namespace

Result<SolverOptions, SolveFailure> SolverOptions::from_desc(const plastic_solver_desc& desc) {
  SolverOptions o;
  const std::string_view name = desc.method ? desc.method : "";
  o.tableau = find_tableau(name);
  if (!o.tableau)
    return invalid_argument(fmt::format("unknown solver method '{}'", name),
                            "use one of: " + known_methods());
  o.step = desc.step;
  if (desc.rtol > 0) o.rtol = desc.rtol;
  if (desc.atol > 0) o.atol = desc.atol;
  o.dt_min = desc.dt_min;
  if (desc.dt_max > 0) o.dt_max = desc.dt_max;
  o.max_steps = desc.max_steps;
  if (Status<SolveFailure> s = o.check(); !s) return s.error();
  return o;
}

Status<SolveFailure> SolverOptions::check() const {
  if (!tableau)
    return invalid_argument("no solver method chosen", "use one of: " + known_methods());
  if (!adaptive() && !(step > 0 && std::isfinite(step)))
    return invalid_argument(
        fmt::format("the fixed-step method {} needs a step size > 0 (got {})", tableau->name, step),
        fmt::format(
            "write e.g. `solve {} step 0.1`, or pick an adaptive method (dopri5, tsit5, bosh3)",
            tableau->name));
  if (adaptive()) {
    if (!(rtol > 0) || !(atol > 0))
      return invalid_argument(fmt::format("rtol and atol must be > 0 (got {}, {})", rtol, atol),
                              "typical values: rtol 1e-4 .. 1e-8, atol 1e-6 .. 1e-10");
    if (!(step >= 0) || !(dt_min >= 0) || !(dt_max > 0) || dt_min > dt_max)
      return invalid_argument(
          fmt::format("bad step bounds: first step {}, dt_min {}, dt_max {}", step, dt_min, dt_max),
          "need 0 <= dt_min <= dt_max and a first step >= 0 (0 chooses it automatically)");
  }
  if (max_steps < 0) return invalid_argument("max_steps must be >= 0", "0 selects the default");
  return {};
}

int64_t SolverOptions::step_limit() const {
  if (max_steps > 0) return max_steps;
  return kDefaultMaxSteps;
}

} // namespace plastic::rt
