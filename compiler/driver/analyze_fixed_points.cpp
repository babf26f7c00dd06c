// `plastic analyze fixed-points FILE`: the fixed and slow points of a
// model's field with its inputs held at --input, from starts along
// trajectories of --data (or random starts), classified by the Jacobian's
// eigenvalues (compiler/analysis/fixed_points.h); a table or JSON.
#include <iostream>

#include <fmt/format.h>

#include "compiler/analysis/fixed_points.h"
#include "compiler/driver/analyze_setup.h"
#include "compiler/driver/commands.h"

namespace plastic::driver {

int run_analyze_fixed_points(const AnalyzeRequest& r, const CommonOptions& common) {
  int code = kOk;
  std::unique_ptr<AnalyzeSetup> s = prepare_analysis(r, common, code);
  if (!s) return code;
  const analysis::FixedPointReport report =
      analysis::find_fixed_points(*s->fns, s->layout, s->theta, fixed_point_options(r, *s));
  if (r.json) {
    std::cout << analysis::fixed_points_json(report).dump(2) << "\n";
    return kOk;
  }
  std::cout << fmt::format("model                {} ({}), {}\n", s->model().name, r.file,
                           s->parameters_origin(r));
  std::cout << fmt::format("starts from          {}\n", starts_description(r, *s));
  std::cout << analysis::format_fixed_points(report);
  return kOk;
}

} // namespace plastic::driver
