// The stability report (see stability.h).
#include "compiler/analysis/stability.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "compiler/analysis/block_eigenvalues.h"
#include "compiler/analysis/field_jacobian.h"
#include "runtime/init/stability_polynomial.h"
#include "runtime/io/plot_writer.h"

namespace plastic::analysis {

namespace {

using Coefficients = std::vector<double>;

Coefficients polynomial_of(const std::string& solver) {
  const rt::ButcherTableau* tab = rt::find_tableau(solver);
  return tab ? rt::init_detail::stability_polynomial(*tab) : Coefficients{1.0, 1.0};
}

// The largest h such that |R(s λ)| ≤ 1 for every s in (0, h]: the first
// exit along the ray, found on a grid of 2000 steps of |λ| and refined by
// bisection. Only called for Re λ < 0, where small steps are inside.
double largest_stable_step(const Coefficients& R, std::complex<double> lambda) {
  const double scale = 8.0 / std::abs(lambda); // every explicit RK region lies within |z| < 8
  const int n = 2000;
  auto outside = [&](double s) {
    return rt::init_detail::amplification(R, s * lambda) > 1 + 1e-12;
  };
  double lo = 0;
  for (int k = 1; k <= n; ++k) {
    const double s = scale * k / n;
    if (!outside(s)) {
      lo = s;
      continue;
    }
    double hi = s;
    for (int i = 0; i < 50; ++i) {
      const double mid = (lo + hi) / 2;
      (outside(mid) ? hi : lo) = mid;
    }
    return lo;
  }
  return std::numeric_limits<double>::infinity();
}

void add_state(StabilityReport& r, const Coefficients& R, const Eigen::MatrixXd& J, int64_t sample,
               double t) {
  ++r.states;
  r.dimension = J.rows();
  const BlockSpectrum spectrum = block_spectrum(J);
  r.largest_block = std::max(r.largest_block, spectrum.largest_block);
  for (const std::complex<double>& lambda : spectrum.eigenvalues) {
    StabilityPoint p;
    p.sample = sample;
    p.t = t;
    p.lambda = lambda;
    p.amplification = rt::init_detail::amplification(R, r.h * p.lambda);
    r.points.push_back(p);
  }
}

void summarise(StabilityReport& r, const Coefficients& R, bool stability_informed) {
  double fastest = 0, slowest = std::numeric_limits<double>::infinity();
  r.largest_stable_step = std::numeric_limits<double>::infinity();
  for (const StabilityPoint& p : r.points)
    r.spectral_radius = std::max(r.spectral_radius, std::abs(p.lambda));
  // Growing, decaying or neutral relative to the largest |λ|, as
  // `analyze fixed-points` has "marginal": a real part at rounding level is
  // neither, and counting it made a ratio of 1e16 "stiffness" out of noise.
  r.neutral_tolerance = StabilityReport::kNeutralRelative * r.spectral_radius;
  for (const StabilityPoint& p : r.points) {
    r.max_amplification = std::max(r.max_amplification, p.amplification);
    if (p.amplification > 1 + 1e-12) ++r.outside;
    if (std::abs(p.lambda.real()) <= r.neutral_tolerance) {
      ++r.neutral;
      continue;
    }
    if (p.lambda.real() > 0) ++r.growing;
    if (p.lambda.real() < 0) {
      r.largest_stable_step = std::min(r.largest_stable_step, largest_stable_step(R, p.lambda));
      fastest = std::max(fastest, -p.lambda.real());
      slowest = std::min(slowest, -p.lambda.real());
    }
  }
  r.stiffness = fastest > 0 ? fastest / slowest : 0;
  if (r.outside == 0) {
    r.advice.push_back(
        fmt::format("every h·λ lies inside the {} region at h = {:g}", r.solver, r.h));
  } else {
    if (std::isfinite(r.largest_stable_step) && r.largest_stable_step < r.h)
      r.advice.push_back(fmt::format(
          "a step of at most {:.3g} keeps every decaying mode inside the {} region (the model "
          "uses {:g}): `solve {} step {:.3g}`",
          r.largest_stable_step, r.solver, r.h, r.solver, r.largest_stable_step));
    auto alternative = [&](const std::string& text) {
      r.advice.push_back(r.advice.empty() ? text : "or " + text);
    };
    alternative("an adaptive solver (`solve dopri5` or `solve tsit5`), whose step follows the "
                "dynamics");
    if (!stability_informed)
      alternative("`init = stability_informed` on the field's mlp (paper 004), which draws its "
                  "eigenvalues inside the solver's region at initialisation");
  }
  if (r.growing > 0)
    r.advice.push_back(fmt::format("{} eigenvalue(s) have Re λ > {:.3g}: the field itself grows "
                                   "there, and no step makes those modes decay",
                                   r.growing, r.neutral_tolerance));
  if (r.stiffness > 1e3)
    r.advice.push_back(fmt::format("the decay rates span a ratio of {:.3g}: the field is stiff; "
                                   "an adaptive solver takes far fewer steps",
                                   r.stiffness));
}

// States per sample within the Jacobian row budget (each state costs
// `dimension` VJP evaluations), at least kMinStatesPerSample.
int64_t states_within_budget(const StabilityOptions& o, int64_t samples, int64_t dimension) {
  if (o.states_per_sample <= 0 || samples <= 0 || dimension <= 0) return o.states_per_sample;
  const int64_t affordable = o.jacobian_row_budget / (samples * dimension);
  return std::min(o.states_per_sample, std::max(affordable, StabilityOptions::kMinStatesPerSample));
}

std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string(v > 0 ? "inf" : "nan");
}

} // namespace

