// `plastic analyze flow FILE --plot FILE.png`: the flow field of the
// model's field with its inputs held at --input, in the plane of the two
// leading principal components of its trajectories, with the trajectories
// and the fixed points (compiler/analysis/flow.h), drawn with gnuplot.
#include <iostream>

#include <fmt/format.h>

#include "compiler/analysis/flow.h"
#include "compiler/driver/analyze_setup.h"
#include "compiler/driver/commands.h"

namespace plastic::driver {

int run_analyze_flow(const AnalyzeRequest& r, const CommonOptions& common) {
  int code = kOk;
  std::unique_ptr<AnalyzeSetup> s = prepare_analysis(r, common, code);
  if (!s) return code;
  analysis::FlowOptions o;
  o.data = s->train();
  o.samples = r.samples;
  o.input = r.input;
  o.grid = r.grid;
  o.seed = r.seed;
  analysis::FlowField flow;
  try {
    flow = analysis::flow_field(*s->fns, s->layout, s->theta, o);
  } catch (const ir::IRError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", r.file, e.what());
    return kInputError;
  }
  const analysis::FixedPointReport points =
      analysis::find_fixed_points(*s->fns, s->layout, s->theta, fixed_point_options(r, *s));
  std::cout << fmt::format("model                {} ({}), {}\n", s->model().name, r.file,
                           s->parameters_origin(r));
  std::cout << fmt::format("plane                PC 1 and PC 2 of {} trajectories ({:.1f} % and "
                           "{:.1f} % of their variance)\n",
                           flow.trajectories.size(), 100 * flow.explained[0],
                           100 * flow.explained[1]);
  std::cout << fmt::format("fixed points from    {}\n", starts_description(r, *s));
  std::cout << analysis::format_fixed_points(points);
  const std::string title = fmt::format("{}: flow with inputs held at {:g} ({})", s->model().name,
                                        r.input, s->parameters_origin(r));
  if (std::optional<std::string> failed = analysis::plot_flow(flow, points, title, r.plot)) {
    std::cerr << fmt::format("plastic: {}\n", *failed);
    return kInputError;
  }
  std::cerr << fmt::format("plot      {}\n", r.plot);
  return kOk;
}

} // namespace plastic::driver
