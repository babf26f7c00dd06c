// Binding the leaves of an IR function to the buffers of a kernel signature.
//
// Every ABI kernel evaluates one or more IR functions whose inputs are leaves
// named by the lowering (compiler/lower/lower_model.h) and by autodiff
// (compiler/autodiff/ode.h, function_ad.h). A `KernelEnv` says where each
// class of leaf lives in this kernel — the state vector, theta, the input
// sample u (or one block of u_stages), targets, outputs, cotangents, the
// scalar parameters t and h — and `bind_inputs` / `bind_outputs` turn it
// into the per-leaf bindings loopgen::emit_function takes, using the model
// layout for offsets. A leaf the environment cannot place is a bug of the
// assembler (InternalError), never silently zero.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/loopgen/emit_function.h"
#include "compiler/loops/loop_builder.h"

namespace plastic::abi {

/// A buffer of the kernel with a base offset (per-sample elements for a
/// varying buffer). `valid() == false`: the kernel has no such buffer.
struct Place {
  loops::Buffer buffer;
  int64_t base = 0;
  /// Likely out of the caches when the kernel starts (a state read back
  /// from the direct method's tape): the kernel prefetches it.
  bool cold = false;
  bool valid() const { return buffer.valid(); }
};

/// Where leaves live in one kernel.
struct KernelEnv {
  const ModelLayout* layout = nullptr;
  const dsl::CheckedModel* model = nullptr;
  Place z;     ///< states, at their layout offsets
  Place theta; ///< params
  Place u;     ///< path samples and statics (values, `x@T`, `x@t0` alike)
  /// Per-node controls "<control>@<k>" of a fused step: the u block of node k.
  std::function<Place(int node)> u_node;
  Place target;                 ///< the loss's targets
  Place y;                      ///< outputs read by the loss (Arg leaves named after outputs)
  std::optional<loops::Expr> t; ///< the time leaf "t" and the final-time arg "T"
  std::optional<loops::Expr> h; ///< the step size arg "step.h"
  /// Cotangent args "ct.<name>" by output name: a buffer laid out like states
  /// (ct.<state>) or a place of its own (ct.loss).
  Place ct_states;
  /// Adjoint args "a.<state>" of the continuous adjoint system.
  Place a_states;
  /// First-stage rates "k_first.<state>" of an FSAL step, laid out like states.
  Place k_first;
  std::map<std::string, Place> ct_named;
};

/// Where gradient outputs "d.<input>" go.
struct GradEnv {
  Place z_bar;                               ///< d.<state>: Add
  Place theta_bar;                           ///< d.<param>: AddLaneSum
  Place u_bar;                               ///< d.<path sample or static>: Add
  std::function<Place(int node)> u_node_bar; ///< d.<control>@<k>: Add
  Place y_bar;                               ///< d.<output> (loss VJP): Add
};

std::vector<loopgen::InputBinding> bind_inputs(const ir::Function& fn, const KernelEnv& env);

/// Binds the gradient outputs by `grad`; outputs named in `plain` (name ->
/// place, mode Set) are stored as they are; everything else is discarded.
std::vector<loopgen::OutputBinding> bind_outputs(const ir::Function& fn, const KernelEnv& env,
                                                 const GradEnv& grad,
                                                 const std::map<std::string, Place>& plain = {},
                                                 double theta_scale = 1.0);

/// Splits "<control>@<k>" into ("<control>", k); nullopt when the name
/// carries no integer node suffix ("x", "x@T").
std::optional<std::pair<std::string, int>> split_node_suffix(const std::string& name);

} // namespace plastic::abi
