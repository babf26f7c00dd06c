// bench_kernels: GFLOP/s of Plastic's compiled kernels against this
// machine's peak, both measured in the same run.
//
// `plastic bench-kernels` prints GFLOP/s of one model's kernels; to know how
// far the kernels are from the roofline, and whether a change moved them, the
// rates must be put next to the peak of the same machine under the same load.
// So this program first runs the single-thread peak probes of peak_probes.h
// (the AVX2 and AVX-512 f32 FMA loops and a large Eigen f32 GEMM), keeps their
// rates, and then times `field`, `field_vjp`, `step`, `step_vjp` and
// `adjoint_step` (the continuous adjoint's fused backward step), each as
// JIT-compiled by the project (backend::compile_model, f32, the project's own
// code generation flags), on single-thread tiles of random data:
//   * the speech Delta CDE (examples/fwp_delta_cde.ode, 4 heads) with
//     d_head in {8, 16, 20, 32, 64} (the per-head matrices are d_head²: small
//     heads are overhead-bound, large ones approach dense work),
//   * the dense configurations: the gated NODE (examples/gnode_flipflop.ode,
//     N = 100) and the speech NCDE (bench/models/ncde_speech.ode);
//   * 8 samples per tile (one AVX2 register of f32, the default) and 16 (one
//     AVX-512 register) when the target has it;
//   * batch 8, 128 and 1024 samples: batch / lanes calls per iteration on
//     distinct per-sample buffers (parameters, their cotangent and the
//     scratch arena shared, as the runtime shares them between the tiles of
//     one thread), so large batches show the cost of a state that no longer
//     fits in L1/L2.
// Counters (README.md, "Kernel microbenchmarks"): GFLOPS (FLOPs counted from
// the loop IR, abi::count_flops), ns_per_sample, frac_fma_peak and
// frac_gemm_peak (the rate over the probes' rates; the FMA peak of the tile's
// vector width: AVX2 for 8 lanes, AVX-512 for 16), working_set_KiB.
//
// Every kernel's outputs are checked to be written and finite, once before
// timing (outputs pre-filled with NaN, cotangents zeroed) and after it; a
// failure is reported as a benchmark error and the program exits with 1, so
// the smoke test (CTest bench_smoke_kernels) checks the kernels run correctly
// end to end, not only that they run.
//
// Flags of our own, removed before Google Benchmark sees argv:
//   --quick        only d_head 8, 8 lanes, batch 8, and tiny probes (smoke test)
//   --gemm_n=N     GEMM size of the probe (default 1024; 64 with --quick)
//   --fma_iters=K  inner iterations of the FMA probe (default 1 << 16)
#include "bench/peak_probes.h"
#include "compiler/abi/flops.h"
#include "compiler/abi/random_args.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/model/model_functions.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace lp = plastic::loops;
namespace be = plastic::backend;
namespace abi = plastic::abi;
namespace pb = plastic::bench;
namespace pm = plastic::model;

// ---- the peaks, from the probes run at the start of this run ---------------

// The probes' names here; their rates are captured under these names.
constexpr const char* kProbeAvx2 = "peak/fma_avx2_f32";
constexpr const char* kProbeAvx512 = "peak/fma_avx512_f32";
constexpr const char* kProbeGemm = "peak/gemm_eigen_f32";

// Probe name -> FLOP/s (the best repetition). Filled by PeakCapture as the
// probes report, read by the kernel benchmarks, which run after them.
std::map<std::string, double> g_peak;

// Set when a kernel fails (no such kernel, a compile error, a non-finite
// output): main's exit code.
bool g_failed = false;

// Forwards everything to the usual display reporter (so --benchmark_format
// and colours work as usual) and keeps the probes' FLOP/s. Google Benchmark
// reports each benchmark as soon as it has run, so the rates are in g_peak
// before the first kernel benchmark starts.
class PeakCapture : public benchmark::BenchmarkReporter {
public:
  explicit PeakCapture(benchmark::BenchmarkReporter* display) : display_(display) {}
  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      auto c = run.counters.find(pb::kFlopsCounter);
      if (c == run.counters.end()) continue;
      double& best = g_peak[run.run_name.function_name];
      best = std::max(best, c->second.value);
    }
    display_->ReportRuns(runs);
  }
  void Finalize() override { display_->Finalize(); }

