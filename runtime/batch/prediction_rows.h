// Filling Predictions (predict.h) from tile solves: the rows every sample
// reports and where each tile's outputs go. Shared by predict() and by
// RecordedForward (recorded_forward.h), whose forward pass must report
// exactly predict()'s rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/batch/predict.h"
#include "runtime/batch/tile.h"

namespace plastic::rt {

/// Sizes `pr` for `samples` of `data`: the rows of every sample with the
/// data's times of its readouts, outputs zeroed, terms counted.
template <class T>
void start_predictions(const plastic_model& model, const PreparedData& data,
                       std::span<const int64_t> samples, Predictions<T>& pr);

/// Copies one tile's readouts (`outputs`: n_obs blocks of n_outputs*L,
/// lane-interleaved) and per-lane losses into the rows of its samples, the
/// batch positions first .. first + chunk.size().
template <class T>
void take_tile_outputs(const PreparedData& data, const TileLayout& layout,
                       std::span<const int64_t> chunk, size_t first, const std::vector<T>& outputs,
                       const std::vector<double>& lane_loss, Predictions<T>& pr);

extern template void start_predictions<float>(const plastic_model&, const PreparedData&,
                                              std::span<const int64_t>, Predictions<float>&);
extern template void start_predictions<double>(const plastic_model&, const PreparedData&,
                                               std::span<const int64_t>, Predictions<double>&);
extern template void take_tile_outputs<float>(const PreparedData&, const TileLayout&,
                                              std::span<const int64_t>, size_t,
                                              const std::vector<float>&, const std::vector<double>&,
                                              Predictions<float>&);
extern template void take_tile_outputs<double>(const PreparedData&, const TileLayout&,
                                               std::span<const int64_t>, size_t,
                                               const std::vector<double>&,
                                               const std::vector<double>&, Predictions<double>&);

} // namespace plastic::rt
