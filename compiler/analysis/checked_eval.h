// The reference interpreter with a finiteness check after every node: which
// operation of a function first produced an inf or a NaN, and why.
//
// A non-finite value spreads to everything computed from it, so only the
// first node whose operands are all finite but whose result is not says
// where it came from: that node's source location (the DSL expression it
// was lowered from, or for a derivative the expression it differentiates)
// is what the user has to change. The explanation names the operand values
// that did it ("log of a negative value (-0.31)").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/interp/tensor.h"
#include "compiler/ir/function.h"

namespace plastic::analysis {

/// The first operation that produced a non-finite value.
struct NonFiniteSite {
  const ir::Node* node = nullptr; ///< its loc() is the source location
  std::string what;               ///< "log of a negative value (-0.31)"
};

/// What a checked evaluation gives: the outputs when every node was finite,
/// otherwise the first site.
struct CheckedResult {
  std::vector<interp::Tensor<double>> outputs;
  std::optional<NonFiniteSite> site;
};

/// Evaluates `f` in f64 with inputs by name (every input present), checking
/// every node in evaluation order (operands before users).
CheckedResult evaluate_checked(const ir::Function& f,
                               const std::map<std::string, interp::Tensor<double>>& inputs);

/// Why `n` produced a non-finite value at element `index` from finite
/// operands (`operands` are their values).
std::string explain_nonfinite(const ir::Node* n,
                              const std::vector<const interp::Tensor<double>*>& operands,
                              size_t index);

} // namespace plastic::analysis