StabilityReport stability_report(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                 const std::vector<double>& theta,
                                 const StabilityOptions& options) {
  StabilityReport r;
  r.solver = layout.solver_method;
  r.h = layout.solver.step;
  const Coefficients R = polynomial_of(r.solver);
  const ir::Function* field = fns.find(model::FnKind::Field);
  const ir::Function* vjp = fns.find(model::FnKind::FieldVjp);
  if (!field || !vjp) throw ir::IRError("the model has no field to analyse");
  if (!options.data) {
    add_state(r, R, field_jacobian(*field, *vjp, constant_input_leaves(fns, layout, theta, 0.0)),
              -1, 0.0);
    r.planned = 1;
  } else {
    const int64_t samples =
        std::min<int64_t>(options.samples, static_cast<int64_t>(options.data->size()));
    r.samples = samples;
    r.states_per_sample = states_within_budget(options, samples, state_size(*field));
    for (int64_t sample = 0; sample < samples && !r.stopped; ++sample) {
      auto states = sample_states(fns, layout, theta, *options.data, sample, r.states_per_sample);
      // The states done, this sample's (fewer than asked when its
      // trajectory blows up), and as many again for each sample to come.
      const auto here = static_cast<int64_t>(states.size());
      const int64_t per_sample = r.states_per_sample > 0 ? r.states_per_sample : here;
      r.planned = r.states + r.skipped + here + per_sample * (samples - sample - 1);
      if (options.progress && !options.progress(r.states + r.skipped, r.planned)) {
        r.stopped = true;
        break;
      }
      for (const TrajectoryState& s : states) {
        try {
          add_state(r, R, field_jacobian(*field, *vjp, s.leaves), s.sample, s.t);
        } catch (const ir::IRError&) {
          ++r.skipped; // a state where the Jacobian itself is not finite
        }
        if (options.progress && !options.progress(r.states + r.skipped, r.planned)) {
          r.stopped = true;
          break;
        }
      }
    }
  }
  summarise(r, R, options.stability_informed);
  return r;
}

std::string states_origin(const StabilityReport& r) {
  if (r.samples == 0) return "the origin (z = 0, inputs 0)";
  return fmt::format("{} states along each of {} training samples' trajectories",
                     r.states_per_sample, r.samples);
}

