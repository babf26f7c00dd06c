// A typed C++ view of a plastic_model table for element type T.
//
// The ABI passes arrays as void* so that one C table serves f32 and f64; this
// view checks once that the table's dtype is T, then gives the runtime typed
// calls (`view.field(t, z, theta, u, dz, scratch)`) and the tile sizes. It
// also validates the table: version, sizes, parameter and input tables, and
// whether the kernels a solver or gradient method needs are present.
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/abi.h"
#include "runtime/solvers/problem.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

/// PLASTIC_F32 for float, PLASTIC_F64 for double.
template <class T> constexpr int32_t dtype_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "f32 or f64 only");
  return std::is_same_v<T, float> ? PLASTIC_F32 : PLASTIC_F64;
}

/// Checks the table itself (version, sizes, parameter and input tables);
/// `dtype` is the element type the caller will use.
Status<SolveFailure> validate_model(const plastic_model& m, int32_t dtype);

/// What the gradient method will need from the model.
enum class GradientMethod { Direct = 1, Checkpoint = 2, Adjoint = 3 };

/// Checks that the kernels needed to solve with `options` (and, if `gradient`
/// is non-null, to differentiate with that method) are present.
Status<SolveFailure> check_kernels(const plastic_model& m, const SolverOptions& options,
                                   const GradientMethod* gradient, bool has_targets,
                                   bool has_jumps);

/// True when the model's fused step kernels implement `tableau`.
bool fused_kernels_match(const plastic_model& m, const ButcherTableau& tableau);

/// Largest scratch any kernel of the table asks for.
uint64_t max_scratch_bytes(const plastic_model& m);

template <class T> class ModelView {
public:
  explicit ModelView(const plastic_model& m)
      : model(m), lanes(m.lanes), n(m.n_state), params(m.n_params), inputs(m.n_input),
        outputs(m.n_outputs), targets(m.n_targets), k_(m.kernels), ctx_(m.ctx) {}

  const plastic_model& model;
  const int lanes;       ///< L
  const int64_t n;       ///< state elements per sample
  const int64_t params;  ///< P
  const int64_t inputs;  ///< m
  const int64_t outputs; ///< o
  const int64_t targets; ///< g

  size_t state_size() const { return static_cast<size_t>(n * lanes); }
  size_t input_size() const { return static_cast<size_t>(inputs * lanes); }
  size_t output_size() const { return static_cast<size_t>(outputs * lanes); }
  const plastic_kernels& kernels() const { return k_; }

  void init_state(const T* th, const T* u0, T* z0, void* s) const {
    k_.init_state(ctx_, th, u0, z0, s);
  }
  void init_state_vjp(const T* th, const T* u0, const T* z0_bar, T* th_bar, T* u0_bar,
                      void* s) const {
    k_.init_state_vjp(ctx_, th, u0, z0_bar, th_bar, u0_bar, s);
  }
  void field(double t, const T* z, const T* th, const T* u, T* dz, void* s) const {
    k_.field(ctx_, t, z, th, u, dz, s);
  }
  void field_vjp(double t, const T* z, const T* th, const T* u, const T* a, T* z_bar, T* th_bar,
                 T* u_bar, void* s) const {
    k_.field_vjp(ctx_, t, z, th, u, a, z_bar, th_bar, u_bar, s);
  }
  void adjoint_field(double t, const T* z, const T* a, const T* th, const T* u, T* dz, T* da,
                     T* dth, T* u_bar, void* s) const {
    k_.adjoint_field(ctx_, t, z, a, th, u, dz, da, dth, u_bar, s);
  }
  void step(double t, double h, const T* z0, const T* th, const T* us, T* z1, void* s) const {
    k_.step(ctx_, t, h, z0, th, us, z1, s);
  }
  void step_vjp(double t, double h, const T* z0, const T* th, const T* us, const T* z1_bar,
                T* z0_bar, T* th_bar, T* us_bar, void* s) const {
    k_.step_vjp(ctx_, t, h, z0, th, us, z1_bar, z0_bar, th_bar, us_bar, s);
  }
  void step_adaptive(double t, double h, const T* z0, const T* th, const T* us, const T* k_first,
                     T* z1, T* err, T* k_last, void* s) const {
    k_.step_adaptive(ctx_, t, h, z0, th, us, k_first, z1, err, k_last, s);
  }
  void adjoint_step(double t, double h, const T* z0, const T* a0, const T* th, const T* us, T* z1,
                    T* a1, T* dth, T* err, T* dth_err, void* s) const {
    k_.adjoint_step(ctx_, t, h, z0, a0, th, us, z1, a1, dth, err, dth_err, s);
  }
  void output(double t, const T* z, const T* th, const T* u, T* y, void* s) const {
    k_.output(ctx_, t, z, th, u, y, s);
  }
  void output_vjp(double t, const T* z, const T* th, const T* u, const T* y_bar, T* z_bar,
                  T* th_bar, T* u_bar, void* s) const {
    k_.output_vjp(ctx_, t, z, th, u, y_bar, z_bar, th_bar, u_bar, s);
  }
  void loss(const T* y, const T* target, T* loss, void* s) const {
    k_.loss(ctx_, y, target, loss, s);
  }
  void loss_vjp(const T* y, const T* target, const T* loss_bar, T* y_bar, void* s) const {
    k_.loss_vjp(ctx_, y, target, loss_bar, y_bar, s);
  }
  void jump(double t, const T* z, const T* th, const T* u, T* z_plus, void* s) const {
    k_.jump(ctx_, t, z, th, u, z_plus, s);
  }
  void jump_vjp(double t, const T* z, const T* th, const T* u, const T* zp_bar, T* z_bar, T* th_bar,
                T* u_bar, void* s) const {
    k_.jump_vjp(ctx_, t, z, th, u, zp_bar, z_bar, th_bar, u_bar, s);
  }

private:
  plastic_kernels k_;
  const void* ctx_;
};

} // namespace plastic::rt
