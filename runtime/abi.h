/* The model ABI, version 1: the C table through which the runtime drives a
 * compiled model.
 *
 * The compiler (JIT or AOT) emits one `plastic_model` per model and element
 * type; the runtime (solvers, gradient methods, training loop) calls the
 * model only through it. Plain C (C99 and C++) so that LLVM-generated objects,
 * emitted C++ and hand-written test kernels all produce the same thing.
 *
 * Data layout. Kernels work on a tile of L samples (L = `lanes`, the SIMD
 * width: 4 x f64 or 8 x f32 on AVX2) stored lane-interleaved, element-major:
 * element i of sample l lives at [i*L + l]. Every scalar operation of a field
 * then becomes one full SIMD operation whatever the tensor shapes. The sizes
 * below are per sample; a per-sample array of size n occupies n*L elements.
 * Parameters theta are shared by all samples and NOT interleaved (n_params
 * elements). Parameter cotangents are ACCUMULATED (+=) and summed over the L
 * lanes into a flat buffer with the layout of theta.
 *
 * Conventions for every kernel:
 *  - `ctx` is `plastic_model::ctx`, passed unchanged (constant tables of a
 *    JIT module, dims of a hand-written test kernel; compiled kernels may
 *    ignore it).
 *  - Arrays are of the model's element type (`dtype`) and passed as void*;
 *    time and step size are always double (f32 time loses precision on long
 *    series).
 *  - `scratch` holds at least the kernel's `plastic_scratch_sizes` entry in
 *    bytes, 64-byte aligned; its contents are undefined on entry. Kernels
 *    never allocate, keep no state between calls, and are reentrant (each
 *    thread passes its own scratch).
 *  - Outputs never alias inputs unless stated. Plain outputs are written (=);
 *    cotangent outputs (names ending in `_bar`) are accumulated (+=).
 *  - `u` is the per-time input sample: the concatenation of the input slots
 *    (`plastic_input_slot`) evaluated by the runtime at the kernel's time
 *    (control path values, derivatives, static features, log-signature
 *    drivers). Kernels never interpolate. n_input*L elements; it may be NULL
 *    when n_input == 0.
 *  - Any kernel pointer may be NULL when the model does not provide it; the
 *    runtime composes what it can (e.g. the adjoint field from field and
 *    field_vjp, a step from field) and reports what is missing otherwise.
 */
#ifndef PLASTIC_RUNTIME_ABI_H
#define PLASTIC_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bumped on any incompatible change of the structs or kernel signatures.
#define PLASTIC_ABI_VERSION 5

/// Largest tensor rank in a parameter descriptor.
#define PLASTIC_MAX_RANK 8

/// Symbol an AOT object or JIT module exports: `plastic_model_entry_fn`.
#define PLASTIC_MODEL_ENTRY_SYMBOL "plastic_model_v1"

/// Element type of every array a kernel touches.
typedef enum plastic_dtype { PLASTIC_F32 = 1, PLASTIC_F64 = 2 } plastic_dtype;

/* ------------------------------------------------------------------------ */
/* Inputs                                                                    */

/// What the runtime writes into one slot of the input sample u(t).
typedef enum plastic_input_kind {
  PLASTIC_INPUT_PATH_VALUE = 1,   ///< x(t) of a control path (interpolated data)
  PLASTIC_INPUT_PATH_DERIV = 2,   ///< dx/dt(t) of a control path (CDE driver)
  PLASTIC_INPUT_STATIC = 3,       ///< per-sample features, constant in time
  PLASTIC_INPUT_LOGSIG_DRIVER = 4 ///< LogSig of the current window / its length (NRDE)
} plastic_input_kind;

/// One slot of u: the runtime fills u[offset .. offset+channels) per sample.
typedef struct plastic_input_slot {
  const char* name; ///< DSL name of the input ("x")
  int32_t kind;     ///< plastic_input_kind
  int32_t source;   ///< which data input feeds it (index into the model's declared inputs)
  int64_t offset;   ///< first element in u (per sample)
  int64_t channels; ///< elements of this slot (for logsig: the log-signature dimension)
  int32_t
      path_channels; ///< channels of the underlying path (logsig: d of the path), else = channels
  int32_t logsig_depth;  ///< logsig only: truncation depth N
  int32_t logsig_step;   ///< logsig only: samples per window
  int32_t interpolation; ///< path only: plastic_interpolation
  int32_t path_options;  ///< path only: plastic_path_option bits (`with time, unit_increments`)
} plastic_input_slot;

