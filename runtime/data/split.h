// Seeded, stratified train / validation / test splits.
//
// Kidger et al. split 70 / 15 / 15 with sklearn's stratified
// train_test_split (experiments/datasets/common.py, `split_data`); this is
// the same idea, deterministic for a given seed on every platform: the
// shuffle is a Fisher–Yates driven by std::mt19937_64 (whose output the C++
// standard fixes) with an unbiased bounded draw of our own, because
// std::shuffle and std::uniform_int_distribution differ between standard
// libraries.
//
// Within every stratum (class), each part receives floor(n_k f_j) or one
// more sample, so class proportions match to within one sample; the extra
// samples go where the fractional quotas are largest while keeping each
// part's total at round(N f_j) whenever the per-class bound allows it.
// Index lists come back sorted ascending; the training loop shuffles its
// batches itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace plastic::rt {

/// Indices of the samples in each part.
struct SplitIndices {
  std::vector<std::size_t> train, validation, test;
};

/// Splits indices 0..strata.size()-1 into parts of the given fractions
/// (non-negative, finite, positive sum; they are divided by their sum),
/// stratified by `strata` (any ints: labels, or all -1 for no strata).
/// The fractions are the runtime's own (no command-line option sets them),
/// so bad ones are an InternalError.
std::vector<std::vector<std::size_t>>
stratified_partition(std::span<const int> strata, std::span<const double> fractions, uint64_t seed);

/// Train / validation / test with the rest going to test
/// (Kidger et al.: 0.7 / 0.15 / 0.15).
SplitIndices stratified_split(std::span<const int> strata, uint64_t seed,
                              double train_fraction = 0.7, double validation_fraction = 0.15);

/// Takes a validation part out of a given training set (test stays empty),
/// for data sets that come with their own test file (UEA).
SplitIndices validation_split(std::span<const int> strata, double validation_fraction,
                              uint64_t seed);

/// K-fold cross-validation (test stays empty): the samples fall into
/// `folds` stratified parts whose sizes differ by at most one, the same
/// parts for every `fold` of one seed; part `fold` (0-based) validates and
/// the others train, so over the K folds every sample validates once.
SplitIndices fold_split(std::span<const int> strata, int64_t folds, int64_t fold, uint64_t seed);

/// A stratified share of indices 0..strata.size()-1 (sorted): round(n_k
/// fraction) of each stratum's n_k, drawn from one seeded shuffle per
/// stratum. The shares of one seed are nested — a larger fraction keeps
/// every index a smaller one keeps — so the points of a learning curve
/// differ only by the samples added. `fraction` lies in (0, 1].
std::vector<std::size_t> stratified_share(std::span<const int> strata, double fraction,
                                          uint64_t seed);

} // namespace plastic::rt
