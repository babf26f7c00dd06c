// A model compiling on another thread behind a table usable at once (see
// background_model.h).
#include "compiler/backend/background_model.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"
#include "compiler/abi/table.h"

namespace plastic::backend {

namespace {

// What the waiting kernels share: the compiled kernels as they arrive, in
// up to two loads (compiled_model.h's LoadOrder): first what the first step
// calls, then the rest. It is the `ctx` of the waiting table (compiled
// kernels ignore theirs: they carry their constants in their code).
class Arrival {
public:
  // Blocks until `present` holds for the loaded kernels or the compilation
  // ended; the loaded kernels, or an abort naming why a kernel is missing.
  // Each load is a table of its own, written once before its flag is set,
  // so readers never see a table being written.
  const plastic_kernels& wait(bool (*present)(const plastic_kernels&)) const {
    if (const plastic_kernels* k = ready(present)) return *k;
    std::unique_lock<std::mutex> lock(mutex_);
    const plastic_kernels* k = nullptr;
    ready_.wait(lock, [&] { return (k = ready(present)) != nullptr || !failure_.empty(); });
    if (k) return *k;
    std::fputs(fmt::format("plastic: internal error (a bug): a kernel was called although its "
                           "compilation failed: {}\n",
                           failure_)
                   .c_str(),
               stderr);
    std::abort();
  }
  const void* real_ctx() const { return ctx_; }

  /// The kernels that came first; `complete` when no more will follow.
  void arrive_first(const plastic_model& compiled, bool complete) {
    ctx_ = compiled.ctx;
    first_ = compiled.kernels;
    if (complete) all_ = compiled.kernels;
    announce(complete ? all_arrived_ : first_arrived_);
  }
  /// The table with every kernel.
  void arrive_rest(const plastic_model& compiled) {
    all_ = compiled.kernels;
    announce(all_arrived_);
  }
  void fail(std::string why) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      failure_ = std::move(why);
    }
    ready_.notify_all();
  }

private:
  const plastic_kernels* ready(bool (*present)(const plastic_kernels&)) const {
    if (all_arrived_.load(std::memory_order_acquire)) return &all_;
    if (first_arrived_.load(std::memory_order_acquire) && present(first_)) return &first_;
    return nullptr;
  }
  void announce(std::atomic<bool>& flag) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      flag.store(true, std::memory_order_release);
    }
    ready_.notify_all();
  }

  mutable std::mutex mutex_;
  mutable std::condition_variable ready_;
  std::atomic<bool> first_arrived_{false}, all_arrived_{false};
  plastic_kernels first_{}, all_{};
  const void* ctx_ = nullptr;
  std::string failure_;
};

// One waiting entry per kernel type: waits for its own kernel, then calls
// it with the compiled table's ctx and the caller's arguments.
template <class Fn> struct Waiting;
template <class... Args> struct Waiting<void (*)(const void*, Args...)> {
  using Fn = void (*)(const void*, Args...);
  template <Fn plastic_kernels::* Slot> static void call(const void* ctx, Args... args) {
    const auto& arrival = *static_cast<const Arrival*>(ctx);
    const plastic_kernels& k =
        arrival.wait([](const plastic_kernels& loaded) { return loaded.*Slot != nullptr; });
    (k.*Slot)(arrival.real_ctx(), args...);
  }
};

void* waiting_entry(abi::KernelId id) {
  switch (id) {
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  case abi::KernelId::Id:                                                                          \
    return reinterpret_cast<void*>(                                                                \
        &Waiting<plastic_##name##_fn>::template call<&plastic_kernels::name>);
#include "runtime/abi_kernels.def"
  }
  return nullptr;
}

} // namespace

struct BackgroundModel::State {
  abi::ModelLayout layout;
  abi::ModelTable table;
  Arrival arrival;
  CompiledModel compiled;
  // What wait() returns, written before `first` is ready: the first load's
  // stats, its time, its failure, and how many kernels were still to come.
  CompileStats stats;
  double seconds = 0;
  int deferred = 0;
  std::exception_ptr failure;
  std::promise<void> first_done;
  std::shared_future<void> first = first_done.get_future().share();
  // Last: destroyed (and so joined) before what the compilation writes into.
  std::future<void> compiling;

  void compile_in_order(const std::function<CompiledModel()>& compile);
  bool first_loaded() const {
    return first.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
};

namespace {

int null_slots(plastic_kernels k) {
  int n = 0;
  for (int i = 0; i < abi::kKernelCount; ++i)
    n += *abi::kernel_slot(k, static_cast<abi::KernelId>(i)) == nullptr;
  return n;
}

} // namespace

// The body of the compiling thread: the first load, announced to the
// waiting kernels and to wait(); then the rest, announced to the kernels
// alone (a failure there aborts only a call of a kernel it left out).
void BackgroundModel::State::compile_in_order(const std::function<CompiledModel()>& compile) {
  const auto start = std::chrono::steady_clock::now();
  try {
    compiled = compile();
    const bool complete = compiled.all_loaded();
    stats = compiled.llvm_stats();
    deferred = null_slots(compiled.table().kernels) - null_slots(table.model.kernels);
    arrival.arrive_first(compiled.table(), complete);
  } catch (const std::exception& e) {
    failure = std::current_exception();
    arrival.fail(e.what());
  } catch (...) {
    failure = std::current_exception();
    arrival.fail("an unknown exception");
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  first_done.set_value();
  if (failure || compiled.all_loaded()) return;
  try {
    compiled.wait_for_rest();
    arrival.arrive_rest(compiled.table());
  } catch (const std::exception& e) {
    arrival.fail(e.what());
  } catch (...) {
    arrival.fail("an unknown exception");
  }
}

BackgroundModel::BackgroundModel(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                                 abi::GradientUse use, std::function<CompiledModel()> compile)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.layout = abi::compute_layout(fns);
  // The same loop IR the compilation builds decides which slots are set.
  const abi::ModelKernels kernels =
      abi::build_kernels(fns, s.layout, type, lanes, jit_prefix(s.layout.name), use);
  abi::fill_table(
      s.layout, kernels, type, kernels.lanes(type),
      [&](abi::KernelId id) { return kernels.get(id) ? waiting_entry(id) : nullptr; }, s.table);
  s.table.model.ctx = &s.arrival;
  s.compiling = std::async(std::launch::async,
                           [&s, compile = std::move(compile)] { s.compile_in_order(compile); });
}

BackgroundModel::~BackgroundModel() {
  if (state_ && state_->compiling.valid()) state_->compiling.wait();
}

const plastic_model& BackgroundModel::table() const {
  return state_->table.model;
}

const CompileStats& BackgroundModel::wait() {
  State& s = *state_;
  s.first.wait();
  if (s.failure) std::rethrow_exception(s.failure);
  return s.stats;
}

double BackgroundModel::seconds() const {
  return state_->first_loaded() ? state_->seconds : 0;
}

int BackgroundModel::deferred() const {
  return state_->first_loaded() ? state_->deferred : 0;
}

void BackgroundModel::finish() {
  if (state_->compiling.valid()) state_->compiling.wait();
}

} // namespace plastic::backend
