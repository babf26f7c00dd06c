// The C++ backend's source: a model's ABI kernels as one readable C++ file.
//
//   abi::ModelKernels k = abi::build_kernels(fns, layout, type, lanes, layout.name + "_");
//   std::string cpp = emit_cpp(layout, k, {.source_name = "delta.ode", .source_text = text});
//   std::string h   = emit_cpp_header(k);
//
// The file needs nothing of Plastic but runtime/abi.h (and the C++ standard
// library's <cmath>): the element type `T` and the lanes `L` are constants
// of the file, every kernel of loops::Module is an `extern "C"` function
// with the signature of runtime/abi.h (kernel_writer.h: one `#pragma omp
// simd` lane loop per loop-IR statement), and with `table` the plastic_model
// table is a constant with designated initialisers — so the compiler checks
// every field name against abi.h — returned by `plastic_model_v1()`.
//
// Math: the per-lane semantics of loops/loop_scalar_math.h, written out with
// the C++ library's functions (std::exp, std::tanh, ... of the element
// type) — the same formulas as the reference interpreter, at the accuracy of
// the C library rather than the LLVM backend's polynomials
// (llvm/vector_math.h). std::fma is the loop IR's fused multiply-add.
#pragma once

#include <map>
#include <string>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"

namespace plastic::backend::cpp {

struct CppEmitOptions {
  /// The model file's name and text: each block's comment quotes the line
  /// it came from. Empty: comments without source lines.
  std::string source_name;
  std::string source_text;
  /// Emit the plastic_model table and PLASTIC_MODEL_ENTRY_SYMBOL (an AOT
  /// object or generated/); off for the JIT, which builds its own table.
  bool table = true;
  /// Also `<kernel>__packed(const uint64_t* slots)` per kernel (loops/args.h).
  bool packed_entries = false;
  /// Extra exported NUL-terminated strings, symbol -> text (as
  /// emit_model_object's `strings`: a model binary's metadata).
  std::map<std::string, std::string> strings;
};

/// The C++ source of every kernel of `kernels` (unformatted: see format.h).
std::string emit_cpp(const abi::ModelLayout& layout, const abi::ModelKernels& kernels,
                     const CppEmitOptions& options = {});

/// The C header of that source: the kernels' prototypes (loops::c_header)
/// and, when the source has the table, the entry point.
std::string emit_cpp_header(const abi::ModelKernels& kernels, bool table = true);

} // namespace plastic::backend::cpp
