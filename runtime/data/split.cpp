// Stratified seeded splits (see split.h).
#include "runtime/data/split.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include <fmt/format.h>

#include "runtime/support/internal_error.h"

namespace plastic::rt {
namespace {

// Uniform integer in [0, n), n >= 1, without modulo bias: reject the lowest
// 2^64 mod n outcomes so that the rest split evenly.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

// Indices of each stratum, in stratum order (a std::map: the same seed
// then gives the same split on every platform).
std::map<int, std::vector<std::size_t>> group_by_stratum(std::span<const int> strata) {
  std::map<int, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < strata.size(); ++i)
    groups[strata[i]].push_back(i);
  return groups;
}

void shuffle(std::vector<std::size_t>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i)
    std::swap(v[i - 1], v[uniform_below(rng, i)]);
}

// How many samples of each stratum go to each part (see split.h).
std::vector<std::vector<std::size_t>> allocate(const std::vector<std::size_t>& sizes,
                                               const std::vector<double>& f) {
  const std::size_t parts = f.size();
  std::vector<std::vector<std::size_t>> count(sizes.size(), std::vector<std::size_t>(parts));
  std::vector<std::vector<double>> frac(sizes.size(), std::vector<double>(parts));
  std::vector<std::size_t> left(sizes.size());
  std::vector<long long> need(parts);
  std::size_t total = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::size_t given = 0;
    for (std::size_t j = 0; j < parts; ++j) {
      const double exact = static_cast<double>(sizes[k]) * f[j];
      count[k][j] = static_cast<std::size_t>(std::floor(exact));
      frac[k][j] = exact - std::floor(exact);
      given += count[k][j];
      need[j] -= static_cast<long long>(count[k][j]);
    }
    left[k] = sizes[k] - std::min(given, sizes[k]);
    total += sizes[k];
  }
  // Part totals: round(N f_j) by largest remainder, so they sum to N.
  std::vector<std::size_t> target(parts);
  std::vector<std::pair<double, std::size_t>> rem;
  std::size_t assigned = 0;
  for (std::size_t j = 0; j < parts; ++j) {
    const double exact = static_cast<double>(total) * f[j];
    target[j] = static_cast<std::size_t>(std::floor(exact));
    assigned += target[j];
    rem.emplace_back(-(exact - std::floor(exact)), j);
  }
  std::sort(rem.begin(), rem.end());
  for (std::size_t r = 0; assigned < total && r < rem.size(); ++r, ++assigned)
    ++target[rem[r].second];
  for (std::size_t j = 0; j < parts; ++j)
    need[j] += static_cast<long long>(target[j]);

  // Largest fractional quota first; each (stratum, part) gets at most one extra.
  std::vector<std::tuple<double, std::size_t, std::size_t>> slots;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    for (std::size_t j = 0; j < parts; ++j)
      if (frac[k][j] > 0) slots.emplace_back(-frac[k][j], k, j);
  std::sort(slots.begin(), slots.end());
  std::vector<std::vector<bool>> used(sizes.size(), std::vector<bool>(parts, false));
  for (const auto& [minus_frac, k, j] : slots)
    if (left[k] > 0 && need[j] > 0) --left[k], --need[j], ++count[k][j], used[k][j] = true;
  // Whatever the totals could not absorb still goes by largest quota.
  for (const auto& [minus_frac, k, j] : slots)
    if (left[k] > 0 && !used[k][j]) --left[k], ++count[k][j], used[k][j] = true;
  // Round-off can leave a quota just short of an integer; the largest part takes it.
  const auto largest = static_cast<std::size_t>(std::max_element(f.begin(), f.end()) - f.begin());
  for (std::size_t k = 0; k < sizes.size(); ++k)
    count[k][largest] += left[k];
  return count;
}

} // namespace

