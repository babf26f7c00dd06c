// Optimisers against PyTorch's update equations.
//
// The reference trajectories below are computed in the test from the
// formulas of the torch.optim documentation, written in the documented
// (bias-corrected moment) form rather than the folded form the library uses,
// so a slip in either shows up. Hand-computed first steps pin the exact
// numbers; a convex problem checks convergence; state round trips must
// continue a run bit-exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/train/adam.h"
#include "runtime/train/sgd.h"

using namespace plastic::rt;

namespace {

/// f(p) = 1/2 sum a_i (p_i - c_i)^2, a tiny ill-conditioned quadratic.
struct Quadratic {
  std::vector<double> a{1.0, 10.0, 0.1}, c{1.0, -2.0, 0.5};
  template <class T> std::vector<T> grad(const std::vector<T>& p) const {
    std::vector<T> g(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      g[i] = static_cast<T>(a[i]) * (p[i] - static_cast<T>(c[i]));
    return g;
  }
  double value(const std::vector<double>& p) const {
    double f = 0;
    for (size_t i = 0; i < p.size(); ++i)
      f += 0.5 * a[i] * (p[i] - c[i]) * (p[i] - c[i]);
    return f;
  }
};

const std::vector<double> kStart{3.0, 1.0, -2.0};

/// torch.optim.Adam/AdamW documentation, step by step in double.
std::vector<double> adam_reference(const AdamOptions& o, int steps) {
  Quadratic q;
  std::vector<double> p = kStart, m(3, 0.0), v(3, 0.0), vmax(3, 0.0);
  for (int t = 1; t <= steps; ++t) {
    std::vector<double> g = q.grad(p);
    for (size_t i = 0; i < p.size(); ++i) {
      if (o.decoupled)
        p[i] = p[i] - o.lr * o.weight_decay * p[i];
      else
        g[i] = g[i] + o.weight_decay * p[i];
      m[i] = o.beta1 * m[i] + (1 - o.beta1) * g[i];
      v[i] = o.beta2 * v[i] + (1 - o.beta2) * g[i] * g[i];
      const double m_hat = m[i] / (1 - std::pow(o.beta1, t));
      double v_hat = v[i] / (1 - std::pow(o.beta2, t));
      if (o.amsgrad) {
        // torch's code keeps the max of the raw v and divides by the current
        // bias correction (its docs write the max of v_hat, which differs);
        // the library follows the code, i.e. what torch computes.
        vmax[i] = std::max(vmax[i], v[i]);
        v_hat = vmax[i] / (1 - std::pow(o.beta2, t));
      }
      p[i] = p[i] - o.lr * m_hat / (std::sqrt(v_hat) + o.eps);
    }
  }
  return p;
}

/// torch.optim.SGD documentation, step by step in double.
std::vector<double> sgd_reference(const SgdOptions& o, int steps) {
  Quadratic q;
  std::vector<double> p = kStart, b(3, 0.0);
  for (int t = 1; t <= steps; ++t) {
    std::vector<double> g = q.grad(p);
    for (size_t i = 0; i < p.size(); ++i) {
      if (o.weight_decay != 0) g[i] += o.weight_decay * p[i];
      if (o.momentum != 0) {
        b[i] = t == 1 ? g[i] : o.momentum * b[i] + (1 - o.dampening) * g[i];
        g[i] = o.nesterov ? g[i] + o.momentum * b[i] : b[i];
      }
      p[i] -= o.lr * g[i];
    }
  }
  return p;
}

template <class T> std::vector<T> run(Optimizer<T>& opt, int steps) {
  Quadratic q;
  std::vector<T> p(kStart.begin(), kStart.end());
  for (int t = 0; t < steps; ++t) {
    const std::vector<T> g = q.grad(p);
    REQUIRE(opt.step(p, g).ok());
  }
  return p;
}

/// |a - b| <= rel * max(1, |b|) elementwise.
template <class T>
void require_close(const std::vector<T>& a, const std::vector<double>& b, double rel) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": " << a[i] << " vs reference " << b[i]);
    REQUIRE(std::fabs(static_cast<double>(a[i]) - b[i]) <= rel * std::max(1.0, std::fabs(b[i])));
  }
}

} // namespace

