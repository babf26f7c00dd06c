// `plastic bench-kernels FILE [--dtype f32|f64]`: JIT-compiles the model and
// times every ABI kernel on random data, one tile per call, reporting time
// per sample and GFLOP/s (FLOPs counted from the loop IR, flops.h). Numbers
// only: nothing here asserts a time. The random arguments are
// abi::random_kernel_args, the same as bench/kernel_bench.cpp uses.
#include "compiler/abi/flops.h"
#include "compiler/abi/random_args.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/elem_type.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <random>

namespace plastic::driver {

namespace {

// A kernel's own compile time, or "cached", or "-" where the backend does
// not time kernels one by one (the C++ backend compiles one translation unit).
std::string compile_time(const backend::CompileStats& stats, const std::string& kernel) {
  for (const backend::KernelCompileTime& k : stats.per_kernel)
    if (k.kernel == kernel) return k.cached ? std::string("cached") : fmt::format("{:.0f}", k.ms);
  return "-";
}

} // namespace

int run_bench_kernels(const std::string& file, const std::string& dtype, double min_seconds,
                      const CommonOptions& common) {
  int code = kOk;
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  loops::ElemType type = loops::elem_type(dtype);
  backend::CompileOptions options;
  options.packed_entries = true;
  auto t0 = std::chrono::steady_clock::now();
  backend::CompiledModel cm = compile_with(common.backend, *fns, type, 0, options);
  double compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const plastic_model& m = cm.table();
  std::cout << fmt::format(
      "{}: {} x {} lanes, state {}, params {}, {} backend: compiled in {:.0f} ms (loop IR {:.0f} "
      "ms; {})\n",
      m.name, loops::elem_type_name(type), m.lanes, m.n_state, m.n_params,
      common.backend == Backend::Cpp ? "C++" : "LLVM", compile_ms, cm.assemble_ms(),
      describe(cm.llvm_stats()));
  std::cout << fmt::format("{:<16} {:>14} {:>14} {:>10} {:>12}\n", "kernel", "flop/sample",
                           "ns/sample", "GFLOP/s", "compile ms");
  std::mt19937_64 rng(1);
  const double step = m.solver.step > 0 ? m.solver.step : 0.1;
  for (int i = 0; i < abi::kKernelCount; ++i) {
    auto id = static_cast<abi::KernelId>(i);
    const loops::Function* f = cm.kernels().get(id);
    if (!f) continue;
    loops::PackedKernel run = cm.packed(id);
    abi::KernelArgs args = abi::random_kernel_args(*f, step, rng);
    const double flops = abi::count_flops(*f);
    // Warm up, then double the repetitions until the batch takes long enough.
    run(args.args.data());
    int64_t reps = 1;
    double seconds = 0;
    for (;;) {
      auto s0 = std::chrono::steady_clock::now();
      for (int64_t r = 0; r < reps; ++r)
        run(args.args.data());
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
      if (seconds >= min_seconds || reps > (int64_t{1} << 40)) break;
      reps *= 2;
    }
    const double per_call = seconds / static_cast<double>(reps);
    std::cout << fmt::format("{:<16} {:>14.0f} {:>14.1f} {:>10.2f} {:>12}\n", abi::kernel_name(id),
                             flops / m.lanes, per_call * 1e9 / m.lanes, flops / per_call * 1e-9,
                             compile_time(cm.llvm_stats(), f->name));
  }
  return kOk;
}

} // namespace plastic::driver
