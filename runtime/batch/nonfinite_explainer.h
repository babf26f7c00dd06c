// Where a non-finite value came from: the hook a training or evaluation run
// calls when a batch meets inf or NaN (a solver failure, a non-finite loss
// or gradient), so that something that knows the model's source can say
// which operation of the model produced it.
//
// The runtime knows only kernels, not the model file, so it cannot point at
// a source line itself. The `plastic` driver, which has the model's IR,
// installs an explainer (compiler/analysis/nonfinite_locator.h) for the
// duration of a command; model binaries built ahead of time install none
// and report failures as before. The explainer only describes: the run then
// skips the batch or stops exactly as it would without it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/batch/installed_hook.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

/// Which pass of a batch met the non-finite value.
enum class NonFinitePass { Forward, Backward };

/// Everything known about one batch that met a non-finite value.
struct NonFiniteEvent {
  NonFinitePass pass = NonFinitePass::Forward;
  int64_t epoch = -1; ///< -1 outside training (evaluation)
  int64_t batch = -1; ///< batch index in its epoch; -1 outside training
  /// Data set indices of the batch's samples, in batch order.
  std::vector<int64_t> samples;
  const PreparedData* data = nullptr;
  std::vector<double> params; ///< the parameters the batch ran with, widened to f64
  /// The solver's report when the solve itself failed (its sample and t
  /// are set then); kind Internal with an empty message otherwise.
  SolveFailure failure;
};

/// Returns a located diagnostic (several lines, no trailing newline), or ""
/// when it cannot tell where the value came from.
using NonFiniteExplainer = std::function<std::string(const NonFiniteEvent&)>;

/// The process's non-finite explainer (empty when none is installed).
inline const NonFiniteExplainer& nonfinite_explainer() {
  return installed_hook<NonFiniteExplainer>();
}

/// Installs one until the guard dies (the previous one is restored then).
using NonFiniteExplainerScope = HookScope<NonFiniteExplainer>;

/// Widens a parameter vector to f64 for an event.
template <class T> std::vector<double> widen(std::span<const T> values) {
  return std::vector<double>(values.begin(), values.end());
}

/// For a run outside training (evaluation, prediction) whose solve failed:
/// "\n" and the installed explainer's diagnostic, or "" (none installed, a
/// failure that is not numerical, or nothing found).
template <class T>
std::string explain_failure(const SolveFailure& failure, const PreparedData& data,
                            std::span<const int64_t> samples, std::span<const T> params) {
  if (!nonfinite_explainer() || failure.kind != FailureKind::NonFiniteState) return {};
  NonFiniteEvent e;
  e.samples.assign(samples.begin(), samples.end());
  e.data = &data;
  e.params = widen<T>(params);
  e.failure = failure;
  std::string where = nonfinite_explainer()(e);
  return where.empty() ? where : "\n" + where;
}

} // namespace plastic::rt
