// Hand-built loop programs shared by the code generator tests (programs.h).
#include "tests/compiler/backend/loop_programs.h"

namespace plastic::backend::test {

using namespace ::plastic::loops;

Function elementwise_chain(ElemType type, int lanes, int64_t n) {
  Builder b("chain", type, lanes);
  b.opaque_param("ctx");
  Expr t = b.scalar_param("t");
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer theta = b.uniform_param("theta", 4, {.readonly = true});
  Buffer y = b.varying_param("y", n);
  b.loop("i", 0, n, [&](Index i) {
    Expr xi = b.load(x, i);
    Expr a = b.add(b.mul(b.load(theta, 0), xi), b.mul(b.load(theta, 1), t));
    Expr x2 = b.square(xi);
    Expr s = b.mul(b.tanh(a), b.sigmoid(xi));
    s = b.add(s, b.exp(b.neg(x2)));
    s = b.add(s, b.log1p(x2));
    s = b.add(s, b.softplus(b.mul(xi, b.load(theta, 2))));
    s = b.sub(s, b.relu(xi));
    s = b.add(s, b.elu(xi, 0.7));
    s = b.add(s, b.sqrt(b.abs(xi)));
    s = b.add(s, b.div(b.powc(b.add(b.abs(xi), b.constant(1)), 3), b.add(b.constant(1), x2)));
    s = b.add(s, b.powc(b.add(b.abs(xi), b.constant(0.5)), -1.5));
    s = b.add(s, b.max(xi, b.load(theta, 3)));
    s = b.sub(s, b.min(xi, b.constant(0.1)));
    s = b.add(
        s, b.select(b.gt(xi, b.constant(0)), b.expm1(xi), b.log(b.add(b.abs(xi), b.constant(1)))));
    s = b.add(s, b.mul(b.sign(xi), b.step(xi)));
    s = b.add(s, b.reciprocal(b.add(x2, b.constant(2))));
    s = b.add(s, b.cos(xi));
    // Uniform math: scalar code, broadcast when it meets the varying sum.
    s = b.add(s, b.mul(b.tanh(b.load(theta, 1)), b.sigmoid(t)));
    s = b.add(s, b.exp(b.softplus(b.load(theta, 2))));
    b.store(y, i, s);
  });
  return b.finish();
}

Function matvec(ElemType type, int lanes, int64_t heads, int64_t d) {
  Builder b("matvec", type, lanes);
  b.opaque_param("ctx");
  Buffer W = b.varying_param("W", heads * d * d, {.readonly = true});
  Buffer k = b.varying_param("k", heads * d, {.readonly = true});
  Buffer y = b.varying_param("y", heads * d);
  b.scratch_param();
  Var acc = b.var("acc", Lanes::Varying);
  // A cache hint over all of W, as a kernel gives one for a cold input:
  // every backend must accept it and compute the same values.
  b.loop("p", 0, heads * d * d, [&](Index p) { b.prefetch(W, p); });
  b.loop("h", 0, heads, [&](Index h) {
    b.loop("i", 0, d, [&](Index i) {
      b.assign(acc, b.constant(0));
      b.loop("j", 0, d, [&](Index j) {
        b.assign(acc, b.fma(b.load(W, h * (d * d) + i * d + j), b.load(k, h * d + j), b.read(acc)));
      });
      b.store(y, h * d + i, b.read(acc));
    });
  });
  return b.finish();
}

Function delta_update(ElemType type, int lanes, int64_t heads, int64_t d) {
  Builder b("delta_update", type, lanes);
  b.opaque_param("ctx");
  Expr beta = b.scalar_param("beta");
  Buffer W = b.varying_param("W", heads * d * d);
  Buffer k = b.varying_param("k", heads * d, {.readonly = true});
  Buffer v = b.varying_param("v", heads * d, {.readonly = true});
  b.scratch_param();
  Buffer e = b.scratch_buffer("e", Lanes::Varying, heads * d);
  Var acc = b.var("acc", Lanes::Varying);
  b.loop("h", 0, heads, [&](Index h) {
    b.comment("e = beta * (v - W k), before W changes");
    b.loop("i", 0, d, [&](Index i) {
      b.assign(acc, b.constant(0));
      b.loop("j", 0, d, [&](Index j) {
        b.assign(acc, b.fma(b.load(W, h * (d * d) + i * d + j), b.load(k, h * d + j), b.read(acc)));
      });
      b.store(e, h * d + i, b.mul(beta, b.sub(b.load(v, h * d + i), b.read(acc))));
    });
    b.comment("W += e (x) k");
    b.loop("i", 0, d, [&](Index i) {
      b.loop("j", 0, d, [&](Index j) {
        b.accumulate(W, h * (d * d) + i * d + j, b.mul(b.load(e, h * d + i), b.load(k, h * d + j)));
      });
    });
  });
  return b.finish();
}

Function softmax(ElemType type, int lanes, int64_t n) {
  Builder b("softmax", type, lanes);
  b.opaque_param("ctx");
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer y = b.varying_param("y", n);
  b.scratch_param();
  Buffer ex = b.scratch_buffer("ex", Lanes::Varying, n);
  Var m = b.var("m", Lanes::Varying);
  Var s = b.var("s", Lanes::Varying);
  b.assign(m, b.load(x, 0));
  if (n > 1) b.loop("i", 1, n, [&](Index i) { b.assign(m, b.max(b.read(m), b.load(x, i))); });
  b.assign(s, b.constant(0));
  b.loop("i", 0, n, [&](Index i) {
    b.store(ex, i, b.exp(b.sub(b.load(x, i), b.read(m))));
    b.assign(s, b.add(b.read(s), b.load(ex, i)));
  });
  Var r = b.var("r", Lanes::Varying);
  b.assign(r, b.reciprocal(b.read(s)));
  b.loop("i", 0, n, [&](Index i) { b.store(y, i, b.mul(b.load(ex, i), b.read(r))); });
  return b.finish();
}

Function linear_vjp(ElemType type, int lanes, int64_t m, int64_t n) {
  Builder b("linear_vjp", type, lanes);
  b.opaque_param("ctx");
  Buffer theta = b.uniform_param("theta", m * n + m, {.readonly = true});
  Buffer x = b.varying_param("x", n, {.readonly = true});
  Buffer ybar = b.varying_param("y_bar", m, {.readonly = true});
  Buffer tbar = b.uniform_param("theta_bar", m * n + m);
  Buffer xbar = b.varying_param("x_bar", n, {.nullable = true});
  b.scratch_param();
  b.comment("theta_bar: W_bar[i,j] += sum_lanes y_bar[i] x[j]; b_bar[i] += sum_lanes y_bar[i]");
  b.loop("i", 0, m, [&](Index i) {
    b.loop("j", 0, n, [&](Index j) {
      b.accumulate_lanes(tbar, i * n + j, b.mul(b.load(ybar, i), b.load(x, j)));
    });
    b.accumulate_lanes(tbar, i + m * n, b.load(ybar, i));
  });
  b.if_present(xbar, [&] {
    Var acc = b.var("acc", Lanes::Varying);
    b.loop("j", 0, n, [&](Index j) {
      b.assign(acc, b.constant(0));
      b.loop("i", 0, m, [&](Index i) {
        b.assign(acc, b.fma(b.load(theta, i * n + j), b.load(ybar, i), b.read(acc)));
      });
      b.accumulate(xbar, j, b.read(acc));
    });
  });
  return b.finish();
}

Function shared_weight_grad(ElemType type, int lanes, int64_t heads, int64_t d) {
  Builder b("shared_weight_grad", type, lanes);
  b.opaque_param("ctx");
  Buffer x = b.varying_param("x", heads * d, {.readonly = true});
  Buffer ybar = b.varying_param("y_bar", heads * d, {.readonly = true});
  Buffer wbar = b.uniform_param("W_bar", d * d);
  b.scratch_param();
  Buffer g = b.scratch_buffer("g", Lanes::Varying, d * d);
  b.loop("i", 0, d, [&](Index i) {
    b.loop("j", 0, d, [&](Index j) { b.store(g, i * d + j, b.constant(0)); });
  });
  b.loop("h", 0, heads, [&](Index h) {
    b.loop("i", 0, d, [&](Index i) {
      b.loop("j", 0, d, [&](Index j) {
        b.accumulate(g, i * d + j, b.mul(b.load(ybar, h * d + i), b.load(x, h * d + j)));
      });
    });
  });
  b.loop("i", 0, d, [&](Index i) {
    b.loop("j", 0, d, [&](Index j) { b.accumulate_lanes(wbar, i * d + j, b.load(g, i * d + j)); });
  });
  return b.finish();
}

int64_t delta_field_params(int64_t d_in, int64_t heads, int64_t d) {
  return 2 * heads * d * d_in + heads * d_in;
}

Function delta_field(ElemType type, int lanes, int64_t d_in, int64_t heads, int64_t d) {
  Builder b("delta_field", type, lanes);
  b.opaque_param("ctx");
  b.scalar_param("t");
  Buffer z = b.varying_param("z", heads * d * d, {.readonly = true});
  Buffer theta = b.uniform_param("theta", delta_field_params(d_in, heads, d), {.readonly = true});
  Buffer u = b.varying_param("u", 2 * d_in, {.readonly = true});
  Buffer dz = b.varying_param("dz", heads * d * d);
  b.scratch_param();
  Buffer kb = b.scratch_buffer("k", Lanes::Varying, d);
  Buffer vb = b.scratch_buffer("v", Lanes::Varying, d);
  const int64_t Wk = 0, Wv = heads * d * d_in, wb = 2 * heads * d * d_in; // offsets in theta
  Var acc = b.var("acc", Lanes::Varying);
  Var m = b.var("m", Lanes::Varying);
  Var s = b.var("s", Lanes::Varying);
  Var beta = b.var("beta", Lanes::Varying);
  b.loop("h", 0, heads, [&](Index h) {
    b.comment("k = softmax(Wk[h] dx)");
    b.loop("i", 0, d, [&](Index i) {
      b.assign(acc, b.constant(0));
      b.loop("j", 0, d_in, [&](Index j) {
        b.assign(acc, b.fma(b.load(theta, h * (d * d_in) + i * d_in + j + Wk), b.load(u, j + d_in),
                            b.read(acc)));
      });
      b.store(kb, i, b.read(acc));
    });
    b.assign(m, b.load(kb, 0));
    b.loop("i", 1, d, [&](Index i) { b.assign(m, b.max(b.read(m), b.load(kb, i))); });
    b.assign(s, b.constant(0));
    b.loop("i", 0, d, [&](Index i) {
      b.store(kb, i, b.exp(b.sub(b.load(kb, i), b.read(m))));
      b.assign(s, b.add(b.read(s), b.load(kb, i)));
    });
    b.assign(s, b.reciprocal(b.read(s)));
    b.loop("i", 0, d, [&](Index i) { b.store(kb, i, b.mul(b.load(kb, i), b.read(s))); });
    b.comment("v = tanh(Wv[h] x - W[h] k)");
    b.loop("i", 0, d, [&](Index i) {
      b.assign(acc, b.constant(0));
      b.loop("j", 0, d_in, [&](Index j) {
        b.assign(acc, b.fma(b.load(theta, h * (d * d_in) + i * d_in + j + Wv), b.load(u, j),
                            b.read(acc)));
      });
      b.loop("j", 0, d, [&](Index j) {
        b.assign(acc, b.sub(b.read(acc), b.mul(b.load(z, h * (d * d) + i * d + j), b.load(kb, j))));
      });
      b.store(vb, i, b.tanh(b.read(acc)));
    });
    b.comment("beta = sigmoid(wb[h] . x); dW = beta v (x) k");
    b.assign(acc, b.constant(0));
    b.loop("j", 0, d_in, [&](Index j) {
      b.assign(acc, b.fma(b.load(theta, h * d_in + j + wb), b.load(u, j), b.read(acc)));
    });
    b.assign(beta, b.sigmoid(b.read(acc)));
    b.loop("i", 0, d, [&](Index i) {
      b.loop("j", 0, d, [&](Index j) {
        b.store(dz, h * (d * d) + i * d + j,
                b.mul(b.mul(b.read(beta), b.load(vb, i)), b.load(kb, j)));
      });
    });
  });
  return b.finish();
}

} // namespace plastic::backend::test
