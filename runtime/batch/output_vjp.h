// The vector-Jacobian product of a batch's outputs with respect to the
// parameters: given y_bar, a cotangent for every output row predict()
// reports, theta_bar = sum over rows of y_bar . dy/dtheta. It is what an
// autograd framework's backward asks of a layer (python/plastic/torch.py):
// the loss lives outside the model, so the model's own loss kernel is not
// used; the gradient method (direct, checkpoint, adjoint) is the model's, or
// the override in BatchOptions, as for loss_and_gradient.
//
// How: the tile is opened as for the batch gradient, and each observation
// with a readout gets its cotangent block as Observation::output_bar in
// place of a target (problem.h); the gradient methods seed y_bar with it
// where they would take the loss's VJP. The result is a sum, not a mean:
// y_bar already carries whatever weighting the outer loss applied.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/tile.h"

namespace plastic::rt {

/// theta_bar of `samples` for the output cotangents `y_bar` (rows x
/// n_outputs, in predict()'s row order for the same samples), ADDED to grad.
/// BatchLoss::loss is NaN (no loss is taken); terms counts the rows.
template <class T>
BatchLoss output_vjp(const plastic_model& model, const PreparedData& data,
                     std::span<const int64_t> samples, std::span<const T> theta,
                     std::span<const T> y_bar, std::span<T> grad,
                     const BatchOptions& options = {}) noexcept;

/// A tile's observations (`given`) with the rows' cotangents in place of
/// targets: the tile's samples are the batch positions first.. of a batch
/// whose sample i owns y_bar rows [first_row[i], first_row[i+1]) of `width`
/// values; `blocks` receives one width*L block per observation,
/// lane-interleaved, which the result points into.
template <class T>
std::vector<Observation<T>>
seeded_observations(const PreparedData& data, const TileLayout& layout,
                    std::span<const Observation<T>> given, std::span<const size_t> first_row,
                    size_t first, std::span<const T> y_bar, size_t width, std::vector<T>& blocks);

extern template std::vector<Observation<float>>
seeded_observations<float>(const PreparedData&, const TileLayout&,
                           std::span<const Observation<float>>, std::span<const size_t>, size_t,
                           std::span<const float>, size_t, std::vector<float>&);
extern template std::vector<Observation<double>>
seeded_observations<double>(const PreparedData&, const TileLayout&,
                            std::span<const Observation<double>>, std::span<const size_t>, size_t,
                            std::span<const double>, size_t, std::vector<double>&);
extern template BatchLoss output_vjp<float>(const plastic_model&, const PreparedData&,
                                            std::span<const int64_t>, std::span<const float>,
                                            std::span<const float>, std::span<float>,
                                            const BatchOptions&) noexcept;
extern template BatchLoss output_vjp<double>(const plastic_model&, const PreparedData&,
                                             std::span<const int64_t>, std::span<const double>,
                                             std::span<const double>, std::span<double>,
                                             const BatchOptions&) noexcept;

} // namespace plastic::rt
