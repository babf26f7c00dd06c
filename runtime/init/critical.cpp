// Critical initialisation of neural ODEs, paper 003 Sec. 4 (see critical.h).
#include "runtime/init/critical.h"

#include <cmath>

#include <fmt/format.h>

#include "runtime/init/param_dims.h"

namespace plastic::rt::init_detail {

double critical_sigma_w(int64_t layers) {
  // App. A Eq. 60: sigma_w* = sqrt(2^(1 - 1/L)).
  return std::sqrt(std::pow(2.0, 1.0 - 1.0 / static_cast<double>(layers)));
}

Status<TrainError> fill_critical(const plastic_param& p, int64_t group_layers, Rng& rng,
                                 std::span<double> out) {
  const double* a = p.init_args;
  if (p.rank <= 1) {
    // Bias b^l: N(0, 1e-6), App. H.2-H.4.
    const double sd = std::sqrt(kCriticalBiasVariance);
    for (double& x : out)
      x = sd * rng.normal();
    return {};
  }
  if (p.fan_in <= 0)
    return invalid_argument_error(
        fmt::format("parameter {}: critical init needs fan_in > 0 (N_l of paper 003 Eq. 5) but "
                    "the table has {}",
                    param_label(p), p.fan_in),
        "this is a bug in the compiler's parameter table");
  double sigma_w = a[0];
  if (sigma_w == 0.0) {
    int64_t layers = 0;
    if (a[1] != 0.0) {
      if (!(a[1] >= 1 && std::floor(a[1]) == a[1]))
        return invalid_argument_error(
            fmt::format("parameter {}: critical init layers (init_args[1]) must be a whole number "
                        ">= 1, got {}",
                        param_label(p), a[1]));
      layers = static_cast<int64_t>(a[1]);
    } else {
      layers = group_layers;
    }
    if (layers < 1)
      return invalid_argument_error(
          fmt::format("parameter {}: critical init needs the MLP depth L (paper 003 Eq. 60) but "
                      "init_args[1] is 0 and the parameter has no init_group of critical layers",
                      param_label(p)),
          "give the depth (`init critical(layers 3)`) or put the MLP's weights in one init_group");
    sigma_w = critical_sigma_w(layers);
  }
  if (!(std::isfinite(sigma_w) && sigma_w > 0))
    return invalid_argument_error(
        fmt::format("parameter {}: critical sigma_w must be positive and finite, got {}",
                    param_label(p), sigma_w));
  // Eq. 5: W_ij ~ N(0, sigma_w^2 / N_l), N_l = fan_in.
  const double sd = sigma_w / std::sqrt(static_cast<double>(p.fan_in));
  for (double& x : out)
    x = sd * rng.normal();
  return {};
}

} // namespace plastic::rt::init_detail
