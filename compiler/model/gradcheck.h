// Finite-difference checks of symbolic derivatives.
//
// `plastic gradcheck` and the tests compare every VJP the compiler derives
// against central finite differences of the function it differentiates,
// evaluated by the reference interpreter in f64. For each input tensor the
// check uses a random direction v and a random output cotangent c:
//   ad = <VJP(c), v>,   fd = (<c, f(x + εv)> − <c, f(x − εv)>) / 2ε,
// which probes every element of the tensor at once at the cost of two
// evaluations, so large parameter tensors are checked cheaply. Fields with
// relu or max have kinks; a difference quotient that straddles one is
// wrong, so fd is taken at several step sizes and the closest to ad counts
// (a wrong derivative disagrees at every step size); at each step size the
// Richardson extrapolation of the quotients at eps and eps/2 is tried too
// (O(eps^4) accurate). Step sizes h of fused solver steps start at 0.01 and
// shrink until the step changes the state modestly, so a step of a stiff
// field stays inside its method's stability region, as a solver's would.
#pragma once

#include "compiler/ir/ir.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plastic::model {

struct GradcheckEntry {
  std::string function;
  std::string input;
  double ad = 0, fd = 0;
  double error = 0; ///< |ad − fd| / max(|ad|, |fd|, floor)
};

struct GradcheckOptions {
  uint64_t seed = 1;
  std::vector<double> eps = {1e-3, 1e-4, 1e-5, 1e-6};
  double scale = 0.5; ///< random inputs ~ N(0, scale²)
  double floor =
      1e-3; ///< denominator floor: gradients much smaller than the O(1) pairing count as 0
  int directions = 2; ///< random directions per input
};

/// Checks `vjp` (inputs: f's inputs, then "ct.<output>" per output;
/// outputs: "d.<input>" for the inputs it differentiates) against f.
/// Inputs of f without a "d.<input>" output are not checked.
std::vector<GradcheckEntry> gradcheck(const ir::Function& f, const ir::Function& vjp,
                                      const GradcheckOptions& options = {});

} // namespace plastic::model
