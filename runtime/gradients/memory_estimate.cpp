// The memory model of the gradient methods and of a training step (see
// memory_estimate.h). Each term names the buffers it stands for; when a
// method's allocations change, bench-train's gradient_peak_mb against
// gradient_estimate_mb (tests/driver/memory_test.cpp) says so.
#include "runtime/gradients/memory_estimate.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "runtime/solvers/integrator.h"
#include "runtime/solvers/tableau.h"
#include "runtime/solvers/timeline.h"

namespace plastic::rt {

namespace {

double at_least_one(double x) {
  return std::max(x, 1.0);
}

/// A ChunkedTape of `records` records of `record_bytes`, `per_chunk` to a chunk.
double tape_bytes(double records, double per_chunk, double record_bytes) {
  const double chunks = std::ceil(records / per_chunk);
  const double slots = chunks < 1 ? 0 : std::bit_ceil(static_cast<uint64_t>(chunks));
  return chunks * per_chunk * record_bytes + slots * sizeof(Buffer<float>);
}

/// The sizes of one tile, in elements and bytes.
struct Tile {
  double E, L, nl, ml, ol, s, P;
  explicit Tile(const MemoryShape& m)
      : E(m.element_bytes), L(m.lanes), nl(static_cast<double>(m.n_state) * m.lanes),
        ml(static_cast<double>(m.n_input) * m.lanes),
        ol(static_cast<double>(m.n_outputs) * m.lanes), s(m.stages),
        P(static_cast<double>(m.n_params)) {}
};

/// GradientSession: the timeline (lane ends, events grown by push_back) and the kernel scratch.
double session_bytes(const MemoryShape& m, const Tile& t, const WalkLength& w) {
  const double raw_events = 2.0 * static_cast<double>(w.events) + t.L + 1;
  const double scratch = m.scratch_bytes > 0 ? m.scratch_bytes + 64 : 0;
  return 8 * t.L +
         static_cast<double>(std::bit_ceil(static_cast<uint64_t>(raw_events))) *
             sizeof(TimelineEvent) +
         scratch;
}

/// An Integrator and its RkStepper.
double walker_bytes(const MemoryShape& m, const Tile& t) {
  const double stepper = t.E * (t.s * t.nl + 2 * t.nl + at_least_one(t.s * t.ml));
  return stepper +
         t.E * (t.nl + at_least_one(t.ml) + at_least_one(t.ol) + t.L + (m.adaptive ? t.nl : 0));
}

/// EventBackprop, StepBackprop and the stepper's VJP buffers.
double backprop_bytes(const MemoryShape& m, const Tile& t) {
  const double events = t.E * (2 * at_least_one(t.ml) + 3 * t.nl + 2 * at_least_one(t.ol) + t.L);
  const double vjp =
      t.E * ((m.fused_step_vjp ? 0 : 2 * t.s * t.nl + t.nl) + at_least_one(t.s * t.ml));
  return events + t.E * 2 * t.nl + vjp;
}

using Item = Integrator<float>::Item;
using Cursor = Integrator<float>::Cursor;

double direct_bytes(const MemoryShape& m, const Tile& t, const WalkLength& w) {
  const auto n = static_cast<double>(w.items());
  return session_bytes(m, t, w) + walker_bytes(m, t) + 8 * t.L + tape_bytes(n, 16, t.nl * t.E) +
         tape_bytes(n, 64, sizeof(Item)) + 2 * t.E * t.nl + backprop_bytes(m, t);
}

double checkpoint_bytes(const MemoryShape& m, const Tile& t, const WalkLength& w, int64_t k) {
  const auto n = static_cast<double>(w.items());
  const double checkpoints = std::ceil(n / static_cast<double>(k));
  const double segment = std::min(static_cast<double>(k), at_least_one(n));
  const double step_sizes =
      m.adaptive ? tape_bytes(static_cast<double>(w.steps), 512, sizeof(double)) : 0;
  return session_bytes(m, t, w) + 2 * t.E * t.nl + 8 * t.L + step_sizes +
         tape_bytes(checkpoints, 8, t.nl * t.E) + tape_bytes(checkpoints, 64, sizeof(Cursor)) +
         walker_bytes(m, t) + backprop_bytes(m, t) + segment * (t.nl * t.E + sizeof(Item));
}

double adjoint_bytes(const MemoryShape& m, const Tile& t, const WalkLength& w) {
  const double kept =
      session_bytes(m, t, w) + 8 * t.L + tape_bytes(static_cast<double>(w.events), 16, t.nl * t.E);
  const double forward = t.E * t.nl + walker_bytes(m, t);
  // AdjointStepper: the stage inputs and the θ increment; unfused, its stages
  // and θ buffers; fused, with an embedded pair, the first stage, the error
  // and their θ parts.
  const double stepper_unfused =
      t.E * (t.s * 2 * t.nl + 4 * t.nl + at_least_one(t.ml) + 5 * at_least_one(t.P));
  const double stepper_fused = t.E * (at_least_one(t.s * t.ml) + at_least_one(t.P) +
                                      (m.adaptive ? 4 * t.nl + 2 * at_least_one(t.P) : 0));
  const double stepper = m.fused_adjoint_step ? stepper_fused : stepper_unfused;
  const double backward_solve = t.E * (4 * t.nl + 2 * at_least_one(t.P));
  const double events = t.E * (2 * at_least_one(t.ml) + 3 * t.nl + 2 * at_least_one(t.ol) + t.L);
  const double backward = stepper + backward_solve + events + t.E * 2 * t.nl;
  return kept + std::max(forward, backward);
}

} // namespace

MemoryShape MemoryShape::of(const plastic_model& m) {
  MemoryShape s;
  s.n_state = m.n_state;
  s.n_params = m.n_params;
  s.n_input = m.n_input;
  s.n_outputs = m.n_outputs;
  s.lanes = m.lanes;
  s.element_bytes = m.dtype == PLASTIC_F64 ? 8 : 4;
  const ButcherTableau* tab = m.solver.method ? find_tableau(m.solver.method) : nullptr;
  if (tab) {
    s.stages = tab->stages;
    s.adaptive = tab->adaptive();
    s.fused_step_vjp = m.kernels.step_vjp && fused_kernels_match(m, *tab);
    s.fused_adjoint_step = m.kernels.adjoint_step && fused_kernels_match(m, *tab);
  }
  if (m.solver.max_steps > 0) s.max_steps = m.solver.max_steps;
  s.scratch_bytes = static_cast<double>(max_scratch_bytes(m));
  return s;
}

WalkLength fixed_walk(double t0, double h, std::span<const double> event_times) {
  WalkLength w;
  w.events = static_cast<int64_t>(event_times.size());
  const FixedGrid grid{t0, h};
  double t = t0;
  for (double e : event_times)
    while (t < e) {
      t = step_end(t, grid.next(t, e) - t, e);
      ++w.steps;
    }
  return w;
}

std::string describe(const GradientChoice& choice) {
  switch (choice.method) {
  case GradientMethod::Direct:
    return "direct";
  case GradientMethod::Checkpoint:
    return choice.checkpoint_every > 0
               ? fmt::format("checkpoint every {} steps", choice.checkpoint_every)
               : "checkpoint";
  case GradientMethod::Adjoint:
    return "adjoint";
  }
  return "?";
}

int64_t checkpoint_interval(const GradientChoice& choice, const WalkLength& walk) {
  if (choice.checkpoint_every > 0) return choice.checkpoint_every;
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(walk.items())))));
}

