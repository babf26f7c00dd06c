// The reference side of the kernel tests: one sample's flat ABI arrays fed
// to the interpreter (compiler/interp) by leaf name, the way the model ABI
// lays them out (states, theta, input slots, targets, outputs, cotangents).
// Written independently of compiler/abi/bind.cpp from the naming
// contract of lower_model.h, function_ad.h and ode.h.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/model/model_functions.h"

namespace plastic::test {

using Vec = std::vector<double>;

/// One sample's arrays by ABI role.
struct SampleArrays {
  const Vec* z = nullptr;
  const Vec* theta = nullptr;
  const Vec* u = nullptr;                         ///< the sample (or u_stages, with block_of_node)
  std::function<int64_t(int)> block_of_node = {}; ///< u offset of a step's node k
  const Vec* target = nullptr;
  const Vec* y = nullptr;
  const Vec* ct_states = nullptr; ///< "ct.<state>"
  const Vec* a_states = nullptr;  ///< "a.<state>"
  std::map<std::string, const Vec*> ct_named =
      {};                          ///< "ct.<name>" laid out like outputs ("loss": 1 element)
  const Vec* ct_outputs = nullptr; ///< "ct.<output>" at output offsets
  double t = 0, h = 0;
};

/// Evaluates `fn` on one sample; outputs by name, flattened. In f64, unless
/// an F32Reference lives on this thread.
std::map<std::string, Vec> evaluate_sample(const model::ModelFunctions& fns,
                                           const abi::ModelLayout& layout, const ir::Function& fn,
                                           const SampleArrays& s);

/// While one lives, evaluate_sample on this thread runs the interpreter in
/// f32 (inputs rounded to f32): an independent f32 evaluation of the same IR
/// whose error against the f64 reference shows how much rounding the math
/// itself forces (cancellation), the yardstick of f32 kernel errors.
class F32Reference {
public:
  F32Reference();
  ~F32Reference();
  F32Reference(const F32Reference&) = delete;
  F32Reference& operator=(const F32Reference&) = delete;

private:
  bool previous_;
};

/// Where a gradient output "d.<name>" lands in ABI arrays: ("z"|"theta"|
/// "u"|"y", offset, node or -1); role empty when it has no ABI place.
struct GradPlace {
  std::string role;
  int64_t offset = 0;
  int node = -1;
};
GradPlace grad_place(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                     const ir::Function& fn, const std::string& output);

} // namespace plastic::test
