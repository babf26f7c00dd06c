// Memory of the gradient methods, measured: every buffer a gradient method
// holds comes from its MemoryMeter, and the method reports the peak bytes
// and the number of states on its tape / checkpoints. For N and 10N steps:
// direct grows ~10x, checkpoint (k = sqrt(N)) ~sqrt(10)x, adjoint not at all.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "runtime/gradients/gradient.h"
#include "tests/runtime/solvers/test_support.h"

namespace {

using namespace plastic;
using namespace plastic::test;

struct Measured {
  size_t peak_bytes;
  int64_t stored_states;
  int64_t steps;
};

/// A Delta-rule FWP with an 8x8 fast weight (n = 64) on a tile of 4, loss at the end.
Measured measure(rt::GradientMethod m, const rt::SolverOptions& o, double t_end) {
  constexpr int L = 4;
  auto tm = delta_model<double>(L, 8, 8, 2);
  const std::vector<double> theta = random_values(static_cast<size_t>(tm.ctx->P), 51, -0.5, 0.5);
  const std::vector<double> z0 = random_values(static_cast<size_t>(tm.ctx->n * L), 52, -0.5, 0.5);
  const std::vector<double> target =
      random_values(static_cast<size_t>(tm.ctx->o * L), 53, -0.5, 0.5);
  const double end[1] = {t_end};
  const std::vector<rt::Observation<double>> obs = {
      {t_end, ~rt::LaneMask{0}, target.data(), false}};
  rt::TileProblem<double> p;
  p.model = tm.get();
  p.theta = theta.data();
  p.t_end = end;
  p.observations = obs;
  p.input = wave_input<double>(L, 2);
  std::vector<double> theta_bar(theta.size(), 0.0);
  rt::GradientOutputs<double> out;
  out.theta_bar = theta_bar.data();
  rt::GradientOptions g;
  g.method = m;
  const rt::GradientResult r = rt::loss_and_gradient(p, o, g, z0.data(), out);
  REQUIRE(r.ok());
  return {r.peak_bytes, r.stored_states, r.forward.accepted_steps};
}

} // namespace

TEST_CASE("memory: direct grows with N, checkpoint with sqrt(N), adjoint is flat", "[memory]") {
  rt::SolverOptions small, large;
  small.tableau = large.tableau = rt::find_tableau("rk4");
  small.step = 2.0 / 400;
  large.step = 2.0 / 4000;
  const Measured d1 = measure(rt::GradientMethod::Direct, small, 2.0);
  const Measured d2 = measure(rt::GradientMethod::Direct, large, 2.0);
  const Measured c1 = measure(rt::GradientMethod::Checkpoint, small, 2.0);
  const Measured c2 = measure(rt::GradientMethod::Checkpoint, large, 2.0);
  const Measured a1 = measure(rt::GradientMethod::Adjoint, small, 2.0);
  const Measured a2 = measure(rt::GradientMethod::Adjoint, large, 2.0);
  REQUIRE(d1.steps == 400);
  REQUIRE(d2.steps == 4000);
  auto ratio = [](size_t a, size_t b) { return static_cast<double>(b) / static_cast<double>(a); };
  INFO("direct: " << d1.peak_bytes << " -> " << d2.peak_bytes << " bytes, states "
                  << d1.stored_states << " -> " << d2.stored_states);
  INFO("checkpoint: " << c1.peak_bytes << " -> " << c2.peak_bytes << " bytes, states "
                      << c1.stored_states << " -> " << c2.stored_states);
  INFO("adjoint: " << a1.peak_bytes << " -> " << a2.peak_bytes << " bytes, states "
                   << a1.stored_states << " -> " << a2.stored_states);
  // States held: exactly the tape (N + 1 items), N/k + k checkpoints, the events.
  CHECK(ratio(static_cast<size_t>(d1.stored_states), static_cast<size_t>(d2.stored_states)) ==
        Approx(10).epsilon(0.01));
  CHECK(ratio(static_cast<size_t>(c1.stored_states), static_cast<size_t>(c2.stored_states)) ==
        Approx(std::sqrt(10.0)).epsilon(0.05));
  CHECK(a1.stored_states == a2.stored_states);
  // All bytes, including the fixed work buffers (which dilute the ratios).
  CHECK(ratio(d1.peak_bytes, d2.peak_bytes) > 8);
  CHECK(ratio(d1.peak_bytes, d2.peak_bytes) < 10.5);
  CHECK(ratio(c1.peak_bytes, c2.peak_bytes) > 2);
  CHECK(ratio(c1.peak_bytes, c2.peak_bytes) < 3.3);
  CHECK(a1.peak_bytes == a2.peak_bytes);
  // And checkpointing pays off against the tape.
  CHECK(c2.peak_bytes * 5 < d2.peak_bytes);
}

TEST_CASE("memory: the adaptive adjoint is flat in the number of steps", "[memory][adjoint]") {
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("dopri5");
  o.rtol = o.atol = 1e-8;
  const Measured a1 = measure(rt::GradientMethod::Adjoint, o, 2.0);
  const Measured a2 = measure(rt::GradientMethod::Adjoint, o, 20.0);
  INFO("adaptive adjoint: steps " << a1.steps << " -> " << a2.steps << ", bytes " << a1.peak_bytes
                                  << " -> " << a2.peak_bytes);
  CHECK(a2.steps > 5 * a1.steps);
  CHECK(a1.peak_bytes == a2.peak_bytes);
  // The direct tape, by contrast, holds one state per accepted step (plus the final event).
  const Measured d1 = measure(rt::GradientMethod::Direct, o, 2.0);
  const Measured d2 = measure(rt::GradientMethod::Direct, o, 20.0);
  INFO("adaptive direct: bytes " << d1.peak_bytes << " -> " << d2.peak_bytes);
  CHECK(d1.stored_states == d1.steps + 1);
  CHECK(d2.stored_states == d2.steps + 1);
  // Each extra step adds its state (64 x 4 doubles) and its item record (48
  // bytes) to the tapes, allocated 16 states / 64 items at a time; the fixed
  // work buffers (all metered, about half the peak at the shorter length)
  // do not change, so the growth is the tape's.
  const double state_bytes = 64 * 4 * sizeof(double);
  const double extra = static_cast<double>(d2.steps - d1.steps);
  const double growth = static_cast<double>(d2.peak_bytes) - static_cast<double>(d1.peak_bytes);
  CHECK(growth >= (extra - 16) * state_bytes);
  CHECK(growth <= (extra + 16) * state_bytes + (extra + 64) * 48 + 1024);
}
