// Filling the plastic_model table (see table.h).
#include "compiler/abi/table.h"

#include <cstring>

#include <fmt/format.h>

#include "runtime/support/internal_error.h"

namespace plastic::abi {

// Both structs and KernelId come from runtime/abi_kernels.def: the member of
// each id is found by name, not by its position. The AOT table's LLVM types
// also rely on the members being in KernelId order, one pointer (uint64_t)
// each.
namespace {
constexpr size_t nth(KernelId id, size_t size) {
  return static_cast<size_t>(id) * size;
}
} // namespace
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  static_assert(offsetof(plastic_kernels, name) == nth(KernelId::Id, sizeof(void*)));              \
  static_assert(offsetof(plastic_scratch_sizes, name) == nth(KernelId::Id, sizeof(uint64_t)));
#include "runtime/abi_kernels.def"
static_assert(sizeof(plastic_kernels) == kKernelCount * sizeof(void*));
static_assert(sizeof(plastic_scratch_sizes) == kKernelCount * sizeof(uint64_t));

void** kernel_slot(plastic_kernels& k, KernelId id) {
  switch (id) {
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  case KernelId::Id:                                                                               \
    return reinterpret_cast<void**>(&k.name);
#include "runtime/abi_kernels.def"
  }
  throw plastic::InternalError(
      fmt::format("no kernel slot for kernel id {}", static_cast<int>(id)));
}

uint64_t* scratch_slot(plastic_scratch_sizes& s, KernelId id) {
  switch (id) {
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  case KernelId::Id:                                                                               \
    return &s.name;
#include "runtime/abi_kernels.def"
  }
  throw plastic::InternalError(
      fmt::format("no scratch slot for kernel id {}", static_cast<int>(id)));
}

void fill_table(const ModelLayout& L, const ModelKernels& kernels, loops::ElemType type, int lanes,
                const std::function<void*(KernelId)>& address, ModelTable& out) {
  out.slots.clear();
  for (const InputSlot& s : L.inputs) {
    plastic_input_slot c = s.c;
    c.name = s.name.c_str();
    out.slots.push_back(c);
  }
  out.params.clear();
  for (const ParamEntry& p : L.params) {
    plastic_param c = p.c;
    c.name = p.name.c_str();
    out.params.push_back(c);
  }
  plastic_model& m = out.model;
  std::memset(&m, 0, sizeof m);
  m.abi_version = PLASTIC_ABI_VERSION;
  m.struct_size = sizeof(plastic_model);
  m.name = L.name.c_str();
  m.dtype = type == loops::ElemType::F32 ? PLASTIC_F32 : PLASTIC_F64;
  m.lanes = lanes;
  m.n_state = L.n_state;
  m.n_params = L.n_params;
  m.n_input = L.n_input;
  m.n_static = L.n_static;
  m.n_outputs = L.n_outputs;
  m.n_targets = L.n_targets;
  m.n_input_slots = static_cast<int32_t>(out.slots.size());
  m.input_slots = out.slots.empty() ? nullptr : out.slots.data();
  m.n_param_entries = static_cast<int32_t>(out.params.size());
  m.params = out.params.empty() ? nullptr : out.params.data();
  m.solver = L.solver;
  m.solver.method = L.solver_method.c_str();
  m.gradient = L.gradient;
  m.step_method = L.step_method.empty() ? nullptr : L.step_method.c_str();
  m.readout = L.readout;
  m.task = L.task;
  m.observe_after_jump = L.observe_after_jump;
  m.field_theta_begin = L.field_theta_begin;
  m.field_theta_end = L.field_theta_end;
  m.ctx = nullptr; // compiled kernels carry their constants in their code
  for (int i = 0; i < kKernelCount; ++i) {
    KernelId id = static_cast<KernelId>(i);
    const loops::Function* f = kernels.get(id);
    *kernel_slot(m.kernels, id) = f ? address(id) : nullptr;
    *scratch_slot(m.scratch, id) = f ? static_cast<uint64_t>(f->scratch_bytes) : 0;
  }
}

} // namespace plastic::abi