std::string format_stability(const StabilityReport& r) {
  std::string s;
  s += fmt::format("solver              {} step {:g}\n", r.solver, r.h);
  s += fmt::format(
      "states              {} ({} eigenvalues{}){}\n", r.states, r.points.size(),
      r.largest_block < r.dimension ? fmt::format("; coupled blocks of at most {}", r.largest_block)
                                    : std::string(),
      r.skipped ? fmt::format("; {} more with a non-finite Jacobian", r.skipped) : std::string());
  if (r.stopped)
    s += fmt::format("stopped             after {} of {} states (interrupted): the figures "
                     "below cover those\n",
                     r.states + r.skipped, r.planned);
  s += fmt::format("outside the region  {} ({:.1f} %)\n", r.outside, 100 * r.fraction_outside());
  s += fmt::format("max |R(h λ)|        {}\n", number(r.max_amplification));
  s += fmt::format("spectral radius     {}\n", number(r.spectral_radius));
  s += fmt::format("largest stable step {}\n", number(r.largest_stable_step));
  s += fmt::format("growing modes       {} (Re λ > {:.3g})\n", r.growing, r.neutral_tolerance);
  s += fmt::format("neutral modes       {} (|Re λ| <= {:g} x spectral radius)\n", r.neutral,
                   StabilityReport::kNeutralRelative);
  s += fmt::format("stiffness ratio     {}\n", number(r.stiffness));
  // The eigenvalues farthest outside (or nearest the boundary), worst first.
  std::vector<const StabilityPoint*> worst;
  worst.reserve(r.points.size());
  for (const StabilityPoint& p : r.points)
    worst.push_back(&p);
  std::sort(worst.begin(), worst.end(),
            [](auto* a, auto* b) { return a->amplification > b->amplification; });
  s += "\n  sample        t        Re λ        Im λ     Re hλ     Im hλ   |R(hλ)|\n";
  for (size_t i = 0; i < std::min<size_t>(worst.size(), 8); ++i) {
    const StabilityPoint& p = *worst[i];
    s += fmt::format("  {:>6} {:>8.4g} {:>11.4g} {:>11.4g} {:>9.4g} {:>9.4g} {:>9.4g}{}\n",
                     p.sample < 0 ? std::string("origin") : std::to_string(p.sample), p.t,
                     p.lambda.real(), p.lambda.imag(), r.h * p.lambda.real(), r.h * p.lambda.imag(),
                     p.amplification, p.amplification > 1 + 1e-12 ? "  outside" : "");
  }
  s += "\n";
  for (const std::string& a : r.advice)
    s += "advice: " + a + "\n";
  return s;
}

std::string stability_line(const StabilityReport& r) {
  return fmt::format("stability {} h={:g}: {} of {} h·λ outside the region ({:.1f} %), max "
                     "|R(hλ)| {}, largest stable step {}",
                     r.solver, r.h, r.outside, r.points.size(), 100 * r.fraction_outside(),
                     number(r.max_amplification), number(r.largest_stable_step));
}

nlohmann::json stability_json(const StabilityReport& r) {
  auto finite_or_null = [](double v) -> nlohmann::json {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
  };
  nlohmann::json points = nlohmann::json::array();
  for (const StabilityPoint& p : r.points)
    points.push_back({{"sample", p.sample},
                      {"t", p.t},
                      {"re", p.lambda.real()},
                      {"im", p.lambda.imag()},
                      {"amplification", p.amplification}});
  return {{"solver", r.solver},
          {"h", r.h},
          {"states", r.states},
          {"states_skipped", r.skipped},
          {"states_planned", r.planned},
          {"stopped", r.stopped},
          {"state_dimension", r.dimension},
          {"largest_coupled_block", r.largest_block},
          {"eigenvalues", r.points.size()},
          {"outside", r.outside},
          {"fraction_outside", r.fraction_outside()},
          {"max_amplification", finite_or_null(r.max_amplification)},
          {"spectral_radius", finite_or_null(r.spectral_radius)},
          {"largest_stable_step", finite_or_null(r.largest_stable_step)},
          {"growing", r.growing},
          {"neutral", r.neutral},
          {"neutral_tolerance", r.neutral_tolerance},
          {"stiffness", finite_or_null(r.stiffness)},
          {"advice", r.advice},
          {"points", points}};
}

