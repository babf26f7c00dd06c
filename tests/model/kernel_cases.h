// The KernelCase of every kernel of a compiled model: its ABI arguments and
// its reference built from the model's IR functions (kernel_harness.h).
#pragma once

#include <vector>

#include "compiler/model/assemble/layout.h"
#include "compiler/model/model_functions.h"
#include "runtime/abi.h"
#include "tests/model/kernel_harness.h"

namespace plastic::test {

std::vector<KernelCase> make_cases(const model::ModelFunctions& fns, const model::ModelLayout& layout,
                                   const plastic_model& table);

}  // namespace plastic::test
