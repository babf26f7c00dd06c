// The generic explicit RK engine and the dispatch to fused step kernels.
// See rk_stepper.h for the contract.
#include "runtime/solvers/rk_stepper.h"

#include <algorithm>

#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

void needed_stages(const ButcherTableau& tab, std::vector<char>& sol, std::vector<char>& err) {
  const int s = tab.stages;
  sol.assign(static_cast<size_t>(s), 0);
  err.assign(static_cast<size_t>(s), 0);
  for (int i = s - 1; i >= 0; --i) {
    bool si = tab.b[static_cast<size_t>(i)] != 0.0;
    bool ei = tab.adaptive() && tab.e[static_cast<size_t>(i)] != 0.0;
    for (int j = i + 1; j < s; ++j) {
      if (tab.A(j, i) == 0.0) continue;
      si = si || sol[static_cast<size_t>(j)];
      ei = ei || err[static_cast<size_t>(j)];
    }
    sol[static_cast<size_t>(i)] = si;
    err[static_cast<size_t>(i)] = ei;
  }
}

std::vector<char> fused_input_stages(const ButcherTableau& tab) {
  const size_t s = static_cast<size_t>(tab.stages);
  std::vector<char> read(s, 0);
  for (size_t i = 0; i < s; ++i)
    read[i] = std::find(tab.c.begin(), tab.c.begin() + static_cast<std::ptrdiff_t>(i), tab.c[i]) ==
              tab.c.begin() + static_cast<std::ptrdiff_t>(i);
  return read;
}

template <class T>
RkStepper<T>::RkStepper(const ModelView<T>& model, const T* theta, const InputFn<T>& input,
                        const ButcherTableau& tableau, bool use_fused, void* scratch,
                        MemoryMeter* meter)
    : model_(model), theta_(theta), input_(input), tab_(tableau),
      fused_(use_fused && fused_kernels_match(model.model, tableau)), scratch_(scratch),
      meter_(meter), nl_(model.state_size()), ml_(model.input_size()), s_(tableau.stages) {
  needed_stages(tab_, need_sol_, need_err_);
  read_inputs_ = fused_input_stages(tab_);
  const size_t s = static_cast<size_t>(s_);
  k_ = make_buffer<T>(s * nl_, meter);
  y_ = make_buffer<T>(nl_, meter);
  err_ = make_buffer<T>(nl_, meter);
  u_ = make_buffer<T>(std::max<size_t>(s * ml_, 1), meter);
}

template <class T> void RkStepper<T>::enable_vjp() {
  const size_t s = static_cast<size_t>(s_);
  if (!fused_ || !model_.kernels().step_vjp) {
    ys_ = make_buffer<T>(s * nl_, meter_);
    kbar_ = make_buffer<T>(s * nl_, meter_);
    ybar_ = make_buffer<T>(nl_, meter_);
  }
  ubar_ = make_buffer<T>(std::max<size_t>(s * ml_, 1), meter_);
}

template <class T> double RkStepper<T>::stage_time(int i, double t, double h, double t1) const {
  // c_i = 1 evaluates exactly at the step end, which may be an event time.
  const double c = tab_.c[static_cast<size_t>(i)];
  return c == 1.0 ? t1 : t + c * h;
}

template <class T> void RkStepper<T>::fill_input(int i, double t, double h, double t1, T* u) {
  if (ml_ == 0) return;
  const InputRequest r{stage_time(i, t, h, t1), std::min(t, t1), std::max(t, t1)};
  input_(r, u + static_cast<size_t>(i) * ml_);
}

template <class T> void RkStepper<T>::fill_fused_inputs(double t, double h, double t1, T* u) {
  for (int i = 0; i < s_; ++i)
    if (read_inputs_[static_cast<size_t>(i)]) fill_input(i, t, h, t1, u);
}

template <class T>
void RkStepper<T>::combine(const T* z0, double h, const double* w, int upto, T* out) const {
  tile::combine(nl_, z0, k_.data(), nl_, w, upto, h, out);
}

template <class T>
void RkStepper<T>::eval_first_stage(double t, double lo, double hi, const T* z, SolveStats& stats) {
  if (ml_) input_(InputRequest{t, lo, hi}, u_.data());
  model_.field(t, z, theta_, ml_ ? u_.data() : nullptr, k_.data(), scratch_);
  ++stats.field_evals;
}

template <class T>
void RkStepper<T>::eval_field(double t, double lo, double hi, const T* z, T* out,
                              SolveStats& stats) {
  // The last stage's input slot is free outside a step.
  T* u = ml_ ? u_.data() + static_cast<size_t>(s_ - 1) * ml_ : nullptr;
  if (u) input_(InputRequest{t, lo, hi}, u);
  model_.field(t, z, theta_, u, out, scratch_);
  ++stats.field_evals;
}

template <class T> void RkStepper<T>::promote_last_stage() {
  tile::copy(nl_, k_.data() + static_cast<size_t>(s_ - 1) * nl_, k_.data());
}

