// The augmented-system RK step of the continuous adjoint (adjoint_stepper.h).
#include "runtime/gradients/adjoint_stepper.h"

#include <algorithm>
#include <cmath>

#include "runtime/solvers/rk_stepper.h"
#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

template <class T>
AdjointStepper<T>::AdjointStepper(const ModelView<T>& model, const T* theta,
                                  const InputFn<T>& input, const ButcherTableau& tableau,
                                  bool want_inputs, bool use_fused, void* scratch,
                                  MemoryMeter* meter)
    : model_(model), theta_(theta), input_(input), tab_(tableau),
      want_u_(want_inputs && model.inputs > 0),
      fused_(use_fused && !want_u_ && model.kernels().adjoint_step &&
             fused_kernels_match(model.model, tableau)),
      scratch_(scratch), nl_(model.state_size()), yl_(2 * model.state_size()),
      ml_(model.input_size()), P_(static_cast<size_t>(model.params)),
      tb_(static_cast<size_t>(model.model.field_theta_begin)),
      te_(static_cast<size_t>(model.model.field_theta_end)), s_(tableau.stages) {
  needed_stages(tab_, need_sol_, need_err_);
  read_inputs_ = fused_input_stages(tab_);
  const size_t s = static_cast<size_t>(s_);
  const size_t P = std::max<size_t>(P_, 1);
  u_ = make_buffer<T>(std::max<size_t>(s * ml_, 1), meter);
  gstep_ = make_buffer<T>(P, meter);
  if (fused_) {
    // The kernel keeps its stages in registers. An embedded pair adds its
    // error outputs, and the adaptive start its first stage (the step size
    // guess); a fixed-step tableau needs neither (abi.h: err and dtheta_err
    // may be NULL). Zero-filling the stepper's other buffers, ~2 MB per tile
    // and training step, was 3 % of the speech Delta CDE's adjoint step.
    if (tab_.adaptive()) {
      k_ = make_buffer<T>(yl_, meter);
      err_ = make_buffer<T>(yl_, meter);
      g_first_ = make_buffer<T>(P, meter);
      gerr_ = make_buffer<T>(P, meter);
    }
  } else {
    k_ = make_buffer<T>(s * yl_, meter);
    y_ = make_buffer<T>(yl_, meter);
    err_ = make_buffer<T>(yl_, meter);
    for (Buffer<T>* b : {&g_stage_, &g_first_, &g_last_, &gerr_})
      *b = make_buffer<T>(P, meter);
  }
  if (want_u_) {
    ubar_ = make_buffer<T>(s * ml_, meter);
    for (Buffer<T>* b : {&ubar_first_, &ubar_last_, &ubar_scaled_})
      *b = make_buffer<T>(ml_, meter);
  }
}

template <class T>
double AdjointStepper<T>::stage_time(int i, double t, double h, double t1) const {
  const double c = tab_.c[static_cast<size_t>(i)];
  return c == 1.0 ? t1 : t + c * h;
}

template <class T>
void AdjointStepper<T>::combine(const T* Y0, double h, const double* w, int upto, T* out) const {
  tile::combine(yl_, Y0, k_.data(), yl_, w, upto, h, out);
}

template <class T>
void AdjointStepper<T>::eval(double t, double lo, double hi, const T* Y, T* dY, T* dtheta, T* ubar,
                             SolveStats& stats) {
  const T* z = Y;
  const T* a = Y + nl_;
  const T* u = nullptr;
  if (ml_) {
    input_(InputRequest{t, lo, hi}, u_.data());
    u = u_.data();
  }
  if (ubar) tile::zero(ml_, ubar);
  if (model_.kernels().adjoint_field) {
    model_.adjoint_field(t, z, a, theta_, u, dY, dY + nl_, dtheta, ubar, scratch_);
    ++stats.vjp_evals;
    return;
  }
  // Composed: dz = f; da = -a^T df/dz; dtheta = -a^T df/dtheta.
  model_.field(t, z, theta_, u, dY, scratch_);
  tile::zero(nl_, dY + nl_);
  tile::zero(te_ - tb_, dtheta + tb_);
  model_.field_vjp(t, z, theta_, u, a, dY + nl_, dtheta, ubar, scratch_);
  for (size_t i = 0; i < nl_; ++i)
    dY[nl_ + i] = -dY[nl_ + i];
  for (size_t i = tb_; i < te_; ++i)
    dtheta[i] = -dtheta[i];
  ++stats.field_evals;
  ++stats.vjp_evals;
}

template <class T>
void AdjointStepper<T>::eval_first_stage(double t, double lo, double hi, const T* Y,
                                         SolveStats& stats) {
  eval(t, lo, hi, Y, k_.data(), g_first_.data(), want_u_ ? ubar_first_.data() : nullptr, stats);
}

