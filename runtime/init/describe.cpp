// Names and one-line descriptions of initialisers, for model summaries.
// Defaults the initialisers would apply are shown resolved, so the summary
// says what actually happens ("kaiming_normal(gain 1.41421)", not "gain 0").
#include <cmath>

#include <fmt/format.h>

#include "runtime/init/critical.h"
#include "runtime/init/elementwise.h"
#include "runtime/init/init.h"

namespace plastic::rt {

const char* init_kind_name(int32_t kind) {
  switch (kind) {
  case PLASTIC_INIT_UNIFORM_FAN_IN:
    return "uniform_fan_in";
  case PLASTIC_INIT_GLOROT_UNIFORM:
    return "glorot_uniform";
  case PLASTIC_INIT_GLOROT_NORMAL:
    return "glorot_normal";
  case PLASTIC_INIT_KAIMING_UNIFORM:
    return "kaiming_uniform";
  case PLASTIC_INIT_KAIMING_NORMAL:
    return "kaiming_normal";
  case PLASTIC_INIT_ZEROS:
    return "zeros";
  case PLASTIC_INIT_ONES:
    return "ones";
  case PLASTIC_INIT_NORMAL:
    return "normal";
  case PLASTIC_INIT_ORTHOGONAL:
    return "orthogonal";
  case PLASTIC_INIT_CRITICAL:
    return "critical";
  case PLASTIC_INIT_STABILITY_INFORMED:
    return "stability_informed";
  case PLASTIC_INIT_CONSTANT:
    return "constant";
  case PLASTIC_INIT_UNIFORM:
    return "uniform";
  default:
    return "unknown";
  }
}

std::string describe_init(const plastic_param& p) {
  const double* a = p.init_args;
  const char* name = init_kind_name(p.init);
  switch (p.init) {
  case PLASTIC_INIT_UNIFORM_FAN_IN:
    return fmt::format("{}(fan_in {})", name, p.fan_in);
  case PLASTIC_INIT_GLOROT_UNIFORM:
  case PLASTIC_INIT_GLOROT_NORMAL:
  case PLASTIC_INIT_KAIMING_UNIFORM:
  case PLASTIC_INIT_KAIMING_NORMAL:
  case PLASTIC_INIT_ORTHOGONAL:
    return fmt::format("{}(gain {:g})", name, init_detail::resolved_gain(p));
  case PLASTIC_INIT_ZEROS:
  case PLASTIC_INIT_ONES:
    return name;
  case PLASTIC_INIT_CONSTANT:
    return fmt::format("{}({:g})", name, a[0]);
  case PLASTIC_INIT_NORMAL:
    return fmt::format("{}(std {:g}, mean {:g})", name, a[0], a[1]);
  case PLASTIC_INIT_UNIFORM:
    return fmt::format("{}({:g}, {:g})", name, a[0], a[1]);
  case PLASTIC_INIT_CRITICAL:
    if (p.rank <= 1)
      return fmt::format("{}(bias, var {:g})", name, init_detail::kCriticalBiasVariance);
    if (a[0] != 0.0) return fmt::format("{}(sigma_w {:g})", name, a[0]);
    if (a[1] >= 1)
      return fmt::format("{}(sigma_w {:g}, layers {:g})", name,
                         init_detail::critical_sigma_w(static_cast<int64_t>(a[1])), a[1]);
    return fmt::format("{}(layers from group {})", name, p.init_group);
  case PLASTIC_INIT_STABILITY_INFORMED: {
    std::string h = a[0] != 0.0 ? fmt::format("{:g}", a[0]) : std::string("solver step");
    std::string tries = a[2] != 0.0 ? fmt::format("{:g}", a[2]) : std::string("auto");
    return fmt::format("{}(h {}, radius {:g}, tries {}, {}, group {})", name, h,
                       a[1] != 0.0 ? a[1] : 3.0, tries, a[3] != 0.0 ? "complex" : "real",
                       p.init_group);
  }
  default:
    return fmt::format("unknown init kind {}", p.init);
  }
}

} // namespace plastic::rt
