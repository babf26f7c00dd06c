// `plastic gradcheck`: every symbolic VJP of a model against central finite
// differences (the field, initial state, outputs, jumps, loss, and the fused
// steps of the model's solver and of dopri5), in f64 with the reference
// interpreter. Prints the worst relative error per function input and exits
// non-zero when any exceeds the tolerance.
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "compiler/model/gradcheck.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

bool gradcheck_model(const model::ModelFunctions& fns, double tolerance, uint64_t seed,
                     std::ostream& out) {
  model::GradcheckOptions options;
  options.seed = seed;
  double worst = 0;
  std::string worst_where;
  for (auto [f, vjp] : fns.vjp_pairs()) {
    auto entries = model::gradcheck(*f, *vjp, options);
    double fn_worst = 0;
    std::string fn_where;
    for (const auto& e : entries)
      if (e.error >= fn_worst) fn_worst = e.error, fn_where = e.input;
    for (const auto& e : entries)
      if (e.error > tolerance)
        out << fmt::format("  FAIL {:<28} d.{:<24} ad {:+.10e}  fd {:+.10e}  rel {:.2e}\n",
                           f->name(), e.input, e.ad, e.fd, e.error);
    out << fmt::format("  {:<40} {:>3} inputs  worst {:.2e} ({})\n", f->name(), entries.size(),
                       fn_worst, fn_where.empty() ? "-" : fn_where);
    if (fn_worst >= worst) worst = fn_worst, worst_where = f->name() + " d." + fn_where;
  }
  bool ok = worst <= tolerance;
  out << fmt::format("  {} worst relative error {:.2e} at {} (tolerance {:.0e})\n",
                     ok ? "ok" : "FAILED", worst, worst_where, tolerance);
  return ok;
}

int run_gradcheck(const std::vector<std::string>& paths, double tolerance, uint64_t seed,
                  const CommonOptions& common) {
  std::vector<std::string> files = expand_model_paths(paths);
  if (files.empty()) {
    std::cerr << "plastic gradcheck: no model files (*.ode) found\n";
    return kUsageError;
  }
  int worst_code = kOk;
  for (const std::string& file : files) {
    int code = kOk;
    auto fns = load_model(file, common, code);
    if (!fns) {
      worst_code = std::max(worst_code, code);
      continue;
    }
    std::cout << fmt::format("{}  ({})\n", fns->model->name, file);
    bool ok = gradcheck_model(*fns, tolerance, seed, std::cout);
    if (!ok) worst_code = std::max(worst_code, int(kInputError));
  }
  return worst_code;
}

} // namespace plastic::driver