private:
  benchmark::BenchmarkReporter* display_;
};

double peak(const char* probe) {
  auto it = g_peak.find(probe);
  return it == g_peak.end() ? 0 : it->second;
}

// ---- compiled models, one per configuration --------------------------------

struct ModelConfig {
  std::string name; ///< in benchmark names: fwp_d20, gnode_n100, ncde_speech
  std::string file; ///< relative to the source tree
  std::map<std::string, double> overrides;
};

struct Compiled {
  pm::ModelFunctions fns;
  be::CompiledModel cm;
  double step = 0.1; ///< h: the model's fixed step
};

// JIT compilation takes about half a second per model, and Google Benchmark
// calls a benchmark function several times (to size its iteration count), so
// each (configuration, lanes) is compiled once, on first use: a filtered run
// compiles only what it times.
std::map<std::string, std::unique_ptr<Compiled>> g_models;

Compiled& compiled(const ModelConfig& config, int lanes) {
  const std::string key = config.name + "/" + std::to_string(lanes);
  std::unique_ptr<Compiled>& slot = g_models[key];
  if (slot) return *slot;
  pm::BuildOptions options{config.overrides, false, {}, 20, {}, {}};
  pm::BuildStatus status = pm::BuildStatus::Ok;
  std::optional<pm::ModelFunctions> fns = pm::build_model_functions(
      std::string(PLASTIC_SOURCE_DIR) + "/" + config.file, options, status);
  if (!fns) throw std::runtime_error("cannot build " + config.file + " (diagnostics above)");
  // As `plastic bench-kernels`: packed entries so one Args drives any kernel.
  be::CompileOptions copts;
  copts.packed_entries = true;
  auto c = std::make_unique<Compiled>(Compiled{std::move(*fns), {}, 0.1});
  c->cm = be::compile_model(c->fns, lp::ElemType::F32, lanes, copts);
  if (c->cm.table().solver.step > 0) c->step = c->cm.table().solver.step;
  slot = std::move(c);
  return *slot;
}

// ---- per-tile arguments of the kernel being timed --------------------------

// The tiles of one (model, lanes, kernel), grown as batches get larger: the
// benchmarks of one kernel are registered together, smallest batch first, so
// keeping only the current kernel's tiles bounds the memory (d_head 64's
// step_vjp at batch 1024 is ~200 MB) without rebuilding them per call.
struct TileCache {
  std::string key;
  std::mt19937_64 rng;
  std::vector<abi::KernelArgs> tiles;
};
TileCache g_tiles;

bool is_cotangent(const std::string& name) {
  return name.size() > 4 && name.ends_with("_bar");
}

// Outputs the ABI lets a kernel write in part (runtime/abi.h): adjoint_step
// writes its parameter cotangent on the field's span of theta only, and the
// error estimates only for embedded pairs. They start at 0, not NaN, so the
// check still catches a non-finite value written into them.
bool partly_written(const lp::Function& f, const std::string& name) {
  return f.name.ends_with("adjoint_step") &&
         (name == "dtheta" || name == "err" || name == "dtheta_err");
}

// Whether every element of every buffer the kernel writes is finite; on
// failure `why` names the buffer.
bool outputs_finite(const lp::Function& f, const abi::KernelArgs& a, std::string& why) {
  for (size_t i = 0; i < f.params.size(); ++i) {
    const lp::Param& p = f.params[i];
    if (p.kind != lp::ParamKind::Buffer) continue;
    const lp::BufferDecl& b = f.buffers.at(p.buffer);
    if (b.readonly) continue;
    const float* data = static_cast<const float*>(a.args.pointer_at(i));
    const int64_t n = f.elements(b);
    for (int64_t j = 0; j < n; ++j)
      if (!std::isfinite(data[j])) {
        why = f.name + ": " + p.name + "[" + std::to_string(j) + "] = " + std::to_string(data[j]);
        return false;
      }
  }
  return true;
}

