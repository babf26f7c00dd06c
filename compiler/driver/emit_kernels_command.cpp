// `plastic emit --loops|--llvm [--opt] FILE`: the model's ABI kernels as loop
// IR, or as LLVM IR straight from the lowering (or after O3 with --opt).
#include "compiler/codegen/error.h"
#include "compiler/codegen/llvm/aot.h"
#include "compiler/codegen/loop_printer.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "compiler/model/assemble/compiled_model.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

int run_emit_kernels(const std::string& file, const std::string& stage, bool optimized, const std::string& dtype,
                     const CommonOptions& common) {
  int code = kOk;
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  codegen::ElemType type = dtype == "f32" ? codegen::ElemType::F32 : codegen::ElemType::F64;
  try {
    model::ModelLayout layout = model::compute_layout(*fns);
    model::ModelKernels kernels = model::assemble_kernels(*fns, layout, type, 0, layout.name + "_");
    if (stage == "loops") std::cout << codegen::print(kernels.module);
    else std::cout << codegen::emit_llvm_ir(kernels.module, {}, optimized);
  } catch (const model::LayoutError& e) {
    std::cerr << fmt::format("plastic emit: {}\n", e.what());
    return kInputError;
  }
  return kOk;
}

}  // namespace plastic::driver
