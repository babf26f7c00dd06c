// `plastic analyze stability FILE`: the stability report of
// compiler/analysis/stability.h for a model at initialisation or with
// trained parameters, as a table, JSON, and a PNG of the region.
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "compiler/analysis/stability.h"
#include "compiler/driver/analyze_setup.h"
#include "compiler/driver/commands.h"
#include "runtime/support/interrupt.h"

namespace plastic::driver {

int run_analyze_stability(const AnalyzeRequest& r, const CommonOptions& common) {
  int code = kOk;
  std::unique_ptr<AnalyzeSetup> s = prepare_analysis(r, common, code);
  if (!s) return code;

  analysis::StabilityOptions options;
  options.samples = r.samples;
  options.stability_informed = uses_stability_informed(s->model());
  options.data = s->train();
  options.progress = stability_progress();

  // Ctrl-C stops after the state at hand and reports the states done.
  rt::InterruptGuard interrupts(/*quiet=*/true);
  analysis::StabilityReport report =
      analysis::stability_report(*s->fns, s->layout, s->theta, options);
  options.progress = nullptr; // ends the progress line before the report
  if (r.json) {
    std::cout << analysis::stability_json(report).dump(2) << "\n";
  } else {
    std::cout << fmt::format("model               {} ({}), {}\n", s->model().name, r.file,
                             s->parameters_origin(r));
    std::cout << fmt::format("states from         {}\n", analysis::states_origin(report));
    std::cout << analysis::format_stability(report);
  }
  if (!r.plot.empty()) {
    if (std::optional<std::string> failed = analysis::plot_stability(report, r.plot)) {
      std::cerr << fmt::format("plastic: {}\n", *failed);
      return kInputError;
    }
    std::cerr << fmt::format("plot      {}\n", r.plot);
  }
  return report.stopped ? rt::InterruptGuard::exit_code() : kOk;
}

} // namespace plastic::driver
