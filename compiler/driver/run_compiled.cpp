// Compile a model and run a runtime command on it (see run_compiled.h).
#include "compiler/driver/run_compiled.h"

#include "compiler/driver/load_model.h"
#include "compiler/codegen/llvm/options.h"
#include "compiler/model/assemble/compiled_model.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

namespace plastic::driver {

int run_compiled(const std::string& file, const std::string& dtype, const CommonOptions& common,
                 const std::function<int(const plastic_model&, const nlohmann::json& dims)>& body) {
  int code = kOk;
  auto start = std::chrono::steady_clock::now();
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& d : fns->model->dims) dims[d.name] = d.value;
  model::CompiledModel compiled;
  try {
    // PLASTIC_LANES sets the tile width (samples per SIMD vector): a number,
    // or "native" for the widest register of this machine (16 x f32 with
    // AVX-512, 1.4x faster on the speech Delta CDE). The default stays one
    // 256-bit vector, the width the kernels' f32 accuracy tests run at.
    int lanes = 0;
    if (const char* env = std::getenv("PLASTIC_LANES"))
      lanes = std::string(env) == "native"
                  ? codegen::target_lanes(dtype == "f64" ? codegen::ElemType::F64 : codegen::ElemType::F32)
                  : std::atoi(env);
    compiled = model::compile_model(*fns, dtype == "f64" ? codegen::ElemType::F64 : codegen::ElemType::F32, lanes);
  } catch (const model::LayoutError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", file, e.what());
    return kInputError;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const plastic_model& m = compiled.table();
  std::cerr << fmt::format("model     {} ({}), {} parameters, state {}, {} x {} lanes, compiled in {:.2f} s\n",
                           m.name, file, m.n_params, m.n_state, dtype, m.lanes, seconds);
  return body(m, dims);
}

}  // namespace plastic::driver
