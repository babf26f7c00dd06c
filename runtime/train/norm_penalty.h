// A penalty on the parameters' norms: λ Σ_g ‖θ_g‖₂ added to the training
// loss, one Euclidean norm (not squared) per parameter tensor g.
//
// Kidger et al.'s neural CDE code regularises this way (common.py's
// `_add_weight_regularisation`, λ = 0.03 over the vector field's tensors),
// and paper 000's code keeps it, over every tensor of its fast weight
// models. It is not weight decay: the gradient λ θ_g / ‖θ_g‖ has the same
// length λ for every tensor whatever its size, so small tensors shrink as
// fast as large ones (a group-lasso pull towards zero). At θ_g = 0 the
// gradient is taken as 0, as torch's norm backward does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/io/param_table.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// One tensor's elements in the flat parameter vector.
struct ParamRange {
  int64_t offset = 0;
  int64_t size = 0;
};

/// λ and the tensors it applies to.
struct NormPenalty {
  double weight = 0;              ///< λ; 0 = off
  std::vector<ParamRange> groups; ///< one norm each

  bool active() const { return weight > 0 && !groups.empty(); }
};

/// The penalty over the tensors `names` selects: a comma-separated list of
/// parameter names or layer prefixes ("f" selects "f.layers.0.weight", ...),
/// or every tensor when `names` is empty. Fails on a negative or non-finite
/// λ and on a name that selects nothing, listing the parameters there are.
Result<NormPenalty, TrainError> norm_penalty_over(const ParamTable& table, double weight,
                                                  std::string_view names);

/// Adds λ θ_g / ‖θ_g‖ to `grads` for every group and returns λ Σ_g ‖θ_g‖,
/// the term the training loss gains. 0 and nothing changed when inactive.
template <class T>
double add_norm_penalty(const NormPenalty& penalty, std::span<const T> params, std::span<T> grads);

} // namespace plastic::rt
