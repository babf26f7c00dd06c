// The hand-written VJPs of the test models against central finite
// differences. Every later gradient test builds on these kernels, so they
// are checked first, coordinate by coordinate, on random points.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "tests/runtime/solvers/test_support.h"

namespace {

using namespace plastic;
using namespace plastic::test;
using Vec = std::vector<double>;

/// A kernel as out = F(z, theta, u) and its VJP (z_bar, theta_bar, u_bar) += VJP(a).
struct KernelUnderTest {
  size_t nz, nth, nu, nout;
  std::function<void(const Vec& z, const Vec& th, const Vec& u, Vec& out)> forward;
  std::function<void(const Vec& z, const Vec& th, const Vec& u, const Vec& a, Vec& zb, Vec& thb,
                     Vec& ub)>
      vjp;
};

/// Largest mismatch between the VJP and central differences of <a, F>, relative
/// to the largest cotangent component (central differences with eps = 1e-6
/// carry ~1e-10 absolute noise, so tiny components cannot be checked relatively).
double vjp_mismatch(const KernelUnderTest& k, unsigned seed) {
  const Vec z = random_values(k.nz, seed, -1, 1), th = random_values(k.nth, seed + 1, -1, 1),
            u = random_values(k.nu, seed + 2, -1, 1), a = random_values(k.nout, seed + 3, -1, 1);
  Vec zb(k.nz, 0.0), thb(k.nth, 0.0), ub(k.nu, 0.0);
  k.vjp(z, th, u, a, zb, thb, ub);
  auto inner = [&](const Vec& zz, const Vec& tt, const Vec& uu) {
    Vec out(k.nout);
    k.forward(zz, tt, uu, out);
    double s = 0;
    for (size_t i = 0; i < k.nout; ++i)
      s += a[i] * out[i];
    return s;
  };
  double worst = 0, scale = 0;
  for (const Vec* v : {&zb, &thb, &ub})
    for (double x : *v)
      scale = std::max(scale, std::abs(x));
  auto check = [&](const Vec& analytic, int which) {
    for (size_t i = 0; i < analytic.size(); ++i) {
      auto f = [&](const Vec& x) {
        return inner(which == 0 ? x : z, which == 1 ? x : th, which == 2 ? x : u);
      };
      const double fd = central_difference(f, which == 0 ? z : which == 1 ? th : u, i, 1e-6);
      worst = std::max(worst, std::abs(fd - analytic[i]) / scale);
    }
  };
  check(zb, 0);
  check(thb, 1);
  check(ub, 2);
  // The VJP must actually depend on something: an all-zero VJP would pass vacuously.
  REQUIRE(scale > 1e-3);
  return worst;
}

template <class Model> KernelUnderTest field_of(const Model& tm) {
  const plastic_model& m = *tm.get();
  const size_t L = static_cast<size_t>(m.lanes);
  KernelUnderTest k{static_cast<size_t>(m.n_state) * L,
                    static_cast<size_t>(m.n_params),
                    static_cast<size_t>(m.n_input) * L,
                    static_cast<size_t>(m.n_state) * L,
                    {},
                    {}};
  k.forward = [&m](const Vec& z, const Vec& th, const Vec& u, Vec& out) {
    m.kernels.field(m.ctx, 0.3, z.data(), th.data(), u.empty() ? nullptr : u.data(), out.data(),
                    nullptr);
  };
  k.vjp = [&m](const Vec& z, const Vec& th, const Vec& u, const Vec& a, Vec& zb, Vec& thb,
               Vec& ub) {
    m.kernels.field_vjp(m.ctx, 0.3, z.data(), th.data(), u.empty() ? nullptr : u.data(), a.data(),
                        zb.data(), thb.data(), ub.empty() ? nullptr : ub.data(), nullptr);
  };
  return k;
}

} // namespace

TEST_CASE("hand-written field VJPs match finite differences", "[vjp]") {
  const auto linear = linear_model<double>(3, 3);
  CHECK(vjp_mismatch(field_of(linear), 11) < 1e-8);
  const auto delta = delta_model<double>(2);
  CHECK(vjp_mismatch(field_of(delta), 12) < 1e-8);
  const auto quad = quadratic_model<double>(4);
  CHECK(vjp_mismatch(field_of(quad), 13) < 1e-8);
}

