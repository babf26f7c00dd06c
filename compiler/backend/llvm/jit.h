// In-process compilation of loop modules with LLVM's ORC LLJIT.
//
//   Jit jit;                                   // host CPU, O3, polynomial math
//   JitModule m = jit.add(module);             // verify, lower, optimise, codegen
//   auto* field = m.get<plastic_field_fn>("field");
//   ...
//   m.drop();                                  // or let m go out of scope
//
// Each added module lives under its own ORC ResourceTracker: dropping the
// JitModule removes its code, data and symbols, so a REPL can recompile a
// model again and again in one process without growing (tested over 200
// cycles). Compilation is eager — add() materialises every function — so
// errors surface there and the returned pointers are ready to call.
//
// Kernels are compiled one object each, on several threads, through the
// on-disk object cache (kernel_objects.h, object_cache.h). Each added module
// links into a JITDylib of its own, so modules loaded at the same time may
// define the same names (two compilations of one model); symbols of the
// process (libm for MathMode::Libm and sin/cos) resolve automatically.
//
// A Jit may be used from several threads: kernels of concurrent add()s
// compile side by side (each on threads of its own), and their linking into
// ORC is serialised.
// JitModules keep their Jit's engine alive, so they may outlive the Jit.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "compiler/backend/llvm/options.h"
#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace plastic::backend {

class JitModule;

/// An LLVM module with the context that owns its types.
struct ModuleInContext {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  ModuleInContext();
  ~ModuleInContext();
  ModuleInContext(ModuleInContext&&) noexcept;
  ModuleInContext& operator=(ModuleInContext&&) noexcept;
};

/// What a front end outside LLVM's loop lowering compiles to (the C++
/// backend's Clang): `text` is everything its output depends on besides the
/// target and the options (the source and what it includes), `tool` names
/// the front end and its version, `make` runs it and returns a module
/// already optimised for the Jit's target.
struct ForeignSource {
  std::string name;
  std::string text;
  std::string tool;
  std::function<ModuleInContext()> make;
};

class Jit {
public:
  /// Creates the JIT for the target of `options` (the host by default).
  /// Throws CodegenError when LLVM cannot target this machine.
  explicit Jit(CompileOptions options = {});
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  /// Compiles every function of `module` and returns the loaded module.
  /// Malformed loop IR throws InternalError; a name clash with a loaded
  /// module or a link failure throws CodegenError.
  JitModule add(const loops::Module& module);
  /// The same at the lowest CPU priority, for work done ahead of need (the
  /// REPL's gradient kernels), so it does not slow what the user waits for.
  JitModule add_in_background(const loops::Module& module);

  /// Loads the object of `source` from the on-disk kernel cache, keyed like
  /// the LLVM backend's (its text and tool with the target and options), or
  /// runs source.make(), generates machine code for this Jit's target and
  /// stores it there; then links `symbols` eagerly. `stats` is what making
  /// the source cost; make()'s time is added as optimize_ms (Clang's front
  /// end and O3 are one call), machine code as codegen_ms, a hit as cached.
  JitModule add(const ForeignSource& source, const std::vector<std::string>& symbols,
                CompileStats stats);

  const CompileOptions& options() const;

  struct Engine; ///< implementation (ORC objects)

private:
  // A fresh JITDylib for `out`; its symbols are looked up (and so linked)
  // by link(); fail_load() removes it and throws CodegenError(why).
  void open_dylib(JitModule& out, const std::string& module_name);
  void link(JitModule& out, const std::string& module_name,
            const std::vector<std::string>& symbols);
  [[noreturn]] void fail_load(JitModule& out, const std::string& why);
  JitModule add(const loops::Module& module, bool background);

  std::shared_ptr<Engine> engine_;
};

/// Compiled functions of one module; move-only. Destroying it (or drop())
/// frees the machine code.
class JitModule {
public:
  JitModule();
  ~JitModule();
  JitModule(JitModule&&) noexcept;
  JitModule& operator=(JitModule&&) noexcept;
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  /// Whether the code is loaded (false after drop() or when moved from).
  bool loaded() const;
  /// Entry address of a function of the module; CodegenError if unknown.
  void* address(std::string_view function) const;
  /// Entry address of a function of the module, or null if it has none.
  void* find(std::string_view function) const;
  /// The function as a typed pointer, e.g. get<plastic_field_fn>("field")
  /// or get<void(const void*, double, ...)>.
  template <class Fn> auto get(std::string_view function) const {
    if constexpr (std::is_pointer_v<Fn>)
      return reinterpret_cast<Fn>(address(function));
    else
      return reinterpret_cast<Fn*>(address(function));
  }
  /// The `<function>__packed` entry (needs CompileOptions::packed_entries).
  loops::PackedKernel packed(std::string_view function) const;
  /// Where the compile time went.
  const CompileStats& stats() const { return stats_; }
  /// Removes the module's code and symbols from the JIT. Idempotent.
  void drop();

private:
  friend class Jit;
  struct State;
  std::unique_ptr<State> state_;
  std::unordered_map<std::string, void*> symbols_;
  CompileStats stats_;
};

} // namespace plastic::backend