/// How a path input is interpolated between observations (plastic_input_slot::interpolation).
/// The values are the ABI's: generated code and model binaries store them.
typedef enum plastic_interpolation {
  PLASTIC_INTERP_LINEAR = 0,  ///< piecewise linear (also x(t) of a log-ODE path)
  PLASTIC_INTERP_CUBIC = 1,   ///< natural cubic spline (torchcde)
  PLASTIC_INTERP_HERMITE = 2, ///< cubic Hermite with backward differences (online)
  /// rectilinear (torchcde): reserved; the checker refuses it, the runtime builds none
  PLASTIC_INTERP_RECTILINEAR = 3,
} plastic_interpolation;

/// What a path input asks of the data layer (bits of plastic_input_slot::path_options).
typedef enum plastic_path_option {
  /// `with time`: the time channel is prepended (the path has the data's channels + 1).
  PLASTIC_PATH_WITH_TIME = 1,
  /// `with unit_increments`: measured channels scaled so that their per-step
  /// increments have unit RMS over the training split.
  PLASTIC_PATH_UNIT_INCREMENTS = 2,
} plastic_path_option;

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */

/// How a parameter tensor is initialised (args in plastic_param::init_args).
typedef enum plastic_init_kind {
  /// U(-1/sqrt(fan_in), 1/sqrt(fan_in)): PyTorch's Linear default.
  PLASTIC_INIT_UNIFORM_FAN_IN = 1,
  /// U(-a, a), a = gain*sqrt(6/(fan_in+fan_out)); args[0] = gain (0 -> 1).
  PLASTIC_INIT_GLOROT_UNIFORM = 2,
  /// N(0, gain^2 * 2/(fan_in+fan_out)); args[0] = gain (0 -> 1).
  PLASTIC_INIT_GLOROT_NORMAL = 3,
  /// U(-a, a), a = gain*sqrt(3/fan_in); args[0] = gain (0 -> sqrt 2).
  PLASTIC_INIT_KAIMING_UNIFORM = 4,
  /// N(0, gain^2/fan_in); args[0] = gain (0 -> sqrt 2).
  PLASTIC_INIT_KAIMING_NORMAL = 5,
  PLASTIC_INIT_ZEROS = 6,
  PLASTIC_INIT_ONES = 7,
  /// N(args[1], args[0]^2).
  PLASTIC_INIT_NORMAL = 8,
  /// (Semi-)orthogonal over the last two dims; args[0] = gain.
  PLASTIC_INIT_ORTHOGONAL = 9,
  /// Gated nODE critical initialisation (paper 003 Sec. 4): N(0, sigma_w^2/fan_in);
  /// args[0] = sigma_w (0 -> sqrt(2^(1-1/layers))), args[1] = layers.
  PLASTIC_INIT_CRITICAL = 10,
  /// Paper 004 Algorithm 1, jointly over one init_group (the layers of one MLP, in
  /// init_index order); args[0] = solver step h (0 -> the model's), args[1] = half-width R
  /// of the eigenvalue sampling box (0 -> 3), args[2] = rejection-sampling tries
  /// (0 -> 100 d_x + 100), args[3] = use_complex (nonzero: complex-conjugate pairs).
  PLASTIC_INIT_STABILITY_INFORMED = 11,
  /// Every element = args[0].
  PLASTIC_INIT_CONSTANT = 12,
  /// U(args[0], args[1]).
  PLASTIC_INIT_UNIFORM = 13
} plastic_init_kind;

/// One named parameter tensor inside the flat theta vector.
typedef struct plastic_param {
  const char* name;                ///< dotted DSL name ("ff.w1")
  int32_t rank;                    ///< 0..PLASTIC_MAX_RANK
  int32_t init;                    ///< plastic_init_kind
  int64_t shape[PLASTIC_MAX_RANK]; ///< row-major, unused dims 0
  int64_t offset;                  ///< first element in theta
  int64_t size;                    ///< product of shape (1 for rank 0)
  int64_t fan_in;                  ///< decided by the compiler from the tensor's role
  int64_t fan_out;
  int32_t init_group;  ///< params initialised jointly share a group id; -1 for none
  int32_t init_index;  ///< position within the group (layer order)
  double init_args[4]; ///< meaning per plastic_init_kind; unused = 0
} plastic_param;

