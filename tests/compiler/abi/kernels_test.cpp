// Every kernel of every example model, JIT-compiled in f64 and f32, against
// the reference interpreter on the same IR functions and the same random
// inputs, for batches of 1, L-1, L+1 and 3L+2 samples (one tile, a padded
// tile, several tiles with the last one padded), at the default 256-bit tile
// and again at the target's widest vector (16 x f32 with AVX-512), the width
// the driver runs; every table passes the runtime's validate_model. f32
// errors are judged against the interpreter's own f32 rounding
// (kernel_harness.h, judge), which a 1e-4 error still exceeds.
//
// The same checks run on the C++ backend (kernels emitted as C++, compiled
// in process by Clang), f64 within 1e-12 relative, and its kernels are
// compared with the LLVM backend's on the same random arguments. In the
// default suite every example runs through the C++ backend once (f64 and
// f32 alternately); the [slow] cases run every example in both types.
#include <catch2/catch.hpp>

#include <cmath>

#include <fmt/format.h>

#include "compiler/abi/random_args.h"
#include "compiler/backend/compiled_model.h"
#include "compiler/backend/cpp/cpp_backend.h"
#include "runtime/solvers/model_view.h"
#include "tests/compiler/abi/kernel_cases.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;
using namespace plastic::model;
using namespace plastic::abi;
using namespace plastic::backend;

