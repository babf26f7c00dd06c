// The initialisers that draw every element independently (see elementwise.h).
#include "runtime/init/elementwise.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "runtime/init/init.h"
#include "runtime/init/param_dims.h"

namespace plastic::rt::init_detail {

namespace {

TrainError bad(const plastic_param& p, const std::string& what, const std::string& advice = {}) {
  return invalid_argument_error(fmt::format("parameter {}: {}", param_label(p), what), advice);
}

void fill_uniform(Rng& rng, double lo, double hi, std::span<double> out) {
  for (double& x : out)
    x = rng.uniform(lo, hi);
}

void fill_normal(Rng& rng, double mean, double stddev, std::span<double> out) {
  for (double& x : out)
    x = mean + stddev * rng.normal();
}

// Fans are decided by the compiler from the tensor's role; a zero here means
// the table is incomplete, and guessing from the shape could silently pick
// the wrong dimension (e.g. for batched heads), so it is an error.
Status<TrainError> need_fan_in(const plastic_param& p) {
  if (p.fan_in > 0) return {};
  return bad(
      p, fmt::format("{} needs fan_in > 0 but the table has {}", init_kind_name(p.init), p.fan_in),
      "this is a bug in the compiler's parameter table (fan_in is set from the tensor's "
      "role); as a workaround initialise it with `init normal` or `init uniform`");
}

Status<TrainError> need_fans(const plastic_param& p) {
  if (p.fan_in > 0 && p.fan_out > 0) return {};
  return bad(p,
             fmt::format("{} needs fan_in and fan_out > 0 but the table has {} and {}",
                         init_kind_name(p.init), p.fan_in, p.fan_out),
             "this is a bug in the compiler's parameter table; as a workaround initialise it "
             "with `init normal` or `init uniform`");
}

} // namespace

bool is_elementwise_kind(int32_t kind) {
  switch (kind) {
  case PLASTIC_INIT_UNIFORM_FAN_IN:
  case PLASTIC_INIT_GLOROT_UNIFORM:
  case PLASTIC_INIT_GLOROT_NORMAL:
  case PLASTIC_INIT_KAIMING_UNIFORM:
  case PLASTIC_INIT_KAIMING_NORMAL:
  case PLASTIC_INIT_ZEROS:
  case PLASTIC_INIT_ONES:
  case PLASTIC_INIT_NORMAL:
  case PLASTIC_INIT_CONSTANT:
  case PLASTIC_INIT_UNIFORM:
    return true;
  default:
    return false;
  }
}

double resolved_gain(const plastic_param& p) {
  const double g = p.init_args[0];
  if (g != 0.0) return g;
  // abi.h: glorot 0 -> 1, kaiming 0 -> sqrt 2 (ReLU gain, torch's kaiming default).
  // Orthogonal: torch's default gain 1; a zero gain would give an all-zero
  // tensor, which nobody asks for on purpose ("unused = 0" in the table).
  switch (p.init) {
  case PLASTIC_INIT_KAIMING_UNIFORM:
  case PLASTIC_INIT_KAIMING_NORMAL:
    return std::numbers::sqrt2;
  default:
    return 1.0;
  }
}

Status<TrainError> fill_elementwise(const plastic_param& p, Rng& rng, std::span<double> out) {
  const double* a = p.init_args;
  const int32_t kind = p.init;
  const bool gained = kind == PLASTIC_INIT_GLOROT_UNIFORM || kind == PLASTIC_INIT_GLOROT_NORMAL ||
                      kind == PLASTIC_INIT_KAIMING_UNIFORM || kind == PLASTIC_INIT_KAIMING_NORMAL;
  const double gain = resolved_gain(p);
  if (gained && !(std::isfinite(gain) && gain > 0))
    return bad(
        p, fmt::format("{} gain must be positive and finite, got {}", init_kind_name(kind), gain));

  switch (kind) {
  case PLASTIC_INIT_UNIFORM_FAN_IN: {
    // torch.nn.Linear.reset_parameters: kaiming_uniform_(a=sqrt 5) on the
    // weight gives bound gain*sqrt(3/fan_in) with gain = sqrt(2/(1+5)), i.e.
    // exactly 1/sqrt(fan_in), the same bound it uses for the bias.
    if (auto s = need_fan_in(p); !s) return s;
    const double bound = 1.0 / std::sqrt(static_cast<double>(p.fan_in));
    fill_uniform(rng, -bound, bound, out);
    return {};
  }
  case PLASTIC_INIT_GLOROT_UNIFORM: {
    if (auto s = need_fans(p); !s) return s;
    const double bound = gain * std::sqrt(6.0 / static_cast<double>(p.fan_in + p.fan_out));
    fill_uniform(rng, -bound, bound, out);
    return {};
  }
  case PLASTIC_INIT_GLOROT_NORMAL: {
    if (auto s = need_fans(p); !s) return s;
    fill_normal(rng, 0.0, gain * std::sqrt(2.0 / static_cast<double>(p.fan_in + p.fan_out)), out);
    return {};
  }
  case PLASTIC_INIT_KAIMING_UNIFORM: {
    if (auto s = need_fan_in(p); !s) return s;
    const double bound = gain * std::sqrt(3.0 / static_cast<double>(p.fan_in));
    fill_uniform(rng, -bound, bound, out);
    return {};
  }
  case PLASTIC_INIT_KAIMING_NORMAL: {
    if (auto s = need_fan_in(p); !s) return s;
    fill_normal(rng, 0.0, gain / std::sqrt(static_cast<double>(p.fan_in)), out);
    return {};
  }
  case PLASTIC_INIT_ZEROS:
    std::fill(out.begin(), out.end(), 0.0);
    return {};
  case PLASTIC_INIT_ONES:
    std::fill(out.begin(), out.end(), 1.0);
    return {};
  case PLASTIC_INIT_CONSTANT:
    if (!std::isfinite(a[0])) return bad(p, fmt::format("constant value {} is not finite", a[0]));
    std::fill(out.begin(), out.end(), a[0]);
    return {};
  case PLASTIC_INIT_NORMAL:
    if (!(std::isfinite(a[0]) && a[0] >= 0 && std::isfinite(a[1])))
      return bad(
          p, fmt::format("normal(std {}, mean {}) needs a finite std >= 0 and mean", a[0], a[1]));
    fill_normal(rng, a[1], a[0], out);
    return {};
  case PLASTIC_INIT_UNIFORM:
    if (!(std::isfinite(a[0]) && std::isfinite(a[1]) && a[0] <= a[1]))
      return bad(p, fmt::format("uniform({}, {}) needs finite bounds with lo <= hi", a[0], a[1]));
    fill_uniform(rng, a[0], a[1], out);
    return {};
  default:
    return bad(p, fmt::format("init kind {} is not an elementwise kind", kind),
               "this is a bug in Plastic's runtime/init dispatch");
  }
}

} // namespace plastic::rt::init_detail
