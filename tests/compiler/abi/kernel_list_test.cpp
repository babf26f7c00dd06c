// The list of ABI kernels (runtime/abi_kernels.def) and everything made from
// it agree: the C structs of runtime/abi.h (members, order, offsets), the
// compiler's KernelId, kKernelCount and kernel names, the table slots, the
// builders (each kernel's function carries its own name), and the runtime's
// max_scratch_bytes, which still lists the scratch sizes by hand.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"
#include "compiler/abi/table.h"
#include "runtime/solvers/model_view.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;
using namespace plastic::abi;

namespace {

struct Listed {
  KernelId id;
  std::string name;
  size_t kernel_offset, scratch_offset;
};

// The .def read once more, as data.
std::vector<Listed> listed() {
  return {
#define PLASTIC_ABI_KERNEL(name, Id)                                                               \
  {KernelId::Id, #name, offsetof(plastic_kernels, name), offsetof(plastic_scratch_sizes, name)},
#include "runtime/abi_kernels.def"
  };
}

} // namespace

TEST_CASE("the ABI's kernels: one list, the structs and the compiler's tables agree",
          "[abi][kernels]") {
  const std::vector<Listed> list = listed();
  REQUIRE(static_cast<int>(list.size()) == kKernelCount);
  // The ends of the list as ABI version 1 has them.
  CHECK(list.front().name == "init_state");
  CHECK(list.back().name == "jump_vjp");
  CHECK(sizeof(plastic_kernels) == kKernelCount * sizeof(void*));
  CHECK(sizeof(plastic_scratch_sizes) == kKernelCount * sizeof(uint64_t));
  plastic_kernels k{};
  plastic_scratch_sizes s{};
  for (int i = 0; i < kKernelCount; ++i) {
    const Listed& e = list[static_cast<size_t>(i)];
    INFO(e.name);
    CHECK(static_cast<int>(e.id) == i);
    CHECK(kernel_name(e.id) == e.name);
    CHECK(e.kernel_offset == static_cast<size_t>(i) * sizeof(void*));
    CHECK(e.scratch_offset == static_cast<size_t>(i) * sizeof(uint64_t));
    CHECK(reinterpret_cast<char*>(kernel_slot(k, e.id)) ==
          reinterpret_cast<char*>(&k) + e.kernel_offset);
    CHECK(reinterpret_cast<char*>(scratch_slot(s, e.id)) ==
          reinterpret_cast<char*>(&s) + e.scratch_offset);
  }
}

TEST_CASE("the runtime's max_scratch_bytes sees every kernel's scratch size", "[abi][kernels]") {
  for (int i = 0; i < kKernelCount; ++i) {
    INFO(kernel_name(static_cast<KernelId>(i)));
    plastic_model m{};
    *scratch_slot(m.scratch, static_cast<KernelId>(i)) = 4096;
    CHECK(rt::max_scratch_bytes(m) == 4096);
  }
}

TEST_CASE("each ABI kernel is built by its own builder, under its own name", "[abi][kernels]") {
  std::vector<bool> seen(kKernelCount, false);
  for (const std::string& file : test::example_files()) {
    INFO(file);
    model::ModelFunctions fns = test::load_example(file);
    ModelLayout layout = compute_layout(fns);
    ModelKernels kernels = build_kernels(fns, layout, loops::ElemType::F64, 4, "m_");
    for (int i = 0; i < kKernelCount; ++i) {
      const KernelId id = static_cast<KernelId>(i);
      const loops::Function* f = kernels.get(id);
      if (!f) continue;
      seen[static_cast<size_t>(i)] = true;
      CHECK(f->name == "m_" + std::string(kernel_name(id)));
    }
  }
  // Together the examples have every kernel.
  for (int i = 0; i < kKernelCount; ++i) {
    INFO(kernel_name(static_cast<KernelId>(i)));
    CHECK(seen[static_cast<size_t>(i)]);
  }
}
