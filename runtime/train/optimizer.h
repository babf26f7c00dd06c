// The optimiser interface: flat parameter and gradient spans in, an update
// out, and a state that a checkpoint can hold.
//
// Optimisers never see tensors: theta and its gradient are flat spans in the
// same layout (see param_table.h), so one update loop serves every model.
// Each optimiser follows PyTorch's update equations (torch.optim, 2.x) so
// that hyper-parameters from the papers mean the same thing here; where
// torch's code and documented formulas differ in rounding, the file says
// which one is followed. Element types f32 and f64 are both instantiated;
// per-element arithmetic is done in the element type, as torch does, and
// scalar coefficients (bias corrections, step sizes) in double.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// Everything an optimiser must save to resume bit-exactly.
template <class T> struct OptimizerState {
  std::string kind;     ///< "sgd", "adam" or "adamw"
  int64_t step = 0;     ///< completed steps (torch's state['step'])
  nlohmann::json hyper; ///< hyper-parameters, lr included (schedules change it)
  /// Named per-element buffers in theta's layout ("exp_avg", "exp_avg_sq", "momentum_buffer", ...).
  std::vector<std::pair<std::string, std::vector<T>>> buffers;

  /// The buffer called `name`, or nullptr.
  const std::vector<T>* buffer(std::string_view name) const;
};

/// An optimiser over a flat parameter vector of fixed size.
template <class T> class Optimizer {
public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = default;
  Optimizer& operator=(const Optimizer&) = default;

  /// "sgd", "adam", "adamw".
  virtual const char* kind() const = 0;
  /// Number of parameters this optimiser was made for.
  int64_t size() const { return n_; }
  /// Current learning rate (schedules set it between steps).
  double lr() const { return lr_; }
  void set_lr(double lr) { lr_ = lr; }
  /// Completed steps.
  int64_t steps() const { return step_; }

  /// One update of `params` from `grads` (same size as the optimiser). Fails,
  /// changing nothing, on a size mismatch or invalid hyper-parameters.
  virtual Status<TrainError> step(std::span<T> params, std::span<const T> grads) = 0;
  /// Why step(params, grads) would leave the optimiser's state non-finite
  /// although every gradient is finite (e.g. Adam's g^2 beyond T's range),
  /// or empty when it would not. Such a step poisons the state for good, as
  /// a NaN gradient does, so the training loop skips it instead.
  virtual std::string refusal(std::span<const T> params, std::span<const T> grads) const {
    (void)params;
    (void)grads;
    return {};
  }

  /// The hyper-parameters as JSON (lr included).
  virtual nlohmann::json hyper() const = 0;
  /// A copy of the full state.
  virtual OptimizerState<T> state() const = 0;
  /// Restores a state saved by the same kind of optimiser. As torch's
  /// load_state_dict does, the saved hyper-parameters (lr included) replace
  /// the current ones. Fails, changing nothing, on a kind or size mismatch.
  virtual Status<TrainError> load_state(const OptimizerState<T>& state) = 0;

protected:
  Optimizer(int64_t n, double lr) : n_(n), lr_(lr) {}
  /// The size check shared by every step().
  Status<TrainError> check_spans(size_t n_params, size_t n_grads) const;
  /// The kind/step/buffer-size checks shared by every load_state().
  Status<TrainError> check_state(const OptimizerState<T>& state) const;

  int64_t n_ = 0;
  double lr_ = 0;
  int64_t step_ = 0;
};

/// Hyper-parameters of every optimiser, as a run's configuration gives them
/// (`"optimizer": {"kind": "adam", "lr": 3.1e-5}`); unused fields are ignored.
struct OptimizerConfig {
  std::string kind = "adam"; ///< sgd | adam | adamw
  double lr = 1e-3;
  double momentum = 0;   ///< sgd
  double dampening = 0;  ///< sgd
  bool nesterov = false; ///< sgd
  double beta1 = 0.9;    ///< adam, adamw
  double beta2 = 0.999;  ///< adam, adamw
  double eps = 1e-8;     ///< adam, adamw
  bool amsgrad = false;  ///< adam, adamw
  /// Unset: torch's default for the kind (0 for sgd and adam, 1e-2 for adamw).
  std::optional<double> weight_decay;

  nlohmann::json to_json() const;
  /// Reads the fields present in `j` over the defaults; rejects unknown kinds and wrong types.
  static Result<OptimizerConfig, TrainError> from_json(const nlohmann::json& j);
};

/// Makes the optimiser a config describes, for `n` parameters. Checks the
/// hyper-parameters with torch's rules (lr >= 0, 0 <= beta < 1, ...).
template <class T>
Result<std::unique_ptr<Optimizer<T>>, TrainError> make_optimizer(const OptimizerConfig& config,
                                                                 int64_t n);

} // namespace plastic::rt
