// A hand-written neural CDE that follows runtime/abi.h, for the batch tests:
// what the compiler will generate for
//
//   input x : path[d] <interp>   (or logsig(depth N, step s): dx = LogSig/len)
//   input s : static[S]          (optional)
//   state z : [n] = tanh(E [x(t0); s] + e)
//   flow  dz = sum_k tanh(W_k z + U x(t) + b_k) dx_k(t)  (+ q z*z, q from ctx)
//   output y = V z + c
//   loss  cross_entropy | bce_with_logits | 1/2 |y - target|^2
//   jump  z+ = tanh(z + J x(t))  (optional)
//
// u = [x (d) | dx (D) | s (S)], D = d for a path derivative, β(d, N) for a
// log-signature driver. All kernels work per lane in double and provide the
// VJPs; the runtime composes the adjoint field from field and field_vjp.
// `q` (not a parameter) adds a blow-up term for the solver-failure test.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/data/dataset.h"
#include "runtime/logsig/lyndon.h"
#include "runtime/solvers/model_view.h"

namespace plastic::test {

struct CdeSpec {
  int L = 4;
  int d = 2; ///< path channels
  int n = 3; ///< state
  int o = 3; ///< outputs (= classes for classification)
  int S = 0; ///< static features
  int interp = 1;
  bool logsig = false;
  int depth = 2, step = 2;
  int32_t task = PLASTIC_TASK_CLASSIFICATION;
  int32_t readout = PLASTIC_READOUT_FINAL;
  bool jump = false;
  bool init = true;
  double q = 0;
  const char* method = "rk4";
  double step_size = 0.25;
  int32_t gradient = PLASTIC_GRAD_DIRECT;
};

struct CdeCtx {
  int L, d, D, n, o, S, m;
  double q;
  int32_t task;
  // offsets in theta
  int W, U, b, E, e, V, c, J, P;
};

inline const CdeCtx& cde(const void* ctx) {
  return *static_cast<const CdeCtx*>(ctx);
}

template <class T>
void cde_field(const void* ctx, double, const void* zv, const void* thv, const void* uv, void* dzv,
               void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  T* dz = static_cast<T*>(dzv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      double xu = 0;
      for (int ch = 0; ch < c.d; ++ch)
        xu += th[c.U + i * c.d + ch] * u[ch * c.L + l];
      double acc = c.q * z[i * c.L + l] * z[i * c.L + l];
      for (int k = 0; k < c.D; ++k) {
        double pre = xu + th[c.b + k * c.n + i];
        for (int j = 0; j < c.n; ++j)
          pre += th[c.W + (k * c.n + i) * c.n + j] * z[j * c.L + l];
        acc += std::tanh(pre) * u[(c.d + k) * c.L + l];
      }
      dz[i * c.L + l] = static_cast<T>(acc);
    }
}

template <class T>
void cde_field_vjp(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                   const void* av, void* zbv, void* thbv, void* ubv, void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  const T* a = static_cast<const T*>(av);
  T* zb = static_cast<T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  T* ub = static_cast<T*>(ubv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      const double ai = a[i * c.L + l];
      zb[i * c.L + l] += static_cast<T>(ai * 2 * c.q * z[i * c.L + l]);
      double xu = 0;
      for (int ch = 0; ch < c.d; ++ch)
        xu += th[c.U + i * c.d + ch] * u[ch * c.L + l];
      for (int k = 0; k < c.D; ++k) {
        double pre = xu + th[c.b + k * c.n + i];
        for (int j = 0; j < c.n; ++j)
          pre += th[c.W + (k * c.n + i) * c.n + j] * z[j * c.L + l];
        const double h = std::tanh(pre);
        const double dxk = u[(c.d + k) * c.L + l];
        if (ub) ub[(c.d + k) * c.L + l] += static_cast<T>(ai * h);
        const double g = ai * dxk * (1 - h * h);
        thb[c.b + k * c.n + i] += static_cast<T>(g);
        for (int j = 0; j < c.n; ++j) {
          thb[c.W + (k * c.n + i) * c.n + j] += static_cast<T>(g * z[j * c.L + l]);
          zb[j * c.L + l] += static_cast<T>(g * th[c.W + (k * c.n + i) * c.n + j]);
        }
        for (int ch = 0; ch < c.d; ++ch) {
          thb[c.U + i * c.d + ch] += static_cast<T>(g * u[ch * c.L + l]);
          if (ub) ub[ch * c.L + l] += static_cast<T>(g * th[c.U + i * c.d + ch]);
        }
      }
    }
}

/// The init network's input for lane l: [x(t0); s].
template <class T> double init_in(const CdeCtx& c, const T* u, int col, int l) {
  return col < c.d ? u[col * c.L + l] : u[(c.d + c.D + (col - c.d)) * c.L + l];
}

template <class T>
void cde_init(const void* ctx, const void* thv, const void* uv, void* zv, void*) {
  const CdeCtx& c = cde(ctx);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  T* z = static_cast<T*>(zv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      double pre = th[c.e + i];
      for (int col = 0; col < c.d + c.S; ++col)
        pre += th[c.E + i * (c.d + c.S) + col] * init_in(c, u, col, l);
      z[i * c.L + l] = static_cast<T>(std::tanh(pre));
    }
}

template <class T>
void cde_init_vjp(const void* ctx, const void* thv, const void* uv, const void* zbv, void* thbv,
                  void*, void*) {
  const CdeCtx& c = cde(ctx);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  const T* zb = static_cast<const T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      double pre = th[c.e + i];
      for (int col = 0; col < c.d + c.S; ++col)
        pre += th[c.E + i * (c.d + c.S) + col] * init_in(c, u, col, l);
      const double h = std::tanh(pre);
      const double g = zb[i * c.L + l] * (1 - h * h);
      thb[c.e + i] += static_cast<T>(g);
      for (int col = 0; col < c.d + c.S; ++col)
        thb[c.E + i * (c.d + c.S) + col] += static_cast<T>(g * init_in(c, u, col, l));
    }
}

