// torch.optim.SGD on a flat parameter vector (equations in sgd.h).
#include "runtime/train/sgd.h"

#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

Status<TrainError> SgdOptions::check() const {
  if (!(lr >= 0)) return invalid_argument_error(fmt::format("sgd: invalid learning rate {}", lr));
  if (!(momentum >= 0))
    return invalid_argument_error(fmt::format("sgd: invalid momentum {}", momentum));
  if (!(weight_decay >= 0))
    return invalid_argument_error(fmt::format("sgd: invalid weight_decay {}", weight_decay));
  if (!std::isfinite(dampening))
    return invalid_argument_error(fmt::format("sgd: invalid dampening {}", dampening));
  if (nesterov && (momentum <= 0 || dampening != 0))
    return invalid_argument_error(
        "sgd: nesterov momentum requires a momentum > 0 and zero dampening");
  return {};
}

template <class T>
Sgd<T>::Sgd(int64_t n, SgdOptions options) : Optimizer<T>(n, options.lr), options_(options) {}

template <class T> Status<TrainError> Sgd<T>::step(std::span<T> params, std::span<const T> grads) {
  if (Status<TrainError> s = this->check_spans(params.size(), grads.size()); !s) return s;
  SgdOptions o = options();
  if (Status<TrainError> s = o.check(); !s) return s;
  const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.weight_decay);
  const T mu = static_cast<T>(o.momentum), keep = static_cast<T>(1.0 - o.dampening);
  const bool first = momentum_.empty();
  if (o.momentum != 0 && first) momentum_.assign(params.size(), T(0));
  for (size_t i = 0; i < params.size(); ++i) {
    T g = grads[i];
    if (o.weight_decay != 0) g += wd * params[i];
    if (o.momentum != 0) {
      T& b = momentum_[i];
      b = first ? g : mu * b + keep * g;
      g = o.nesterov ? g + mu * b : b;
    }
    params[i] -= lr * g;
  }
  ++this->step_;
  return {};
}

template <class T> nlohmann::json Sgd<T>::hyper() const {
  const SgdOptions o = options();
  return {{"lr", o.lr},
          {"momentum", o.momentum},
          {"dampening", o.dampening},
          {"weight_decay", o.weight_decay},
          {"nesterov", o.nesterov}};
}

template <class T> OptimizerState<T> Sgd<T>::state() const {
  OptimizerState<T> s{kind(), this->step_, hyper(), {}};
  if (!momentum_.empty()) s.buffers.emplace_back("momentum_buffer", momentum_);
  return s;
}

template <class T> Status<TrainError> Sgd<T>::load_state(const OptimizerState<T>& s) {
  if (Status<TrainError> st = this->check_state(s); !st) return st;
  SgdOptions o;
  const nlohmann::json& h = s.hyper; // non-dependent name for .get<>
  try {
    o.lr = h.at("lr").get<double>();
    o.momentum = h.at("momentum").get<double>();
    o.dampening = h.at("dampening").get<double>();
    o.weight_decay = h.at("weight_decay").get<double>();
    o.nesterov = h.at("nesterov").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    return mismatch_error({}, fmt::format("sgd state has bad hyper-parameters: {}", e.what()));
  }
  if (Status<TrainError> st = o.check(); !st) return st;
  const std::vector<T>* b = s.buffer("momentum_buffer");
  // A momentum buffer exists exactly when momentum is on and a step was taken.
  if ((b != nullptr) != (o.momentum != 0 && s.step > 0))
    return mismatch_error(
        {}, "sgd state: the momentum buffer does not match the momentum and step count");
  options_ = o;
  this->lr_ = o.lr;
  this->step_ = s.step;
  momentum_ = b ? *b : std::vector<T>{};
  return {};
}

template class Sgd<float>;
template class Sgd<double>;

} // namespace plastic::rt
