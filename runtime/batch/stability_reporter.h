// The stability line `plastic train` prints at initialisation: a hook the
// driver fills in, because the Jacobian of the field comes from the
// model's symbolic derivatives, which the runtime does not have (see
// compiler/analysis/stability.h). Model binaries install none and print
// nothing.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "runtime/batch/installed_hook.h"

namespace plastic::rt {

/// One line of the report, and a warning when eigenvalues fall outside the
/// solver's stability region ("" when none do).
struct StabilitySummary {
  std::string line;
  std::string warning;
};

/// The report for the parameters about to be trained (widened to f64).
using StabilityReporter = std::function<StabilitySummary(std::span<const double> params)>;

/// The process's stability reporter (empty when none is installed).
inline const StabilityReporter& stability_reporter() {
  return installed_hook<StabilityReporter>();
}

/// Installs one until the guard dies (the previous one is restored then).
using StabilityReporterScope = HookScope<StabilityReporter>;

} // namespace plastic::rt