// Runs the kernel once on `a` with its plain outputs set to NaN (so an
// element it fails to write is caught) and its accumulated cotangents zeroed.
bool check_once(const lp::Function& f, lp::PackedKernel run, abi::KernelArgs& a, std::string& why) {
  for (size_t i = 0; i < f.params.size(); ++i) {
    const lp::Param& p = f.params[i];
    if (p.kind != lp::ParamKind::Buffer) continue;
    const lp::BufferDecl& b = f.buffers.at(p.buffer);
    if (b.readonly) continue;
    float* data = static_cast<float*>(a.args.pointer_at(i));
    const bool zero = is_cotangent(p.name) || partly_written(f, p.name);
    std::fill_n(data, f.elements(b), zero ? 0.0f : std::numeric_limits<float>::quiet_NaN());
  }
  run(a.args.data());
  return outputs_finite(f, a, why);
}

std::vector<abi::KernelArgs>& tiles_for(const std::string& key, const lp::Function& f,
                                        lp::PackedKernel run, double step, size_t count,
                                        std::string& why) {
  if (g_tiles.key != key) {
    g_tiles.tiles.clear(); // free the previous kernel's tiles first
    g_tiles.key = key;
    g_tiles.rng.seed(1);
  }
  while (g_tiles.tiles.size() < count) {
    const abi::KernelArgs* share = g_tiles.tiles.empty() ? nullptr : &g_tiles.tiles.front();
    g_tiles.tiles.push_back(abi::random_kernel_args(f, step, g_tiles.rng, share));
    if (g_tiles.tiles.size() == 1 && !check_once(f, run, g_tiles.tiles.front(), why)) break;
  }
  return g_tiles.tiles;
}

