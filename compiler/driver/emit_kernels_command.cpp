// `plastic emit --loops|--llvm [--opt] FILE`: the model's ABI kernels as loop
// IR, or as LLVM IR straight from the lowering (or after O3 with --opt).
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/aot.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/error.h"
#include "compiler/loops/loop_printer.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

int emit_kernels(const model::ModelFunctions& fns, const std::string& stage, bool optimized,
                 const std::string& dtype, std::ostream& out) {
  loops::ElemType type = dtype == "f32" ? loops::ElemType::F32 : loops::ElemType::F64;
  try {
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
  return emit_kernels(*fns, stage, optimized, dtype, std::cout);
}

} // namespace plastic::driver