TEST_CASE("sgd with momentum: hand-computed steps", "[optim]") {
  // f(p) = p^2 / 2, gradient p, lr 0.1, momentum 0.9.
  Sgd<double> sgd(1, SgdOptions{.lr = 0.1, .momentum = 0.9});
  std::vector<double> p{1.0};
  const double expected[] = {0.9, 0.72, 0.486}; // buf: 1, 1.8, 2.34
  for (double e : expected) {
    std::vector<double> g = p;
    REQUIRE(sgd.step(p, g).ok());
    CHECK(p[0] == Approx(e).epsilon(1e-15));
  }
  Sgd<double> nesterov(1, SgdOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true});
  p = {1.0};
  const double expected_n[] = {0.81, 0.5751}; // d = g + 0.9 buf: 1.9, 2.349
  for (double e : expected_n) {
    std::vector<double> g = p;
    REQUIRE(nesterov.step(p, g).ok());
    CHECK(p[0] == Approx(e).epsilon(1e-15));
  }
}

TEST_CASE("adam and adamw: hand-computed first step", "[optim]") {
  // After one step m_hat = g and v_hat = g^2, so p1 = p0 - lr g / (|g| + eps).
  const double p0 = 2.0, g = 0.5, lr = 0.01, wd = 0.1;
  Adam<double> adam(1, AdamOptions{.lr = lr});
  std::vector<double> p{p0}, gr{g};
  REQUIRE(adam.step(p, gr).ok());
  CHECK(p[0] == Approx(p0 - lr * g / (g + 1e-8)).epsilon(1e-15));

  // Adam's weight decay is an L2 term in the gradient ...
  Adam<double> l2(1, AdamOptions{.lr = lr, .weight_decay = wd});
  p = {p0};
  REQUIRE(l2.step(p, gr).ok());
  const double g2 = g + wd * p0;
  CHECK(p[0] == Approx(p0 - lr * g2 / (g2 + 1e-8)).epsilon(1e-15));

  // ... AdamW's shrinks the parameter before the Adam step.
  Adam<double> adamw(1, AdamOptions::adamw(lr, wd));
  p = {p0};
  REQUIRE(adamw.step(p, gr).ok());
  CHECK(p[0] == Approx(p0 * (1 - lr * wd) - lr * g / (g + 1e-8)).epsilon(1e-15));
  CHECK(std::string(adamw.kind()) == "adamw");
}

TEST_CASE("adam: eps is added to sqrt(v_hat), as torch does", "[optim]") {
  // With a tiny gradient, eps dominates; torch's placement gives
  // p1 = p0 - lr g / (|g| + eps), the paper's folded form would give
  // p0 - lr g / (|g| + eps / sqrt(1 - b2)) -- 31.6x larger eps.
  const double g = 1e-8, lr = 1.0;
  Adam<double> adam(1, AdamOptions{.lr = lr});
  std::vector<double> p{0.0}, gr{g};
  REQUIRE(adam.step(p, gr).ok());
  CHECK(p[0] == Approx(-lr * g / (g + 1e-8)).epsilon(1e-12)); // -0.5
}