template <class T>
void cde_output(const void* ctx, double, const void* zv, const void* thv, const void*, void* yv,
                void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  T* y = static_cast<T*>(yv);
  for (int l = 0; l < c.L; ++l)
    for (int r = 0; r < c.o; ++r) {
      double acc = th[c.c + r];
      for (int j = 0; j < c.n; ++j)
        acc += th[c.V + r * c.n + j] * z[j * c.L + l];
      y[r * c.L + l] = static_cast<T>(acc);
    }
}

template <class T>
void cde_output_vjp(const void* ctx, double, const void* zv, const void* thv, const void*,
                    const void* ybv, void* zbv, void* thbv, void*, void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* yb = static_cast<const T*>(ybv);
  T* zb = static_cast<T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  for (int l = 0; l < c.L; ++l)
    for (int r = 0; r < c.o; ++r) {
      const double g = yb[r * c.L + l];
      thb[c.c + r] += static_cast<T>(g);
      for (int j = 0; j < c.n; ++j) {
        thb[c.V + r * c.n + j] += static_cast<T>(g * z[j * c.L + l]);
        zb[j * c.L + l] += static_cast<T>(g * th[c.V + r * c.n + j]);
      }
    }
}

/// Per-lane loss and dloss/dy for the task.
template <class T>
double lane_loss(const CdeCtx& c, const T* y, const T* t, int l, std::vector<double>* grad) {
  if (grad) grad->assign(static_cast<size_t>(c.o), 0.0);
  if (c.task == PLASTIC_TASK_CLASSIFICATION) {
    double mx = -1e300, tsum = 0, ty = 0;
    for (int r = 0; r < c.o; ++r)
      mx = std::max(mx, static_cast<double>(y[r * c.L + l]));
    double se = 0;
    for (int r = 0; r < c.o; ++r) {
      se += std::exp(y[r * c.L + l] - mx);
      tsum += t[r * c.L + l];
      ty += t[r * c.L + l] * y[r * c.L + l];
    }
    if (grad)
      for (int r = 0; r < c.o; ++r)
        (*grad)[static_cast<size_t>(r)] =
            tsum * std::exp(y[r * c.L + l] - mx) / se - t[r * c.L + l];
    return tsum * (mx + std::log(se)) - ty;
  }
  if (c.task == PLASTIC_TASK_BINARY) {
    const double x = y[l], tt = t[l];
    if (grad) (*grad)[0] = 1 / (1 + std::exp(-x)) - tt;
    return std::max(x, 0.0) - x * tt + std::log1p(std::exp(-std::abs(x)));
  }
  double acc = 0;
  for (int r = 0; r < c.o; ++r) {
    const double diff = y[r * c.L + l] - t[r * c.L + l];
    acc += 0.5 * diff * diff;
    if (grad) (*grad)[static_cast<size_t>(r)] = diff;
  }
  return acc;
}