/* ------------------------------------------------------------------------ */
/* Solver and gradient method chosen in the spec (the runtime may override)   */

/// `solve rk4 step 0.1`, `solve dopri5 rtol 1e-4 atol 1e-6`, ...
typedef struct plastic_solver_desc {
  const char* method; ///< tableau name ("euler", "rk4", "dopri5", "tsit5", ...)
  double step;        ///< fixed step h; adaptive: first step, 0 = automatic (Hairer)
  double rtol, atol;  ///< adaptive only
  double dt_min;      ///< adaptive: smallest step before failing; 0 = only round-off limits
  double dt_max;      ///< adaptive: largest step; 0 = unlimited
  int64_t max_steps;  ///< accepted + rejected steps per solve before failing; 0 = default
} plastic_solver_desc;

typedef enum plastic_gradient_kind {
  PLASTIC_GRAD_DIRECT = 1,     ///< backpropagate through every stored step
  PLASTIC_GRAD_CHECKPOINT = 2, ///< store every k-th state, recompute segments
  PLASTIC_GRAD_ADJOINT = 3,    ///< continuous adjoint, integrated backwards
  /// `gradient auto`: the runtime chooses one of the above from a memory
  /// budget (runtime/app/memory_plan.h); where no choice is made (REPL,
  /// embedding) it is checkpointing at sqrt(steps).
  PLASTIC_GRAD_AUTO = 4
} plastic_gradient_kind;

typedef struct plastic_gradient_desc {
  int32_t kind;             ///< plastic_gradient_kind
  int32_t checkpoint_every; ///< checkpoint: k items per segment; 0 = sqrt(N) (fixed step only)
  double adjoint_rtol;      ///< adjoint: tolerances of the backward solve; 0 = the forward's
  double adjoint_atol;
  double memory_budget; ///< auto: bytes for the gradient; 0 = half of the available memory
} plastic_gradient_desc;

/* ------------------------------------------------------------------------ */
/* Kernels. Sizes: n = n_state, P = n_params, m = n_input, o = n_outputs,    */
/* g = n_targets, s = stages of the model's step tableau.                      */

/// z0 = init(theta, u0). u0 (m*L, may be NULL when m == 0) is the input
///  sample at the series' first time t0 (the same slots as u: x(t0), static
///  features, ...); z0: n*L.
typedef void (*plastic_init_state_fn)(const void* ctx, const void* theta, const void* u0, void* z0,
                                      void* scratch);
/// theta_bar (P) += sum_lanes z0_bar^T d init/d theta; u0_bar (m*L, may be NULL) += ...
typedef void (*plastic_init_state_vjp_fn)(const void* ctx, const void* theta, const void* u0,
                                          const void* z0_bar, void* theta_bar, void* u0_bar,
                                          void* scratch);

/// The vector field: dz = f(t, z, theta, u). z, dz: n*L.
typedef void (*plastic_field_fn)(const void* ctx, double t, const void* z, const void* theta,
                                 const void* u, void* dz, void* scratch);
/// Field VJP with cotangent a (n*L):
///  z_bar (n*L) += a^T df/dz;  theta_bar (P) += sum_lanes a^T df/dtheta;
///  u_bar (m*L) += a^T df/du, skipped when u_bar is NULL.
typedef void (*plastic_field_vjp_fn)(const void* ctx, double t, const void* z, const void* theta,
                                     const void* u, const void* a, void* z_bar, void* theta_bar,
                                     void* u_bar, void* scratch);
/// The augmented backward system of the continuous adjoint (time derivatives, written =):
///  dz = f;  da = -a^T df/dz (n*L);  dtheta = -sum_lanes a^T df/dtheta (P, summed over the tile;
///  written on [field_theta_begin, field_theta_end) only, the rest is not touched).
///  u_bar (m*L, may be NULL) += a^T df/du (a cotangent density: no minus sign).
typedef void (*plastic_adjoint_field_fn)(const void* ctx, double t, const void* z, const void* a,
                                         const void* theta, const void* u, void* dz, void* da,
                                         void* dtheta, void* u_bar, void* scratch);

