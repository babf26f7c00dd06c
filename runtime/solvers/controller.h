// Step-size control for the embedded pairs (bosh3, dopri5, tsit5).
//
// PI controller (Gustafsson 1991; Hairer & Wanner, Solving ODEs II,
// Sec. IV.2, and the DOPRI5 code of Hairer, Nørsett & Wanner I, Sec. II.5):
//   h_new = h * clamp(safety * err^-alpha * err_prev^beta, facmin, facmax),
// with k = min(order, embedded order) + 1, alpha = 0.7/k, beta = 0.4/k. The
// integral part alone (beta = 0) is the textbook controller; the
// proportional part damps the oscillation of h on mildly stiff problems.
// After a rejection the step may not grow (facmax = 1), as in DOPRI5.
//
// The error `err` is Hairer's RMS norm of the embedded error estimate per
// lane, maximised over the active lanes of the tile (tile_ops.h). A
// non-finite norm is a rejection with the smallest factor.
#pragma once

#include <algorithm>
#include <cmath>

#include "runtime/solvers/tableau.h"

namespace plastic::rt {

class PiController {
public:
  explicit PiController(const ButcherTableau& tab) {
    const double k = std::min(tab.order, tab.embedded_order) + 1.0;
    alpha_ = 0.7 / k;
    beta_ = 0.4 / k;
  }

  struct Decision {
    bool accept;
    double factor; ///< multiply |h| by this for the next attempt
  };

  /// Decides on a step whose error norm is `err` (<= 1 accepts).
  Decision decide(double err) {
    if (!std::isfinite(err)) {
      rejected_last_ = true;
      return {false, facmin_};
    }
    if (err <= 1.0) {
      const double e = std::max(err, 1e-10);
      double f = safety_ * std::pow(e, -alpha_) * std::pow(err_prev_, beta_);
      f = std::clamp(f, facmin_, rejected_last_ ? 1.0 : facmax_);
      err_prev_ = std::max(err, 1e-4);
      rejected_last_ = false;
      return {true, f};
    }
    rejected_last_ = true;
    const double f = std::clamp(safety_ * std::pow(err, -alpha_), facmin_, 1.0);
    return {false, f};
  }

private:
  double alpha_ = 0.2, beta_ = 0.0;
  double safety_ = 0.9, facmin_ = 0.2, facmax_ = 10.0;
  double err_prev_ = 1e-4;
  bool rejected_last_ = false;
};

} // namespace plastic::rt
