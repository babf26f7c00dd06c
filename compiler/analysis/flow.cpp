// The flow field in the plane of the leading principal components (see
// flow.h).
#include "compiler/analysis/flow.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include "compiler/analysis/field_jacobian.h"
#include "runtime/io/plot_writer.h"
#include "runtime/support/rng.h"

namespace plastic::analysis {

namespace {

using Trajectory = std::vector<Eigen::VectorXd>;

// The autonomous field followed from z0 by classical RK4 with step h, up
// to `steps` steps or the first non-finite value.
Trajectory autonomous_trajectory(const ir::Function& field, TensorMap leaves, Eigen::VectorXd z,
                                 double h, int steps) {
  Trajectory out{z};
  auto f = [&](const Eigen::VectorXd& x) {
    set_state(field, x, leaves);
    return field_value(field, leaves);
  };
  try {
    for (int i = 0; i < steps; ++i) {
      const Eigen::VectorXd k1 = f(z);
      const Eigen::VectorXd k2 = f(z + h / 2 * k1);
      const Eigen::VectorXd k3 = f(z + h / 2 * k2);
      const Eigen::VectorXd k4 = f(z + h * k3);
      z += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      if (!z.allFinite()) break;
      out.push_back(z);
    }
  } catch (const ir::IRError&) {
    return out; // the field stopped being finite: the trajectory ends there
  }
  return out;
}

std::vector<Trajectory> trajectories(const model::ModelFunctions& fns,
                                     const abi::ModelLayout& layout,
                                     const std::vector<double>& theta, const ir::Function& field,
                                     const TensorMap& held, const FlowOptions& o) {
  std::vector<Trajectory> out;
  if (o.data) {
    int64_t sample = -1;
    for (const TrajectoryState& s :
         trajectory_states(fns, layout, theta, *o.data, o.samples, /*per_sample=*/0)) {
      if (s.sample != sample) out.emplace_back();
      sample = s.sample;
      out.back().push_back(state_vector(field, s.leaves));
    }
    return out;
  }
  const double h = layout.solver.step > 0 ? layout.solver.step : 0.01;
  const Eigen::Index n = state_vector(field, held).size();
  rt::Rng rng(o.seed, 0x666c6f77); // "flow": a stream of its own
  for (int64_t k = 0; k < o.samples; ++k) {
    Eigen::VectorXd z0(n);
    for (Eigen::Index i = 0; i < n; ++i)
      z0(i) = rng.normal();
    out.push_back(autonomous_trajectory(field, held, z0, h, 200));
  }
  return out;
}

std::vector<double> to_vector(const Eigen::VectorXd& v) {
  return {v.data(), v.data() + v.size()};
}

} // namespace

std::array<double, 2> FlowField::project(const std::vector<double>& z) const {
  std::array<double, 2> p{};
  for (size_t k = 0; k < 2; ++k)
    for (size_t i = 0; i < z.size(); ++i)
      p[k] += (z[i] - mean[i]) * axes[k][i];
  return p;
}

FlowField flow_field(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                     const std::vector<double>& theta, const FlowOptions& options) {
  const ir::Function* field = fns.find(model::FnKind::Field);
  if (!field) throw ir::IRError("the model has no field to analyse");
  TensorMap held = constant_input_leaves(fns, layout, theta, options.input);
  const Eigen::Index n = state_vector(*field, held).size();
  if (n < 2)
    throw ir::IRError(fmt::format("the state has {} dimension; a flow plane needs two", n));

  const std::vector<Trajectory> paths = trajectories(fns, layout, theta, *field, held, options);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  int64_t count = 0;
  for (const Trajectory& p : paths)
    for (const Eigen::VectorXd& z : p) {
      mean += z;
      ++count;
    }
  if (count == 0) throw ir::IRError("no trajectory to take principal components of");
  mean /= static_cast<double>(count);
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(n, n);
  for (const Trajectory& p : paths)
    for (const Eigen::VectorXd& z : p)
      cov += (z - mean) * (z - mean).transpose();
  cov /= static_cast<double>(count);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> pca(cov); // ascending eigenvalues
  const double total = std::max(pca.eigenvalues().sum(), 1e-300);

  FlowField flow;
  flow.mean = to_vector(mean);
  for (int k = 0; k < 2; ++k) {
    flow.axes[static_cast<size_t>(k)] = to_vector(pca.eigenvectors().col(n - 1 - k));
    flow.explained[static_cast<size_t>(k)] = std::max(0.0, pca.eigenvalues()(n - 1 - k)) / total;
  }
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (const Trajectory& p : paths) {
    auto& projected = flow.trajectories.emplace_back();
    for (const Eigen::VectorXd& z : p) {
      const auto ab = flow.project(to_vector(z));
      projected.push_back(ab);
      for (size_t k = 0; k < 2; ++k) {
        lo[k] = std::min(lo[k], ab[k]);
        hi[k] = std::max(hi[k], ab[k]);
      }
    }
  }
  const Eigen::VectorXd v1 = pca.eigenvectors().col(n - 1), v2 = pca.eigenvectors().col(n - 2);
  const int64_t g = std::max<int64_t>(options.grid, 2);
  for (size_t k = 0; k < 2; ++k) { // a margin of 10 %, and some extent when flat
    const double pad = std::max(0.1 * (hi[k] - lo[k]), 1e-3);
    lo[k] -= pad;
    hi[k] += pad;
  }
  for (int64_t i = 0; i < g; ++i)
    for (int64_t j = 0; j < g; ++j) {
      FlowArrow a;
      a.a = lo[0] + (hi[0] - lo[0]) * static_cast<double>(i) / static_cast<double>(g - 1);
      a.b = lo[1] + (hi[1] - lo[1]) * static_cast<double>(j) / static_cast<double>(g - 1);
      set_state(*field, mean + a.a * v1 + a.b * v2, held);
      try {
        const Eigen::VectorXd f = field_value(*field, held);
        a.da = f.dot(v1);
        a.db = f.dot(v2);
        a.speed = f.norm();
      } catch (const ir::IRError&) {
        continue; // no arrow where the field is not finite
      }
      flow.arrows.push_back(a);
    }
  return flow;
}

std::optional<std::string> plot_flow(const FlowField& flow, const FixedPointReport& points,
                                     const std::string& title, const std::string& png) {
  namespace fs = std::filesystem;
  auto plot = rt::PlotWriter::open(png);
  if (!plot) return plot.error().describe();
  rt::PlotWriter& w = plot.value();
  const fs::path arrows_file = w.beside(".arrows.dat");
  const fs::path paths_file = w.beside(".trajectories.dat");
  const fs::path points_file = w.beside(".points.dat");

  // Arrows of one length (a fraction of a grid cell), coloured by log10 ‖f‖.
  double cell = 1e300;
  for (size_t i = 1; i < flow.arrows.size(); ++i)
    for (double d : {std::abs(flow.arrows[i].a - flow.arrows[0].a),
                     std::abs(flow.arrows[i].b - flow.arrows[0].b)})
      if (d > 0) cell = std::min(cell, d);
  if (!(cell < 1e300)) cell = 1;
  std::string arrows = "# a b da db log10|f|  (da, db: direction in the plane, 0.8 cell long)\n";
  for (const FlowArrow& a : flow.arrows) {
    const double len = std::hypot(a.da, a.db);
    const double s = len > 0 ? 0.8 * cell / len : 0;
    arrows += fmt::format("{} {} {} {} {}\n", a.a - s * a.da / 2, a.b - s * a.db / 2, s * a.da,
                          s * a.db, std::log10(std::max(a.speed, 1e-300)));
  }
  std::string paths = "# a b (one block per trajectory)\n";
  for (const auto& p : flow.trajectories) {
    for (const auto& ab : p)
      paths += fmt::format("{} {}\n", ab[0], ab[1]);
    paths += "\n";
  }
  // One block per kind (gnuplot `index`): stable, marginal, saddle, unstable.
  std::string marks = "# a b  (blocks: stable, marginal, saddle, unstable; slow points too)\n";
  for (FixedPointKind k : {FixedPointKind::Stable, FixedPointKind::Marginal, FixedPointKind::Saddle,
                           FixedPointKind::Unstable}) {
    marks += fmt::format("# {}\n", kind_name(k));
    bool any = false;
    for (const FixedPoint& p : points.points)
      if (p.kind == k) {
        const auto ab = flow.project(p.z);
        marks += fmt::format("{} {}\n", ab[0], ab[1]);
        any = true;
      }
    if (!any) marks += "nan nan\n"; // keeps the block, draws nothing
    marks += "\n\n";
  }
  for (const auto& [file, text] : {std::pair{arrows_file, arrows}, std::pair{paths_file, paths},
                                   std::pair{points_file, marks}})
    if (auto s = w.write(file, text); !s) return s.describe();

  auto quoted = [](const fs::path& p) { return rt::gnuplot_quote(p.string()); };
  std::string script = fmt::format(
      "# Flow field in the plane of the two leading PCs, written by plastic analyze flow.\n"
      "set terminal png size 900,800\n"
      "set output {}\n"
      "set title \"{}\" noenhanced\n"
      "set xlabel 'PC 1 ({:.1f} % of the variance)'\n"
      "set ylabel 'PC 2 ({:.1f} % of the variance)'\n"
      "set cblabel 'log10 |f|'\n"
      "set palette rgb 33,13,10\n"
      "set key outside bottom center horizontal\n"
      "plot {} using 1:2:3:4:5 with vectors head size screen 0.008,20 filled lc palette "
      "notitle, \\\n"
      "     {} using 1:2 with lines lc rgb '#909090' lw 1 title 'trajectories', \\\n"
      "     {} index 0 using 1:2 with points pt 7 ps 2.2 lc rgb 'black' title 'stable', \\\n"
      "     {} index 1 using 1:2 with points pt 7 ps 2.2 lc rgb '#1f77b4' title 'marginal', \\\n"
      "     {} index 2 using 1:2 with points pt 9 ps 2.2 lc rgb '#d62728' title 'saddle', \\\n"
      "     {} index 3 using 1:2 with points pt 6 ps 2.2 lw 2 lc rgb '#d62728' title "
      "'unstable'\n",
      quoted(w.png()), title, 100 * flow.explained[0], 100 * flow.explained[1], quoted(arrows_file),
      quoted(paths_file), quoted(points_file), quoted(points_file), quoted(points_file),
      quoted(points_file));
  auto done = w.render(script);
  if (!done) return done.error().describe();
  return std::nullopt;
}

} // namespace plastic::analysis