template <class T>
void RkStepper<T>::step(double t, double h, double t1, const T* z0, T* z1, bool with_error,
                        bool k0_valid, SolveStats& stats) {
  const T* u = ml_ ? u_.data() : nullptr;
  T* k_last = k_.data() + static_cast<size_t>(s_ - 1) * nl_;
  T* const into = inputs_into_ ? inputs_into_ : u_.data();
  inputs_into_ = nullptr;
  inputs_complete_ = false;
  if (fused_ && with_error && model_.kernels().step_adaptive) {
    fill_fused_inputs(t, h, t1, u_.data());
    if (!k0_valid) {
      model_.field(t, z0, theta_, u, k_.data(), scratch_);
      ++stats.field_evals;
    }
    model_.step_adaptive(t, h, z0, theta_, u, k_.data(), z1, err_.data(),
                         tab_.fsal ? k_last : nullptr, scratch_);
    stats.field_evals += s_ - 1;
    return;
  }
  if (fused_ && !with_error && model_.kernels().step) {
    fill_fused_inputs(t, h, t1, into);
    model_.step(t, h, z0, theta_, ml_ ? into : nullptr, z1, scratch_);
    last_inputs_ = into;
    inputs_complete_ = ml_ > 0;
    stats.field_evals += std::count(need_sol_.begin(), need_sol_.end(), 1);
    return;
  }
  // Generic engine: stage by stage through the field kernel.
  const bool keep_last = with_error && tab_.fsal;
  bool z1_done = false;
  for (int i = 0; i < s_; ++i) {
    const size_t iu = static_cast<size_t>(i);
    const bool needed =
        need_sol_[iu] || (with_error && need_err_[iu]) || (keep_last && i == s_ - 1);
    if (!needed || (i == 0 && k0_valid)) continue;
    const T* y = z0;
    if (tab_.fsal && i == s_ - 1) {
      // The FSAL stage is the new solution itself: compute z1 once, bit-identical.
      combine(z0, h, tab_.b.data(), s_, z1);
      z1_done = true;
      y = z1;
    } else if (i > 0) {
      combine(z0, h, &tab_.a[iu * static_cast<size_t>(s_)], i, y_.data());
      y = y_.data();
    }
    fill_input(i, t, h, t1, u_.data());
    model_.field(stage_time(i, t, h, t1), y, theta_, ml_ ? u_.data() + iu * ml_ : nullptr,
                 k_.data() + iu * nl_, scratch_);
    ++stats.field_evals;
  }
  if (!z1_done) combine(z0, h, tab_.b.data(), s_, z1);
  if (with_error) {
    tile::zero(nl_, err_.data());
    for (int j = 0; j < s_; ++j)
      if (tab_.e[static_cast<size_t>(j)] != 0.0)
        tile::axpy(nl_, h * tab_.e[static_cast<size_t>(j)],
                   k_.data() + static_cast<size_t>(j) * nl_, err_.data());
  }
}

template <class T>
void RkStepper<T>::step_vjp(double t, double h, double t1, const T* z0, const T* z1_bar, T* z0_bar,
                            T* theta_bar, const InputCotangentFn<T>* sink, SolveStats& stats,
                            const T* stage_inputs) {
  const bool want_u = ml_ && sink && *sink;
  if (want_u) tile::zero(ubar_.size(), ubar_.data());
  T* ubar = want_u ? ubar_.data() : nullptr;
  if (fused_ && model_.kernels().step_vjp) {
    const T* u = ml_ ? u_.data() : nullptr;
    if (ml_ && stage_inputs) {
      u = stage_inputs;
    } else {
      fill_fused_inputs(t, h, t1, u_.data());
    }
    model_.step_vjp(t, h, z0, theta_, u, z1_bar, z0_bar, theta_bar, ubar, scratch_);
    stats.vjp_evals += s_;
  } else {
    // Recompute the stage states; the last needed stage's derivative is never needed.
    int last = s_ - 1;
    while (last > 0 && !need_sol_[static_cast<size_t>(last)])
      --last;
    for (int i = 0; i <= last; ++i) {
      const size_t iu = static_cast<size_t>(i);
      if (!need_sol_[iu]) continue;
      T* y = ys_.data() + iu * nl_;
      combine(z0, h, &tab_.a[iu * static_cast<size_t>(s_)], i, y);
      fill_input(i, t, h, t1, u_.data());
      if (i == last) break;
      model_.field(stage_time(i, t, h, t1), y, theta_, ml_ ? u_.data() + iu * ml_ : nullptr,
                   k_.data() + iu * nl_, scratch_);
      ++stats.field_evals;
    }
    // Reverse sweep: kbar_i = h b_i z1_bar + sum_{m>i} h a_mi ybar_m.
    for (int i = 0; i < s_; ++i) {
      T* kb = kbar_.data() + static_cast<size_t>(i) * nl_;
      tile::zero(nl_, kb);
      tile::axpy(nl_, h * tab_.b[static_cast<size_t>(i)], z1_bar, kb);
    }
    tile::copy(nl_, z1_bar, z0_bar);
    for (int i = last; i >= 0; --i) {
      const size_t iu = static_cast<size_t>(i);
      if (!need_sol_[iu]) continue;
      tile::zero(nl_, ybar_.data());
      model_.field_vjp(stage_time(i, t, h, t1), ys_.data() + iu * nl_, theta_,
                       ml_ ? u_.data() + iu * ml_ : nullptr, kbar_.data() + iu * nl_, ybar_.data(),
                       theta_bar, ubar ? ubar + iu * ml_ : nullptr, scratch_);
      ++stats.vjp_evals;
      tile::axpy(nl_, 1.0, ybar_.data(), z0_bar);
      for (int j = 0; j < i; ++j)
        if (tab_.A(i, j) != 0.0)
          tile::axpy(nl_, h * tab_.A(i, j), ybar_.data(),
                     kbar_.data() + static_cast<size_t>(j) * nl_);
    }
  }
  if (want_u)
    for (int i = 0; i < s_; ++i)
      (*sink)(InputRequest{stage_time(i, t, h, t1), std::min(t, t1), std::max(t, t1)},
              ubar_.data() + static_cast<size_t>(i) * ml_);
}

template class RkStepper<float>;
template class RkStepper<double>;

} // namespace plastic::rt
