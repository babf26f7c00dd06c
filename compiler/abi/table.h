// Filling a plastic_model table (runtime/abi.h) from a model's layout and
// its kernels. The JIT path points the kernel slots at JIT addresses; the AOT
// path (aot_table.cpp) uses the same filled table as the template of the
// LLVM constants it emits, so both produce the same table.
#pragma once

#include <functional>
#include <vector>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"
#include "runtime/abi.h"

namespace plastic::abi {

/// The table and the arrays it points to; strings point into the layout,
/// which must outlive (and not move under) the table.
struct ModelTable {
  std::vector<plastic_input_slot> slots;
  std::vector<plastic_param> params;
  plastic_model model{};
};

/// Fills `out` (its pointers into out.slots/out.params and the layout's
/// strings). `address(id)` gives the kernel's entry, or null. `out` must
/// not move afterwards (its model points into its own vectors).
void fill_table(const ModelLayout& layout, const ModelKernels& kernels, loops::ElemType type,
                int lanes, const std::function<void*(KernelId)>& address, ModelTable& out);

/// The kernel pointer slot of `id` inside a plastic_kernels.
void** kernel_slot(plastic_kernels& k, KernelId id);
/// The scratch size slot of `id` inside plastic_scratch_sizes.
uint64_t* scratch_slot(plastic_scratch_sizes& s, KernelId id);

} // namespace plastic::abi
