// Compiling a model file for the commands that run it (train, eval,
// predict): check and lower it, build and JIT its kernels for the requested
// element type, and hand the ABI table to the runtime. The runtime's
// commands (runtime/app) know nothing about how the kernels were made.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compiler/driver/commands.h"
#include "compiler/loops/loop_ir.h"
#include "runtime/abi.h"
#include "runtime/app/requests.h"

#include <nlohmann/json.hpp>

namespace plastic::driver {

/// Samples per SIMD tile for a run of `batch` samples: PLASTIC_LANES when
/// set, else the widest register unless that leaves the machine's cores idle
/// (never --threads: f64 results must not change with it); 0 = one 256-bit
/// vector (compile_model's default).
int tile_lanes(loops::ElemType type, int64_t batch);

/// Compiles `file` with `dtype` ("f32" | "f64") and calls `body` with the
/// table, the model's dims and its source (text, canonical form, --set values); returns body's exit
/// code, or the code of the compile failure (which has been printed). `batch` and `threads` (0 =
/// every core) are the samples and workers the command will run with: they choose the tile width
/// (run_compiled.cpp); batch 0 = unknown.
int run_compiled(const std::string& file, const std::string& dtype, const CommonOptions& common,
                 const std::function<int(const plastic_model&, const nlohmann::json& dims,
                                         const rt::ModelSource& source)>& body,
                 int64_t batch = 0, int threads = 0);

} // namespace plastic::driver
