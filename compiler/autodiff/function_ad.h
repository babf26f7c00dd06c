// Derivatives of whole IR Functions: the generic helpers the model ABI is
// built from (VJPs of the initial-state map, outputs, losses, jump maps,
// the field, a solver step).
//
// Naming convention of the generated functions (names with a '.' cannot
// clash with DSL identifiers):
//   cotangent inputs  "ct.<output>"   (Op::Arg leaves)
//   gradient outputs  "d.<input>"
//   tangent inputs    "tan.<input>"   (Op::Arg leaves)
//   tangent outputs   "tan.<output>"
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::ad {

/// What vjp_function differentiates.
struct VjpSpec {
  /// Inputs to differentiate with respect to, by name; empty = every input.
  std::vector<std::string> wrt;
  /// Outputs that receive a cotangent input, by name; empty = every output.
  std::vector<std::string> seeds;
  /// Also return the primal outputs (first, under their own names).
  bool keep_outputs = false;
  /// Name of the new function; empty = "<f>.vjp".
  std::string name;
};

/// The VJP of `f`: inputs are f's inputs followed by one cotangent per seeded
/// output ("ct.<output>", in output order); outputs are (the primal outputs,
/// if kept, then) one gradient per wrt input ("d.<input>", in the order of
/// spec.wrt). Gradients of inputs the seeded outputs do not depend on are
/// zero constants.
ir::Function vjp_function(const ir::Function& f, const VjpSpec& spec = {});

/// What jvp_function differentiates.
struct JvpSpec {
  /// Inputs that get a tangent, by name; empty = every input.
  std::vector<std::string> wrt;
  /// Also return the primal outputs (first, under their own names).
  bool keep_outputs = false;
  /// Name of the new function; empty = "<f>.jvp".
  std::string name;
};

/// The JVP of `f`: inputs are f's inputs followed by one tangent per wrt
/// input ("tan.<input>"); outputs are (the primal outputs, if kept, then)
/// one tangent per output ("tan.<output>").
ir::Function jvp_function(const ir::Function& f, const JvpSpec& spec = {});

} // namespace plastic::ad
