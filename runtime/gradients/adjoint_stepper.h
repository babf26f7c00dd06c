// One explicit RK step of the continuous adjoint's augmented system,
// backwards in time (h < 0):
//   Y = [z; a] (2n elements per lane, lane-interleaved: the z block, then a),
//   Y' = [f(t, z, u); -a^T df/dz],   g' = -sum_lanes a^T df/dtheta.
// The parameter cotangent g is summed over the tile (P elements, not per
// lane): it never feeds back into the dynamics, so its RK "stages" are a
// quadrature that is accumulated on the fly (dg = h sum_i b_i G_i), and
// only the augmented state needs stage storage. Carrying it per lane would
// cost L*P memory for nothing: the runtime sums lanes anyway.
//
// A step without input cotangents runs the model's adjoint_step kernel when
// it implements this tableau (all stages fused: the stage sums, the error
// estimates and the parameter quadrature stay in registers, and stages at the
// same node share their state-independent work; FSAL is given up: the kernel
// recomputes its first stage). Otherwise stage by stage through the
// adjoint_field kernel, or field and field_vjp composed.
#pragma once

#include <vector>

#include "runtime/solvers/memory.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

template <class T> class AdjointStepper {
public:
  AdjointStepper(const ModelView<T>& model, const T* theta, const InputFn<T>& input,
                 const ButcherTableau& tableau, bool want_inputs, bool use_fused, void* scratch,
                 MemoryMeter* meter);

  /// Stage 0 of the next step: K_0 = G(t, Y), with u at t inside [lo, hi].
  void eval_first_stage(double t, double lo, double hi, const T* Y, SolveStats& stats);
  const T* first_stage() const { return k_.data(); }

  /// One step from (t, Y0) of size h to t1; writes Y1 (2nL), the parameter increment
  /// theta_increment() (P) and, with `with_error`, error() (2nL) and theta_error() (P).
  void step(double t, double h, double t1, const T* Y0, T* Y1, bool with_error, bool k0_valid,
            SolveStats& stats);
  const T* error() const { return err_.data(); }
  /// P elements; only [theta_begin(), theta_end()) can be nonzero: the span
  /// of theta the field reads (abi.h field_theta_begin/end).
  const T* theta_increment() const { return gstep_.data(); }
  const T* theta_error() const { return gerr_.data(); }
  size_t theta_begin() const { return tb_; }
  size_t theta_end() const { return te_; }
  /// After an accepted FSAL step: its last stage becomes the next first stage.
  void promote_last_stage();
  /// After an accepted step: input cotangents |h| b_i a^T df/du at each stage to `sink`.
  void emit_inputs(double t, double h, double t1, const InputCotangentFn<T>& sink);

private:
  void eval(double t, double lo, double hi, const T* Y, T* dY, T* dtheta, T* ubar,
            SolveStats& stats);
  double stage_time(int i, double t, double h, double t1) const;
  void combine(const T* Y0, double h, const double* w, int upto, T* out) const;

  const ModelView<T>& model_;
  const T* theta_;
  const InputFn<T>& input_;
  const ButcherTableau& tab_;
  bool want_u_;
  bool fused_; // adjoint_step implements tab_ and no input cotangents are wanted
  void* scratch_;
  size_t nl_, yl_, ml_, P_;
  size_t tb_, te_; // the field's span of theta: every parameter loop runs over it only
  int s_;
  std::vector<char> need_sol_, need_err_;
  std::vector<char> read_inputs_; // the u_stages blocks adjoint_step reads
  // Sizes unfused; the fused kernel needs only u_ and gstep_, and with an
  // embedded pair err_, gerr_, g_first_ and the first stage (k_: 2nL).
  Buffer<T> k_, y_, err_, u_;                             // s*2nL, 2nL, 2nL, s*mL
  Buffer<T> g_stage_, g_first_, g_last_;                  // P each
  Buffer<T> gstep_, gerr_;                                // P each
  Buffer<T> ubar_, ubar_first_, ubar_last_, ubar_scaled_; // s*mL, mL, mL, mL
};

extern template class AdjointStepper<float>;
extern template class AdjointStepper<double>;

} // namespace plastic::rt
