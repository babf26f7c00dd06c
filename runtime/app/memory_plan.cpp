// The gradient method and the memory of a training step (see memory_plan.h).
#include "runtime/app/memory_plan.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "runtime/batch/parallel.h"
#include "runtime/batch/tile.h"
#include "runtime/batch/walk_length.h"

namespace plastic::rt {

namespace {

GradientChoice model_choice(const plastic_model& m) {
  GradientChoice c;
  c.method = m.gradient.kind == PLASTIC_GRAD_ADJOINT      ? GradientMethod::Adjoint
             : m.gradient.kind == PLASTIC_GRAD_CHECKPOINT ? GradientMethod::Checkpoint
                                                          : GradientMethod::Direct;
  c.checkpoint_every = m.gradient.checkpoint_every;
  if (m.gradient.kind == PLASTIC_GRAD_AUTO) c = {GradientMethod::Checkpoint, 0}; // as from_desc
  return c;
}

std::string walk_text(const WalkLength& w) {
  return fmt::format("{} steps and {} events", w.steps, w.events);
}

} // namespace

Result<MemoryPlan, AppError> plan_memory(const plastic_model& model, const PreparedData& train,
                                         const MemoryRequest& request) {
  MemoryPlan plan;
  const MemoryShape shape = MemoryShape::of(model);
  const int64_t samples = std::min<int64_t>(request.batch, static_cast<int64_t>(train.size()));
  const size_t tiles = tile_count(static_cast<size_t>(std::max<int64_t>(samples, 1)), model.lanes);
  const int workers = resolve_threads(request.threads, tiles);
  const std::optional<double> available = available_memory_bytes();

  // The fewest steps: refuse only what cannot fit however the adaptive
  // solver steps; `auto` plans for the most, so its choice fits even then.
  plan.walk = longest_walk(model, train, StepBound::Fewest);
  plan.choice = model_choice(model);
  const bool automatic = request.gradient == "auto" ||
                         (request.gradient.empty() && model.gradient.kind == PLASTIC_GRAD_AUTO);
  if (request.gradient == "direct") plan.choice = {GradientMethod::Direct, 0};
  if (request.gradient == "checkpoint")
    plan.choice = {GradientMethod::Checkpoint, model.gradient.checkpoint_every};
  if (request.gradient == "adjoint") plan.choice = {GradientMethod::Adjoint, 0};
  if (automatic) {
    const WalkLength most = longest_walk(model, train, StepBound::Most);
    const double budget = request.budget                     ? *request.budget
                          : model.gradient.memory_budget > 0 ? model.gradient.memory_budget
                                                             : 0.5 * available.value_or(0);
    if (!(budget > 0))
      return AppError{kUsageError, "gradient auto: the free memory cannot be read here "
                                   "(/proc/meminfo); give --memory-budget SIZE"};
    auto chosen = choose_gradient(shape, most, workers, budget);
    if (!chosen) {
      // Every method's estimate, the smallest named: which one that is
      // depends on the model (the adjoint's backward solve holds the
      // adjoint state and its own stages; a checkpoint interval may hold less).
      GradientChoice checkpoint{GradientMethod::Checkpoint, 0};
      checkpoint.checkpoint_every = checkpoint_interval(checkpoint, most);
      const GradientChoice methods[] = {
          {GradientMethod::Direct, 0}, checkpoint, {GradientMethod::Adjoint, 0}};
      std::string each;
      const GradientChoice* smallest = nullptr;
      double least = 0;
      for (const GradientChoice& c : methods) {
        const double bytes = gradient_tile_bytes(shape, most, c) * workers;
        each += fmt::format("{}{} {}", each.empty() ? "" : ", ", describe(c), format_bytes(bytes));
        if (!smallest || bytes < least) smallest = &c, least = bytes;
      }
      return AppError{
          kInputError,
          fmt::format("gradient auto: no gradient method fits the {} budget{}: {} needs the least, "
                      "{} ({}; {} tiles of {} samples in flight, {} of the longest series); raise "
                      "--memory-budget, or lower --batch, --threads or the model's dims",
                      format_bytes(budget),
                      request.budget || model.gradient.memory_budget > 0
                          ? ""
                          : " (half the available memory)",
                      describe(*smallest), format_bytes(least), each, workers, model.lanes,
                      walk_text(most))};
    }
    plan.choice = *chosen;
    if (plan.choice.method == GradientMethod::Checkpoint)
      plan.choice.checkpoint_every = checkpoint_interval(plan.choice, most);
    plan.line = fmt::format("gradient auto: {}, est. {} of {} budget", describe(plan.choice),
                            format_bytes(gradient_tile_bytes(shape, most, plan.choice) * workers),
                            format_bytes(budget));
  }

  auto options = GradientOptions::from_desc(model.gradient);
  plan.gradient = options ? options.value() : GradientOptions{};
  plan.gradient.method = plan.choice.method;
  plan.gradient.checkpoint_every = plan.choice.checkpoint_every;
  plan.step = training_step_memory(shape, plan.walk, plan.choice, workers);

  const std::optional<double> limit = request.limit ? request.limit : available;
  if (!limit || plan.step.total() <= *limit) return plan;
  const std::string bound = request.limit
                                ? fmt::format("the --memory-limit of {}", format_bytes(*limit))
                                : fmt::format("the {} this machine has available (MemAvailable; "
                                              "--memory-limit sets another bound)",
                                              format_bytes(*limit));
  const StepMemory& s = plan.step;
  std::vector<std::string> fixes;
  const double room = *limit - s.parameters - s.workers * s.per_worker;
  if (s.parameters >= *limit) {
    fixes.push_back(fmt::format("the {} parameters alone need {} (values, gradient, optimiser "
                                "state): lower the dims that size them",
                                model.n_params, format_bytes(s.parameters)));
  } else {
    if (room > 0)
      if (auto fit = choose_gradient(shape, plan.walk, workers, room);
          fit && fit->method != plan.choice.method)
        fixes.push_back(fmt::format("`--gradient auto` would choose {} here", describe(*fit)));
    if (s.workers > 1)
      fixes.push_back(fmt::format("--threads 1 (one tile in flight instead of {})", s.workers));
    fixes.emplace_back("a smaller --batch, shorter series or smaller dims");
  }
  return AppError{
      kInputError,
      fmt::format("a training step of {} needs about {}: parameters {}, tiles {} ({} of {} "
                  "samples in flight x {}: work buffers and {}'s tapes over {} of the longest "
                  "series), more than {}.\n"
                  "  = hint: {}",
                  model.name, format_bytes(s.total()), format_bytes(s.parameters),
                  format_bytes(s.workers * (s.per_tile + s.per_worker)), s.workers, model.lanes,
                  format_bytes(s.per_tile + s.per_worker), describe(plan.choice),
                  walk_text(plan.walk), bound, fmt::join(fixes, "; or "))};
}

} // namespace plastic::rt
