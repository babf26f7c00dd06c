// Kernels compiled to objects in parallel, through the cache (kernel_objects.h).
#include "compiler/backend/llvm/kernel_objects.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/backend/llvm/object_cache.h"
#include "compiler/backend/llvm/target.h"
#include "compiler/backend/llvm/translate.h"

namespace plastic::backend::detail {

using namespace ::plastic::loops;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int worker_count(size_t kernels) {
  int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (const char* env = std::getenv("PLASTIC_COMPILE_THREADS"); env && *env) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end && *end == '\0' && v >= 1) n = static_cast<int>(std::min<long>(v, 64));
  }
  return std::max(1, std::min(n, static_cast<int>(kernels)));
}

struct PhaseTimes {
  double lower_ms = 0, optimize_ms = 0, codegen_ms = 0;
};

// One kernel: lower in `ctx`, then the cache or the pipeline and codegen.
KernelObject compile_one(const Function& fn, const std::string& module_name, const TargetSpec& spec,
                         const CompileOptions& options, llvm::TargetMachine& tm,
                         const ObjectCache& cache, const std::string& context, PhaseTimes& times) {
  KernelObject out;
  out.kernel = fn.name;
  out.symbols.push_back(fn.name);
  if (options.packed_entries) out.symbols.push_back(fn.name + "__packed");

  llvm::LLVMContext ctx;
  const auto start = std::chrono::steady_clock::now();
  auto t0 = start;
  Module one{module_name + "." + fn.name, {fn}};
  std::unique_ptr<llvm::Module> mod = lower_module(one, ctx, spec, tm.createDataLayout(), options);
  std::string key;
  if (cache.enabled()) {
    // The bitcode, not the IR text: the same content, written several
    // times faster than printing.
    llvm::SmallVector<char, 0> bitcode;
    llvm::raw_svector_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*mod, os);
    key = ObjectCache::key(std::string_view(bitcode.data(), bitcode.size()), context);
  }
  times.lower_ms += ms_since(t0);
  if (cache.enabled()) {
    if (std::unique_ptr<llvm::MemoryBuffer> hit = cache.load(key)) {
      out.object = std::move(hit);
      out.from_cache = true;
      out.ms = ms_since(start);
      return out;
    }
  }

  t0 = std::chrono::steady_clock::now();
  optimize(*mod, tm, options.opt_level, options.unroll_loops);
  times.optimize_ms += ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::string object = machine_code(*mod, tm, llvm::CodeGenFileType::ObjectFile);
  times.codegen_ms += ms_since(t0);
  cache.store(key, object);
  out.object = llvm::MemoryBuffer::getMemBufferCopy(object, fn.name + ".o");
  out.ms = ms_since(start);
  return out;
}

} // namespace

std::vector<KernelObject> compile_kernel_objects(const Module& module, const TargetSpec& spec,
                                                 const CompileOptions& options,
                                                 const ObjectCache& cache, CompileStats& stats,
                                                 bool background) {
  const auto start = std::chrono::steady_clock::now();
  const size_t n = module.functions.size();
  // Largest first (by expression count), so that the last kernel a worker
  // takes is a small one and the workers finish together.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return module.functions[a].exprs.size() > module.functions[b].exprs.size();
  });

  std::vector<KernelObject> objects(n);
  std::atomic<size_t> next{0};
  std::mutex mutex; // guards `failure` and `times`
  std::exception_ptr failure;
  PhaseTimes total;
  const std::string context = ObjectCache::context(spec, options);

  auto work = [&] {
    // Linux keeps a nice value per thread; lowering one's own priority needs
    // no privilege. Best effort: on failure the work just competes evenly.
    if (background) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
    PhaseTimes mine;
    try {
      // A TargetMachine is not shared between threads: one per worker.
      std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(spec, options.opt_level);
      for (size_t i = next++; i < n; i = next++) {
        const size_t k = order[i];
        objects[k] =
            compile_one(module.functions[k], module.name, spec, options, *tm, cache, context, mine);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
      next = n; // the others stop after their current kernel
    }
    std::lock_guard<std::mutex> lock(mutex);
    total.lower_ms += mine.lower_ms;
    total.optimize_ms += mine.optimize_ms;
    total.codegen_ms += mine.codegen_ms;
  };

  const int workers = worker_count(n);
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w)
    threads.emplace_back(work);
  work(); // the calling thread is a worker too
  for (std::thread& t : threads)
    t.join();
  if (failure) std::rethrow_exception(failure);

  stats.lower_ms = total.lower_ms;
  stats.optimize_ms = total.optimize_ms;
  stats.codegen_ms = total.codegen_ms;
  stats.wall_ms = ms_since(start);
  stats.threads = workers;
  stats.kernels = static_cast<int>(n);
  stats.cached = static_cast<int>(std::count_if(
      objects.begin(), objects.end(), [](const KernelObject& o) { return o.from_cache; }));
  stats.per_kernel.clear();
  for (const KernelObject& o : objects)
    stats.per_kernel.push_back({o.kernel, o.ms, o.from_cache});
  return objects;
}

} // namespace plastic::backend::detail
