// In-process compilation with ORC LLJIT (jit.h).
#include "compiler/backend/llvm/jit.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include "compiler/backend/llvm/kernel_objects.h"
#include "compiler/backend/llvm/object_cache.h"
#include "compiler/backend/llvm/target.h"
#include "compiler/loops/error.h"

namespace plastic::backend {

using namespace ::plastic::loops;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string message(llvm::Error err) {
  return llvm::toString(std::move(err));
}

} // namespace

ModuleInContext::ModuleInContext() = default;
ModuleInContext::~ModuleInContext() = default;
ModuleInContext::ModuleInContext(ModuleInContext&&) noexcept = default;
ModuleInContext& ModuleInContext::operator=(ModuleInContext&&) noexcept = default;

struct Jit::Engine {
  CompileOptions options;
  detail::TargetSpec spec;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  detail::ObjectCache cache = detail::ObjectCache::from_environment();
  std::mutex mutex; // one ORC change (adding, linking, removing a library) at a time
};

struct JitModule::State {
  std::shared_ptr<Jit::Engine> engine;
  llvm::orc::JITDylib* dylib = nullptr; ///< owned by the engine's session
};

Jit::Jit(CompileOptions options) : engine_(std::make_shared<Engine>()) {
  detail::initialize_llvm();
  Engine& e = *engine_;
  e.options = std::move(options);
  e.spec = detail::resolve_target(e.options);
  const std::unique_ptr<llvm::TargetMachine> tm =
      detail::make_target_machine(e.spec, e.options.opt_level);

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(e.spec.triple)};
  jtmb.setCPU(e.spec.cpu);
  jtmb.setFeatures(e.spec.features);
  jtmb.setCodeGenOptLevel(tm->getOptLevel());
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) throw CodegenError("cannot create the JIT: " + message(jit.takeError()));
  e.jit = std::move(*jit);
}

Jit::~Jit() = default;

const CompileOptions& Jit::options() const {
  return engine_->options;
}

namespace {

// PLASTIC_PERF_MAP=1 names JIT code for `perf report`: perf reads
// /tmp/perf-<pid>.map ("start size name" in hex per line). ORC does not
// report function sizes here, so each symbol extends to the next one's
// start (functions of a module are laid out one after another); the last
// gets 64 KiB. Good enough to attribute samples to kernels.
void write_perf_map(const std::unordered_map<std::string, void*>& symbols) {
  std::vector<std::pair<uintptr_t, std::string>> sorted;
  sorted.reserve(symbols.size());
  for (const auto& [name, ptr] : symbols)
    sorted.emplace_back(reinterpret_cast<uintptr_t>(ptr), name);
  std::sort(sorted.begin(), sorted.end());
  std::FILE* f = std::fopen(fmt::format("/tmp/perf-{}.map", getpid()).c_str(), "a");
  if (!f) return;
  for (size_t i = 0; i < sorted.size(); ++i) {
    uintptr_t size = i + 1 < sorted.size() ? sorted[i + 1].first - sorted[i].first : 65536;
    std::fprintf(f, "%lx %lx %s\n", static_cast<unsigned long>(sorted[i].first),
                 static_cast<unsigned long>(size), sorted[i].second.c_str());
  }
  std::fclose(f);
}

} // namespace

JitModule Jit::add(const Module& module) {
  return add(module, /*background=*/false);
}

JitModule Jit::add_in_background(const Module& module) {
  return add(module, /*background=*/true);
}

JitModule Jit::add(const Module& module, bool background) {
  Engine& e = *engine_;
  JitModule out;
  // Kernels compile to objects on several threads, through the on-disk
  // cache, outside the lock: each worker owns its context and target
  // machine, so a REPL's foreground compile need not wait for the gradient
  // kernels compiling in the background. Linking them is left to ORC.
  std::vector<detail::KernelObject> objects =
      detail::compile_kernel_objects(module, e.spec, e.options, e.cache, out.stats_, background);
  std::lock_guard<std::mutex> lock(e.mutex);
  auto t0 = std::chrono::steady_clock::now();
  open_dylib(out, module.name);
  for (detail::KernelObject& o : objects)
    if (llvm::Error err = e.jit->addObjectFile(*out.state_->dylib, std::move(o.object)))
      fail_load(out, fmt::format("JIT: cannot add the object of '{}' in module '{}': {}", o.kernel,
                                 module.name, message(std::move(err))));
  std::vector<std::string> symbols;
  for (const detail::KernelObject& o : objects)
    symbols.insert(symbols.end(), o.symbols.begin(), o.symbols.end());
  link(out, module.name, symbols);
  out.stats_.codegen_ms += ms_since(t0);
  out.stats_.wall_ms += ms_since(t0);
  return out;
}