/// One step of the model's tableau (`step_method`), all stages fused:
///  z1 = z0 + h sum_i b_i k_i. u_stages: s*m*L, stage i's sample at t + c_i h
///  (block i at offset i*m*L). Stages at the same node c_i share one sample: the
///  fused kernels read only the block of the first of them (the others may hold
///  anything). z1 may alias z0.
typedef void (*plastic_step_fn)(const void* ctx, double t, double h, const void* z0,
                                const void* theta, const void* u_stages, void* z1, void* scratch);
/// VJP of plastic_step_fn with the step size held constant. Recomputes the stages
///  internally. z0_bar (n*L) = z1_bar^T dz1/dz0 (written whole: the caller need not zero
///  it; it aliases no other argument); theta_bar (P) += sum_lanes ...;
///  u_stages_bar (s*m*L, may be NULL) += ...
typedef void (*plastic_step_vjp_fn)(const void* ctx, double t, double h, const void* z0,
                                    const void* theta, const void* u_stages, const void* z1_bar,
                                    void* z0_bar, void* theta_bar, void* u_stages_bar,
                                    void* scratch);
/// One step of an embedded pair (adaptive `step_method`): z1 as plastic_step_fn and
///  err = h sum_i e_i k_i (n*L). k_first (n*L) = f(t, z0, u(t)) is given by the caller
///  (the previous step's k_last for FSAL tableaus, else a field call); FSAL tableaus use
///  it as the first stage, others recompute it. For FSAL tableaus k_last (n*L) =
///  f(t+h, z1, u(t+h)), the last stage, on return, else untouched (may be NULL).
///  No output aliases an input.
typedef void (*plastic_step_adaptive_fn)(const void* ctx, double t, double h, const void* z0,
                                         const void* theta, const void* u_stages,
                                         const void* k_first, void* z1, void* err, void* k_last,
                                         void* scratch);
/// One step of the continuous adjoint's augmented system (plastic_adjoint_field_fn) with the
///  model's tableau (`step_method`), all stages fused; the backward solve calls it with h < 0:
///  [z1; a1] = [z0; a0] + h sum_i b_i [f; -a^T df/dz](stage i)  (z0, a0, z1, a1: n*L);
///  dtheta = h sum_i b_i (-sum_lanes a^T df/dtheta)(stage i) (P, summed over the tile, written
///  on [field_theta_begin, field_theta_end) only). Embedded pairs also write the error
///  estimates h sum_i e_i (...): err (2n*L, the z block then the a block) and dtheta_err (P,
///  on the same span); both are ignored (may be NULL) for fixed-step tableaus. The first stage
///  is recomputed (FSAL is not exploited). u_stages as plastic_step_fn. No output aliases an
///  input.
typedef void (*plastic_adjoint_step_fn)(const void* ctx, double t, double h, const void* z0,
                                        const void* a0, const void* theta, const void* u_stages,
                                        void* z1, void* a1, void* dtheta, void* err,
                                        void* dtheta_err, void* scratch);

/// Readout y = output(t, z, theta, u). y: o*L.
typedef void (*plastic_output_fn)(const void* ctx, double t, const void* z, const void* theta,
                                  const void* u, void* y, void* scratch);
/// z_bar (n*L) += ..., theta_bar (P) += sum_lanes ..., u_bar (m*L, may be NULL) += ...
typedef void (*plastic_output_vjp_fn)(const void* ctx, double t, const void* z, const void* theta,
                                      const void* u, const void* y_bar, void* z_bar,
                                      void* theta_bar, void* u_bar, void* scratch);
/// Loss per lane: loss[l] = loss(y_l, target_l). y: o*L, target: g*L, loss: L (written).
typedef void (*plastic_loss_fn)(const void* ctx, const void* y, const void* target, void* loss,
                                void* scratch);
/// y_bar (o*L) += loss_bar[l] * d loss_l / d y_l. loss_bar: L.
typedef void (*plastic_loss_vjp_fn)(const void* ctx, const void* y, const void* target,
                                    const void* loss_bar, void* y_bar, void* scratch);

/// Discrete update at an observation time (ODE-RNN / ODE-RFWP, paper 000 Eqs. 26-27):
///  z_plus = jump(t, z_minus, theta, u). n*L each; u is the sample at t.
typedef void (*plastic_jump_fn)(const void* ctx, double t, const void* z_minus, const void* theta,
                                const void* u, void* z_plus, void* scratch);
