// Seeded stratified splits: a partition of all indices, class proportions
// within one sample in every part, part sizes as asked, the same split for
// the same seed and a different one for another seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/data/split.h"
#include "runtime/support/internal_error.h"

using namespace plastic::rt;

namespace {

// 71 labels with uneven classes (50, 17, 3 and 1 samples), spread over the
// indices by the permutation k -> 37k mod 71.
std::vector<int> uneven_labels() {
  std::vector<int> y(71);
  for (std::size_t k = 0; k < 71; ++k)
    y[(k * 37) % 71] = k < 50 ? 0 : k < 67 ? 1 : k < 70 ? 2 : 3;
  return y;
}

void check_partition(const std::vector<std::vector<std::size_t>>& parts, std::size_t n) {
  std::vector<std::size_t> all;
  for (const auto& p : parts) {
    CHECK(std::is_sorted(p.begin(), p.end()));
    all.insert(all.end(), p.begin(), p.end());
  }
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() == n);
  for (std::size_t i = 0; i < n; ++i)
    REQUIRE(all[i] == i);
}

// Every class's count in every part is within one sample of its exact share.
void check_stratified(const std::vector<int>& y, const std::vector<std::vector<std::size_t>>& parts,
                      const std::vector<double>& f) {
  std::map<int, double> size;
  for (int c : y)
    size[c] += 1;
  for (std::size_t j = 0; j < parts.size(); ++j) {
    std::map<int, double> count;
    for (std::size_t i : parts[j])
      count[y[i]] += 1;
    for (const auto& [c, n] : size) {
      INFO("class " << c << " part " << j);
      CHECK(std::abs(count[c] - n * f[j]) < 1.0);
    }
  }
}

} // namespace

TEST_CASE("stratified_split: 70/15/15, proportions within one sample, sizes as asked",
          "[data][split]") {
  const std::vector<int> y = uneven_labels();
  for (uint64_t seed : {0u, 1u, 42u, 12345u}) {
    const SplitIndices s = stratified_split(y, seed);
    check_partition({s.train, s.validation, s.test}, y.size());
    check_stratified(y, {s.train, s.validation, s.test}, {0.7, 0.15, 0.15});
    // round(71 * 0.7) = 50, round(71 * 0.15) = 11 (largest remainder gives the last one to a 0.15
    // part).
    CHECK(s.train.size() == 50);
    CHECK(s.validation.size() + s.test.size() == 21);
    CHECK(std::abs(static_cast<double>(s.validation.size()) - 71 * 0.15) < 1.0);
  }
}

