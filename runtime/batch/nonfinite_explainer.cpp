// The process-wide non-finite explainer (see nonfinite_explainer.h).
#include "runtime/batch/nonfinite_explainer.h"

#include <utility>

namespace plastic::rt {

namespace {
NonFiniteExplainer& installed() {
  static NonFiniteExplainer explainer;
  return explainer;
}
} // namespace

const NonFiniteExplainer& nonfinite_explainer() {
  return installed();
}

NonFiniteExplainerScope::NonFiniteExplainerScope(NonFiniteExplainer explainer)
    : saved_(std::exchange(installed(), std::move(explainer))) {}

NonFiniteExplainerScope::~NonFiniteExplainerScope() {
  installed() = std::move(saved_);
}

} // namespace plastic::rt
