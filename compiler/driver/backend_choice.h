// `--backend llvm|cpp`: which backend compiles a model's kernels for the
// commands that compile one (train, eval, predict, bench-train,
// bench-kernels, build). Both make the same table from the same loop IR.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "compiler/backend/compiled_model.h"
#include "compiler/driver/commands.h"

namespace plastic::driver {

/// Adds `--backend llvm|cpp` to `cmd`, stored in `name` ("llvm" by default).
void add_backend_option(CLI::App& cmd, std::string& name);
/// The Backend of a --backend value CLI11 has checked.
Backend parse_backend(const std::string& name);

/// backend::compile_model or backend::cpp::compile_model. `use` leaves
/// gradient kernels out of the LLVM backend's module and `order` defers
/// some of the rest; the C++ backend compiles its one translation unit
/// whole, at once.
backend::CompiledModel compile_with(Backend backend, const model::ModelFunctions& fns,
                                    loops::ElemType type, int lanes,
                                    const backend::CompileOptions& options = {},
                                    abi::GradientUse use = abi::GradientUse::All,
                                    backend::LoadOrder order = backend::LoadOrder::AllAtOnce);

/// backend::emit_model_object or backend::cpp::emit_model_object.
backend::CompileStats emit_object_with(Backend backend, const model::ModelFunctions& fns,
                                       loops::ElemType type, const std::string& object_path,
                                       const std::string& header_path, int lanes,
                                       const backend::CompileOptions& options,
                                       const std::map<std::string, std::string>& strings);

} // namespace plastic::driver
