// One explicit Runge–Kutta step of a model, and its VJP.
//
// This is the generic RK engine (diffrax style: a method is only a Butcher
// tableau). It drives the model's `field` kernel stage by stage, or, when the
// model ships fused kernels for the same tableau (`step`, `step_adaptive`,
// `step_vjp`), calls those instead; both paths take the same inputs and give
// the same results up to round-off, so everything above this file (fixed
// and adaptive drivers, gradient methods) is written once.
//
// Stage k_i = f(t + c_i h, z0 + h sum_{j<i} a_ij k_j), z1 = z0 + h sum_i b_i k_i,
// err = h sum_i e_i k_i. Stages that cannot influence the requested results
// (e.g. the FSAL stage when no error estimate is needed) are skipped. The
// VJP holds h constant and recomputes the stages it needs (discretise-then-
// optimise: the exact gradient of the computed step).
#pragma once

#include <vector>

#include "runtime/solvers/memory.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

/// Which stages can influence the solution (sol[i]) and the error estimate
/// (err[i]): the backward closure over the nonzero a_ij of b != 0 / e != 0.
void needed_stages(const ButcherTableau& tab, std::vector<char>& sol, std::vector<char>& err);

/// Which blocks of u_stages the fused kernels read: stages at the same node
/// c_i share one input sample, read from the block of the first of them
/// (rk4's two stages at t + h/2, dopri5's two at t + h), so the rest need
/// not be evaluated.
std::vector<char> fused_input_stages(const ButcherTableau& tab);

template <class T> class RkStepper {
public:
  /// `scratch` must hold max_scratch_bytes(model) bytes; `input` may be empty when n_input == 0.
  RkStepper(const ModelView<T>& model, const T* theta, const InputFn<T>& input,
            const ButcherTableau& tableau, bool use_fused, void* scratch, MemoryMeter* meter);

  const ButcherTableau& tableau() const { return tab_; }
  bool fused() const { return fused_; }

  /// k[0] = f(t, z) with u at t for use inside [lo, hi]; starts an FSAL chain.
  void eval_first_stage(double t, double lo, double hi, const T* z, SolveStats& stats);
  /// out = f(t, z) with u at t for use inside [lo, hi] (leaves the stage buffers alone).
  void eval_field(double t, double lo, double hi, const T* z, T* out, SolveStats& stats);
  /// The stage-0 derivative buffer (f(t, z0) once eval_first_stage or an FSAL step ran).
  T* first_stage() { return k_.data(); }

  /// One step from (t, z0) to t1 = step_end(t, h, ...) (h may be negative). Writes z1
  /// (must not alias z0) and, when `with_error`, the error estimate (see error()).
  /// `k0_valid`: first_stage() already holds f(t, z0). For FSAL tableaus with
  /// `with_error`, afterwards last_stage() holds f(t1, z1).
  void step(double t, double h, double t1, const T* z0, T* z1, bool with_error, bool k0_valid,
            SolveStats& stats);
  const T* error() const { return err_.data(); }
  /// The s stage inputs (s*mL) the last step read, when it was a fused fixed
  /// step (which evaluates the input of every block the kernels read); null
  /// otherwise or without inputs. A caller may keep them for step_vjp of the
  /// same step.
  const T* fused_step_inputs() const { return inputs_complete_ ? last_inputs_ : nullptr; }
  /// True when fixed steps run the fused step kernel and read inputs: each
  /// then leaves its stage inputs in fused_step_inputs().
  bool keeps_fixed_step_inputs() const { return fused_ && model_.kernels().step && ml_ > 0; }
  /// The next step, if a fused fixed step, writes its stage inputs to `u`
  /// (stage_inputs_size() elements) instead of its own buffer, and
  /// fused_step_inputs() returns `u`: a caller that keeps them (the direct
  /// method's tape) saves a copy. Any step clears the request.
  void stage_inputs_into(T* u) { inputs_into_ = u; }
  size_t stage_inputs_size() const { return static_cast<size_t>(s_) * ml_; }
  /// Moves f(t1, z1) of the last FSAL step into first_stage().
  void promote_last_stage();

  /// Allocates the buffers the VJP needs (call once before step_vjp).
  void enable_vjp();
  /// z0_bar = z1_bar^T dz1/dz0 (written whole), theta_bar += ..., input cotangents to `sink` (may
  /// be null), for the step of size h from t to t1 (h held constant). `stage_inputs`: the forward
  /// step's fused_step_inputs() kept by the caller (the path is then not evaluated again), or null.
  void step_vjp(double t, double h, double t1, const T* z0, const T* z1_bar, T* z0_bar,
                T* theta_bar, const InputCotangentFn<T>* sink, SolveStats& stats,
                const T* stage_inputs = nullptr);

private:
  double stage_time(int i, double t, double h, double t1) const;
  void fill_input(int i, double t, double h, double t1, T* u);
  /// The inputs of the stages the fused kernels read (read_inputs_), into u (s*mL).
  void fill_fused_inputs(double t, double h, double t1, T* u);
  /// out = z0 + h * sum_{j < upto} w[j] k_j.
  void combine(const T* z0, double h, const double* w, int upto, T* out) const;

  const ModelView<T>& model_;
  const T* theta_;
  const InputFn<T>& input_;
  const ButcherTableau& tab_;
  bool fused_;
  void* scratch_;
  MemoryMeter* meter_;
  size_t nl_, ml_;
  int s_;
  bool inputs_complete_ = false;          // last_inputs_ holds the last step's (every block read)
  const T* last_inputs_ = nullptr;        // u_ or the caller's stage_inputs_into buffer
  T* inputs_into_ = nullptr;              // stage_inputs_into, for the next step only
  std::vector<char> need_sol_, need_err_; // per stage, fixed by the tableau
  std::vector<char> read_inputs_;         // fused_input_stages: the blocks the fused kernels read
  Buffer<T> k_;                           // s * nL stage derivatives
  Buffer<T> y_;                           // nL stage state
  Buffer<T> err_;                         // nL
  Buffer<T> u_;                           // s * mL stage inputs
  // VJP only
  Buffer<T> ys_;   // s * nL stage states
  Buffer<T> kbar_; // s * nL
  Buffer<T> ybar_; // nL
  Buffer<T> ubar_; // s * mL
};

extern template class RkStepper<float>;
extern template class RkStepper<double>;

} // namespace plastic::rt
