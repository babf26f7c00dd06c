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

// What the waiting kernels share: the compiled kernels once they are there.
// It is the `ctx` of the waiting table (compiled kernels ignore theirs: they
// carry their constants in their code).
class Arrival {
public:
  // Blocks until the compilation ended; the compiled kernels, or an abort
  // naming why they are missing.
  const plastic_kernels& wait() const {
    if (!arrived_.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [&] { return arrived_.load(std::memory_order_acquire); });
    }
    if (!failure_.empty()) {
      std::fputs(fmt::format("plastic: internal error (a bug): a kernel was called although its "
                             "compilation failed: {}\n",
                             failure_)
                     .c_str(),
                 stderr);
      std::abort();
    }
    return kernels_;
  }
  const void* real_ctx() const { return ctx_; }

  void arrive(const plastic_model& compiled) {
    kernels_ = compiled.kernels;
    ctx_ = compiled.ctx;
    announce();
  }
  void fail(std::string why) {
    failure_ = std::move(why);
    announce();
  }

private:
  void announce() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      arrived_.store(true, std::memory_order_release);
    }
    ready_.notify_all();
  }

  mutable std::mutex mutex_;
  mutable std::condition_variable ready_;
  std::atomic<bool> arrived_{false};
  plastic_kernels kernels_{};
  const void* ctx_ = nullptr;
  std::string failure_;
};

// One waiting entry per kernel type: waits, then calls the compiled kernel
// in the same slot with the compiled table's ctx and the caller's arguments.
template <class Fn> struct Waiting;
template <class... Args> struct Waiting<void (*)(const void*, Args...)> {
  using Fn = void (*)(const void*, Args...);
  template <Fn plastic_kernels::* Slot> static void call(const void* ctx, Args... args) {
    const auto& arrival = *static_cast<const Arrival*>(ctx);
    (arrival.wait().*Slot)(arrival.real_ctx(), args...);
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
  std::exception_ptr failure;
  double seconds = 0;
  // Last: destroyed (and so joined) before what the compilation writes into.
  std::future<void> compiling;
};

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
  s.compiling = std::async(std::launch::async, [&s, compile = std::move(compile)] {
    const auto start = std::chrono::steady_clock::now();
    try {
      s.compiled = compile();
      s.arrival.arrive(s.compiled.table());
    } catch (const std::exception& e) {
      s.failure = std::current_exception();
      s.arrival.fail(e.what());
    } catch (...) {
      s.failure = std::current_exception();
      s.arrival.fail("an unknown exception");
    }
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
}

BackgroundModel::~BackgroundModel() {
  if (state_ && state_->compiling.valid()) state_->compiling.wait();
}

const plastic_model& BackgroundModel::table() const {
  return state_->table.model;
}

const CompiledModel& BackgroundModel::wait() {
  State& s = *state_;
  if (s.compiling.valid()) s.compiling.get();
  if (s.failure) std::rethrow_exception(s.failure);
  return s.compiled;
}

double BackgroundModel::seconds() const {
  return state_->compiling.valid() ? 0 : state_->seconds;
}

} // namespace plastic::backend
