// The stages `plastic emit` prints, as functions of an already loaded model
// and a stream, so that `plastic emit` and the REPL's `emit` print the same
// text from the same code. The command-line wrappers (run_emit,
// run_emit_kernels in commands.h) load the file and call these.
#pragma once

#include <ostream>
#include <string>

#include "compiler/driver/commands.h"
#include "compiler/model/model_functions.h"

namespace plastic::driver {

/// The stages emit_stage and emit_kernels know, in the order `help` lists them.
inline constexpr const char* kEmitStages[] = {"ast",   "ir",   "grad-ir",  "step-ir", "stats",
                                              "loops", "llvm", "llvm-opt", "cpp",     "cpp-header"};

/// `--ast`: the model given as text (`name` for diagnostics) parsed and
/// printed back as source. Returns the exit code; diagnostics go to stderr.
int emit_ast(const std::string& name, const std::string& text, const CommonOptions& common,
             std::ostream& out);

/// `--ir`, `--grad-ir`, `--step-ir` or `--stats` of a loaded model.
int emit_functions(const model::ModelFunctions& fns, const std::string& stage, std::ostream& out);

/// `--loops`, `--llvm` (after O3 when `optimized`), `--cpp` or
/// `--cpp-header` of a loaded model's kernels with element type `dtype`
/// ("f32" | "f64"). The C++ stages quote the model's lines from
/// `source_text` under the file name of `source_name`.
int emit_kernels(const model::ModelFunctions& fns, const std::string& stage, bool optimized,
                 const std::string& dtype, std::ostream& out, const std::string& source_name = {},
                 const std::string& source_text = {});

} // namespace plastic::driver
