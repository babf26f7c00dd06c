// Shared optimiser checks, the configuration record and the factory.
#include "runtime/train/optimizer.h"

#include <fmt/format.h>

#include "runtime/train/adam.h"
#include "runtime/train/sgd.h"

namespace plastic::rt {

template <class T> const std::vector<T>* OptimizerState<T>::buffer(std::string_view name) const {
  for (const auto& [key, values] : buffers)
    if (key == name) return &values;
  return nullptr;
}

template <class T>
Status<TrainError> Optimizer<T>::check_spans(size_t n_params, size_t n_grads) const {
  if (static_cast<int64_t>(n_params) != n_ || static_cast<int64_t>(n_grads) != n_)
    return invalid_argument_error(
        fmt::format("{} was made for {} parameters but got {} parameters and {} gradients", kind(),
                    n_, n_params, n_grads));
  return {};
}

template <class T>
Status<TrainError> Optimizer<T>::check_state(const OptimizerState<T>& state) const {
  if (state.kind != kind())
    return mismatch_error(
        {},
        fmt::format("optimizer state is for '{}' but the optimizer is '{}'", state.kind, kind()),
        "resume with the optimizer the checkpoint was trained with");
  if (state.step < 0)
    return mismatch_error({}, fmt::format("optimizer state has step {}", state.step));
  for (const auto& [name, values] : state.buffers)
    if (static_cast<int64_t>(values.size()) != n_)
      return mismatch_error(
          {}, fmt::format("optimizer buffer '{}' has {} elements but the model has {} parameters",
                          name, values.size(), n_));
  return {};
}

template struct OptimizerState<float>;
template struct OptimizerState<double>;
template class Optimizer<float>;
template class Optimizer<double>;

nlohmann::json OptimizerConfig::to_json() const {
  nlohmann::json j = {{"kind", kind}, {"lr", lr}};
  if (kind == "sgd") {
    j["momentum"] = momentum;
    j["dampening"] = dampening;
    j["nesterov"] = nesterov;
  } else {
    j["betas"] = {beta1, beta2};
    j["eps"] = eps;
    j["amsgrad"] = amsgrad;
  }
  if (weight_decay) j["weight_decay"] = *weight_decay;
  return j;
}

Result<OptimizerConfig, TrainError> OptimizerConfig::from_json(const nlohmann::json& j) {
  OptimizerConfig c;
  if (!j.is_object())
    return invalid_argument_error("the optimizer configuration must be a JSON object");
  // json::value and get throw on wrong types; turn that into an error value here.
  try {
    c.kind = j.value("kind", c.kind);
    c.lr = j.value("lr", c.lr);
    c.momentum = j.value("momentum", c.momentum);
    c.dampening = j.value("dampening", c.dampening);
    c.nesterov = j.value("nesterov", c.nesterov);
    if (j.contains("betas")) {
      const auto& b = j.at("betas");
      if (!b.is_array() || b.size() != 2)
        return invalid_argument_error("optimizer 'betas' must be [beta1, beta2]");
      c.beta1 = b[0].get<double>();
      c.beta2 = b[1].get<double>();
    }
    c.beta1 = j.value("beta1", c.beta1);
    c.beta2 = j.value("beta2", c.beta2);
    c.eps = j.value("eps", c.eps);
    c.amsgrad = j.value("amsgrad", c.amsgrad);
    if (j.contains("weight_decay")) c.weight_decay = j.at("weight_decay").get<double>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument_error(fmt::format("bad optimizer configuration: {}", e.what()));
  }
  if (c.kind != "sgd" && c.kind != "adam" && c.kind != "adamw")
    return invalid_argument_error(fmt::format("unknown optimizer '{}'", c.kind),
                                  "use sgd, adam or adamw");
  return c;
}

template <class T>
Result<std::unique_ptr<Optimizer<T>>, TrainError> make_optimizer(const OptimizerConfig& c,
                                                                 int64_t n) {
  if (n < 0) return invalid_argument_error(fmt::format("cannot optimise {} parameters", n));
  if (c.kind == "sgd") {
    SgdOptions o{c.lr, c.momentum, c.dampening, c.weight_decay.value_or(0.0), c.nesterov};
    if (Status<TrainError> s = o.check(); !s) return s.error();
    return std::unique_ptr<Optimizer<T>>(std::make_unique<Sgd<T>>(n, o));
  }
  if (c.kind == "adam" || c.kind == "adamw") {
    const bool decoupled = c.kind == "adamw";
    AdamOptions o{
        c.lr,      c.beta1,  c.beta2, c.eps, c.weight_decay.value_or(decoupled ? 1e-2 : 0.0),
        c.amsgrad, decoupled};
    if (Status<TrainError> s = o.check(); !s) return s.error();
    return std::unique_ptr<Optimizer<T>>(std::make_unique<Adam<T>>(n, o));
  }
  return invalid_argument_error(fmt::format("unknown optimizer '{}'", c.kind),
                                "use sgd, adam or adamw");
}

template Result<std::unique_ptr<Optimizer<float>>, TrainError>
make_optimizer<float>(const OptimizerConfig&, int64_t);
template Result<std::unique_ptr<Optimizer<double>>, TrainError>
make_optimizer<double>(const OptimizerConfig&, int64_t);

} // namespace plastic::rt
