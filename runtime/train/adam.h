// Adam and AdamW, following torch.optim.Adam / torch.optim.AdamW exactly
// (non-foreach, non-fused path):
//
//   t  <- t + 1
//   p  <- p * (1 - lr * wd)                  (AdamW: decoupled decay, first)
//   g  <- grad + wd * p                      (Adam: L2 penalty in the gradient)
//   m  <- b1 * m + (1 - b1) * g
//   v  <- b2 * v + (1 - b2) * g^2
//   vmax <- max(vmax, v)                     (amsgrad)
//   denom <- sqrt(v or vmax) / sqrt(1 - b2^t) + eps
//   p  <- p - (lr / (1 - b1^t)) * m / denom
//
// Note eps is added AFTER dividing sqrt(v) by the bias correction, i.e. to
// sqrt(v_hat), as torch does — not to sqrt(v) as in the Adam paper's
// "efficient" form. The moments use mul-then-add (torch < 2.1 and the
// documented formula); torch >= 2.1 computes m with lerp, which differs only
// in the last bit.
#pragma once

#include "runtime/train/optimizer.h"

namespace plastic::rt {

/// torch.optim.Adam / AdamW hyper-parameters.
struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool decoupled = false; ///< true: AdamW

  /// torch.optim.AdamW's defaults (weight decay 1e-2, decoupled).
  static AdamOptions adamw(double lr = 1e-3, double weight_decay = 1e-2);
  /// torch's checks: lr, eps, weight_decay >= 0 and 0 <= beta < 1.
  Status<TrainError> check() const;
};

/// Adam (decoupled = false) or AdamW (decoupled = true) over n parameters.
template <class T> class Adam final : public Optimizer<T> {
public:
  Adam(int64_t n, AdamOptions options);
  const char* kind() const override { return options_.decoupled ? "adamw" : "adam"; }
  Status<TrainError> step(std::span<T> params, std::span<const T> grads) override;
  /// Non-empty when a finite gradient would overflow a moment: in f32 a
  /// |g| beyond ~5.8e20 makes (1 - beta2) g^2 infinite, after which that
  /// parameter's update is m / inf = 0 at every later step (torch does the
  /// same, silently) and the state can never be saved.
  std::string refusal(std::span<const T> params, std::span<const T> grads) const override;
  nlohmann::json hyper() const override;
  OptimizerState<T> state() const override;
  Status<TrainError> load_state(const OptimizerState<T>& state) override;
  /// The options, with the current learning rate.
  AdamOptions options() const {
    AdamOptions o = options_;
    o.lr = this->lr_;
    return o;
  }

private:
  AdamOptions options_;
  std::vector<T> exp_avg_, exp_avg_sq_, max_exp_avg_sq_;
};

extern template class Adam<float>;
extern template class Adam<double>;

} // namespace plastic::rt
