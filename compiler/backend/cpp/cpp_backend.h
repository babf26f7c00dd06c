// The C++ backend: a model's kernels as readable C++ (emit_cpp.h), formatted
// with Clang's formatter (format.h) and compiled in process with Clang's
// libraries (clang_compile.h) into the same ORC JIT as the LLVM backend, or
// into an object file for `plastic build`.
//
//   auto fns = model::build_model_functions("delta.ode", {}, status);
//   CompiledModel cm = cpp::compile_model(*fns, loops::ElemType::F32);  // as
//   backend::compile_model GeneratedCpp g = cpp::generate(*fns, loops::ElemType::F32, 0,
//   "delta.ode", text);
//
// Both backends start from the same loop IR (abi::build_kernels) and fill
// the same table (abi::fill_table), so a CompiledModel of either drives the
// runtime the same way; tests/compiler/abi/kernels_test.cpp runs every
// kernel of every example through both against the reference interpreter.
#pragma once

#include <map>
#include <string>

#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/loops/loop_ir.h"
#include "compiler/model/model_functions.h"

namespace plastic::backend::cpp {

/// The generated C++ of a model: the kernels and the table (`source`) and
/// the C header declaring them (`header`), both formatted.
struct GeneratedCpp {
  std::string source;
  std::string header;
};

/// What `plastic emit --cpp/--cpp-header` prints and generated/ holds: the
/// kernels of `fns` for `type` and `lanes` (0 = one 256-bit vector) named
/// "<model>_<kernel>", with the table. `source_name` and `source_text` (the
/// model file) let each block's comment quote its line of the model.
GeneratedCpp generate(const model::ModelFunctions& fns, loops::ElemType type, int lanes,
                      const std::string& source_name = {}, const std::string& source_text = {});

/// backend::compile_model through C++: emits the kernels as C++, compiles
/// them with Clang (-O3 for the target of `options`) to one object and
/// loads it into the shared JIT. The object goes to the on-disk kernel cache
/// beside the LLVM backend's, keyed by the source, Clang's version and
/// command line, the target and the options: a second compilation of the
/// same model skips Clang. llvm_stats(): lower_ms is emitting the C++,
/// optimize_ms Clang (front end and O3), codegen_ms machine code; cached
/// equals kernels when the object came from the cache. Packed entries are
/// emitted when options.packed_entries.
CompiledModel compile_model(const model::ModelFunctions& fns, loops::ElemType type, int lanes = 0,
                            const CompileOptions& options = {});

/// backend::emit_model_object through C++: the kernels and the table as
/// C++ compiled by Clang in process into `object_path`, and the header.
/// Same exports, same `strings`.
CompileStats emit_model_object(const model::ModelFunctions& fns, loops::ElemType type,
                               const std::string& object_path, const std::string& header_path,
                               int lanes = 0, const CompileOptions& options = {},
                               const std::map<std::string, std::string>& strings = {});

} // namespace plastic::backend::cpp