JitModule Jit::add(const ForeignSource& source, const std::vector<std::string>& symbols,
                   CompileStats stats) {
  Engine& e = *engine_;
  const auto start = std::chrono::steady_clock::now();
  const std::string key = detail::ObjectCache::key(
      source.text, detail::ObjectCache::context(e.spec, e.options) + " tool=" + source.tool);
  std::unique_ptr<llvm::MemoryBuffer> object = e.cache.enabled() ? e.cache.load(key) : nullptr;
  if (object) {
    stats.cached = stats.kernels;
  } else {
    auto t0 = std::chrono::steady_clock::now();
    ModuleInContext made = source.make();
    stats.optimize_ms += ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    const std::unique_ptr<llvm::TargetMachine> tm =
        detail::make_target_machine(e.spec, e.options.opt_level);
    std::string code = detail::machine_code(*made.module, *tm, llvm::CodeGenFileType::ObjectFile);
    stats.codegen_ms += ms_since(t0);
    e.cache.store(key, code);
    object = llvm::MemoryBuffer::getMemBufferCopy(code, source.name + ".o");
  }
  std::lock_guard<std::mutex> lock(e.mutex);
  JitModule out;
  out.stats_ = stats;
  const auto t0 = std::chrono::steady_clock::now();
  open_dylib(out, source.name);
  if (llvm::Error err = e.jit->addObjectFile(*out.state_->dylib, std::move(object)))
    fail_load(out, fmt::format("JIT: cannot add the object of module '{}': {}", source.name,
                               message(std::move(err))));
  link(out, source.name, symbols);
  out.stats_.codegen_ms += ms_since(t0);
  out.stats_.wall_ms = ms_since(start);
  return out;
}

// Each module gets a JITDylib of its own: its symbols cannot clash with
// another module's (so kernel names need no per-compilation prefix and a
// cached object links as it is), and removing the dylib frees it all.
void Jit::open_dylib(JitModule& out, const std::string& module_name) {
  static std::atomic<uint64_t> counter{0};
  Engine& e = *engine_;
  auto jd = e.jit->createJITDylib(fmt::format("{}#{}", module_name, counter++));
  if (!jd)
    throw CodegenError(fmt::format("JIT: cannot create a library for module '{}': {}", module_name,
                                   message(jd.takeError())));
  out.state_ = std::make_unique<JitModule::State>();
  out.state_->engine = engine_;
  out.state_->dylib = &*jd;
}

// On failure, release what was added while still holding the lock (the
// JitModule destructor would take it again).
void Jit::fail_load(JitModule& out, const std::string& why) {
  llvm::consumeError(engine_->jit->getExecutionSession().removeJITDylib(*out.state_->dylib));
  out.state_.reset();
  out.symbols_.clear();
  throw CodegenError(why);
}

// Eager: the first lookup materialises (compiles or links) what defines it.
void Jit::link(JitModule& out, const std::string& module_name,
               const std::vector<std::string>& symbols) {
  Engine& e = *engine_;
  for (const std::string& name : symbols) {
    auto addr = e.jit->lookup(*out.state_->dylib, name);
    if (!addr)
      fail_load(out, fmt::format("JIT: cannot compile '{}' of module '{}': {}", name, module_name,
                                 message(addr.takeError())));
    out.symbols_[name] = addr->toPtr<void*>();
  }
  if (std::getenv("PLASTIC_PERF_MAP")) write_perf_map(out.symbols_);
}

JitModule::JitModule() = default;
JitModule::~JitModule() {
  try {
    drop();
  } catch (const CodegenError&) { // NOLINT(bugprone-empty-catch): a destructor must not throw
    // Nothing to do in a destructor: the code stays mapped until exit.
  }
}
JitModule::JitModule(JitModule&& other) noexcept = default;

JitModule& JitModule::operator=(JitModule&& other) noexcept {
  if (this != &other) {
    try {
      drop();
    } catch (const CodegenError&) { // NOLINT(bugprone-empty-catch): noexcept, as the destructor
      // As in the destructor.
    }
    state_ = std::move(other.state_);
    symbols_ = std::move(other.symbols_);
    stats_ = other.stats_;
  }
  return *this;
}

bool JitModule::loaded() const {
  return state_ != nullptr;
}

void* JitModule::address(std::string_view function) const {
  auto it = symbols_.find(std::string(function));
  if (!state_ || it == symbols_.end())
    throw CodegenError(fmt::format("JIT: no function '{}' in this module{}", function,
                                   state_ ? "" : " (dropped)"));
  return it->second;
}

void* JitModule::find(std::string_view function) const {
  auto it = symbols_.find(std::string(function));
  return state_ && it != symbols_.end() ? it->second : nullptr;
}

PackedKernel JitModule::packed(std::string_view function) const {
  auto it = symbols_.find(std::string(function) + "__packed");
  if (!state_ || it == symbols_.end())
    throw CodegenError(
        fmt::format("JIT: no packed entry for '{}' (compile with packed_entries)", function));
  return reinterpret_cast<PackedKernel>(it->second);
}

void JitModule::drop() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->engine->mutex);
    llvm::orc::ExecutionSession& session = state_->engine->jit->getExecutionSession();
    if (llvm::Error err = session.removeJITDylib(*state_->dylib)) {
      // Removal fails only on internal ORC errors; the code stays mapped.
      std::string why = message(std::move(err));
      state_.reset();
      symbols_.clear();
      throw CodegenError("JIT: cannot remove module: " + why);
    }
  }
  state_.reset();
  symbols_.clear();
}

} // namespace plastic::backend
