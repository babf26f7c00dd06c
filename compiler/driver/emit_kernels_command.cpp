// `plastic emit --loops|--llvm [--opt]|--cpp|--cpp-header FILE`: the
// model's ABI kernels as loop IR, as LLVM IR straight from the lowering (or
// after O3 with --opt), or as the C++ backend's formatted source and header.
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/cpp/cpp_backend.h"
#include "compiler/backend/llvm/aot.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/elem_type.h"
#include "compiler/loops/error.h"
#include "compiler/loops/loop_printer.h"
#include "dsl/frontend.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace plastic::driver {

int emit_kernels(const model::ModelFunctions& fns, const std::string& stage, bool optimized,
                 const std::string& dtype, std::ostream& out, const std::string& source_name,
                 const std::string& source_text) {
  loops::ElemType type = loops::elem_type(dtype);
  try {
    if (stage == "cpp" || stage == "cpp-header") {
      // Comments quote the model's lines under the file's own name, so the
      // text does not depend on the folder it was emitted from.
      backend::cpp::GeneratedCpp g = backend::cpp::generate(
          fns, type, 0, std::filesystem::path(source_name).filename().string(), source_text);
      out << (stage == "cpp" ? g.source : g.header);
      return kOk;
    }
    abi::ModelLayout layout = abi::compute_layout(fns);
    abi::ModelKernels kernels = backend::assemble_kernels(fns, layout, type, 0, layout.name + "_");
    if (stage == "loops")
      out << loops::print(kernels.module);
    else
      out << backend::emit_llvm_ir(kernels.module, {}, optimized);
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic emit: {}\n", e.what());
    return kInputError;
  }
  return kOk;
}

int run_emit_kernels(const std::string& file, const std::string& stage, bool optimized,
                     const std::string& dtype, const CommonOptions& common) {
  int code = kOk;
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  std::string text;
  std::string why;
  if ((stage == "cpp" || stage == "cpp-header") && !dsl::read_file(file, text, &why)) {
    std::cerr << fmt::format("plastic emit: cannot read '{}': {}\n", file, why);
    return kInputError;
  }
  return emit_kernels(*fns, stage, optimized, dtype, std::cout, file, text);
}

} // namespace plastic::driver