/// z_minus_bar (n*L) += ..., theta_bar (P) += sum_lanes ..., u_bar (may be NULL) += ...
typedef void (*plastic_jump_vjp_fn)(const void* ctx, double t, const void* z_minus,
                                    const void* theta, const void* u, const void* z_plus_bar,
                                    void* z_minus_bar, void* theta_bar, void* u_bar, void* scratch);

/* The members of the two structs below come from abi_kernels.def, the one
 * list of the kernels (the compiler generates its own tables from it too):
 * one member per kernel type above, in the same order, named like the type
 * (`plastic_field_fn field`, ...). */

/// All kernels; any may be NULL.
typedef struct plastic_kernels {
#define PLASTIC_ABI_KERNEL(name, Id) plastic_##name##_fn name;
#include "abi_kernels.def"
} plastic_kernels;

/// Scratch bytes each kernel needs (0 = none); same members and order as plastic_kernels.
typedef struct plastic_scratch_sizes {
#define PLASTIC_ABI_KERNEL(name, Id) uint64_t name;
#include "abi_kernels.def"
} plastic_scratch_sizes;

/* ------------------------------------------------------------------------ */
/* What the model predicts and how its targets are encoded                  */

/// When outputs are read and losses taken.
typedef enum plastic_readout {
  PLASTIC_READOUT_FINAL = 1, ///< once, at each series' final time T
  PLASTIC_READOUT_EACH_OBSERVATION =
      2 ///< at every observation time (regression per step, flip-flop)
} plastic_readout;

/// The task the loss defines; it fixes the target encoding and the metric.
typedef enum plastic_task {
  /// cross_entropy over n_outputs classes: target = one-hot (n_targets = classes);
  /// metric accuracy; prediction = argmax of the output.
  PLASTIC_TASK_CLASSIFICATION = 1,
  /// bce_with_logits: target = the 0/1 label (n_targets = 1); metric AUROC.
  PLASTIC_TASK_BINARY = 2,
  /// mse: target = the regression values (n_targets); metric MSE. NaN targets
  /// (no value at this observation) are masked by the runtime.
  PLASTIC_TASK_REGRESSION = 3
} plastic_task;

/* ------------------------------------------------------------------------ */
/* The table                                                                 */

typedef struct plastic_model {
  uint32_t abi_version; ///< PLASTIC_ABI_VERSION of the producer
  uint32_t struct_size; ///< sizeof(plastic_model) seen by the producer
  const char* name;     ///< model name from the spec
  int32_t dtype;        ///< plastic_dtype
  int32_t lanes;        ///< L, 1..64

  int64_t n_state;   ///< per sample
  int64_t n_params;  ///< shared
  int64_t n_input;   ///< per-time input sample u, per sample
  int64_t n_static;  ///< static features per sample (informational: they are STATIC slots of u)
  int64_t n_outputs; ///< per observation, per sample
  int64_t n_targets; ///< per observation, per sample

  int32_t n_input_slots;
  const plastic_input_slot* input_slots; ///< cover u exactly, in offset order
  int32_t n_param_entries;
  const plastic_param* params; ///< disjoint, cover theta

  plastic_solver_desc solver;     ///< the spec's `solve` line
  plastic_gradient_desc gradient; ///< the spec's `gradient` line
  const char* step_method;        ///< tableau the fused step kernels implement (NULL if none)

  int32_t readout; ///< plastic_readout
  int32_t task;    ///< plastic_task

  /// Nonzero: at an observation with a jump, the output reads the state after the jump
  ///  (RNN convention y_n = g(h_n)); zero: before it (a prediction of the observation).
  int32_t observe_after_jump;

  /// The part [field_theta_begin, field_theta_end) of theta that the field
  ///  reads (its parameters are laid out together when possible). The field's
  ///  derivative in every other parameter is zero: adjoint_field writes dtheta
  ///  only inside this span, and the runtime integrates only this span of the
  ///  adjoint's parameter cotangent (most of theta usually belongs to the readout).
  int64_t field_theta_begin;
  int64_t field_theta_end;

  const void* ctx; ///< passed to every kernel
  plastic_scratch_sizes scratch;
  plastic_kernels kernels;
} plastic_model;

/// Entry point exported as PLASTIC_MODEL_ENTRY_SYMBOL; the table lives as long as the module.
typedef const plastic_model* (*plastic_model_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PLASTIC_RUNTIME_ABI_H */
