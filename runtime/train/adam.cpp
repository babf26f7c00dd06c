// torch.optim.Adam and AdamW on a flat parameter vector (equations in adam.h).
#include "runtime/train/adam.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

// One element's moments after one more gradient, in T and in torch's order of
// operations: step() and refusal() share it, so the check and the update
// cannot disagree about where T's range ends.
template <class T> struct MomentUpdate {
  explicit MomentUpdate(const AdamOptions& o)
      : b1(static_cast<T>(o.beta1)), one_b1(static_cast<T>(1.0 - o.beta1)),
        b2(static_cast<T>(o.beta2)), one_b2(static_cast<T>(1.0 - o.beta2)) {}
  T first(T m, T g) const { return m * b1 + one_b1 * g; }
  T second(T v, T g) const { return v * b2 + one_b2 * g * g; } // addcmul_: self + (value * t1) * t2
  T b1, one_b1, b2, one_b2;
};

} // namespace

AdamOptions AdamOptions::adamw(double lr, double weight_decay) {
  AdamOptions o;
  o.lr = lr;
  o.weight_decay = weight_decay;
  o.decoupled = true;
  return o;
}

Status<TrainError> AdamOptions::check() const {
  const char* name = decoupled ? "adamw" : "adam";
  if (!(lr >= 0))
    return invalid_argument_error(fmt::format("{}: invalid learning rate {}", name, lr));
  if (!(eps >= 0)) return invalid_argument_error(fmt::format("{}: invalid eps {}", name, eps));
  if (!(beta1 >= 0 && beta1 < 1))
    return invalid_argument_error(fmt::format("{}: invalid beta1 {}", name, beta1));
  if (!(beta2 >= 0 && beta2 < 1))
    return invalid_argument_error(fmt::format("{}: invalid beta2 {}", name, beta2));
  if (!(weight_decay >= 0))
    return invalid_argument_error(fmt::format("{}: invalid weight_decay {}", name, weight_decay));
  return {};
}

template <class T>
Adam<T>::Adam(int64_t n, AdamOptions options) : Optimizer<T>(n, options.lr), options_(options) {}

template <class T> Status<TrainError> Adam<T>::step(std::span<T> params, std::span<const T> grads) {
  if (Status<TrainError> s = this->check_spans(params.size(), grads.size()); !s) return s;
  const AdamOptions o = options();
  if (Status<TrainError> s = o.check(); !s) return s;
  if (exp_avg_.empty()) {
    exp_avg_.assign(params.size(), T(0));
    exp_avg_sq_.assign(params.size(), T(0));
    if (o.amsgrad) max_exp_avg_sq_.assign(params.size(), T(0));
  }
  const int64_t t = ++this->step_;
  // Scalars in double, as torch computes them in Python before the tensor ops.
  const double bias1 = 1.0 - std::pow(o.beta1, static_cast<double>(t));
  const double bias2 = 1.0 - std::pow(o.beta2, static_cast<double>(t));
  const T step_size = static_cast<T>(o.lr / bias1);
  const T bias2_sqrt = static_cast<T>(std::sqrt(bias2));
  const MomentUpdate<T> update(o);
  const T eps = static_cast<T>(o.eps), wd = static_cast<T>(o.weight_decay);
  const T decay = static_cast<T>(1.0 - o.lr * o.weight_decay);
  for (size_t i = 0; i < params.size(); ++i) {
    T g = grads[i];
    if (o.weight_decay != 0) {
      if (o.decoupled)
        params[i] *= decay;
      else
        g += wd * params[i];
    }
    T& m = exp_avg_[i];
    T& v = exp_avg_sq_[i];
    m = update.first(m, g);
    v = update.second(v, g);
    T second = v;
    if (o.amsgrad) second = max_exp_avg_sq_[i] = std::max(max_exp_avg_sq_[i], v);
    const T denom = std::sqrt(second) / bias2_sqrt + eps;
    params[i] += (-step_size * m) / denom; // addcdiv_: self + (value * t1) / t2
  }
  return {};
}

template <class T>
std::string Adam<T>::refusal(std::span<const T> params, std::span<const T> grads) const {
  if (params.size() != grads.size()) return {}; // step() reports the mismatch
  const AdamOptions o = options();
  const MomentUpdate<T> update(o);
  const T wd = static_cast<T>(o.weight_decay);
  for (size_t i = 0; i < params.size(); ++i) {
    T g = grads[i];
    if (o.weight_decay != 0 && !o.decoupled) g += wd * params[i];
    const T m = exp_avg_.empty() ? T(0) : exp_avg_[i];
    const T v = exp_avg_sq_.empty() ? T(0) : exp_avg_sq_[i];
    const T m_new = update.first(m, g);
    const T v_new = update.second(v, g);
    if (std::isfinite(g) && std::isfinite(m_new) && std::isfinite(v_new)) continue;
    return fmt::format("a gradient element of {:.3g} (theta[{}]) overflows {}'s {} moment in {}",
                       static_cast<double>(grads[i]), i, kind(),
                       std::isfinite(m_new) ? "second" : "first", sizeof(T) == 4 ? "f32" : "f64");
  }
  return {};
}

template <class T> nlohmann::json Adam<T>::hyper() const {
  const AdamOptions o = options();
  return {{"lr", o.lr},
          {"betas", {o.beta1, o.beta2}},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"amsgrad", o.amsgrad}};
}

template <class T> OptimizerState<T> Adam<T>::state() const {
  OptimizerState<T> s{kind(), this->step_, hyper(), {}};
  if (!exp_avg_.empty()) {
    s.buffers.emplace_back("exp_avg", exp_avg_);
    s.buffers.emplace_back("exp_avg_sq", exp_avg_sq_);
    if (options_.amsgrad) s.buffers.emplace_back("max_exp_avg_sq", max_exp_avg_sq_);
  }
  return s;
}

template <class T> Status<TrainError> Adam<T>::load_state(const OptimizerState<T>& s) {
  if (Status<TrainError> st = this->check_state(s); !st) return st;
  AdamOptions o = options_;
  const nlohmann::json& h = s.hyper; // non-dependent name for .get<>
  try {
    o.lr = h.at("lr").get<double>();
    o.beta1 = h.at("betas").at(0).get<double>();
    o.beta2 = h.at("betas").at(1).get<double>();
    o.eps = h.at("eps").get<double>();
    o.weight_decay = h.at("weight_decay").get<double>();
    o.amsgrad = h.at("amsgrad").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    return mismatch_error({},
                          fmt::format("{} state has bad hyper-parameters: {}", kind(), e.what()));
  }
  if (Status<TrainError> st = o.check(); !st) return st;
  const std::vector<T>* m = s.buffer("exp_avg");
  const std::vector<T>* v = s.buffer("exp_avg_sq");
  const std::vector<T>* vmax = s.buffer("max_exp_avg_sq");
  // Moments exist exactly when a step was taken; the max only with amsgrad.
  const bool stepped = s.step > 0;
  if ((m != nullptr) != stepped || (v != nullptr) != stepped ||
      (vmax != nullptr) != (stepped && o.amsgrad))
    return mismatch_error(
        {}, fmt::format("{} state: the moment buffers do not match the step count and amsgrad",
                        kind()));
  options_ = o;
  this->lr_ = o.lr;
  this->step_ = s.step;
  exp_avg_ = m ? *m : std::vector<T>{};
  exp_avg_sq_ = v ? *v : std::vector<T>{};
  max_exp_avg_sq_ = vmax ? *vmax : std::vector<T>{};
  return {};
}

template class Adam<float>;
template class Adam<double>;

} // namespace plastic::rt