namespace {

// How many times the f32 interpreter's rounding error a kernel may show
// (test::judge): the kernels sum in another order (register-blocked
// contractions, FMA contraction), so their rounding differs from the
// interpreter's but is of the same size. Where the bound is the
// interpreter's error at all, the kernels' worst over every example was 0.9x
// of it (fwp_delta_cde_predelta's output at 16 lanes).
constexpr double kRoundingFactor = 4;

// A backend's compile function (backend::compile_model, cpp::compile_model).
using Compile = CompiledModel (*)(const ModelFunctions&, loops::ElemType, int,
                                  const CompileOptions&);

// Lanes 0: the default tile, one 256-bit vector. Wide tiles (the target's
// widest vector) run on batches 1 and L + 1 only: one padded tile, and a
// full tile followed by a padded one. `f64_tol`: the relative error allowed
// in f64 (the LLVM backend's polynomial math: 1e-10; the C++ backend, which
// calls the same libm as the interpreter: 1e-12).
void check_compiled(const std::string& file, const ModelFunctions& fns, const CompiledModel& cm,
                    loops::ElemType type, int lanes, double f64_tol) {
  const plastic_model& m = cm.table();
  const plastic_dtype dtype = type == loops::ElemType::F64 ? PLASTIC_F64 : PLASTIC_F32;
  plastic::Status<rt::SolveFailure> st = rt::validate_model(m, dtype);
  INFO(st.describe());
  REQUIRE(st.ok());
  // The table offers what the runtime needs for the spec's own method.
  CHECK(m.kernels.field);
  CHECK(m.kernels.field_vjp);
  CHECK(m.kernels.adjoint_field);
  CHECK(m.kernels.init_state);
  CHECK(m.kernels.loss);
  CHECK(m.kernels.output);
  const double tol = type == loops::ElemType::F64 ? f64_tol : 1e-5;
  const int L = m.lanes;
  std::vector<int> batches =
      lanes == 0 ? std::vector<int>{1, L - 1, L + 1, 3 * L + 2} : std::vector<int>{1, L + 1};
  std::vector<test::KernelCase> cases = test::make_cases(fns, cm.layout(), m);
  // Steps at the spec's own step size (tsit5's large coefficients amplify
  // f32 rounding at larger h), at most 1: the random drivers here are O(1)
  // where a real log-ODE driver over a window of `step` samples is
  // O(1/step), so h * u stays at the size a real step sees; 0.1 where the
  // spec leaves the step automatic.
  const double h = m.solver.step > 0 ? std::min(m.solver.step, 1.0) : 0.1;
  uint64_t seed = 1;
  for (const test::KernelCase& k : cases) {
    std::vector<test::CaseResult> runs;
    for (int batch : batches)
      if (batch >= 1) runs.push_back(test::run_case(k, dtype, L, batch, seed++, 0.3, h));
    test::Verdict v = test::judge(runs, tol, kRoundingFactor);
    INFO(fmt::format("{} {} x {} lanes, kernel {}: {}", file,
                     type == loops::ElemType::F64 ? "f64" : "f32", L, k.name, v.message));
    CHECK(v.ok);
  }
}

// Every kernel of the C++ backend against the LLVM backend's on the same
// random arguments (abi::random_kernel_args, one tile): every array a kernel
// writes agrees within `tol` relative to the array's largest magnitude
// (NaN where the other has NaN). An adaptive step's error estimate `err` is
// a difference of two solutions that nearly cancels: its rounding is
// relative to the solution z1, which is its scale here.
void check_backends_agree(const std::string& file, const ModelFunctions& fns,
                          const CompiledModel& cpp, loops::ElemType type, double tol) {
  CompileOptions packed;
  packed.packed_entries = true;
  CompiledModel llvm = compile_model(fns, type, 0, packed);
  const double step = llvm.table().solver.step > 0 ? llvm.table().solver.step : 0.1;
  const size_t elem = type == loops::ElemType::F64 ? 8 : 4;
  int compared = 0;
  for (int i = 0; i < kKernelCount; ++i) {
    const auto id = static_cast<KernelId>(i);
    const loops::Function* f = llvm.kernels().get(id);
    REQUIRE((f == nullptr) == (cpp.kernels().get(id) == nullptr));
    if (!f) continue;
    std::mt19937_64 rng_a(7 + i), rng_b(7 + i);
    KernelArgs a = random_kernel_args(*f, step, rng_a), b = random_kernel_args(*f, step, rng_b);
    llvm.packed(id)(a.args.data());
    cpp.packed(id)(b.args.data());
    for (size_t p = 0; p < f->params.size(); ++p) {
      if (f->params[p].kind != loops::ParamKind::Buffer) continue;
      const loops::BufferDecl& d = f->buffers[f->params[p].buffer];
      if (d.readonly) continue;
      const auto n = static_cast<size_t>(f->elements(d));
      auto value = [&](const KernelArgs& k, size_t e) {
        const void* base = k.args.pointer_at(p);
        return elem == 8 ? static_cast<const double*>(base)[e]
                         : static_cast<double>(static_cast<const float*>(base)[e]);
      };
      double worst = 0;
      size_t worst_at = 0;
      auto max_norm = [&](size_t param) {
        double m = 0;
        for (size_t e = 0; e < n; ++e) {
          const void* base = a.args.pointer_at(param);
          const double x = elem == 8 ? static_cast<const double*>(base)[e]
                                     : static_cast<double>(static_cast<const float*>(base)[e]);
          if (std::isfinite(x)) m = std::max(m, std::abs(x));
        }
        return m;
      };
      double scale = max_norm(p);
      if (d.name == "err")
        for (size_t q = 0; q < f->params.size(); ++q)
          if (f->params[q].name == "z1") scale = std::max(scale, max_norm(q));
      for (size_t e = 0; e < n; ++e) {
        const double x = value(a, e), y = value(b, e);
        const double err = std::isnan(x) && std::isnan(y) ? 0 : std::abs(x - y);
        if (!(err <= worst)) {
          worst = err;
          worst_at = e;
        }
      }
      INFO(fmt::format("{} {}, kernel {}, output {}: |C++ - LLVM| = {:.3g} at [{}] ({} vs {}), "
                       "scale {:.3g}",
                       file, loops::elem_type_name(type), kernel_name(id), d.name, worst, worst_at,
                       value(b, worst_at), value(a, worst_at), scale));
      CHECK(worst <= tol * std::max(scale, 1e-300));
      ++compared;
    }
  }
  CHECK(compared > 0);
}

// The LLVM backend, everything compiled before it returns.
CompiledModel compile_now(const ModelFunctions& fns, loops::ElemType type, int lanes,
                          const CompileOptions& options) {
  return compile_model(fns, type, lanes, options);
}

void check_model(const std::string& file, loops::ElemType type, int lanes = 0,
                 Compile compile = &compile_now, double f64_tol = 1e-10) {
  ModelFunctions fns = test::load_example(file);
  check_compiled(file, fns, compile(fns, type, lanes, {}), type, lanes, f64_tol);
}

// The C++ backend's kernels (compiled once, with packed entries) against
// the interpreter and, with `against_llvm`, against the LLVM backend.
void check_cpp(const std::string& file, loops::ElemType type, bool against_llvm) {
  ModelFunctions fns = test::load_example(file);
  CompileOptions packed;
  packed.packed_entries = true;
  CompiledModel cm = cpp::compile_model(fns, type, 0, packed);
  check_compiled(file, fns, cm, type, 0, 1e-12);
  if (against_llvm) check_backends_agree(file, fns, cm, type, 1e-12);
}

// `k` with its written (Set) output `arg` scaled by 1 + eps, as an f32
// kernel wrong by a relative eps would write it.
test::KernelCase perturbed(const test::KernelCase& k, const std::string& arg, double eps, int L) {
  size_t j = 0;
  while (j < k.args.size() && k.args[j].name != arg)
    ++j;
  REQUIRE(j < k.args.size());
  REQUIRE(k.args[j].role == test::ArgSpec::Set);
  const size_t n = static_cast<size_t>(k.args[j].uniform ? k.args[j].size : k.args[j].size * L);
  test::KernelCase p = k;
  p.call = [call = k.call, j, n, eps](void* fn, const std::vector<void*>& ptrs, double t, double h,
                                      void* s) {
    call(fn, ptrs, t, h, s);
    float* out = static_cast<float*>(ptrs[j]);
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(out[i] * (1 + eps));
  };
  return p;
}

} // namespace

