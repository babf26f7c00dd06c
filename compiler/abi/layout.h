// The memory layout of a compiled model: where every state, parameter,
// input sample, target and output lives in the flat per-sample vectors of
// the model ABI (runtime/abi.h), and the descriptive half of the table
// (parameter initialisers, solver, gradient method, readout, task).
//
// The layout is computed once from the checked model and the lowered
// functions (which input samples the model actually reads), independent of
// element type and tile width, and shared by the kernel assembler (which
// binds IR leaves to buffer slices through it), the JIT table and the AOT
// table. Strings are owned here; `make_table` points into this object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/model/model_functions.h"
#include "runtime/abi.h"

namespace plastic::abi {

/// A named block of a flat per-sample vector.
struct Slice {
  std::string name;
  int64_t offset = 0;
  int64_t size = 0;
};

/// One slot of the input sample u, with the strings the C slot points to.
struct InputSlot {
  std::string name;       ///< the DSL input's name ("x", "s")
  plastic_input_slot c{}; ///< name left null; make_table fills it
};

/// One parameter entry, with its owned name.
struct ParamEntry {
  std::string name;
  plastic_param c{};
};

struct ModelLayout {
  std::string name;
  std::vector<Slice> states; ///< declaration order = dsl StateInfo offsets
  int64_t n_state = 0;
  std::vector<ParamEntry> params;
  int64_t n_params = 0;
  std::vector<InputSlot> inputs; ///< in offset order
  int64_t n_input = 0;
  int64_t n_static = 0;
  std::vector<Slice> outputs; ///< declaration order
  int64_t n_outputs = 0;
  std::vector<Slice> targets; ///< the loss's target inputs, declaration order (labels one-hot)
  int64_t n_targets = 0;

  plastic_solver_desc solver{}; ///< method string left null; make_table fills it
  std::string solver_method;
  plastic_gradient_desc gradient{};
  std::string step_method; ///< empty: no fused step kernels
  int32_t readout = PLASTIC_READOUT_FINAL;
  int32_t task = PLASTIC_TASK_REGRESSION;
  int32_t observe_after_jump = 1;
  /// The span of theta the field reads (abi.h field_theta_begin/end).
  int64_t field_theta_begin = 0, field_theta_end = 0;

  /// The u slot of a path value (deriv = false) or derivative of DSL input
  /// `input`, or of a static input; nullptr if the model does not read it.
  const InputSlot* path_slot(int input, bool deriv) const;
  const InputSlot* static_slot(int input) const;
  const Slice* state(std::string_view name) const;
  const Slice* output(std::string_view name) const;
  const Slice* target(std::string_view name) const;
  const ParamEntry* param(std::string_view name) const;
};

/// Thrown when a model uses something the ABI cannot express (e.g. an
/// initial state that reads t0, which init_state does not receive).
struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Computes the layout of `fns` (see the file comment).
ModelLayout compute_layout(const model::ModelFunctions& fns);

/// plastic_init_kind and args for a DSL initialiser (`step` = the solver's
/// step h, args[0] of stability_informed).
void fill_init(const dsl::InitInfo& init, double step, plastic_param& out);

/// A path leaf name ("x", "dx", "x@T", "dx@t0") classified: whether it is the
/// derivative. `input_name` is the DSL input the leaf's slot points at.
std::optional<bool> path_leaf_is_deriv(std::string_view leaf, std::string_view input_name);

} // namespace plastic::abi