TEST_CASE("hand-written output, jump and loss VJPs match finite differences", "[vjp]") {
  const auto tm = delta_model<double>(2);
  const plastic_model& m = *tm.get();
  const size_t L = 2, n = static_cast<size_t>(m.n_state) * L, P = static_cast<size_t>(m.n_params),
               nu = static_cast<size_t>(m.n_input) * L, no = static_cast<size_t>(m.n_outputs) * L;

  KernelUnderTest output{n, P, nu, no, {}, {}};
  output.forward = [&](const Vec& z, const Vec& th, const Vec& u, Vec& y) {
    m.kernels.output(m.ctx, 1.0, z.data(), th.data(), u.data(), y.data(), nullptr);
  };
  output.vjp = [&](const Vec& z, const Vec& th, const Vec& u, const Vec& a, Vec& zb, Vec& thb,
                   Vec& ub) {
    m.kernels.output_vjp(m.ctx, 1.0, z.data(), th.data(), u.data(), a.data(), zb.data(), thb.data(),
                         ub.data(), nullptr);
  };
  CHECK(vjp_mismatch(output, 21) < 1e-8);

  KernelUnderTest jump{n, P, nu, n, {}, {}};
  jump.forward = [&](const Vec& z, const Vec& th, const Vec& u, Vec& zp) {
    m.kernels.jump(m.ctx, 1.0, z.data(), th.data(), u.data(), zp.data(), nullptr);
  };
  jump.vjp = [&](const Vec& z, const Vec& th, const Vec& u, const Vec& a, Vec& zb, Vec& thb,
                 Vec& ub) {
    m.kernels.jump_vjp(m.ctx, 1.0, z.data(), th.data(), u.data(), a.data(), zb.data(), thb.data(),
                       ub.data(), nullptr);
  };
  CHECK(vjp_mismatch(jump, 22) < 1e-8);

  // Loss: "z" = y, "theta" = target, no u; the cotangent is the per-lane loss_bar.
  KernelUnderTest loss{no, no, 0, L, {}, {}};
  loss.forward = [&](const Vec& y, const Vec& target, const Vec&, Vec& out) {
    m.kernels.loss(m.ctx, y.data(), target.data(), out.data(), nullptr);
  };
  loss.vjp = [&](const Vec& y, const Vec& target, const Vec&, const Vec& lb, Vec& yb, Vec& tb,
                 Vec&) {
    m.kernels.loss_vjp(m.ctx, y.data(), target.data(), lb.data(), yb.data(), nullptr);
    // The target is data: its cotangent is by definition -y_bar; fill it so the check is complete.
    for (size_t i = 0; i < yb.size(); ++i)
      tb[i] = -yb[i];
  };
  CHECK(vjp_mismatch(loss, 23) < 1e-8);
}

TEST_CASE("fused test step kernels agree with their own VJP", "[vjp]") {
  // The fused step_vjp of the test models is what the compiler will emit; check it like a kernel.
  auto tm = delta_model<double>(2);
  tm.with_fused(*rt::find_tableau("rk4"));
  const plastic_model& m = *tm.get();
  const size_t L = 2, n = static_cast<size_t>(m.n_state) * L, P = static_cast<size_t>(m.n_params),
               nus = 4 * static_cast<size_t>(m.n_input) * L;
  KernelUnderTest step{n, P, nus, n, {}, {}};
  step.forward = [&](const Vec& z, const Vec& th, const Vec& us, Vec& z1) {
    m.kernels.step(m.ctx, 0.2, 0.3, z.data(), th.data(), us.data(), z1.data(), nullptr);
  };
  step.vjp = [&](const Vec& z, const Vec& th, const Vec& us, const Vec& a, Vec& zb, Vec& thb,
                 Vec& usb) {
    m.kernels.step_vjp(m.ctx, 0.2, 0.3, z.data(), th.data(), us.data(), a.data(), zb.data(),
                       thb.data(), usb.data(), nullptr);
  };
  CHECK(vjp_mismatch(step, 31) < 1e-8);
}
