// Compiling generated C++ in process with Clang's libraries, as clang-repl
// does: Clang's driver turns a `clang++` command line into a
// CompilerInvocation, a CompilerInstance runs it on the source held in
// memory, and CodeGen hands back an optimised llvm::Module (for the ORC
// JIT) or writes an object file (for `plastic build`). No compiler binary,
// no temporary files; the two headers the source includes (runtime/abi.h
// and its kernel list) are served from memory too (embedded_files.h).
//
// Flags: -std=c++20 -O3 -fopenmp-simd -fno-math-errno for the target the
// LLVM backend would use (CPU and features of CompileOptions), so both
// backends compile for the same machine. -fno-math-errno lets sqrt and the
// like be vector instructions (the LLVM backend's intrinsics never set
// errno either).
//
// Internal header of compiler/backend/cpp/: nothing outside that folder includes it.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend/llvm/jit.h"
#include "compiler/backend/llvm/options.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace plastic::backend::cpp::detail {

using ::plastic::backend::ModuleInContext;

/// A module Clang made, with the context that owns its types.
using ClangModule = ModuleInContext;

/// What, besides the source, decides what Clang makes of it: Clang's
/// version, the command line for the target of `options`, and the text of
/// the headers served from memory. The kernel cache's key for the C++
/// backend (the system's C++ headers, of which the source takes only
/// <bit>, <cmath>, <cstdint> and <type_traits> inline declarations, are not
/// hashed: they change with Clang's package, hence its version).
std::string compiler_identity(const CompileOptions& options);

/// `source` (named `file_name` in diagnostics) compiled to optimised LLVM IR
/// for the target of `options`. Throws loops::CodegenError with Clang's
/// diagnostics when it does not compile.
ClangModule compile_to_module(const std::string& source, const std::string& file_name,
                              const CompileOptions& options);

/// The same, written as an object file to `object_path`.
void compile_to_object(const std::string& source, const std::string& file_name,
                       const std::string& object_path, const CompileOptions& options);

} // namespace plastic::backend::cpp::detail