std::vector<std::vector<std::size_t>> stratified_partition(std::span<const int> strata,
                                                           std::span<const double> fractions,
                                                           uint64_t seed) {
  PLASTIC_CHECK(!fractions.empty(), "a partition needs at least one fraction");
  double sum = 0;
  for (double x : fractions) {
    PLASTIC_CHECK(x >= 0 && std::isfinite(x), "split fractions must be finite and >= 0, got {}", x);
    sum += x;
  }
  PLASTIC_CHECK(sum > 0, "split fractions must have a positive sum");
  std::vector<double> f(fractions.begin(), fractions.end());
  for (double& x : f)
    x /= sum;

  auto groups = group_by_stratum(strata);
  std::vector<std::size_t> sizes;
  sizes.reserve(groups.size());
  for (const auto& [stratum, members] : groups)
    sizes.push_back(members.size());
  const auto count = allocate(sizes, f);

  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::size_t>> parts(f.size());
  std::size_t k = 0;
  for (auto& [stratum, members] : groups) {
    shuffle(members, rng);
    std::size_t next = 0;
    for (std::size_t j = 0; j < f.size(); ++j)
      for (std::size_t r = 0; r < count[k][j]; ++r)
        parts[j].push_back(members[next++]);
    ++k;
  }
  for (auto& p : parts)
    std::sort(p.begin(), p.end());
  return parts;
}

SplitIndices stratified_split(std::span<const int> strata, uint64_t seed, double train_fraction,
                              double validation_fraction) {
  const double test_fraction = 1.0 - train_fraction - validation_fraction;
  PLASTIC_CHECK(train_fraction >= 0 && validation_fraction >= 0 && test_fraction >= -1e-12,
                "train {} and validation {} fractions must be >= 0 and sum to <= 1", train_fraction,
                validation_fraction);
  const double f[3] = {train_fraction, validation_fraction, std::max(0.0, test_fraction)};
  auto parts = stratified_partition(strata, f, seed);
  return {std::move(parts[0]), std::move(parts[1]), std::move(parts[2])};
}

SplitIndices validation_split(std::span<const int> strata, double validation_fraction,
                              uint64_t seed) {
  PLASTIC_CHECK(validation_fraction >= 0 && validation_fraction <= 1,
                "a validation fraction lies in [0, 1], got {}", validation_fraction);
  const double f[2] = {1.0 - validation_fraction, validation_fraction};
  auto parts = stratified_partition(strata, f, seed);
  return {std::move(parts[0]), std::move(parts[1]), {}};
}

SplitIndices fold_split(std::span<const int> strata, int64_t folds, int64_t fold, uint64_t seed) {
  PLASTIC_CHECK(folds >= 2 && fold >= 0 && fold < folds, "fold {} of {} folds", fold, folds);
  // Dealt like cards, as stratified K-fold usually is: each stratum's
  // samples shuffled, then handed out to the folds in turn, the count
  // running on from one stratum to the next. Every fold then holds each
  // class to within one sample of its share, and the fold sizes differ by
  // at most one (a largest-remainder split of K equal shares can miss that
  // when every quota ties).
  auto groups = group_by_stratum(strata);
  std::mt19937_64 rng(seed);
  SplitIndices out;
  std::size_t dealt = 0;
  for (auto& [stratum, members] : groups) {
    shuffle(members, rng);
    for (std::size_t i : members)
      (static_cast<int64_t>(dealt++ % static_cast<std::size_t>(folds)) == fold ? out.validation
                                                                               : out.train)
          .push_back(i);
  }
  std::sort(out.train.begin(), out.train.end());
  std::sort(out.validation.begin(), out.validation.end());
  return out;
}

std::vector<std::size_t> stratified_share(std::span<const int> strata, double fraction,
                                          uint64_t seed) {
  PLASTIC_CHECK(fraction > 0 && fraction <= 1, "a share lies in (0, 1], got {}", fraction);
  auto groups = group_by_stratum(strata);
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> share;
  for (auto& [stratum, members] : groups) {
    shuffle(members, rng);
    // A prefix of the shuffle whose length grows with the fraction: nested.
    const auto keep =
        static_cast<std::size_t>(std::llround(static_cast<double>(members.size()) * fraction));
    share.insert(share.end(), members.begin(),
                 members.begin() + static_cast<std::ptrdiff_t>(std::min(keep, members.size())));
  }
  std::sort(share.begin(), share.end());
  return share;
}

} // namespace plastic::rt
