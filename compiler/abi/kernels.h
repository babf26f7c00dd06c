// The kernels of a plastic_model, as loop-IR functions with the exact C
// signatures of runtime/abi.h.
//
// Each ABI kernel is one loops::Function built on a Builder: the ABI's
// parameters in order (ctx opaque, t/h scalars, per-sample arrays varying,
// theta and its cotangent uniform, "may be NULL" arrays nullable, z1
// may-alias z0), then one or more loopgen::emit_function calls that evaluate
// the model's IR functions with their leaves bound to slices of those
// parameters (bind.h). Families live in kernels_ode.cpp (init, field,
// adjoint), kernels_step.cpp (fused steps) and kernels_readout.cpp (output,
// loss, jump).
//
// Choices the ABI leaves open, and what this assembler does:
//  * adjoint_field: dtheta is zeroed, then the lane sums of adj.<param> are
//    accumulated into it (the ABI writes dtheta, summed over the tile);
//    u_bar (+= aᵀ∂f/∂u) evaluates the field VJP's control part under
//    if_present.
//  * step_vjp: controls shared by several stages (rk4's two c = 1/2 stages)
//    get their whole cotangent in the block of the first stage using that
//    node — the blocks hold the same sample, so the sum is what matters.
//    Statics are read from block 0 and their cotangent goes to block 0.
//  * adjoint_step: dtheta (and an embedded pair's dtheta_err) as
//    adjoint_field's; the stages' quadratures are summed per lane in
//    registers and lane-summed once. The first stage is recomputed.
//  * step: z1 may alias z0, so every stage is computed before the first
//    store; z1 = z0 + h Σ b_i k_i is then stored from the loop that reads
//    z0 element for element (loopgen's schedule decides; no scratch copy).
//  * step_adaptive, for FSAL tableaus, takes k_first as its first stage and
//    returns its last stage, f(t+h, z1), in k_last (s - 1 field
//    evaluations); other tableaus recompute stage 1 and leave k_last.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "compiler/abi/gradient_use.h"
#include "compiler/abi/layout.h"
#include "compiler/loops/loop_ir.h"
#include "compiler/model/model_functions.h"

namespace plastic::abi {

/// The ABI kernels, in plastic_kernels order (runtime/abi_kernels.def).
enum class KernelId {
#define PLASTIC_ABI_KERNEL(name, Id) Id,
#include "runtime/abi_kernels.def"
};
/// How many kernels the ABI has.
inline constexpr int kKernelCount = 0
// NOLINTNEXTLINE(bugprone-macro-parentheses): each expansion is one `+1` term of the sum
#define PLASTIC_ABI_KERNEL(name, Id) +1
#include "runtime/abi_kernels.def"
    ;
/// "init_state", "field_vjp", ...: the plastic_kernels member name.
std::string_view kernel_name(KernelId id);
/// Whether only gradients call the kernel (the VJPs and the adjoint
/// field): what a model that only predicts can do without.
bool is_gradient_kernel(KernelId id);

/// The loop module of one model and which ABI slot each function fills.
struct ModelKernels {
  loops::Module module;
  /// Index into module.functions per KernelId; -1 when the model has no
  /// such kernel (no jump, no fused step for its method, ...).
  std::array<int, kKernelCount> index;
  const loops::Function* get(KernelId id) const {
    int i = index[static_cast<size_t>(id)];
    return i < 0 ? nullptr : &module.functions[static_cast<size_t>(i)];
  }
  /// The element type and tile width the kernels were built for; with no
  /// kernel, f64 and the default width of `fallback`.
  loops::ElemType type() const {
    return module.functions.empty() ? loops::ElemType::F64 : module.functions[0].type;
  }
  int lanes(loops::ElemType fallback) const {
    return module.functions.empty() ? loops::default_lanes(fallback) : module.functions[0].lanes;
  }
};

/// Whether a run with `use` calls kernel `id`.
bool kernel_needed(KernelId id, GradientUse use);

/// Builds every kernel `use` needs (the others get index -1). Function
/// symbols are "<prefix><kernel name>".
ModelKernels build_kernels(const model::ModelFunctions& fns, const ModelLayout& layout,
                           loops::ElemType type, int lanes, const std::string& prefix,
                           GradientUse use = GradientUse::All);

namespace detail {
// One builder per kernel family (kernels_*.cpp); each returns false when the
// model has nothing for that kernel.
struct KernelContext {
  const model::ModelFunctions& fns;
  const ModelLayout& layout;
  loops::ElemType type;
  int lanes;
  std::string prefix;
};
// build_init_state, build_init_state_vjp, ...: one per kernel.
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  bool build_##name(const KernelContext& k, loops::Function& out);
#include "runtime/abi_kernels.def"
} // namespace detail

} // namespace plastic::abi