TEST_CASE("stratified_split: reproducible for a seed, different across seeds", "[data][split]") {
  const std::vector<int> y = uneven_labels();
  const SplitIndices a = stratified_split(y, 7), b = stratified_split(y, 7),
                     c = stratified_split(y, 8);
  CHECK(a.train == b.train);
  CHECK(a.validation == b.validation);
  CHECK(a.test == b.test);
  CHECK(a.train != c.train);
  // Pinned: the shuffle is specified (mt19937_64 + rejection), so this holds on every platform.
  const std::vector<int> small{0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  const SplitIndices p = stratified_split(small, 2024, 0.5, 0.25);
  check_partition({p.train, p.validation, p.test}, small.size());
  check_stratified(small, {p.train, p.validation, p.test}, {0.5, 0.25, 0.25});
  CHECK(p.train == std::vector<std::size_t>{0, 3, 4, 7, 9});
  CHECK(p.validation == std::vector<std::size_t>{
                            1, 5, 6}); // the odd sample of the 2.5 / 2.5 tie goes to validation
  CHECK(p.test == std::vector<std::size_t>{2, 8});
}

TEST_CASE("validation_split and unlabelled data", "[data][split]") {
  std::vector<int> y(200, 0);
  for (std::size_t i = 0; i < 200; i += 4)
    y[i] = 1; // 50 of class 1
  const SplitIndices v = validation_split(y, 0.2, 3);
  CHECK(v.test.empty());
  check_partition({v.train, v.validation}, y.size());
  check_stratified(y, {v.train, v.validation}, {0.8, 0.2});
  CHECK(v.validation.size() == 40);
  CHECK(std::count_if(v.validation.begin(), v.validation.end(),
                      [&](std::size_t i) { return y[i] == 1; }) == 10);

  const std::vector<int> none(9, -1); // regression data: one stratum
  const SplitIndices u = stratified_split(none, 5, 1.0 / 3, 1.0 / 3);
  CHECK(u.train.size() == 3);
  CHECK(u.validation.size() == 3);
  CHECK(u.test.size() == 3);
}

TEST_CASE("stratified_partition: any number of parts / bad fractions are a bug", "[data][split]") {
  const std::vector<int> y = uneven_labels();
  const std::vector<double> f{0.5, 0.3, 0.1, 0.1};
  const auto parts = stratified_partition(y, f, 99);
  check_partition(parts, y.size());
  check_stratified(y, parts, f);
  CHECK_THROWS_AS(stratified_partition(y, std::vector<double>{0.5, -0.1}, 1),
                  plastic::InternalError);
  CHECK_THROWS_AS(stratified_partition(y, std::vector<double>{0, 0}, 1), plastic::InternalError);
  CHECK_THROWS_AS(stratified_split(y, 1, 0.9, 0.2), plastic::InternalError);
}

TEST_CASE("subset keeps metadata and picks samples in order", "[data][split]") {
  Dataset d;
  d.name = "x";
  d.channels = {{"a"}};
  d.target_kind = TargetKind::Class;
  d.classes = {"p", "q"};
  for (int i = 0; i < 4; ++i) {
    Sample s;
    s.id = std::to_string(i);
    s.times = {0};
    s.values = {static_cast<double>(i)};
    s.label = i % 2;
    d.samples.push_back(s);
  }
  const std::size_t idx[] = {3, 1};
  const Dataset s = subset(d, idx);
  CHECK(s.classes == d.classes);
  REQUIRE(s.size() == 2);
  CHECK(s.samples[0].id == "3");
  CHECK(s.samples[1].id == "1");
  CHECK(!s.check());
}

TEST_CASE("fold_split: every sample validates once over the folds, stratified", "[data][split]") {
  const std::vector<int> y = uneven_labels();
  for (int64_t folds : {2, 5, 7}) {
    INFO(folds << " folds");
    std::vector<std::vector<std::size_t>> validations;
    for (int64_t k = 0; k < folds; ++k) {
      SplitIndices s = fold_split(y, folds, k, 3);
      CHECK(s.test.empty());
      // Each fold is a partition of all samples into training and validation.
      check_partition({s.train, s.validation}, y.size());
      validations.push_back(s.validation);
      // Fold sizes differ by at most one: 71 / K rounded down or up.
      CHECK(s.validation.size() >= static_cast<std::size_t>(71 / folds));
      CHECK(s.validation.size() <= static_cast<std::size_t>(71 / folds + 1));
    }
    // Over the K folds the validation parts are disjoint and cover everything.
    check_partition(validations, y.size());
    check_stratified(y, validations, std::vector<double>(folds, 1.0 / folds));
  }
  // The same folds for the same seed, other folds for another.
  CHECK(fold_split(y, 5, 2, 3).validation == fold_split(y, 5, 2, 3).validation);
  CHECK(fold_split(y, 5, 2, 3).validation != fold_split(y, 5, 2, 4).validation);
  CHECK_THROWS_AS(fold_split(y, 1, 0, 3), plastic::InternalError);
  CHECK_THROWS_AS(fold_split(y, 5, 5, 3), plastic::InternalError);
}

TEST_CASE("stratified_share: round(n_k f) of each class, nested as the fraction grows",
          "[data][split]") {
  const std::vector<int> y = uneven_labels(); // classes of 50, 17, 3 and 1 samples
  const std::vector<std::size_t> quarter = stratified_share(y, 0.25, 5);
  const std::vector<std::size_t> half = stratified_share(y, 0.5, 5);
  const std::vector<std::size_t> all = stratified_share(y, 1.0, 5);
  CHECK(std::is_sorted(quarter.begin(), quarter.end()));
  // Per class: round(50/4) + round(17/4) + round(3/4) + round(1/4) = 13 + 4 + 1 + 0.
  std::vector<std::size_t> per_class(4);
  for (std::size_t i : quarter)
    ++per_class[static_cast<std::size_t>(y[i])];
  CHECK(per_class == std::vector<std::size_t>{13, 4, 1, 0});
  CHECK(half.size() == 25 + 9 + 2 + 1); // llround rounds halves away from zero
  CHECK(all.size() == y.size());
  // Nested: the larger share keeps every sample of the smaller one.
  CHECK(std::includes(half.begin(), half.end(), quarter.begin(), quarter.end()));
  CHECK(std::includes(all.begin(), all.end(), half.begin(), half.end()));
  // Seeded: the same share for the same seed, another for another.
  CHECK(stratified_share(y, 0.25, 5) == quarter);
  CHECK(stratified_share(y, 0.25, 6) != quarter);
  CHECK_THROWS_AS(stratified_share(y, 0.0, 5), plastic::InternalError);
  CHECK_THROWS_AS(stratified_share(y, 1.5, 5), plastic::InternalError);
}