template <class T> void cde_loss(const void* ctx, const void* yv, const void* tv, void* lv, void*) {
  const CdeCtx& c = cde(ctx);
  for (int l = 0; l < c.L; ++l)
    static_cast<T*>(lv)[l] = static_cast<T>(
        lane_loss(c, static_cast<const T*>(yv), static_cast<const T*>(tv), l, nullptr));
}

template <class T>
void cde_loss_vjp(const void* ctx, const void* yv, const void* tv, const void* lbv, void* ybv,
                  void*) {
  const CdeCtx& c = cde(ctx);
  std::vector<double> g;
  for (int l = 0; l < c.L; ++l) {
    lane_loss(c, static_cast<const T*>(yv), static_cast<const T*>(tv), l, &g);
    const double lb = static_cast<const T*>(lbv)[l];
    for (int r = 0; r < c.o; ++r)
      static_cast<T*>(ybv)[r * c.L + l] += static_cast<T>(lb * g[static_cast<size_t>(r)]);
  }
}

template <class T>
void cde_jump(const void* ctx, double, const void* zv, const void* thv, const void* uv, void* zpv,
              void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      double pre = z[i * c.L + l];
      for (int ch = 0; ch < c.d; ++ch)
        pre += th[c.J + i * c.d + ch] * u[ch * c.L + l];
      static_cast<T*>(zpv)[i * c.L + l] = static_cast<T>(std::tanh(pre));
    }
}

template <class T>
void cde_jump_vjp(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                  const void* zpbv, void* zbv, void* thbv, void*, void*) {
  const CdeCtx& c = cde(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  const T* zpb = static_cast<const T*>(zpbv);
  for (int l = 0; l < c.L; ++l)
    for (int i = 0; i < c.n; ++i) {
      double pre = z[i * c.L + l];
      for (int ch = 0; ch < c.d; ++ch)
        pre += th[c.J + i * c.d + ch] * u[ch * c.L + l];
      const double h = std::tanh(pre);
      const double g = zpb[i * c.L + l] * (1 - h * h);
      static_cast<T*>(zbv)[i * c.L + l] += static_cast<T>(g);
      for (int ch = 0; ch < c.d; ++ch)
        static_cast<T*>(thbv)[c.J + i * c.d + ch] += static_cast<T>(g * u[ch * c.L + l]);
    }
}

/// The table and the storage it points to.
template <class T> struct CdeModel {
  std::unique_ptr<CdeCtx> ctx = std::make_unique<CdeCtx>();
  plastic_model table{};
  std::vector<plastic_param> params;
  std::vector<plastic_input_slot> slots;
  const plastic_model& get() const { return table; }
  int P() const { return ctx->P; }
};

template <class T> std::unique_ptr<CdeModel<T>> make_cde(const CdeSpec& s) {
  auto m = std::make_unique<CdeModel<T>>();
  CdeCtx& c = *m->ctx;
  c.L = s.L;
  c.d = s.d;
  c.D = s.logsig ? static_cast<int>(rt::logsig_dim(s.d, s.depth)) : s.d;
  c.n = s.n;
  c.o = s.o;
  c.S = s.S;
  c.m = c.d + c.D + c.S;
  c.q = s.q;
  c.task = s.task;
  int at = 0;
  auto take = [&](int size) {
    const int off = at;
    at += size;
    return off;
  };
  c.W = take(c.D * c.n * c.n);
  c.U = take(c.n * c.d);
  c.b = take(c.D * c.n);
  c.E = take(c.n * (c.d + c.S));
  c.e = take(c.n);
  c.V = take(c.o * c.n);
  c.c = take(c.o);
  c.J = take(s.jump ? c.n * c.d : 0);
  c.P = at;

  plastic_model& t = m->table;
  t.abi_version = PLASTIC_ABI_VERSION;
  t.struct_size = sizeof(plastic_model);
  t.name = "cde";
  t.dtype = rt::dtype_of<T>();
  t.lanes = s.L;
  t.n_state = c.n;
  t.n_params = c.P;
  t.field_theta_end = c.P; // a hand-written field may read every parameter
  t.n_input = c.m;
  t.n_static = c.S;
  t.n_outputs = c.o;
  t.n_targets = s.task == PLASTIC_TASK_BINARY ? 1 : c.o;
  m->slots.push_back({"x", PLASTIC_INPUT_PATH_VALUE, 0, 0, c.d, c.d, 0, 0, s.interp, 0});
  if (s.logsig)
    m->slots.push_back(
        {"x", PLASTIC_INPUT_LOGSIG_DRIVER, 0, c.d, c.D, c.d, s.depth, s.step, s.interp, 0});
  else
    m->slots.push_back({"x", PLASTIC_INPUT_PATH_DERIV, 0, c.d, c.D, c.d, 0, 0, s.interp, 0});
  if (s.S > 0) m->slots.push_back({"s", PLASTIC_INPUT_STATIC, 1, c.d + c.D, c.S, c.S, 0, 0, 0, 0});
  t.n_input_slots = static_cast<int32_t>(m->slots.size());
  t.input_slots = m->slots.data();
  plastic_param p{};
  p.name = "theta";
  p.rank = 1;
  p.init = PLASTIC_INIT_NORMAL;
  p.shape[0] = c.P;
  p.size = c.P;
  p.init_group = -1;
  m->params.push_back(p);
  t.n_param_entries = 1;
  t.params = m->params.data();
  t.solver.method = s.method;
  t.solver.step = s.step_size;
  t.gradient.kind = s.gradient;
  t.readout = s.readout;
  t.task = s.task;
  t.observe_after_jump = 1;
  t.ctx = m->ctx.get();
  t.kernels.field = &cde_field<T>;
  t.kernels.field_vjp = &cde_field_vjp<T>;
  if (s.init) {
    t.kernels.init_state = &cde_init<T>;
    t.kernels.init_state_vjp = &cde_init_vjp<T>;
  }
  t.kernels.output = &cde_output<T>;
  t.kernels.output_vjp = &cde_output_vjp<T>;
  t.kernels.loss = &cde_loss<T>;
  t.kernels.loss_vjp = &cde_loss_vjp<T>;
  if (s.jump) {
    t.kernels.jump = &cde_jump<T>;
    t.kernels.jump_vjp = &cde_jump_vjp<T>;
  }
  return m;
}

/// Deterministic parameters in [-scale, scale).
inline std::vector<double> random_theta(int P, unsigned seed, double scale = 0.5) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<double> th(static_cast<size_t>(P));
  for (double& x : th)
    x = dist(gen);
  return th;
}

