// The reference interpreter: evaluates any IR Function on dense tensors.
//
// It is the oracle every backend is tested against, so it favours clarity:
// one straightforward kernel per op family (kernels_*.cpp), computing in the
// element type T (double for the f64 reference, float to mirror f32 code).
// The scalar semantics are those of ir/scalar_math.h, shared with constant
// folding. Softmax, logsumexp and layernorm use their stable forms
// (max-shifted exponentials; biased variance).
#pragma once

#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/interp/tensor.h"
#include "compiler/ir/function.h"

namespace plastic::interp {

/// Evaluates `f` with its inputs given in input order. Throws ir::IRError
/// when the count or a shape does not match the function's inputs.
template <typename T>
std::vector<Tensor<T>> evaluate(const ir::Function& f, std::span<const Tensor<T>> inputs);

/// Same, for a vector of inputs (lets T be deduced).
template <typename T>
std::vector<Tensor<T>> evaluate(const ir::Function& f, const std::vector<Tensor<T>>& inputs) {
  return evaluate<T>(f, std::span<const Tensor<T>>(inputs));
}

/// Same, with inputs given by name (every input must be present).
template <typename T>
std::vector<Tensor<T>> evaluate(const ir::Function& f,
                                const std::map<std::string, Tensor<T>>& inputs);

/// Evaluates arbitrary roots given values for every leaf they reach.
template <typename T>
std::vector<Tensor<T>> evaluate_nodes(std::span<const ir::Node* const> roots,
                                      const std::unordered_map<const ir::Node*, Tensor<T>>& leaves);

/// The value of one node from the values of its operands (one step of the
/// interpreter; the constant folder uses it too).
template <typename T>
Tensor<T> evaluate_node(const ir::Node* n, std::span<const Tensor<T>* const> operands);

extern template std::vector<Tensor<double>> evaluate(const ir::Function&,
                                                     std::span<const Tensor<double>>);
extern template std::vector<Tensor<float>> evaluate(const ir::Function&,
                                                    std::span<const Tensor<float>>);

} // namespace plastic::interp