TEST_CASE("every kernel of every example matches the interpreter (f64)", "[model][kernels]") {
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_model(file, loops::ElemType::F64);
    }
  }
}

TEST_CASE("every kernel of every example matches the interpreter (f32)", "[model][kernels]") {
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_model(file, loops::ElemType::F32);
    }
  }
}

TEST_CASE("every kernel of every example matches the interpreter at the widest vector (f64)",
          "[model][kernels]") {
  const int lanes = backend::target_lanes(loops::ElemType::F64);
  if (lanes == 4) return; // the default tile already is the widest
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_model(file, loops::ElemType::F64, lanes);
    }
  }
}

TEST_CASE("every kernel of every example matches the interpreter at the widest vector (f32)",
          "[model][kernels]") {
  const int lanes = backend::target_lanes(loops::ElemType::F32);
  if (lanes == 8) return; // the default tile already is the widest
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_model(file, loops::ElemType::F32, lanes);
    }
  }
}

// Every example once in the default suite: f64 (and against the LLVM
// backend) and f32 alternately, so each type sees half of the zoo here and
// the [slow] cases below all of it. Two cases, so CTest runs them in parallel.
void check_cpp_half(size_t parity, loops::ElemType type) {
  const std::vector<std::string> files = test::example_files();
  for (size_t i = parity; i < files.size(); i += 2) {
    SECTION(files[i]) {
      check_cpp(files[i], type, type == loops::ElemType::F64);
    }
  }
}

TEST_CASE("every kernel of half the examples from the C++ backend matches the interpreter and "
          "the LLVM backend (f64)",
          "[model][kernels][cpp]") {
  check_cpp_half(0, loops::ElemType::F64);
}

TEST_CASE("every kernel of the other half of the examples from the C++ backend matches the "
          "interpreter (f32)",
          "[model][kernels][cpp]") {
  check_cpp_half(1, loops::ElemType::F32);
}

TEST_CASE("every kernel of every example from the C++ backend matches the interpreter (f64)",
          "[model][kernels][cpp][slow]") {
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_cpp(file, loops::ElemType::F64, true);
    }
  }
}

TEST_CASE("every kernel of every example from the C++ backend matches the interpreter (f32)",
          "[model][kernels][cpp][slow]") {
  for (const std::string& file : test::example_files()) {
    SECTION(file) {
      check_cpp(file, loops::ElemType::F32, false);
    }
  }
}

