// Successive halving (see halving.h).
#include "compiler/driver/tune/halving.h"

#include <algorithm>
#include <cmath>

namespace plastic::driver {

std::vector<int64_t> rung_epochs(int64_t epochs, int64_t min_epochs, int64_t eta) {
  std::vector<int64_t> rungs{epochs};
  double e = static_cast<double>(epochs);
  while (true) {
    e /= static_cast<double>(eta);
    const auto r = static_cast<int64_t>(std::llround(e));
    if (r < min_epochs || r < 1 || r >= rungs.back()) break;
    rungs.push_back(r);
  }
  std::reverse(rungs.begin(), rungs.end());
  return rungs;
}

int64_t default_min_epochs(int64_t epochs, int64_t eta) {
  return std::max<int64_t>(1, epochs / (eta * eta));
}

bool better(std::optional<double> a, std::optional<double> b, rt::MetricMode mode) {
  if (!a || std::isnan(*a)) return false;
  if (!b || std::isnan(*b)) return true;
  return mode == rt::MetricMode::Min ? *a < *b : *a > *b;
}

std::vector<int64_t> promoted(const std::vector<RungScore>& scores, int64_t eta,
                              rt::MetricMode mode) {
  std::vector<RungScore> ranked = scores;
  std::stable_sort(ranked.begin(), ranked.end(), [&](const RungScore& a, const RungScore& b) {
    if (better(a.value, b.value, mode)) return true;
    if (better(b.value, a.value, mode)) return false;
    return a.trial < b.trial;
  });
  const auto n = static_cast<int64_t>(scores.size());
  const int64_t keep = std::max<int64_t>(1, (n + eta - 1) / eta);
  std::vector<int64_t> out;
  for (const RungScore& s : ranked)
    if (static_cast<int64_t>(out.size()) < keep && s.value && !std::isnan(*s.value))
      out.push_back(s.trial);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace plastic::driver