// Bytes one iteration touches through the kernel's parameters: per-sample
// buffers once per tile, shared ones (parameters, scratch) once.
double working_set_bytes(const lp::Function& f, size_t tiles) {
  double bytes = static_cast<double>(f.scratch_bytes);
  for (const lp::Param& p : f.params) {
    if (p.kind != lp::ParamKind::Buffer) continue;
    const lp::BufferDecl& b = f.buffers.at(p.buffer);
    const double one = 4.0 * static_cast<double>(f.elements(b));
    bytes += b.lanes == lp::Lanes::Varying ? one * static_cast<double>(tiles) : one;
  }
  return bytes;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void fail(benchmark::State& state, const std::string& why) {
  g_failed = true;
  state.SkipWithError(why.c_str());
}

// One benchmark: `batch` samples of `config` through `kernel`, `lanes` per tile.
void bench_kernel(benchmark::State& state, const ModelConfig& config, abi::KernelId kernel,
                  int lanes, int batch) {
  const std::string kname(abi::kernel_name(kernel));
  try {
    Compiled& c = compiled(config, lanes);
    const lp::Function* f = c.cm.kernels().get(kernel);
    if (!f) return fail(state, config.name + " has no " + kname + " kernel");
    const lp::PackedKernel run = c.cm.packed(kernel);
    const double flops_per_call = abi::count_flops(*f);
    if (!(flops_per_call > 0)) return fail(state, kname + ": no floating-point operations counted");
    const size_t n_tiles = static_cast<size_t>(batch / lanes);
    std::string why;
    std::vector<abi::KernelArgs>& tiles = tiles_for(
        config.name + "/" + std::to_string(lanes) + "/" + kname, *f, run, c.step, n_tiles, why);
    if (!why.empty()) return fail(state, why);

    const double cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
      for (size_t t = 0; t < n_tiles; ++t)
        run(tiles[t].args.data());
      benchmark::ClobberMemory();
    }
    const double cpu = thread_cpu_seconds() - cpu0;

    for (size_t t = 0; t < n_tiles; ++t)
      if (!outputs_finite(*f, tiles[t], why)) return fail(state, "after timing: " + why);

    const double iters = static_cast<double>(state.iterations());
    const double flops = flops_per_call * static_cast<double>(n_tiles) * iters;
    state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
    // Thread CPU time, the clock Google Benchmark's CPU column and its rates
    // use: a core shared with other work does not lower the numbers.
    if (cpu > 0 && iters > 0) {
      state.counters["ns_per_sample"] = cpu * 1e9 / (iters * batch);
      const double rate = flops / cpu;
      const double fma = peak(lanes >= 16 ? kProbeAvx512 : kProbeAvx2), gemm = peak(kProbeGemm);
      if (fma > 0) state.counters["frac_fma_peak"] = rate / fma;
      if (gemm > 0) state.counters["frac_gemm_peak"] = rate / gemm;
    }
    state.counters["working_set_KiB"] = working_set_bytes(*f, n_tiles) / 1024.0;
  } catch (const std::exception& e) {
    fail(state, config.name + " " + kname + ": " + e.what());
  }
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false, gemm_given = false, fma_given = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
      continue;
    }
    gemm_given |= std::strncmp(argv[i], "--gemm_n=", 9) == 0;
    fma_given |= std::strncmp(argv[i], "--fma_iters=", 12) == 0;
    if (!pb::take_probe_flag(argv[i])) argv[out++] = argv[i];
  }
  argc = out;
  if (quick && !gemm_given) pb::probe_sizes().gemm_n = 64;
  if (quick && !fma_given) pb::probe_sizes().fma_iters = 1024;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const bool avx512 = pb::have_avx512() && be::target_lanes(lp::ElemType::F32) >= 16;
  // The target without its long feature list: "x86_64-..., cpu znver5".
  const std::string target = be::describe_target();
  benchmark::AddCustomContext("jit_target", target.substr(0, target.find(", features")));
  benchmark::AddCustomContext("fma_peak",
                              avx512 ? "AVX2 for 8 lanes, AVX-512 for 16" : "AVX2 (no AVX-512)");

  // The probes first: they run (and report into g_peak) before any kernel.
  // CPU time like the kernels, one thread like the kernels.
  benchmark::RegisterBenchmark(kProbeAvx2, pb::fma_avx2_f32);
  if (avx512) benchmark::RegisterBenchmark(kProbeAvx512, pb::fma_avx512_f32);
  benchmark::RegisterBenchmark(kProbeGemm, pb::gemm_eigen_f32)
      ->Args({pb::probe_sizes().gemm_n, 1})
      ->Unit(benchmark::kMillisecond);

  std::vector<ModelConfig> configs;
  for (int d : quick ? std::vector<int>{8} : std::vector<int>{8, 16, 20, 32, 64})
    configs.push_back({"fwp_d" + std::to_string(d), "examples/fwp_delta_cde.ode", {{"d_head", d}}});
  if (!quick) {
    configs.push_back({"gnode_n100", "examples/gnode_flipflop.ode", {}});
    configs.push_back({"ncde_speech", "bench/models/ncde_speech.ode", {}});
  }
  std::vector<int> lane_counts{8};
  if (avx512 && !quick) lane_counts.push_back(16);
  const std::vector<int> batches = quick ? std::vector<int>{8} : std::vector<int>{8, 128, 1024};
  const abi::KernelId kernels[] = {abi::KernelId::Field, abi::KernelId::FieldVjp,
                                   abi::KernelId::Step, abi::KernelId::StepVjp,
                                   abi::KernelId::AdjointStep};
  // Grouped by model, lanes, kernel, batch: the caches above rely on it.
  for (const ModelConfig& config : configs)
    for (int lanes : lane_counts)
      for (abi::KernelId kernel : kernels)
        for (int batch : batches) {
          if (batch < lanes) continue; // not even one full tile
          const std::string name = std::string(abi::kernel_name(kernel)) + "/" + config.name +
                                   "/lanes:" + std::to_string(lanes) +
                                   "/batch:" + std::to_string(batch);
          benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
            bench_kernel(s, config, kernel, lanes, batch);
          });
        }

  // A filter for some kernels still runs the probes: the fractions need them.
  const std::string filter = benchmark::GetBenchmarkFilter();
  if (!filter.empty() && filter != "all" && filter != "." && filter[0] != '-')
    benchmark::SetBenchmarkFilter("^peak/|" + filter);

  PeakCapture reporter(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return g_failed ? 1 : 0;
}
