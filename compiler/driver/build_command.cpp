// `plastic build FILE --emit-obj -o OUT`: an AOT object OUT.o exporting the
// model's kernels and its plastic_model table (PLASTIC_MODEL_ENTRY_SYMBOL),
// and the C header OUT.h declaring them.
#include "compiler/backend/compiled_model.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/error.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::driver {

int run_build(const std::string& file, const std::string& out, bool emit_obj,
              const std::string& dtype, const CommonOptions& common) {
  if (!emit_obj) {
    std::cerr << "plastic build: only --emit-obj is available so far (an object and its header)\n";
    return kUsageError;
  }
  int code = kOk;
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  loops::ElemType type = dtype == "f32" ? loops::ElemType::F32 : loops::ElemType::F64;
  try {
    backend::CompileStats stats = backend::emit_model_object(*fns, type, out + ".o", out + ".h");
    std::cerr << fmt::format("plastic build: wrote {0}.o and {0}.h ({1:.0f} ms in LLVM)\n", out,
                             stats.total_ms());
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic build: {}\n", e.what());
    return kInputError;
  } catch (const loops::CodegenError& e) {
    std::cerr << fmt::format("plastic build: {}\n", e.what());
    return kInputError;
  }
  return kOk;
}

} // namespace plastic::driver
