// Which gradient kernels a run calls, so that a command compiles only those
// (build_kernels, compile_model). Its own header: the driver's option
// structs name it without pulling in the kernel assembler.
#pragma once

namespace plastic::abi {

/// Every gradient kernel (model binaries, the REPL, Python, `--gradient
/// auto`), none (eval, predict), backpropagation's (direct, checkpoint: no
/// adjoint kernels) or the continuous adjoint's (no step_vjp). The forward
/// kernels and field_vjp (every method's fallback when the solver is not
/// the model's fused one) are always built.
enum class GradientUse { All, None, Backprop, Adjoint };

} // namespace plastic::abi
