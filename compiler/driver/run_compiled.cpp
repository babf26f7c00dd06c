// Compile a model and run a runtime command on it (see run_compiled.h).
#include "compiler/driver/run_compiled.h"

#include "compiler/backend/compiled_model.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/error.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <fmt/format.h>

namespace plastic::driver {

// Samples per tile. PLASTIC_LANES sets it: a number, or "native" for the
// widest register of this machine. Otherwise the widest register (16 x f32
// with AVX-512: 1.3x faster per sample than one 256-bit vector on the Delta
// CDE) unless its fewer, wider tiles leave threads idle that 256-bit tiles
// would keep busy: the README's batch of 10 on two cores is one 16-lane tile
// on one core (11.7 s) or two 8-lane tiles on two (9.9 s). Both widths are
// checked against the interpreter (tests/compiler/abi/kernels_test.cpp).
int tile_lanes(loops::ElemType type, int64_t batch, int threads) {
  if (const char* env = std::getenv("PLASTIC_LANES"))
    return std::string(env) == "native" ? backend::target_lanes(type) : std::atoi(env);
  const int narrow = loops::default_lanes(type), wide = backend::target_lanes(type);
  if (batch <= 0 || wide <= narrow) return 0;
  const int64_t workers = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  auto tiles = [&](int lanes) { return (batch + lanes - 1) / lanes; };
  return tiles(wide) >= std::min(workers, tiles(narrow)) ? wide : 0;
}

int run_compiled(const std::string& file, const std::string& dtype, const CommonOptions& common,
                 const std::function<int(const plastic_model&, const nlohmann::json& dims)>& body,
                 int64_t batch, int threads) {
  int code = kOk;
  auto start = std::chrono::steady_clock::now();
  auto fns = load_model(file, common, code);
  if (!fns) return code;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& d : fns->model->dims) {
    dims[d.name] = d.value;
    if (!d.from_data.empty() && !d.overridden)
      std::cerr << fmt::format("dim       {} = {} (from the data: {} {})\n", d.name, d.value,
                               d.value, d.from_data);
  }
  backend::CompiledModel compiled;
  try {
    const loops::ElemType type = dtype == "f64" ? loops::ElemType::F64 : loops::ElemType::F32;
    compiled = compile_with(common.backend, *fns, type, tile_lanes(type, batch, threads));
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", file, e.what());
    return kInputError;
  } catch (const loops::CodegenError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", file, e.what());
    return kInputError;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const plastic_model& m = compiled.table();
  std::cerr << fmt::format(
      "model     {} ({}), {} parameters, state {}, {} x {} lanes, compiled in {:.2f} s{}\n", m.name,
      file, m.n_params, m.n_state, dtype, m.lanes, seconds,
      common.backend == Backend::Cpp ? " (C++ backend)" : "");
  return body(m, dims);
}

} // namespace plastic::driver
