// The stability line `plastic train` prints at initialisation: a hook the
// driver fills in, because the Jacobian of the field comes from the
// model's symbolic derivatives, which the runtime does not have (see
// compiler/analysis/stability.h). Model binaries install none and print
// nothing.
#pragma once

#include <functional>
#include <span>
#include <string>

namespace plastic::rt {

/// One line of the report, and a warning when eigenvalues fall outside the
/// solver's stability region ("" when none do).
struct StabilitySummary {
  std::string line;
  std::string warning;
};

/// The report for the parameters about to be trained (widened to f64).
using StabilityReporter = std::function<StabilitySummary(std::span<const double> params)>;

/// The process's reporter (empty when none is installed).
const StabilityReporter& stability_reporter();

/// Installs `reporter` until the guard dies (the previous one is restored).
/// Not thread safe: install before a run starts.
class StabilityReporterScope {
public:
  explicit StabilityReporterScope(StabilityReporter reporter);
  ~StabilityReporterScope();
  StabilityReporterScope(const StabilityReporterScope&) = delete;
  StabilityReporterScope& operator=(const StabilityReporterScope&) = delete;

private:
  StabilityReporter saved_;
};

} // namespace plastic::rt
