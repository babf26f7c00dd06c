// The loss of a batch of samples and its gradient with respect to the
// parameters: the step a training loop takes.
//
// Per tile of L samples: u0 = u(t0), z0 = init_state(theta, u0), the tile's
// loss and (theta_bar, z0_bar) from the gradient method of
// runtime/gradients (direct, checkpoint or adjoint), then init_state_vjp
// adds z0_bar's share to theta_bar. Input cotangents are not computed: the
// paths are data.
//
// Normalisation: the loss is the MEAN over the batch's (sample, observation
// with a target) pairs of the model's per-observation loss, and the
// gradient is that of the mean. With a final readout that is the mean over
// samples — for cross-entropy PyTorch's default `mean` reduction over a
// batch; with per-observation targets every observed target counts once, so
// long series weigh more than short ones (as a masked mean over all
// observed entries would).
//
// Threads: tiles are spread over options.threads workers, each with its own
// scratch and gradient buffer; tile gradients are summed in tile order in
// double (ordered_sum.h), so the result is bitwise identical for every
// thread count. With options.comm over several ranks each rank computes a
// contiguous range of the tiles and the ranks sum them in the same order
// (tile_shard.h): bitwise identical for every rank count too.
//
// Failures come back as values (no exceptions): a solver failure names the
// data set index of the failing sample (SolveFailure::sample) and its id,
// the time, the cause and advice. The first failing tile in tile order is
// reported; grad is then left untouched.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "runtime/batch/batch_options.h"
#include "runtime/batch/prepared_data.h"

namespace plastic::rt {

struct BatchLoss {
  Status<SolveFailure> status;
  double loss = std::numeric_limits<double>::quiet_NaN(); ///< mean over (sample, target) pairs
  double loss_sum = 0;                                    ///< sum over those pairs
  int64_t terms = 0; ///< number of (sample, observation-with-target) pairs
  int64_t samples = 0;
  int64_t tiles = 0;
  SolveStats forward, backward; ///< summed over tiles
  size_t peak_bytes = 0;        ///< largest peak of one tile's gradient method
  bool ok() const { return status.ok(); }
};

/// Mean loss of `samples` (data set indices, repeats allowed) and its gradient,
/// ADDED to grad (n_params, += as TrainHooks::train_batch expects).
template <class T>
BatchLoss loss_and_gradient(const plastic_model& model, const PreparedData& data,
                            std::span<const int64_t> samples, std::span<const T> theta,
                            std::span<T> grad, const BatchOptions& options = {}) noexcept;

extern template BatchLoss loss_and_gradient<float>(const plastic_model&, const PreparedData&,
                                                   std::span<const int64_t>, std::span<const float>,
                                                   std::span<float>, const BatchOptions&) noexcept;
extern template BatchLoss loss_and_gradient<double>(const plastic_model&, const PreparedData&,
                                                    std::span<const int64_t>,
                                                    std::span<const double>, std::span<double>,
                                                    const BatchOptions&) noexcept;

/// Checks shared by the batch entry points: the model fits the data and T,
/// theta has n_params values, the indices are in range and not empty.
template <class T>
Status<SolveFailure> check_batch(const plastic_model& model, const PreparedData& data,
                                 std::span<const int64_t> samples, std::span<const T> theta);

} // namespace plastic::rt