double gradient_tile_bytes(const MemoryShape& shape, const WalkLength& walk,
                           const GradientChoice& choice) {
  const Tile t(shape);
  switch (choice.method) {
  case GradientMethod::Direct:
    return direct_bytes(shape, t, walk);
  case GradientMethod::Checkpoint:
    return checkpoint_bytes(shape, t, walk, checkpoint_interval(choice, walk));
  case GradientMethod::Adjoint:
    return adjoint_bytes(shape, t, walk);
  }
  return 0;
}

StepMemory training_step_memory(const MemoryShape& shape, const WalkLength& walk,
                                const GradientChoice& choice, int workers) {
  const Tile t(shape);
  StepMemory m;
  m.workers = std::max(workers, 1);
  // theta, its gradient, Adam's two moments and the best epoch's copy (T
  // each); the ordered tile sum (double) and the tile gradients waiting in it.
  m.parameters = 5 * t.E * t.P + 8 * t.P * (1 + m.workers);
  // TileWorkspace: scratch, u0, z0, z0_bar, theta_bar, lane losses and outputs.
  m.per_worker = (shape.scratch_bytes > 0 ? shape.scratch_bytes + 64 : 0) +
                 t.E * (t.ml + 2 * t.nl + t.P + t.ol) + 8 * t.L;
  m.per_tile = gradient_tile_bytes(shape, walk, choice);
  return m;
}

std::optional<GradientChoice> choose_gradient(const MemoryShape& shape, const WalkLength& walk,
                                              int workers, double budget_bytes) {
  const double w = std::max(workers, 1);
  const GradientChoice direct{GradientMethod::Direct, 0};
  if (gradient_tile_bytes(shape, walk, direct) * w <= budget_bytes) return direct;
  // Every interval recomputes the same one forward pass; sqrt(items) holds the fewest states.
  GradientChoice checkpoint{GradientMethod::Checkpoint, 0};
  checkpoint.checkpoint_every = checkpoint_interval(checkpoint, walk);
  if (gradient_tile_bytes(shape, walk, checkpoint) * w <= budget_bytes) return checkpoint;
  const GradientChoice adjoint{GradientMethod::Adjoint, 0};
  if (gradient_tile_bytes(shape, walk, adjoint) * w <= budget_bytes) return adjoint;
  return std::nullopt;
}

std::optional<double> available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

std::optional<double> parse_byte_size(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit;
  for (size_t i = used; i < text.size(); ++i)
    if (!std::isspace(static_cast<unsigned char>(text[i])))
      unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (!unit.empty() && unit.back() == 'I') unit.pop_back(); // MiB = MB here: powers of 1024
  if (unit.empty()) return value;
  if (unit.size() != 1) return std::nullopt;
  const std::string prefixes = "KMGT";
  const size_t p = prefixes.find(unit[0]);
  if (p == std::string::npos) return std::nullopt;
  return value * std::pow(1024.0, static_cast<double>(p + 1));
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1024 && u < 5)
    bytes /= 1024, ++u;
  if (u == 0) return fmt::format("{:.0f} bytes", bytes);
  if (bytes < 10) return fmt::format("{:.1f} {}", bytes, units[u]);
  return fmt::format("{:.0f} {}", bytes, units[u]);
}

} // namespace plastic::rt
