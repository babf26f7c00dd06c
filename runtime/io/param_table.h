// The parameter table: how the flat parameter vector theta splits into named
// tensors.
//
// A compiled model keeps all its slow weights in one flat vector (the ABI's
// `theta`) and gradients in the same layout, so optimisers work on flat
// spans and never need to know the tensors. Only checkpoints, logs and users
// care about names and shapes; this table gives them, built either from the
// ABI's `plastic_param` entries or by hand (tests, tools).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/abi.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// One named tensor inside theta.
struct ParamTensor {
  std::string name;           ///< dotted DSL name ("ff.w1")
  std::vector<int64_t> shape; ///< row-major; empty for a scalar
  int64_t offset = 0;         ///< first element in theta

  /// Product of the shape (1 for a scalar).
  int64_t size() const;
};

/// The tensors of theta: unique names, disjoint ranges that cover [0, total).
class ParamTable {
public:
  ParamTable() = default;

  /// Checks that `tensors` have unique non-empty names without '/', non-negative dims and
  /// disjoint ranges covering exactly [0, total). Order is kept as given.
  static Result<ParamTable, TrainError> make(std::vector<ParamTensor> tensors, int64_t total);

  /// Builds the table from the ABI's descriptors (`plastic_model::params`).
  static Result<ParamTable, TrainError> from_abi(const plastic_param* params, int32_t count,
                                                 int64_t n_params);

  /// Appends a tensor right after the last one (building tables by hand).
  /// Returns its offset.
  int64_t append(std::string name, std::vector<int64_t> shape);

  const std::vector<ParamTensor>& tensors() const { return tensors_; }
  /// Number of elements of theta.
  int64_t total() const { return total_; }
  /// The tensor called `name`, or nullptr.
  const ParamTensor* find(std::string_view name) const;

private:
  std::vector<ParamTensor> tensors_;
  int64_t total_ = 0;
};

/// "[4, 20, 21]" — shapes in messages.
std::string shape_string(const std::vector<int64_t>& shape);

} // namespace plastic::rt
