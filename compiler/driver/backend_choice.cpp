// Choosing the backend (backend_choice.h).
#include "compiler/driver/backend_choice.h"

#include "compiler/backend/cpp/cpp_backend.h"

namespace plastic::driver {

void add_backend_option(CLI::App& cmd, std::string& name) {
  cmd.add_option("--backend", name,
                 "Kernels from LLVM IR (llvm, default) or from generated C++ compiled by Clang "
                 "(cpp)")
      ->check(CLI::IsMember({"llvm", "cpp"}));
}

Backend parse_backend(const std::string& name) {
  return name == "cpp" ? Backend::Cpp : Backend::Llvm;
}

backend::CompiledModel compile_with(Backend backend, const model::ModelFunctions& fns,
                                    loops::ElemType type, int lanes,
                                    const backend::CompileOptions& options, abi::GradientUse use,
                                    backend::LoadOrder order) {
  return backend == Backend::Cpp ? backend::cpp::compile_model(fns, type, lanes, options)
                                 : backend::compile_model(fns, type, lanes, options, order, use);
}

backend::CompileStats emit_object_with(Backend backend, const model::ModelFunctions& fns,
                                       loops::ElemType type, const std::string& object_path,
                                       const std::string& header_path, int lanes,
                                       const backend::CompileOptions& options,
                                       const std::map<std::string, std::string>& strings) {
  if (backend == Backend::Cpp)
    return backend::cpp::emit_model_object(fns, type, object_path, header_path, lanes, options,
                                           strings);
  return backend::emit_model_object(fns, type, object_path, header_path, lanes, options, strings);
}

} // namespace plastic::driver
