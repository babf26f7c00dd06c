// A batch's forward solve that keeps what its output VJP needs, for an
// autograd framework's forward and backward (python/plastic/torch.py).
//
// run() reports the outputs exactly as predict() does (the same rows and
// numbers); vjp() then returns output_vjp() of the same samples for the
// rows' cotangents, bitwise equal to it. With the direct method each tile's
// tape (gradients/direct_record.h) is kept from run() to vjp(), so the pair
// costs one forward solve and one backward sweep, as a training step of
// loss_and_gradient() does, rather than predict()'s solve plus the
// gradient's own forward pass.
//
// Memory: the tapes of all tiles at once, where a batch gradient holds one
// per thread, until vjp() frees them. So that a large batch cannot take the
// machine's memory, tapes are kept only up to a limit (keep_limit(), by
// default half of the memory available when run() starts): a tile whose
// tape would pass it drops its tape, and vjp() solves that tile forward
// again, which gives the same numbers. The checkpoint and adjoint methods
// keep nothing (their point is to hold little): run() predicts and vjp()
// calls output_vjp(), which solves forward again.
//
// The data, sample list and theta must stay alive and unchanged from run()
// to vjp(). One process only (BatchOptions::comm is not used).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/predict.h"

namespace plastic::rt {

template <class T> class RecordedForward {
public:
  RecordedForward();
  ~RecordedForward();
  RecordedForward(RecordedForward&&) noexcept;
  RecordedForward& operator=(RecordedForward&&) noexcept;

  /// Bytes of tapes run() may keep (measured by the gradient method's meter);
  /// negative: half of MemAvailable at run(), or no limit where unknown.
  void keep_limit(double bytes) { keep_limit_ = bytes; }
  /// Solves `samples` of `data` at `theta` as predict() does, keeping the tapes.
  Status<SolveFailure> run(const plastic_model& model, const PreparedData& data,
                           std::span<const int64_t> samples, std::span<const T> theta,
                           const BatchOptions& options);
  const Predictions<T>& predictions() const { return predictions_; }
  /// Tiles whose tape is kept for vjp() (the others will be solved again),
  /// and the bytes those tapes hold.
  size_t kept_tiles() const;
  double kept_bytes() const { return kept_bytes_; }

  /// output_vjp() of run()'s samples for `y_bar` (rows x n_outputs in the
  /// predictions' row order), ADDED to grad. The first call consumes the
  /// tapes; a later one (a second backward) calls output_vjp().
  BatchLoss vjp(std::span<const T> y_bar, std::span<T> grad);

private:
  struct Tile; // one tile's workspace, problem and tape
  const plastic_model* model_ = nullptr;
  const PreparedData* data_ = nullptr;
  std::vector<int64_t> samples_;
  std::span<const T> theta_;
  BatchOptions options_;
  SolverOptions solver_;
  GradientOptions method_;
  double keep_limit_ = -1;
  double kept_bytes_ = 0;
  Predictions<T> predictions_;
  std::vector<std::unique_ptr<Tile>> tiles_;
};

extern template class RecordedForward<float>;
extern template class RecordedForward<double>;

} // namespace plastic::rt
