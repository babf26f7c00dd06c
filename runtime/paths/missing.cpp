// NaN filling schemes of the reference implementations; see missing.h.
#include "runtime/paths/missing.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace plastic::rt {

int count_observed(std::span<const double> column) {
  return static_cast<int>(
      std::count_if(column.begin(), column.end(), [](double v) { return !std::isnan(v); }));
}

void fill_ends(std::span<double> column) {
  const std::size_t n = column.size();
  std::size_t first = 0;
  while (first < n && std::isnan(column[first]))
    ++first;
  if (first == n) return; // never observed: caller's decision
  std::size_t last = n - 1;
  while (std::isnan(column[last]))
    --last;
  for (std::size_t i = 0; i < first; ++i)
    column[i] = column[first];
  for (std::size_t i = last + 1; i < n; ++i)
    column[i] = column[last];
}

void fill_linear(std::span<const double> times, std::span<double> column) {
  const std::size_t n = column.size();
  if (count_observed(column) == 0) {
    std::fill(column.begin(), column.end(), 0.0);
    return;
  }
  fill_ends(column);
  // Interior runs: interpolate between the observations that bracket them,
  // ratio = (t - t_prev) / (t_next - t_prev) as in the reference.
  std::size_t prev = 0; // column[0] is observed after fill_ends
  for (std::size_t i = 1; i < n; ++i) {
    if (!std::isnan(column[i])) {
      for (std::size_t j = prev + 1; j < i; ++j) {
        const double ratio = (times[j] - times[prev]) / (times[i] - times[prev]);
        column[j] = column[prev] + ratio * (column[i] - column[prev]);
      }
      prev = i;
    }
  }
}

void fill_forward(std::span<double> column, std::optional<double> leading) {
  const std::size_t n = column.size();
  std::size_t first = 0;
  while (first < n && std::isnan(column[first]))
    ++first;
  const double head = leading ? *leading : (first < n ? column[first] : 0.0);
  for (std::size_t i = 0; i < first; ++i)
    column[i] = head;
  for (std::size_t i = first + 1; i < n; ++i)
    if (std::isnan(column[i])) column[i] = column[i - 1];
}

} // namespace plastic::rt
