// A batch's forward solve that keeps what its output VJP needs, for an
// autograd framework's forward and backward (python/plastic/torch.py).
//
// run() reports the outputs exactly as predict() does (the same rows and
// numbers); vjp() then returns output_vjp() of the same samples for the
// rows' cotangents, bitwise equal to it. With the direct method each tile's
// tape (gradients/direct_record.h) is kept from run() to vjp(), so the pair
// costs one forward solve and one backward sweep, as a training step of
// loss_and_gradient() does, rather than predict()'s solve plus the
// gradient's own forward pass. Memory: every tile's tape at once (a batch
// gradient holds one per thread); it is freed by vjp(). The checkpoint and
// adjoint methods keep nothing (their point is to hold little): run()
// predicts and vjp() calls output_vjp(), which solves forward again.
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

  /// Solves `samples` of `data` at `theta` as predict() does, keeping the tapes.
  Status<SolveFailure> run(const plastic_model& model, const PreparedData& data,
                           std::span<const int64_t> samples, std::span<const T> theta,
                           const BatchOptions& options);
  const Predictions<T>& predictions() const { return predictions_; }
  /// Whether vjp() will sweep kept tapes (false: it solves forward again).
  bool recorded() const;

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
  Predictions<T> predictions_;
  std::vector<std::unique_ptr<Tile>> tiles_;
};

extern template class RecordedForward<float>;
extern template class RecordedForward<double>;

} // namespace plastic::rt