TEST_CASE("training loads what a fixed-step training step calls first, the fallbacks later",
          "[model][kernels]") {
  // The training commands' order: a fixed-step solve with fused kernels
  // never calls the unfused field kernels (runtime/solvers/model_view.cpp),
  // so they compile behind the first step; an adaptive one needs the field
  // for its first step size, so nothing waits.
  ModelFunctions fns = test::load_example("fwp_delta_cde.ode"); // rk4
  for (const GradientUse use : {GradientUse::Backprop, GradientUse::Adjoint}) {
    const bool adjoint = use == GradientUse::Adjoint;
    INFO((adjoint ? "adjoint" : "backprop"));
    CompiledModel cm =
        compile_model(fns, loops::ElemType::F64, 0, {}, LoadOrder::FirstStepFirst, use);
    const plastic_kernels& k = cm.table().kernels;
    CHECK(k.init_state != nullptr);
    CHECK(k.step != nullptr);
    CHECK(k.output != nullptr);
    CHECK(k.loss != nullptr);
    CHECK(k.output_vjp != nullptr);
    CHECK(k.loss_vjp != nullptr);
    CHECK((adjoint ? k.adjoint_step != nullptr : k.step_vjp != nullptr));
    if (!cm.all_loaded()) {
      CHECK(k.field == nullptr);
      CHECK(k.field_vjp == nullptr);
      CHECK(k.adjoint_field == nullptr);
    }
    cm.wait_for_rest();
    CHECK(cm.all_loaded());
    CHECK(k.field != nullptr);
    CHECK(k.field_vjp != nullptr);
    CHECK((k.adjoint_field != nullptr) == adjoint);
  }
  CompiledModel adaptive =
      compile_model(test::load_example("ncde_character.ode"), loops::ElemType::F64, 0, {},
                    LoadOrder::FirstStepFirst, GradientUse::Adjoint);
  CHECK(adaptive.all_loaded());
  CHECK(adaptive.table().kernels.field != nullptr);
  CHECK(adaptive.table().kernels.adjoint_field != nullptr);
}

TEST_CASE("kernels only training calls compile in the background and then match too",
          "[model][kernels]") {
  // The REPL's mode: the table predicts at once through the field kernel;
  // the gradient kernels and the fused steps arrive with wait_for_rest().
  for (const char* file : {"fwp_delta_cde.ode", "ncde_character.ode", "ode_rfwp.ode"}) {
    INFO(file);
    ModelFunctions fns = test::load_example(file);
    CompiledModel cm =
        compile_model(fns, loops::ElemType::F64, 0, {}, backend::LoadOrder::PredictFirst);
    const plastic_kernels& k = cm.table().kernels;
    const bool adaptive = cm.kernels().get(abi::KernelId::StepAdaptive) != nullptr;
    CHECK(k.field != nullptr);
    CHECK(k.output != nullptr);
    CHECK(k.loss != nullptr);
    if (!cm.all_loaded()) {
      CHECK(k.field_vjp == nullptr);
      CHECK(k.step_vjp == nullptr);
      CHECK(k.adjoint_field == nullptr);
      CHECK(k.step == nullptr);
      CHECK(k.step_adaptive == nullptr);
    }
    cm.wait_for_rest();
    CHECK(cm.all_loaded());
    CHECK(k.field_vjp != nullptr);
    CHECK(k.adjoint_field != nullptr);
    CHECK(k.step != nullptr);
    CHECK((k.step_adaptive != nullptr) == adaptive);
    cm.wait_for_rest(); // again: nothing left to wait for
  }
  check_model("ncde_character.ode", loops::ElemType::F64, 0,
              [](const ModelFunctions& fns, loops::ElemType type, int lanes,
                 const CompileOptions& options) {
                CompiledModel cm =
                    compile_model(fns, type, lanes, options, backend::LoadOrder::PredictFirst);
                cm.wait_for_rest();
                return cm;
              });
}