/// A data set of `lengths.size()` series at integer times 0..n-1 (plus
/// `start` offsets if given), smooth random values, labels / targets for `kind`.
inline rt::Dataset make_data(const std::vector<int>& lengths, int d, int S, rt::TargetKind kind,
                             int classes_or_targets, unsigned seed,
                             const std::vector<double>& start = {}) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  rt::Dataset data;
  data.name = "synthetic";
  for (int c = 0; c < d; ++c)
    data.channels.push_back({"c" + std::to_string(c), rt::ChannelKind::Measured});
  for (int c = 0; c < S; ++c)
    data.statics.push_back({"s" + std::to_string(c), rt::ChannelKind::Measured});
  data.target_kind = kind;
  if (kind == rt::TargetKind::Class || kind == rt::TargetKind::Binary)
    for (int c = 0; c < classes_or_targets; ++c)
      data.classes.push_back("k" + std::to_string(c));
  if (kind == rt::TargetKind::Regression || kind == rt::TargetKind::RegressionPerStep)
    for (int c = 0; c < classes_or_targets; ++c)
      data.targets.push_back("y" + std::to_string(c));
  for (size_t i = 0; i < lengths.size(); ++i) {
    rt::Sample s;
    s.id = "s" + std::to_string(i);
    const double phase = dist(gen) * 3, freq = 0.5 + 0.3 * dist(gen);
    for (int k = 0; k < lengths[i]; ++k) {
      s.times.push_back((start.empty() ? 0.0 : start[i]) + k);
      for (int c = 0; c < d; ++c)
        s.values.push_back(std::sin(freq * (c + 1) * k + phase) + 0.2 * dist(gen));
    }
    for (int c = 0; c < S; ++c)
      s.statics.push_back(dist(gen));
    if (kind == rt::TargetKind::Class || kind == rt::TargetKind::Binary)
      s.label = static_cast<int>(gen() % static_cast<unsigned>(classes_or_targets));
    if (kind == rt::TargetKind::Regression)
      for (int c = 0; c < classes_or_targets; ++c)
        s.target.push_back(dist(gen));
    if (kind == rt::TargetKind::RegressionPerStep)
      for (int k = 0; k < lengths[i]; ++k)
        for (int c = 0; c < classes_or_targets; ++c)
          s.target.push_back(dist(gen));
    data.samples.push_back(std::move(s));
  }
  return data;
}

} // namespace plastic::test
