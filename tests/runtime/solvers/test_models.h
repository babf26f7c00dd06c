// Hand-written models that follow runtime/abi.h, for the solver and gradient
// tests: what the compiler will generate, written out by hand.
//
//  * LinearModel: z' = A z + B u(t), theta = [A (n x n), B (n x 2)], output
//    y = z, loss 1/2 |y - target|^2. With u = (cos t, sin t) the exact
//    solution is a matrix exponential of the augmented system.
//  * DeltaModel: a continuous-time Delta-rule fast weight programmer
//    (paper 000, Eq. 24 without layer norm):
//      k = tanh(Wk u), v = tanh(Wv u), beta = wb . u,
//      W' = sigmoid(beta) (v - W k) (x) k,
//    output y = W q, loss 1/2 |y - target|^2, jump W+ = tanh(W) + J u_0.
//  * QuadraticModel: z' = c z^2, which blows up at t = 1/(c z0).
//
// Every model's kernels read their dims from ctx. `with_fused` adds fused
// step / step_vjp / step_adaptive kernels for a chosen tableau, written
// independently of the runtime's engine (a plain loop over the stages), so
// the fused-kernel path of the runtime is exercised and cross-checked.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/tableau.h"

namespace plastic::test {

using rt::ButcherTableau;

/// Dims and hooks shared by all test models; kernels cast ctx to this.
struct Ctx {
  int L = 1;
  int n = 0, P = 0, m = 0, o = 0;
  int d_out = 0, d_key = 0, d_in = 0; // DeltaModel only
  const ButcherTableau* fused = nullptr;
  plastic_field_fn field = nullptr;
  plastic_field_vjp_fn field_vjp = nullptr;
};

inline const Ctx& C(const void* ctx) {
  return *static_cast<const Ctx*>(ctx);
}

// ---------------------------------------------------------------- linear

template <class T>
void linear_field(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                  void* dzv, void*) {
  const Ctx& c = C(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* A = static_cast<const T*>(thv);
  const T* B = A + c.n * c.n;
  const T* u = static_cast<const T*>(uv);
  T* dz = static_cast<T*>(dzv);
  for (int i = 0; i < c.n; ++i)
    for (int l = 0; l < c.L; ++l) {
      T acc = 0;
      for (int j = 0; j < c.n; ++j)
        acc += A[i * c.n + j] * z[j * c.L + l];
      for (int k = 0; k < c.m; ++k)
        acc += B[i * c.m + k] * u[k * c.L + l];
      dz[i * c.L + l] = acc;
    }
}

template <class T>
void linear_field_vjp(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                      const void* av, void* zbv, void* thbv, void* ubv, void*) {
  const Ctx& c = C(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* A = static_cast<const T*>(thv);
  const T* B = A + c.n * c.n;
  const T* u = static_cast<const T*>(uv);
  const T* a = static_cast<const T*>(av);
  T* zb = static_cast<T*>(zbv);
  T* Ab = static_cast<T*>(thbv);
  T* Bb = Ab + c.n * c.n;
  T* ub = static_cast<T*>(ubv);
  for (int i = 0; i < c.n; ++i)
    for (int l = 0; l < c.L; ++l) {
      const T ai = a[i * c.L + l];
      for (int j = 0; j < c.n; ++j) {
        zb[j * c.L + l] += ai * A[i * c.n + j];
        Ab[i * c.n + j] += ai * z[j * c.L + l];
      }
      for (int k = 0; k < c.m; ++k) {
        Bb[i * c.m + k] += ai * u[k * c.L + l];
        if (ub) ub[k * c.L + l] += ai * B[i * c.m + k];
      }
    }
}

// ---------------------------------------------------------------- delta rule

/// Offsets of the DeltaModel parameters in theta.
struct DeltaLayout {
  int Wk, Wv, wb, q, J, P;
  explicit DeltaLayout(const Ctx& c) {
    Wk = 0;
    Wv = Wk + c.d_key * c.d_in;
    wb = Wv + c.d_out * c.d_in;
    q = wb + c.d_in;
    J = q + c.d_key;
    P = J + c.d_out * c.d_key;
  }
};

inline double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

/// The per-lane forward quantities of the Delta field.
template <class T> struct DeltaLane {
  std::vector<double> k, v, r;
  double s = 0;
  void compute(const Ctx& c, const DeltaLayout& p, const T* W, const T* th, const T* u, int l) {
    k.assign(static_cast<size_t>(c.d_key), 0.0);
    v.assign(static_cast<size_t>(c.d_out), 0.0);
    r.assign(static_cast<size_t>(c.d_out), 0.0);
    double beta = 0;
    for (int x = 0; x < c.d_in; ++x)
      beta += th[p.wb + x] * u[x * c.L + l];
    s = sigmoid(beta);
    for (int j = 0; j < c.d_key; ++j) {
      double acc = 0;
      for (int x = 0; x < c.d_in; ++x)
        acc += th[p.Wk + j * c.d_in + x] * u[x * c.L + l];
      k[static_cast<size_t>(j)] = std::tanh(acc);
    }
    for (int i = 0; i < c.d_out; ++i) {
      double acc = 0;
      for (int x = 0; x < c.d_in; ++x)
        acc += th[p.Wv + i * c.d_in + x] * u[x * c.L + l];
      v[static_cast<size_t>(i)] = std::tanh(acc);
      double wk = 0;
      for (int j = 0; j < c.d_key; ++j)
        wk += W[(i * c.d_key + j) * c.L + l] * k[static_cast<size_t>(j)];
      r[static_cast<size_t>(i)] = v[static_cast<size_t>(i)] - wk;
    }
  }
};

template <class T>
void delta_field(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                 void* dzv, void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  T* dW = static_cast<T*>(dzv);
  DeltaLane<T> q;
  for (int l = 0; l < c.L; ++l) {
    q.compute(c, p, W, th, u, l);
    for (int i = 0; i < c.d_out; ++i)
      for (int j = 0; j < c.d_key; ++j)
        dW[(i * c.d_key + j) * c.L + l] =
            static_cast<T>(q.s * q.r[static_cast<size_t>(i)] * q.k[static_cast<size_t>(j)]);
  }
}

template <class T>
void delta_field_vjp(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                     const void* av, void* zbv, void* thbv, void* ubv, void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  const T* a = static_cast<const T*>(av);
  T* Wb = static_cast<T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  T* ub = static_cast<T*>(ubv);
  DeltaLane<T> q;
  for (int l = 0; l < c.L; ++l) {
    q.compute(c, p, W, th, u, l);
    auto A = [&](int i, int j) { return static_cast<double>(a[(i * c.d_key + j) * c.L + l]); };
    // ak = a k, rbar = s a k, sbar = r^T a k.
    std::vector<double> ak(static_cast<size_t>(c.d_out), 0.0), rbar(static_cast<size_t>(c.d_out));
    double sbar = 0;
    for (int i = 0; i < c.d_out; ++i) {
      for (int j = 0; j < c.d_key; ++j)
        ak[static_cast<size_t>(i)] += A(i, j) * q.k[static_cast<size_t>(j)];
      rbar[static_cast<size_t>(i)] = q.s * ak[static_cast<size_t>(i)];
      sbar += q.r[static_cast<size_t>(i)] * ak[static_cast<size_t>(i)];
    }
    // W_bar = -rbar (x) k; k_bar = s a^T r - W^T rbar.
    std::vector<double> kbar(static_cast<size_t>(c.d_key), 0.0);
    for (int i = 0; i < c.d_out; ++i)
      for (int j = 0; j < c.d_key; ++j) {
        const double wij = W[(i * c.d_key + j) * c.L + l];
        Wb[(i * c.d_key + j) * c.L + l] +=
            static_cast<T>(-rbar[static_cast<size_t>(i)] * q.k[static_cast<size_t>(j)]);
        kbar[static_cast<size_t>(j)] +=
            q.s * A(i, j) * q.r[static_cast<size_t>(i)] - wij * rbar[static_cast<size_t>(i)];
      }
    const double betabar = sbar * q.s * (1 - q.s);
    for (int x = 0; x < c.d_in; ++x) {
      const double ux = u[x * c.L + l];
      double ubx = betabar * th[p.wb + x];
      thb[p.wb + x] += static_cast<T>(betabar * ux);
      for (int j = 0; j < c.d_key; ++j) {
        const double pre = kbar[static_cast<size_t>(j)] *
                           (1 - q.k[static_cast<size_t>(j)] * q.k[static_cast<size_t>(j)]);
        thb[p.Wk + j * c.d_in + x] += static_cast<T>(pre * ux);
        ubx += pre * th[p.Wk + j * c.d_in + x];
      }
      for (int i = 0; i < c.d_out; ++i) {
        // v_bar = r_bar; through tanh.
        const double pre = rbar[static_cast<size_t>(i)] *
                           (1 - q.v[static_cast<size_t>(i)] * q.v[static_cast<size_t>(i)]);
        thb[p.Wv + i * c.d_in + x] += static_cast<T>(pre * ux);
        ubx += pre * th[p.Wv + i * c.d_in + x];
      }
      if (ub) ub[x * c.L + l] += static_cast<T>(ubx);
    }
  }
}

/// y = W q.
template <class T>
void delta_output(const void* ctx, double, const void* zv, const void* thv, const void*, void* yv,
                  void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  T* y = static_cast<T*>(yv);
  for (int i = 0; i < c.d_out; ++i)
    for (int l = 0; l < c.L; ++l) {
      T acc = 0;
      for (int j = 0; j < c.d_key; ++j)
        acc += W[(i * c.d_key + j) * c.L + l] * th[p.q + j];
      y[i * c.L + l] = acc;
    }
}

template <class T>
void delta_output_vjp(const void* ctx, double, const void* zv, const void* thv, const void*,
                      const void* ybv, void* zbv, void* thbv, void*, void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* yb = static_cast<const T*>(ybv);
  T* Wb = static_cast<T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  for (int i = 0; i < c.d_out; ++i)
    for (int l = 0; l < c.L; ++l)
      for (int j = 0; j < c.d_key; ++j) {
        Wb[(i * c.d_key + j) * c.L + l] += yb[i * c.L + l] * th[p.q + j];
        thb[p.q + j] += yb[i * c.L + l] * W[(i * c.d_key + j) * c.L + l];
      }
}

/// W+ = tanh(W) + J u_0.
template <class T>
void delta_jump(const void* ctx, double, const void* zv, const void* thv, const void* uv, void* zpv,
                void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  T* Wp = static_cast<T*>(zpv);
  for (int e = 0; e < c.d_out * c.d_key; ++e)
    for (int l = 0; l < c.L; ++l)
      Wp[e * c.L + l] = std::tanh(W[e * c.L + l]) + th[p.J + e] * u[l];
}

template <class T>
void delta_jump_vjp(const void* ctx, double, const void* zv, const void* thv, const void* uv,
                    const void* zpbv, void* zbv, void* thbv, void* ubv, void*) {
  const Ctx& c = C(ctx);
  const DeltaLayout p(c);
  const T* W = static_cast<const T*>(zv);
  const T* th = static_cast<const T*>(thv);
  const T* u = static_cast<const T*>(uv);
  const T* wpb = static_cast<const T*>(zpbv);
  T* Wb = static_cast<T*>(zbv);
  T* thb = static_cast<T*>(thbv);
  T* ub = static_cast<T*>(ubv);
  for (int e = 0; e < c.d_out * c.d_key; ++e)
    for (int l = 0; l < c.L; ++l) {
      const T g = wpb[e * c.L + l];
      const T th_w = std::tanh(W[e * c.L + l]);
      Wb[e * c.L + l] += g * (1 - th_w * th_w);
      thb[p.J + e] += g * u[l];
      if (ub) ub[l] += g * th[p.J + e];
    }
}

// ---------------------------------------------------------------- shared readout

/// loss_l = 1/2 sum_i (y_il - target_il)^2.
template <class T>
void squared_loss(const void* ctx, const void* yv, const void* tv, void* lossv, void*) {
  const Ctx& c = C(ctx);
  const T* y = static_cast<const T*>(yv);
  const T* tg = static_cast<const T*>(tv);
  T* loss = static_cast<T*>(lossv);
  for (int l = 0; l < c.L; ++l) {
    T acc = 0;
    for (int i = 0; i < c.o; ++i)
      acc += T(0.5) * (y[i * c.L + l] - tg[i * c.L + l]) * (y[i * c.L + l] - tg[i * c.L + l]);
    loss[l] = acc;
  }
}

template <class T>
void squared_loss_vjp(const void* ctx, const void* yv, const void* tv, const void* lbv, void* ybv,
                      void*) {
  const Ctx& c = C(ctx);
  const T* y = static_cast<const T*>(yv);
  const T* tg = static_cast<const T*>(tv);
  const T* lb = static_cast<const T*>(lbv);
  T* yb = static_cast<T*>(ybv);
  for (int i = 0; i < c.o; ++i)
    for (int l = 0; l < c.L; ++l)
      yb[i * c.L + l] += lb[l] * (y[i * c.L + l] - tg[i * c.L + l]);
}

/// y = z (the linear model's readout).
template <class T>
void identity_output(const void* ctx, double, const void* zv, const void*, const void*, void* yv,
                     void*) {
  const Ctx& c = C(ctx);
  for (int e = 0; e < c.n * c.L; ++e)
    static_cast<T*>(yv)[e] = static_cast<const T*>(zv)[e];
}

template <class T>
void identity_output_vjp(const void* ctx, double, const void*, const void*, const void*,
                         const void* ybv, void* zbv, void*, void*, void*) {
  const Ctx& c = C(ctx);
  for (int e = 0; e < c.n * c.L; ++e)
    static_cast<T*>(zbv)[e] += static_cast<const T*>(ybv)[e];
}

// ---------------------------------------------------------------- quadratic blow-up

template <class T>
void quadratic_field(const void* ctx, double, const void* zv, const void* thv, const void*,
                     void* dzv, void*) {
  const Ctx& c = C(ctx);
  const T* z = static_cast<const T*>(zv);
  const T cc = static_cast<const T*>(thv)[0];
  for (int l = 0; l < c.L; ++l)
    static_cast<T*>(dzv)[l] = cc * z[l] * z[l];
}

template <class T>
void quadratic_field_vjp(const void* ctx, double, const void* zv, const void* thv, const void*,
                         const void* av, void* zbv, void* thbv, void*, void*) {
  const Ctx& c = C(ctx);
  const T* z = static_cast<const T*>(zv);
  const T* a = static_cast<const T*>(av);
  const T cc = static_cast<const T*>(thv)[0];
  for (int l = 0; l < c.L; ++l) {
    static_cast<T*>(zbv)[l] += a[l] * 2 * cc * z[l];
    static_cast<T*>(thbv)[0] += a[l] * z[l] * z[l];
  }
}

// ---------------------------------------------------------------- fused steps

/// The u_stages block stage i reads (runtime/abi.h): stages at one node share
/// the block of the first of them.
inline size_t input_block(const ButcherTableau& tab, int i) {
  for (int j = 0; j < i; ++j)
    if (tab.c[static_cast<size_t>(j)] == tab.c[static_cast<size_t>(i)])
      return static_cast<size_t>(j);
  return static_cast<size_t>(i);
}

/// Stage states and derivatives of one RK step, computed by a plain loop.
template <class T> struct PlainRk {
  std::vector<std::vector<T>> Y, K;
  void run(const Ctx& c, const ButcherTableau& tab, double t, double h, const T* z0, const T* th,
           const T* us, const T* k_first) {
    const size_t nl = static_cast<size_t>(c.n * c.L), ml = static_cast<size_t>(c.m * c.L);
    Y.assign(static_cast<size_t>(tab.stages), std::vector<T>(nl));
    K = Y;
    for (int i = 0; i < tab.stages; ++i) {
      for (size_t e = 0; e < nl; ++e) {
        T acc = z0[e];
        for (int j = 0; j < i; ++j)
          acc += static_cast<T>(h * tab.A(i, j)) * K[static_cast<size_t>(j)][e];
        Y[static_cast<size_t>(i)][e] = acc;
      }
      if (i == 0 && k_first) {
        K[0].assign(k_first, k_first + nl);
        continue;
      }
      c.field(&c, t + tab.c[static_cast<size_t>(i)] * h, Y[static_cast<size_t>(i)].data(), th,
              c.m ? us + input_block(tab, i) * ml : nullptr, K[static_cast<size_t>(i)].data(),
              nullptr);
    }
  }
};

template <class T>
void fused_step(const void* ctx, double t, double h, const void* z0, const void* th, const void* us,
                void* z1, void*) {
  const Ctx& c = C(ctx);
  PlainRk<T> rk;
  rk.run(c, *c.fused, t, h, static_cast<const T*>(z0), static_cast<const T*>(th),
         static_cast<const T*>(us), nullptr);
  const size_t nl = static_cast<size_t>(c.n * c.L);
  std::vector<T> out(static_cast<const T*>(z0), static_cast<const T*>(z0) + nl);
  for (int i = 0; i < c.fused->stages; ++i)
    for (size_t e = 0; e < nl; ++e)
      out[e] +=
          static_cast<T>(h * c.fused->b[static_cast<size_t>(i)]) * rk.K[static_cast<size_t>(i)][e];
  std::copy(out.begin(), out.end(), static_cast<T*>(z1));
}

template <class T>
void fused_step_adaptive(const void* ctx, double t, double h, const void* z0, const void* th,
                         const void* us, const void* k_first, void* z1, void* err, void* k_last,
                         void*) {
  const Ctx& c = C(ctx);
  const ButcherTableau& tab = *c.fused;
  PlainRk<T> rk;
  rk.run(c, tab, t, h, static_cast<const T*>(z0), static_cast<const T*>(th),
         static_cast<const T*>(us), static_cast<const T*>(k_first));
  const size_t nl = static_cast<size_t>(c.n * c.L);
  for (size_t e = 0; e < nl; ++e) {
    T zz = static_cast<const T*>(z0)[e], ee = 0;
    for (int i = 0; i < tab.stages; ++i) {
      zz += static_cast<T>(h * tab.b[static_cast<size_t>(i)]) * rk.K[static_cast<size_t>(i)][e];
      ee += static_cast<T>(h * tab.e[static_cast<size_t>(i)]) * rk.K[static_cast<size_t>(i)][e];
    }
    static_cast<T*>(z1)[e] = zz;
    static_cast<T*>(err)[e] = ee;
    if (tab.fsal) static_cast<T*>(k_last)[e] = rk.K.back()[e];
  }
}

template <class T>
void fused_step_vjp(const void* ctx, double t, double h, const void* z0, const void* th,
                    const void* us, const void* z1b, void* z0b, void* thb, void* usb, void*) {
  const Ctx& c = C(ctx);
  const ButcherTableau& tab = *c.fused;
  PlainRk<T> rk;
  rk.run(c, tab, t, h, static_cast<const T*>(z0), static_cast<const T*>(th),
         static_cast<const T*>(us), nullptr);
  const size_t nl = static_cast<size_t>(c.n * c.L), ml = static_cast<size_t>(c.m * c.L);
  const T* zb1 = static_cast<const T*>(z1b);
  std::vector<std::vector<T>> kb(static_cast<size_t>(tab.stages), std::vector<T>(nl));
  for (int i = 0; i < tab.stages; ++i)
    for (size_t e = 0; e < nl; ++e)
      kb[static_cast<size_t>(i)][e] = static_cast<T>(h * tab.b[static_cast<size_t>(i)]) * zb1[e];
  for (size_t e = 0; e < nl; ++e)
    static_cast<T*>(z0b)[e] = zb1[e];
  std::vector<T> yb(nl);
  for (int i = tab.stages - 1; i >= 0; --i) {
    std::fill(yb.begin(), yb.end(), T{0});
    c.field_vjp(&c, t + tab.c[static_cast<size_t>(i)] * h, rk.Y[static_cast<size_t>(i)].data(), th,
                c.m ? static_cast<const T*>(us) + input_block(tab, i) * ml : nullptr,
                kb[static_cast<size_t>(i)].data(), yb.data(), thb,
                usb && c.m ? static_cast<T*>(usb) + input_block(tab, i) * ml : nullptr, nullptr);
    for (size_t e = 0; e < nl; ++e)
      static_cast<T*>(z0b)[e] += yb[e];
    for (int j = 0; j < i; ++j)
      for (size_t e = 0; e < nl; ++e)
        kb[static_cast<size_t>(j)][e] += static_cast<T>(h * tab.A(i, j)) * yb[e];
  }
}

// ---------------------------------------------------------------- tables

/// A model table with its ctx and the storage the table points to.
template <class T> struct TestModel {
  std::unique_ptr<Ctx> ctx = std::make_unique<Ctx>();
  plastic_model table{};
  std::vector<plastic_param> params;
  std::vector<plastic_input_slot> slots;

  /// Adds fused step kernels implementing `tab` (a plain loop over the field kernel).
  TestModel& with_fused(const ButcherTableau& tab) {
    ctx->fused = &tab;
    table.step_method = tab.name.data();
    table.kernels.step = &fused_step<T>;
    table.kernels.step_vjp = &fused_step_vjp<T>;
    table.kernels.step_adaptive = tab.adaptive() ? &fused_step_adaptive<T> : nullptr;
    return *this;
  }
  const plastic_model* get() const { return &table; }

  void finish(const char* name, int L, int n, int P, int m, int o) {
    ctx->L = L;
    ctx->n = n;
    ctx->P = P;
    ctx->m = m;
    ctx->o = o;
    table.abi_version = PLASTIC_ABI_VERSION;
    table.struct_size = sizeof(plastic_model);
    table.name = name;
    table.dtype = rt::dtype_of<T>();
    table.lanes = L;
    table.n_state = n;
    table.n_params = P;
    table.field_theta_end = P; // a hand-written field may read every parameter
    table.n_input = m;
    table.n_outputs = o;
    table.n_targets = o;
    table.ctx = ctx.get();
    table.kernels.field = ctx->field;
    table.kernels.field_vjp = ctx->field_vjp;
    params.push_back(plastic_param{});
    plastic_param& p = params.back();
    p.name = "theta";
    p.rank = 1;
    p.init = PLASTIC_INIT_NORMAL;
    p.shape[0] = P;
    p.offset = 0;
    p.size = P;
    p.init_group = -1;
    table.n_param_entries = P > 0 ? 1 : 0;
    table.params = params.data();
    if (m > 0) {
      slots.push_back(plastic_input_slot{"x", PLASTIC_INPUT_PATH_VALUE, 0, 0, m, m, 0, 0, 0, 0});
      table.n_input_slots = 1;
      table.input_slots = slots.data();
    }
  }
};

/// z' = A z + B u, u = (cos t, sin t) (m = 2) or no input (m = 0).
template <class T> TestModel<T> linear_model(int L, int n, int m = 2) {
  TestModel<T> tm;
  tm.ctx->field = &linear_field<T>;
  tm.ctx->field_vjp = &linear_field_vjp<T>;
  tm.finish("linear", L, n, n * n + n * m, m, n);
  tm.table.kernels.output = &identity_output<T>;
  tm.table.kernels.output_vjp = &identity_output_vjp<T>;
  tm.table.kernels.loss = &squared_loss<T>;
  tm.table.kernels.loss_vjp = &squared_loss_vjp<T>;
  return tm;
}

template <class T> TestModel<T> delta_model(int L, int d_out = 3, int d_key = 2, int d_in = 2) {
  TestModel<T> tm;
  tm.ctx->field = &delta_field<T>;
  tm.ctx->field_vjp = &delta_field_vjp<T>;
  tm.ctx->d_out = d_out;
  tm.ctx->d_key = d_key;
  tm.ctx->d_in = d_in;
  const DeltaLayout layout(*tm.ctx);
  tm.finish("delta", L, d_out * d_key, layout.P, d_in, d_out);
  tm.table.kernels.output = &delta_output<T>;
  tm.table.kernels.output_vjp = &delta_output_vjp<T>;
  tm.table.kernels.loss = &squared_loss<T>;
  tm.table.kernels.loss_vjp = &squared_loss_vjp<T>;
  tm.table.kernels.jump = &delta_jump<T>;
  tm.table.kernels.jump_vjp = &delta_jump_vjp<T>;
  return tm;
}

template <class T> TestModel<T> quadratic_model(int L) {
  TestModel<T> tm;
  tm.ctx->field = &quadratic_field<T>;
  tm.ctx->field_vjp = &quadratic_field_vjp<T>;
  tm.finish("quadratic", L, 1, 1, 0, 0);
  return tm;
}

} // namespace plastic::test