TEST_CASE("the f32 check catches an output off by 1e-4", "[model][kernels]") {
  // fwp_hebb_node's output is a dot product that nearly cancels, so its f32
  // bound rests on the interpreter's rounding (the yardstick of judge) rather
  // than on tol * scale: a relative error of 1e-4 must still stand out. Every
  // written output is perturbed in turn (accumulated ones are measured with
  // their random starting values, so a small increment's error is below the
  // check's resolution by design); outputs that are 0 for every sample (the
  // Hebb field does not read W, so its adjoint's da is 0) cannot be.
  const std::string file = "fwp_hebb_node.ode";
  ModelFunctions fns = test::load_example(file);
  CompiledModel cm = compile_model(fns, loops::ElemType::F32);
  const plastic_model& m = cm.table();
  const int L = m.lanes;
  const double h = m.solver.step > 0 ? std::min(m.solver.step, 1.0) : 0.1;
  auto run = [&](const test::KernelCase& k) {
    std::vector<test::CaseResult> runs;
    for (int batch : {1, L + 1})
      runs.push_back(test::run_case(k, PLASTIC_F32, L, batch, 11 + batch, 0.3, h));
    return runs;
  };
  int perturbed_outputs = 0;
  for (const test::KernelCase& k : test::make_cases(fns, cm.layout(), m)) {
    const std::vector<test::CaseResult> exact = run(k);
    REQUIRE(test::judge(exact, 1e-5, kRoundingFactor).ok);
    for (const test::ArgSpec& a : k.args) {
      if (a.role != test::ArgSpec::Set) continue;
      double scale = 0;
      for (const test::CaseResult& r : exact)
        for (double x : r.outputs.at(a.name).scale)
          scale = std::max(scale, x);
      if (scale == 0) continue;
      test::Verdict v = test::judge(run(perturbed(k, a.name, 1e-4, L)), 1e-5, kRoundingFactor);
      INFO(fmt::format("{} kernel {}, {} x (1 + 1e-4): {}", file, k.name, a.name, v.message));
      CHECK_FALSE(v.ok);
      ++perturbed_outputs;
    }
  }
  CHECK(perturbed_outputs >= 5);
}

TEST_CASE("step with z1 aliasing z0 gives the same state", "[model][kernels]") {
  ModelFunctions fns = test::load_example("fwp_delta_cde.ode");
  CompiledModel cm = compile_model(fns, loops::ElemType::F64);
  const plastic_model& m = cm.table();
  REQUIRE(m.kernels.step);
  const size_t L = static_cast<size_t>(m.lanes);
  std::vector<double> z(m.n_state * L), theta(m.n_params), u(4 * m.n_input * L), z1(z.size());
  for (size_t i = 0; i < z.size(); ++i)
    z[i] = std::sin(0.37 * i);
  for (size_t i = 0; i < theta.size(); ++i)
    theta[i] = 0.2 * std::cos(0.11 * i);
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = std::sin(0.05 * i + 1);
  std::vector<char> scratch(m.scratch.step + 64);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t(63));
  m.kernels.step(m.ctx, 0.0, 0.5, z.data(), theta.data(), u.data(), z1.data(), s);
  m.kernels.step(m.ctx, 0.0, 0.5, z.data(), theta.data(), u.data(), z.data(), s);
  CHECK(z == z1);
}

TEST_CASE("nullable cotangent outputs may be NULL", "[model][kernels]") {
  ModelFunctions fns = test::load_example("ncde_sepsis_static.ode");
  CompiledModel cm = compile_model(fns, loops::ElemType::F64);
  const plastic_model& m = cm.table();
  const size_t L = static_cast<size_t>(m.lanes);
  std::vector<double> z(m.n_state * L, 0.1), theta(m.n_params, 0.05), u(m.n_input * L, 0.2),
      a(z.size(), 1.0);
  std::vector<double> z_bar(z.size()), th_bar(theta.size()), u_bar(u.size());
  std::vector<char> scratch(m.scratch.field_vjp + 64);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t(63));
  m.kernels.field_vjp(m.ctx, 0.0, z.data(), theta.data(), u.data(), a.data(), z_bar.data(),
                      th_bar.data(), nullptr, s);
  std::vector<double> z_bar2(z.size()), th_bar2(theta.size());
  m.kernels.field_vjp(m.ctx, 0.0, z.data(), theta.data(), u.data(), a.data(), z_bar2.data(),
                      th_bar2.data(), u_bar.data(), s);
  CHECK(z_bar == z_bar2);
  CHECK(th_bar == th_bar2);
  double norm = 0;
  for (double x : u_bar)
    norm += std::abs(x);
  CHECK(norm > 0);
}