template <class T> void AdjointStepper<T>::promote_last_stage() {
  if (fused_) return; // the fused step recomputes its first stage
  tile::copy(yl_, k_.data() + static_cast<size_t>(s_ - 1) * yl_, k_.data());
  std::swap(g_first_, g_last_);
  if (want_u_) std::swap(ubar_first_, ubar_last_);
}

template <class T>
void AdjointStepper<T>::step(double t, double h, double t1, const T* Y0, T* Y1, bool with_error,
                             bool k0_valid, SolveStats& stats) {
  const double lo = std::min(t, t1), hi = std::max(t, t1);
  if (fused_) {
    // All stages in one kernel; an embedded pair's error estimates too (the
    // kernel recomputes the first stage, so k0_valid does not matter).
    for (int i = 0; i < s_; ++i)
      if (ml_ && read_inputs_[static_cast<size_t>(i)])
        input_(InputRequest{stage_time(i, t, h, t1), lo, hi},
               u_.data() + static_cast<size_t>(i) * ml_);
    model_.adjoint_step(t, h, Y0, Y0 + nl_, theta_, ml_ ? u_.data() : nullptr, Y1, Y1 + nl_,
                        gstep_.data(), err_.data(), gerr_.data(), scratch_);
    stats.vjp_evals += with_error ? s_ : std::count(need_sol_.begin(), need_sol_.end(), 1);
    return;
  }
  const bool keep_last = with_error && tab_.fsal;
  const size_t span = te_ - tb_;
  tile::zero(span, gstep_.data() + tb_);
  if (with_error) tile::zero(span, gerr_.data() + tb_);
  bool y1_done = false;
  for (int i = 0; i < s_; ++i) {
    const size_t iu = static_cast<size_t>(i);
    const bool needed =
        need_sol_[iu] || (with_error && need_err_[iu]) || (keep_last && i == s_ - 1);
    if (!needed) continue;
    const T* g = g_stage_.data();
    T* ubar_i = want_u_ ? ubar_.data() + iu * ml_ : nullptr;
    if (i == 0 && k0_valid) {
      g = g_first_.data();
      if (want_u_) tile::copy(ml_, ubar_first_.data(), ubar_i);
    } else {
      const T* y = Y0;
      if (tab_.fsal && i == s_ - 1) {
        combine(Y0, h, tab_.b.data(), s_, Y1);
        y1_done = true;
        y = Y1;
      } else if (i > 0) {
        combine(Y0, h, &tab_.a[iu * static_cast<size_t>(s_)], i, y_.data());
        y = y_.data();
      }
      T* dtheta = (keep_last && i == s_ - 1) ? g_last_.data() : g_stage_.data();
      eval(stage_time(i, t, h, t1), lo, hi, y, k_.data() + iu * yl_, dtheta, ubar_i, stats);
      g = dtheta;
      if (want_u_ && keep_last && i == s_ - 1) tile::copy(ml_, ubar_i, ubar_last_.data());
    }
    const double b = tab_.b[iu];
    if (b != 0.0) tile::axpy(span, h * b, g + tb_, gstep_.data() + tb_);
    if (with_error && tab_.e[iu] != 0.0)
      tile::axpy(span, h * tab_.e[iu], g + tb_, gerr_.data() + tb_);
  }
  if (!y1_done) combine(Y0, h, tab_.b.data(), s_, Y1);
  if (with_error) {
    tile::zero(yl_, err_.data());
    for (int j = 0; j < s_; ++j)
      if (tab_.e[static_cast<size_t>(j)] != 0.0)
        tile::axpy(yl_, h * tab_.e[static_cast<size_t>(j)],
                   k_.data() + static_cast<size_t>(j) * yl_, err_.data());
  }
}

template <class T>
void AdjointStepper<T>::emit_inputs(double t, double h, double t1,
                                    const InputCotangentFn<T>& sink) {
  if (!want_u_) return;
  for (int i = 0; i < s_; ++i) {
    const double b = tab_.b[static_cast<size_t>(i)];
    if (b == 0.0) continue;
    tile::zero(ml_, ubar_scaled_.data());
    tile::axpy(ml_, std::abs(h) * b, ubar_.data() + static_cast<size_t>(i) * ml_,
               ubar_scaled_.data());
    sink(InputRequest{stage_time(i, t, h, t1), std::min(t, t1), std::max(t, t1)},
         ubar_scaled_.data());
  }
}

template class AdjointStepper<float>;
template class AdjointStepper<double>;

} // namespace plastic::rt
