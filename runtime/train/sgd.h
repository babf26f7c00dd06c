// Stochastic gradient descent with momentum, Nesterov momentum and L2 weight
// decay, following torch.optim.SGD exactly:
//
//   g  <- grad + wd * p                      (if wd != 0)
//   b  <- g                                  (first step)
//   b  <- mu * b + (1 - dampening) * g       (later steps)
//   g  <- g + mu * b   (nesterov)   or   g <- b
//   p  <- p - lr * g
//
// The first step copies g into the buffer without dampening, as torch does.
#pragma once

#include "runtime/train/optimizer.h"

namespace plastic::rt {

/// torch.optim.SGD's hyper-parameters.
struct SgdOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;

  /// torch's checks: lr, momentum, weight_decay >= 0; nesterov needs momentum > 0 and no dampening.
  Status<TrainError> check() const;
};

/// SGD over n parameters.
template <class T> class Sgd final : public Optimizer<T> {
public:
  Sgd(int64_t n, SgdOptions options);
  const char* kind() const override { return "sgd"; }
  Status<TrainError> step(std::span<T> params, std::span<const T> grads) override;
  nlohmann::json hyper() const override;
  OptimizerState<T> state() const override;
  Status<TrainError> load_state(const OptimizerState<T>& state) override;
  /// The options, with the current learning rate.
  SgdOptions options() const {
    SgdOptions o = options_;
    o.lr = this->lr_;
    return o;
  }

private:
  SgdOptions options_;
  std::vector<T> momentum_; ///< empty until the first step with momentum != 0
};

extern template class Sgd<float>;
extern template class Sgd<double>;

} // namespace plastic::rt
