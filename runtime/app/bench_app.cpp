// The `bench-train` command (see bench_app.h).
#include "runtime/app/bench_app.h"
#include "runtime/app/program_name.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/app/kernels_ready.h"
#include "runtime/app/memory_plan.h"
#include "runtime/app/synthetic_data.h"
#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/parallel.h"
#include "runtime/distributed/communicator.h"
#include "runtime/init/init.h"
#include "runtime/train/optimizer.h"

namespace plastic::rt {

namespace {

// VmHWM of this process in MiB (0 when /proc is unavailable).
double high_water_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

void reset_high_water() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

// The memory plan for the benchmark's batch, as `train` makes it, except
// that with no --memory-limit given it measures and never refuses.
Result<MemoryPlan, AppError> bench_memory_plan(const plastic_model& m, const PreparedData& data,
                                               const BenchRequest& r) {
  MemoryRequest mr{r.batch, r.threads, r.memory.gradient, r.memory.budget, r.memory.limit};
  if (!r.memory.limit) mr.limit = std::numeric_limits<double>::infinity(); // measure, never refuse
  return plan_memory(m, data, mr);
}

// The indices 0 to batch-1: every step trains on the whole synthetic batch.
std::vector<int64_t> whole_batch(int64_t batch) {
  std::vector<int64_t> samples(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i)
    samples[static_cast<size_t>(i)] = i;
  return samples;
}

// What the timed steps measured.
struct BenchResult {
  int64_t length = 0;          ///< observations per series
  std::vector<double> seconds; ///< each timed step's wall time, sorted
  double base_mib = 0;         ///< the resident set's high-water mark before the timed steps
  double peak_mib = 0;         ///< and after them
  BatchLoss last;              ///< the last step's loss and counters
};

// Times `steps` calls of `one_step`, from a high-water mark cleared after
// the warm-up step.
template <class Step> BenchResult time_steps(int64_t steps, Step& one_step) {
  BenchResult b;
  reset_high_water();
  b.base_mib = high_water_mib();
  for (int64_t s = 0; s < steps; ++s) {
    auto start = std::chrono::steady_clock::now();
    b.last = one_step();
    b.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(b.seconds.begin(), b.seconds.end());
  b.peak_mib = high_water_mib();
  return b;
}

// Prints the result: one JSON line with --json, else a sentence.
void report_bench(const plastic_model& m, const BenchRequest& r, const MemoryPlan& plan,
                  const BenchResult& b) {
  const double median = b.seconds[b.seconds.size() / 2];
  nlohmann::ordered_json j;
  j["model"] = m.name;
  j["dtype"] = m.dtype == PLASTIC_F64 ? "f64" : "f32";
  j["batch"] = r.batch;
  j["length"] = b.length;
  j["dt"] = r.dt;
  j["threads"] = r.threads;
  j["gradient"] = r.memory.gradient.empty() ? "model" : r.memory.gradient;
  j["gradient_method"] = describe(plan.choice);
  j["steps"] = r.steps;
  j["median_s"] = median;
  j["min_s"] = b.seconds.front();
  j["peak_rss_mb"] = b.peak_mib;
  j["step_rss_growth_mb"] = b.peak_mib - b.base_mib;
  // What the gradient method itself held at its peak (its MemoryMeter), per
  // tile, times the tiles in flight at once: malloc keeps freed pages, so
  // the resident set after the warm-up step no longer shows it.
  const int64_t in_flight = resolve_threads(r.threads, static_cast<size_t>(b.last.tiles));
  j["gradient_peak_mb"] =
      static_cast<double>(b.last.peak_bytes) * static_cast<double>(in_flight) / (1 << 20);
  j["gradient_estimate_mb"] = plan.step.gradient() / (1 << 20);
  j["forward_evals"] = b.last.forward.field_evals;
  j["backward_evals"] = b.last.backward.vjp_evals;
  j["loss"] = b.last.loss;
  if (r.json)
    fmt::print("{}\n", j.dump());
  else
    fmt::print(
        "{}: {:.4f} s per training step (median of {}), batch {}, length {}, peak RSS {:.0f} MiB "
        "({:+.0f} MiB during the steps)\n",
        m.name, median, r.steps, r.batch, b.length, b.peak_mib, b.peak_mib - b.base_mib);
}

template <class T> int bench_typed(const plastic_model& m, const BenchRequest& r) {
  int64_t length = r.length > 0 ? r.length : 100;
  Dataset data = synthetic_dataset(m, r.batch, length, r.seed, r.dt);
  PrepareOptions po;
  po.threads = r.threads;
  auto prepared = prepare(m, data, po);
  if (!prepared) {
    fmt::print(stderr, "{}: {}\n", program_name(), prepared.status().describe());
    return kInputError;
  }
  BatchOptions options;
  options.threads = r.threads;
  options.comm = &world(); // under mpirun: the step of K ranks, gradient sum included
  auto plan = bench_memory_plan(m, prepared.value(), r);
  if (!plan) {
    fmt::print(stderr, "{}: {}\n", program_name(), plan.error().message);
    return plan.error().exit_code;
  }
  if (!plan.value().line.empty()) fmt::print(stderr, "{}\n", plan.value().line);
  options.gradient = plan.value().gradient;
  std::vector<T> theta(static_cast<size_t>(m.n_params)), grad(theta.size());
  if (auto init = initialise_parameters<T>(m, std::span<T>(theta), r.seed); !init) {
    fmt::print(stderr, "{}: {}\n", program_name(), init.error().describe());
    return kInputError;
  }
  OptimizerConfig oc;
  auto adam = make_optimizer<T>(oc, m.n_params);
  const std::vector<int64_t> samples = whole_batch(r.batch);
  if (Status<AppError> s = kernels_ready(); !s) {
    fmt::print(stderr, "{}: {}\n", program_name(), s.error().message);
    return s.error().exit_code;
  }

  auto one_step = [&]() -> BatchLoss {
    std::fill(grad.begin(), grad.end(), T(0));
    BatchLoss loss = loss_and_gradient<T>(m, prepared.value(), samples, theta, grad, options);
    if (loss.ok()) (void)adam.value()->step(theta, grad);
    return loss;
  };
  BatchLoss warm = one_step();
  if (!warm.ok()) {
    fmt::print(stderr, "{}: {}\n", program_name(), warm.status.describe());
    return kInputError;
  }
  BenchResult result = time_steps(r.steps, one_step);
  result.length = length;
  report_bench(m, r, plan.value(), result);
  return kOk;
}

} // namespace

int run_bench_train(const plastic_model& m, const BenchRequest& r) {
  return m.dtype == PLASTIC_F64 ? bench_typed<double>(m, r) : bench_typed<float>(m, r);
}

} // namespace plastic::rt
