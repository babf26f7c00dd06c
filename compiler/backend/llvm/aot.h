// Ahead-of-time compilation of loop modules: object files, assembly and
// LLVM IR text.
//
// The object is relocatable and position-independent, for the target of the
// options (the host CPU and its features by default; pass e.g.
// `cpu = "x86-64-v3"` for a binary that runs on any AVX2 machine). It needs
// no LLVM at run time; with MathMode::Polynomial (the default) it references
// no library function except sin/cos when used (libm). Its functions carry
// the C signatures that c_header() declares. JIT and AOT run the same
// lowering and pipeline for the same target, so they produce the same
// numbers.
#pragma once

#include <string>

#include "compiler/backend/llvm/options.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::backend {

/// The object file bytes (ELF on Linux). `stats`, if given, receives timings.
std::string compile_object(const loops::Module& module, const CompileOptions& options = {},
                           CompileStats* stats = nullptr);

/// Writes the object file to `object_path` and, when `header_path` is not
/// empty, the C header declaring its functions. Throws CodegenError when a
/// file cannot be written.
CompileStats emit_object(const loops::Module& module, const std::string& object_path,
                         const std::string& header_path = {}, const CompileOptions& options = {});

/// Optimised assembly (AT&T syntax) of the module: what the kernels really
/// execute (`plastic emit --asm`; the math tests inspect it for libm calls).
std::string emit_assembly(const loops::Module& module, const CompileOptions& options = {});

/// LLVM IR text, after the optimisation pipeline or straight from the
/// lowering (`plastic emit --llvm`).
std::string emit_llvm_ir(const loops::Module& module, const CompileOptions& options = {},
                         bool optimized = true);

} // namespace plastic::backend