TEST_CASE("optimisers follow the reference trajectories (f64)", "[optim]") {
  const int steps = 200;
  SECTION("sgd") {
    for (SgdOptions o :
         {SgdOptions{.lr = 0.05}, SgdOptions{.lr = 0.05, .momentum = 0.9},
          SgdOptions{.lr = 0.05, .momentum = 0.8, .dampening = 0.3, .weight_decay = 0.01},
          SgdOptions{.lr = 0.02, .momentum = 0.9, .weight_decay = 0.05, .nesterov = true}}) {
      Sgd<double> sgd(3, o);
      require_close(run(sgd, steps), sgd_reference(o, steps), 1e-12);
    }
  }
  SECTION("adam, adamw, amsgrad") {
    for (AdamOptions o :
         {AdamOptions{.lr = 0.05},
          AdamOptions{.lr = 0.05, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6},
          AdamOptions{.lr = 0.05, .weight_decay = 0.1}, AdamOptions::adamw(0.05, 0.1),
          AdamOptions{.lr = 0.05, .weight_decay = 0.02, .amsgrad = true, .decoupled = true},
          AdamOptions{.lr = 0.05, .amsgrad = true}}) {
      Adam<double> adam(3, o);
      require_close(run(adam, steps), adam_reference(o, steps), 1e-12);
    }
  }
}

TEST_CASE("optimisers follow the reference trajectories (f32)", "[optim]") {
  // f32 arithmetic against the f64 reference: agreement to single precision
  // over 50 steps (the problem is well conditioned along the trajectory).
  const int steps = 50;
  const SgdOptions so{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.01};
  Sgd<float> sgd(3, so);
  require_close(run(sgd, steps), sgd_reference(so, steps), 2e-5);
  const AdamOptions ao = AdamOptions::adamw(0.05, 0.1);
  Adam<float> adam(3, ao);
  require_close(run(adam, steps), adam_reference(ao, steps), 2e-5);
}

TEST_CASE("optimisers converge on a convex problem", "[optim]") {
  Quadratic q;
  auto dist = [&](const std::vector<double>& p) {
    double d = 0;
    for (size_t i = 0; i < p.size(); ++i)
      d = std::max(d, std::fabs(p[i] - q.c[i]));
    return d;
  };
  Sgd<double> sgd(3, SgdOptions{.lr = 0.05, .momentum = 0.9});
  CHECK(dist(run(sgd, 3000)) < 1e-10);
  // Adam with a constant rate hovers within about lr of the minimum; decay the rate.
  Adam<double> adam(3, AdamOptions{.lr = 0.1});
  std::vector<double> p = kStart;
  for (int t = 0; t < 4000; ++t) {
    adam.set_lr(0.1 * std::pow(0.998, t));
    std::vector<double> g = q.grad(p);
    REQUIRE(adam.step(p, g).ok());
  }
  CHECK(dist(p) < 1e-3);
  CHECK(q.value(p) < 1e-7);
}

TEST_CASE("optimiser state round trip continues bit-exactly", "[optim]") {
  Quadratic q;
  auto check = [&](Optimizer<float>& a, Optimizer<float>& b) {
    std::vector<float> pa(kStart.begin(), kStart.end()), pb;
    for (int t = 0; t < 7; ++t) {
      std::vector<float> g = q.grad(pa);
      REQUIRE(a.step(pa, g).ok());
    }
    pb = pa;
    a.set_lr(a.lr() * 0.5); // as a schedule would
    REQUIRE(b.load_state(a.state()).ok());
    CHECK(b.lr() == a.lr());
    CHECK(b.steps() == 7);
    for (int t = 0; t < 7; ++t) {
      std::vector<float> ga = q.grad(pa), gb = q.grad(pb);
      REQUIRE(a.step(pa, ga).ok());
      REQUIRE(b.step(pb, gb).ok());
    }
    CHECK(pa == pb);
  };
  Sgd<float> s1(3, SgdOptions{.lr = 0.05, .momentum = 0.9}), s2(3, SgdOptions{});
  check(s1, s2);
  Adam<float> a1(3, AdamOptions{.lr = 0.05, .amsgrad = true}), a2(3, AdamOptions{});
  check(a1, a2);
  CHECK(a2.options().amsgrad);
}