rt::StabilityReporter make_stability_reporter(const model::ModelFunctions& fns,
                                              const std::string& file) {
  auto layout = std::make_shared<abi::ModelLayout>(abi::compute_layout(fns));
  return [&fns, layout, file](std::span<const double> params) -> rt::StabilitySummary {
    rt::StabilitySummary out;
    try {
      StabilityReport r =
          stability_report(fns, *layout, std::vector<double>(params.begin(), params.end()), {});
      out.line = stability_line(r) + " (Jacobian at the origin)";
      if (r.outside > 0)
        out.warning = fmt::format(
            "{} of {} eigenvalues of the field's Jacobian at initialisation give h·λ outside the "
            "{} stability region (h = {:g}); `plastic analyze stability {}` gives advice",
            r.outside, r.points.size(), r.solver, r.h, file);
    } catch (const std::exception& e) {
      // A field the report cannot linearise (a non-finite Jacobian at the
      // origin): training goes on, and the line says why there is no report.
      out.line = fmt::format("stability not reported: {}", e.what());
    }
    return out;
  };
}

std::vector<std::complex<double>> stability_boundary(const std::string& solver) {
  const Coefficients R = polynomial_of(solver);
  std::vector<std::complex<double>> out;
  const std::complex<double> centre(-1.0, 0.0);
  for (int k = 0; k <= 720; ++k) {
    const double angle = 2 * M_PI * k / 720;
    const std::complex<double> dir(std::cos(angle), std::sin(angle));
    double lo = 0, hi = 0;
    for (double rad = 0.01; rad < 8; rad += 0.01) {
      if (rt::init_detail::amplification(R, centre + rad * dir) > 1) {
        hi = rad;
        break;
      }
      lo = rad;
    }
    if (hi == 0) continue;
    for (int i = 0; i < 40; ++i) {
      const double mid = (lo + hi) / 2;
      (rt::init_detail::amplification(R, centre + mid * dir) > 1 ? hi : lo) = mid;
    }
    out.push_back(centre + lo * dir);
  }
  return out;
}

std::optional<std::string> plot_stability(const StabilityReport& r, const std::string& png) {
  namespace fs = std::filesystem;
  auto plot = rt::PlotWriter::open(png);
  if (!plot) return plot.error().describe();
  rt::PlotWriter& w = plot.value();
  const fs::path data = w.beside(".dat"), region = w.beside(".region.dat");
  std::string boundary = "# Re(z) Im(z) on |R(z)| = 1\n";
  for (std::complex<double> z : stability_boundary(r.solver))
    boundary += fmt::format("{} {}\n", z.real(), z.imag());
  std::string points = "# Re(h lambda) Im(h lambda) |R|\n";
  for (const StabilityPoint& p : r.points)
    points +=
        fmt::format("{} {} {}\n", r.h * p.lambda.real(), r.h * p.lambda.imag(), p.amplification);
  if (auto s = w.write(region, boundary); !s) return s.describe();
  if (auto s = w.write(data, points); !s) return s.describe();
  auto quoted = [](const fs::path& p) { return rt::gnuplot_quote(p.string()); };
  std::string script = fmt::format(
      "# Stability region and h*lambda, written by plastic analyze stability.\n"
      "set terminal png size 800,700\n"
      "set output {}\n"
      "set title '{} region (|R(z)| <= 1) and h*lambda, h = {:g}: {} of {} outside'\n"
      "set xlabel 'Re(h lambda)'\nset ylabel 'Im(h lambda)'\n"
      "set size ratio -1\nset grid\nset key bottom right\n"
      "plot {} using 1:2 with lines lw 2 title 'stability boundary', \\\n"
      "     {} using 1:2 with points pt 7 ps 1.5 title 'h*lambda'\n",
      quoted(w.png()), r.solver, r.h, r.outside, r.points.size(), quoted(region), quoted(data));
  auto done = w.render(script);
  if (!done) return done.error().describe();
  return std::nullopt;
}

} // namespace plastic::analysis
