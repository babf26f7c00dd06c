// A model compiling in the background (compiler/backend/background_model.h):
// its table is usable at once, says what the compiled table says, and a
// training step taken through it before the compilation ends gives the
// compiled kernels' results bit for bit; a failed compilation is rethrown.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "compiler/backend/background_model.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/loops/error.h"
#include "runtime/app/synthetic_data.h"
#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/init/init.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;
using backend::BackgroundModel;
using backend::CompiledModel;

namespace {

struct Step {
  double loss = 0;
  std::vector<double> grad;
};

// One batch's loss and gradient through `m`'s kernels, on two threads.
Step training_step(const plastic_model& m) {
  rt::Dataset data = rt::synthetic_dataset(m, 6, 12, 3);
  auto prepared = rt::prepare(m, data, {});
  REQUIRE(prepared.ok());
  std::vector<double> theta(static_cast<size_t>(m.n_params));
  REQUIRE(rt::initialise_parameters<double>(m, std::span<double>(theta), 7).ok());
  Step out;
  out.grad.assign(theta.size(), 0.0);
  const std::vector<int64_t> samples = {0, 1, 2, 3, 4, 5};
  rt::BatchOptions options;
  options.threads = 2;
  rt::BatchLoss loss = rt::loss_and_gradient<double>(m, prepared.value(), samples, theta,
                                                     std::span<double>(out.grad), options);
  REQUIRE(loss.ok());
  out.loss = loss.loss;
  return out;
}

void** slots(plastic_kernels& k) {
  return reinterpret_cast<void**>(&k);
}

} // namespace

TEST_CASE("a model compiling in the background trains at once with the compiled kernels' bits",
          "[model][kernels][background]") {
  const auto use = abi::GradientUse::Backprop;
  for (const char* file : {"fwp_delta_cde.ode", "ode_rfwp.ode", "ncde_character.ode"}) {
    INFO(file);
    model::ModelFunctions fns = test::load_example(file);
    auto compile = [&] {
      return backend::compile_model(fns, loops::ElemType::F64, 0, {}, backend::LoadOrder::AllAtOnce,
                                    use);
    };
    CompiledModel reference = compile();
    // Late on purpose (the kernel cache may make compiling instant): the
    // step below must meet kernels that are not there yet.
    BackgroundModel bm(fns, loops::ElemType::F64, 0, use, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return compile();
    });
    const plastic_model& m = bm.table();
    const plastic_model& r = reference.table();
    CHECK(std::string(m.name) == r.name);
    CHECK(m.n_state == r.n_state);
    CHECK(m.n_params == r.n_params);
    CHECK(m.n_input == r.n_input);
    CHECK(m.lanes == r.lanes);
    CHECK(m.dtype == r.dtype);
    CHECK(std::memcmp(&m.scratch, &r.scratch, sizeof m.scratch) == 0);
    // A slot is set exactly where the compiled table's is.
    plastic_kernels mk = m.kernels, rk = r.kernels;
    for (size_t i = 0; i < sizeof(plastic_kernels) / sizeof(void*); ++i) {
      INFO("kernel slot " << i);
      CHECK((slots(mk)[i] != nullptr) == (slots(rk)[i] != nullptr));
    }
    // Taken before wait(): the kernels wait for themselves, on the batch's threads.
    const Step through_waiting = training_step(m);
    const Step compiled = training_step(r);
    CHECK(std::memcmp(&through_waiting.loss, &compiled.loss, sizeof(double)) == 0);
    CHECK(through_waiting.grad == compiled.grad);
    CHECK(bm.wait().kernels > 0);
    CHECK(bm.seconds() > 0);
  }
}

TEST_CASE("a model loading its first step first trains with the compiled kernels' bits",
          "[model][kernels][background]") {
  // The training commands' order (LoadOrder::FirstStepFirst): wait()
  // returns after the first load, the waiting slots of the deferred kernels
  // wait for the second, and every result is the complete model's.
  model::ModelFunctions fns = test::load_example("fwp_delta_cde.ode");
  for (const auto use : {abi::GradientUse::Backprop, abi::GradientUse::Adjoint}) {
    auto compile = [&](backend::LoadOrder order) {
      return backend::compile_model(fns, loops::ElemType::F64, 0, {}, order, use);
    };
    CompiledModel reference = compile(backend::LoadOrder::AllAtOnce);
    BackgroundModel bm(fns, loops::ElemType::F64, 0, use,
                       [&] { return compile(backend::LoadOrder::FirstStepFirst); });
    const Step through_waiting = training_step(bm.table());
    const Step compiled = training_step(reference.table());
    CHECK(std::memcmp(&through_waiting.loss, &compiled.loss, sizeof(double)) == 0);
    CHECK(through_waiting.grad == compiled.grad);
    CHECK(bm.wait().kernels > 0);
    CHECK(bm.deferred() == (use == abi::GradientUse::Adjoint ? 3 : 2));
    // A deferred kernel called through the waiting table: it waits for the
    // second load and then runs the compiled field.
    const plastic_model& m = bm.table();
    const plastic_model& r = reference.table();
    std::vector<double> theta(static_cast<size_t>(m.n_params), 0.01);
    std::vector<double> z(static_cast<size_t>(m.n_state * m.lanes), 0.1);
    std::vector<double> u(static_cast<size_t>(std::max<int64_t>(1, m.n_input) * m.lanes), 0.2);
    std::vector<double> dz_waiting(z.size()), dz_compiled(z.size());
    std::vector<char> bytes(static_cast<size_t>(m.scratch.field) + 64);
    void* scratch =
        reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(bytes.data()) + 63) & ~uintptr_t(63));
    m.kernels.field(m.ctx, 0.5, z.data(), theta.data(), u.data(), dz_waiting.data(), scratch);
    r.kernels.field(r.ctx, 0.5, z.data(), theta.data(), u.data(), dz_compiled.data(), scratch);
    CHECK(dz_waiting == dz_compiled);
  }
}

TEST_CASE("a failed background compilation is rethrown by every wait", "[model][background]") {
  model::ModelFunctions fns = test::load_example("fwp_delta_cde.ode");
  BackgroundModel bm(fns, loops::ElemType::F32, 0, abi::GradientUse::None,
                     []() -> CompiledModel { throw loops::CodegenError("no machine code today"); });
  CHECK(bm.table().n_params > 0); // the table is there all the same
  CHECK(bm.table().kernels.step != nullptr);
  CHECK_THROWS_WITH(bm.wait(), Catch::Contains("no machine code today"));
  CHECK_THROWS_AS(bm.wait(), loops::CodegenError);
}
