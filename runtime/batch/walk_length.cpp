// The longest walk of a data set (see walk_length.h).
#include "runtime/batch/walk_length.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/solvers/tableau.h"

namespace plastic::rt {

WalkLength longest_walk(const plastic_model& model, const PreparedData& data, StepBound bound) {
  const ButcherTableau* tab = model.solver.method ? find_tableau(model.solver.method) : nullptr;
  const bool adaptive = tab && tab->adaptive();
  WalkLength longest;
  std::vector<double> times;
  for (size_t i = 0; i < data.size(); ++i) {
    const PreparedSample& s = data.sample(i);
    times.clear();
    for (const SampleObservation& o : s.observations)
      times.push_back(o.t);
    for (double k : s.knots)
      if (k > s.t0 && k < s.t_end) times.push_back(k);
    if (s.t_end > s.t0) times.push_back(s.t_end);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end(),
                            [](double a, double b) {
                              return b - a <= 1e-13 * std::max({1.0, std::abs(a), std::abs(b)});
                            }),
                times.end());
    WalkLength w;
    if (!adaptive && model.solver.step > 0) {
      w = fixed_walk(s.t0, model.solver.step, times);
    } else {
      w.events = static_cast<int64_t>(times.size());
      const int64_t most = model.solver.max_steps > 0 ? model.solver.max_steps : kDefaultMaxSteps;
      w.steps = bound == StepBound::Most ? most : w.events;
    }
    if (w.items() > longest.items()) longest = w;
  }
  return longest;
}

} // namespace plastic::rt
