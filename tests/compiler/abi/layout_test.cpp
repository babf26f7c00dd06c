// Layout and table of compiled models: every example's table passes the
// runtime's validate_model, and the parameter, state and input tables agree
// with the checked model (offsets, shapes, initialisers).
#include <catch2/catch.hpp>

#include "compiler/abi/layout.h"
#include "runtime/solvers/model_view.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;
using namespace plastic::model;
using namespace plastic::abi;

TEST_CASE("layout of every example matches the DSL", "[model][layout]") {
  for (const std::string& file : test::example_files()) {
    INFO(file);
    ModelFunctions fns = test::load_example(file);
    ModelLayout L = compute_layout(fns);
    const dsl::CheckedModel& m = *fns.model;
    CHECK(L.n_state == m.state_size());
    CHECK(L.n_params == m.param_count());
    REQUIRE(L.params.size() == m.params.size());
    for (size_t i = 0; i < m.params.size(); ++i) {
      const dsl::ParamInfo& p = m.params[i];
      const plastic_param& c = L.params[i].c;
      CHECK(L.params[i].name == p.name);
      CHECK(c.offset == p.offset);
      REQUIRE(c.rank == static_cast<int32_t>(p.shape.size()));
      for (size_t d = 0; d < p.shape.size(); ++d)
        CHECK(c.shape[d] == p.shape[d]);
      CHECK(c.fan_in == p.init.fan_in);
      CHECK(c.fan_out == p.init.fan_out);
      CHECK(c.init_group == p.init.group);
      plastic_param expect{};
      fill_init(p.init, m.solver.step, expect);
      CHECK(c.init == expect.init);
    }
    int64_t next = 0;
    for (const InputSlot& s : L.inputs) {
      CHECK(s.c.offset == next);
      next += s.c.channels;
    }
    CHECK(next == L.n_input);
    for (const dsl::StateInfo& s : m.states)
      CHECK(L.state(s.name)->offset == s.offset);
  }
}

TEST_CASE("init kinds map to the ABI with their arguments", "[model][layout]") {
  plastic_param p{};
  dsl::InitInfo init;
  init.kind = dsl::InitKind::Normal;
  init.args = {{"std", 0.5}, {"mean", 2.0}};
  fill_init(init, 0.1, p);
  CHECK(p.init == PLASTIC_INIT_NORMAL);
  CHECK(p.init_args[0] == 0.5);
  CHECK(p.init_args[1] == 2.0);
  init.kind = dsl::InitKind::Uniform;
  init.args = {{"lo", -3.0}, {"hi", 4.0}};
  fill_init(init, 0.1, p);
  CHECK(p.init == PLASTIC_INIT_UNIFORM);
  CHECK(p.init_args[0] == -3.0);
  CHECK(p.init_args[1] == 4.0);
  init.kind = dsl::InitKind::StabilityInformed;
  init.args = {{"depth", 3.0}};
  fill_init(init, 0.25, p);
  CHECK(p.init == PLASTIC_INIT_STABILITY_INFORMED);
  CHECK(p.init_args[0] == 0.25);
  init.kind = dsl::InitKind::Critical;
  fill_init(init, 0.25, p);
  CHECK(p.init == PLASTIC_INIT_CRITICAL);
  CHECK(p.init_args[0] == 0.0);
  CHECK(p.init_args[1] == 3.0);
  init.kind = dsl::InitKind::Constant;
  init.args = {{"value", 1.5}};
  fill_init(init, 0.25, p);
  CHECK(p.init == PLASTIC_INIT_CONSTANT);
  CHECK(p.init_args[0] == 1.5);
}

TEST_CASE("task, readout and inputs of representative models", "[model][layout]") {
  {
    ModelLayout L = compute_layout(test::load_example("fwp_delta_cde.ode"));
    CHECK(L.task == PLASTIC_TASK_CLASSIFICATION);
    CHECK(L.readout == PLASTIC_READOUT_FINAL);
    CHECK(L.step_method == "rk4");
  }
  {
    ModelLayout L = compute_layout(test::load_example("ode_rfwp.ode"));
    CHECK(L.task == PLASTIC_TASK_REGRESSION);
    CHECK(L.readout == PLASTIC_READOUT_EACH_OBSERVATION);
    CHECK(L.observe_after_jump == 1);
    CHECK(L.step_method == "dopri5");
    REQUIRE(L.inputs.size() == 1);
    CHECK(L.inputs[0].c.kind == PLASTIC_INPUT_PATH_VALUE);
  }
  {
    ModelLayout L = compute_layout(test::load_example("ncde_sepsis_static.ode"));
    CHECK(L.task == PLASTIC_TASK_BINARY);
    CHECK(L.n_static == 7); // 5 demographics + the OI setting's two Unit-recorded flags
    CHECK(L.n_targets == 1);
  }
  {
    ModelLayout L = compute_layout(test::load_example("nrde_depth2.ode"));
    bool logsig = false;
    for (const InputSlot& s : L.inputs)
      if (s.c.kind == PLASTIC_INPUT_LOGSIG_DRIVER) {
        logsig = true;
        CHECK(s.c.channels == 15);
        CHECK(s.c.path_channels == 5);
        CHECK(s.c.logsig_depth == 2);
        CHECK(s.c.logsig_step == 4);
      }
    CHECK(logsig);
    CHECK(L.n_targets == 3);
  }
}
