// The KernelCase of every kernel of a compiled model: its ABI arguments and
// its reference built from the model's IR functions (kernel_harness.h).
#pragma once

#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/model/model_functions.h"
#include "runtime/abi.h"
#include "tests/compiler/abi/kernel_harness.h"

namespace plastic::test {

std::vector<KernelCase> make_cases(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                   const plastic_model& table);

} // namespace plastic::test
