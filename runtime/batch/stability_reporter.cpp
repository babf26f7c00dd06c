// The process-wide stability reporter (see stability_reporter.h).
#include "runtime/batch/stability_reporter.h"

#include <utility>

namespace plastic::rt {

namespace {
StabilityReporter& installed() {
  static StabilityReporter reporter;
  return reporter;
}
} // namespace

const StabilityReporter& stability_reporter() {
  return installed();
}

StabilityReporterScope::StabilityReporterScope(StabilityReporter reporter)
    : saved_(std::exchange(installed(), std::move(reporter))) {}

StabilityReporterScope::~StabilityReporterScope() {
  installed() = std::move(saved_);
}

} // namespace plastic::rt