TEST_CASE("optimisers reject bad input without changing anything", "[optim]") {
  Adam<double> adam(3, AdamOptions{});
  std::vector<double> p{1, 2, 3}, g{1, 1};
  plastic::Status<TrainError> s = adam.step(p, g);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == TrainErrorKind::InvalidArgument);
  CHECK(p == std::vector<double>{1, 2, 3});
  CHECK(adam.steps() == 0);

  Adam<double> bad(1, AdamOptions{.beta1 = 1.0});
  std::vector<double> p1{1}, g1{1};
  CHECK_FALSE(bad.step(p1, g1).ok());
  CHECK_FALSE(SgdOptions{.lr = 0.1, .nesterov = true}.check().ok());
  CHECK_FALSE(SgdOptions{.lr = -1}.check().ok());

  Sgd<double> sgd(3, SgdOptions{});
  plastic::Status<TrainError> ls = sgd.load_state(adam.state());
  REQUIRE_FALSE(ls.ok());
  CHECK(ls.error().kind == TrainErrorKind::Mismatch);
  Adam<double> small(2, AdamOptions{});
  std::vector<double> p3{1, 2, 3}, g3{1, 1, 1};
  REQUIRE(adam.step(p3, g3).ok());
  CHECK_FALSE(small.load_state(adam.state()).ok());
}

TEST_CASE("adam refuses a finite gradient whose square overflows its second moment", "[optim]") {
  // In f32, (1 - beta2) g^2 overflows for |g| beyond ~5.8e20: taken, the
  // step would leave exp_avg_sq at inf, after which the parameter's update
  // is m / inf = 0 for good (issue 19: node_elu_default_tanks at seed 0).
  Adam<float> adam(3, AdamOptions{});
  std::vector<float> p{1, 2, 3};
  const std::vector<float> huge{0.5f, 1e21f, -0.25f}, large{0.5f, 1e19f, -0.25f};
  REQUIRE(std::isfinite(huge[1]));
  const std::string why = adam.refusal(p, huge);
  CHECK(why.find("second moment") != std::string::npos);
  CHECK(why.find("theta[1]") != std::string::npos);
  CHECK(why.find("f32") != std::string::npos);
  CHECK(adam.refusal(p, large).empty());
  // Taking it anyway shows what the refusal prevents.
  Adam<float> taken(3, AdamOptions{});
  REQUIRE(taken.step(p, huge).ok());
  CHECK(std::isinf(taken.state().buffer("exp_avg_sq")->at(1)));
  // f64 holds the square: the same gradient is no reason to refuse there.
  Adam<double> wide(3, AdamOptions{});
  const std::vector<double> pd{1, 2, 3}, hd{0.5, 1e21, -0.25};
  CHECK(wide.refusal(pd, hd).empty());
  // The L2 penalty enters the gradient before the moments.
  Adam<float> l2(1, AdamOptions{.weight_decay = 1e10});
  const std::vector<float> big_p{1e12f}, zero_g{0.0f};
  CHECK_FALSE(l2.refusal(big_p, zero_g).empty());
  // SGD keeps no squared moment: no refusal.
  Sgd<float> sgd(3, SgdOptions{.lr = 0.1});
  CHECK(sgd.refusal(p, huge).empty());
}

TEST_CASE("optimizer config from JSON", "[optim]") {
  auto c = OptimizerConfig::from_json({{"kind", "adamw"}, {"lr", 3e-4}, {"betas", {0.8, 0.95}}});
  REQUIRE(c.ok());
  auto opt = make_optimizer<double>(c.value(), 4);
  REQUIRE(opt.ok());
  CHECK(std::string(opt.value()->kind()) == "adamw");
  CHECK(opt.value()->hyper()["weight_decay"].get<double>() == 1e-2); // torch's AdamW default
  CHECK(opt.value()->hyper()["betas"][1].get<double>() == 0.95);
  CHECK(opt.value()->lr() == 3e-4);

  CHECK_FALSE(OptimizerConfig::from_json({{"kind", "rmsprop"}}).ok());
  CHECK_FALSE(OptimizerConfig::from_json({{"lr", "fast"}}).ok());
  auto bad = OptimizerConfig::from_json({{"kind", "sgd"}, {"momentum", -1}});
  REQUIRE(bad.ok());
  CHECK_FALSE(make_optimizer<float>(bad.value(), 4).ok());
}
