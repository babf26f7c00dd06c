// PreparedData validation (shapes, statics, labels, readouts) and tile packing.
#include <catch2/catch.hpp>

#include "runtime/batch/prepared_data.h"
#include "runtime/batch/tile.h"
#include "tests/runtime/batch/batch_models.h"

using namespace plastic;
using Catch::Matchers::Contains;

namespace {

std::string prepare_error(const plastic_model& m, const rt::Dataset& data,
                          const rt::PrepareOptions& o = {}) {
  plastic::Result<rt::PreparedData, rt::SolveFailure> p = rt::prepare(m, data, o);
  return p ? std::string("ok") : p.error().describe();
}

} // namespace

TEST_CASE("prepare names the model input when shapes do not fit", "[batch]") {
  test::CdeSpec spec;
  spec.d = 3;
  auto model = test::make_cde<double>(spec);
  const rt::Dataset data = test::make_data({5, 6}, 2, 0, rt::TargetKind::Class, 3, 1);
  CHECK_THAT(prepare_error(model->get(), data),
             Contains("model input x is path[3] but the data has 2 channels"));

  test::CdeSpec ls;
  ls.logsig = true;
  ls.d = 3;
  auto lmodel = test::make_cde<double>(ls);
  CHECK_THAT(prepare_error(lmodel->get(), data),
             Contains("model input x is path[3] logsig(depth 2, step 2) but the data has 2 "
                      "channels"));
}

TEST_CASE("prepare checks static features, labels and readouts", "[batch]") {
  test::CdeSpec spec;
  spec.S = 2;
  auto with_static = test::make_cde<double>(spec);
  const rt::Dataset no_statics = test::make_data({5, 6}, 2, 0, rt::TargetKind::Class, 3, 1);
  CHECK_THAT(prepare_error(with_static->get(), no_statics),
             Contains("has a static input (2 features) but the data has no static features"));
  const rt::Dataset three_statics = test::make_data({5, 6}, 2, 3, rt::TargetKind::Class, 3, 1);
  CHECK_THAT(prepare_error(with_static->get(), three_statics),
             Contains("model input s is static[2] but the data has 3 static features"));

  test::CdeSpec plain;
  auto model = test::make_cde<double>(plain); // 3 classes
  const rt::Dataset four_classes = test::make_data({5, 6}, 2, 0, rt::TargetKind::Class, 4, 1);
  CHECK_THAT(prepare_error(model->get(), four_classes),
             Contains("the model predicts 3 classes but the data has 4"));
  const rt::Dataset regression = test::make_data({5, 6}, 2, 0, rt::TargetKind::Regression, 3, 1);
  CHECK_THAT(prepare_error(model->get(), regression),
             Contains("task is classification but the data's targets are regression"));

  test::CdeSpec reg;
  reg.task = PLASTIC_TASK_REGRESSION;
  auto final_reg = test::make_cde<double>(reg);
  const rt::Dataset per_step =
      test::make_data({5, 6}, 2, 0, rt::TargetKind::RegressionPerStep, 3, 1);
  CHECK_THAT(prepare_error(final_reg->get(), per_step),
             Contains("target at every observation but the model reads its output at the "
                      "final time only"));

  rt::Dataset unlabelled = test::make_data({5, 6}, 2, 0, rt::TargetKind::None, 0, 1);
  CHECK(prepare_error(model->get(), unlabelled) == "ok");
  rt::PrepareOptions need;
  need.require_targets = true;
  CHECK_THAT(prepare_error(model->get(), unlabelled, need), Contains("has no targets"));

  rt::Dataset short_series = test::make_data({5, 1}, 2, 0, rt::TargetKind::Class, 3, 1);
  CHECK_THAT(prepare_error(model->get(), short_series),
             Contains("sample 's1' (index 1): the series has 1 observation"));
}

TEST_CASE("two path inputs are refused as not supported yet", "[batch]") {
  test::CdeSpec spec;
  auto model = test::make_cde<double>(spec);
  model->slots[1].source = 2; // dx from another data input than x
  const rt::Dataset data = test::make_data({5, 6}, 2, 0, rt::TargetKind::Class, 3, 1);
  CHECK_THAT(prepare_error(model->get(), data), Contains("not supported yet"));
}

TEST_CASE("a tile packs unequal lengths with per-lane ends and masks", "[batch]") {
  test::CdeSpec spec; // L = 4, final readout
  auto model = test::make_cde<double>(spec);
  const rt::Dataset data = test::make_data({5, 3, 6, 4}, 2, 0, rt::TargetKind::Class, 3, 2);
  auto prepared = rt::prepare(model->get(), data);
  REQUIRE(prepared);
  const std::vector<int64_t> batch = {2, 1, 0}; // 3 samples: one padding lane
  auto layout = rt::layout_tile(prepared.value(), batch, 4);
  REQUIRE(layout);
  const rt::TileLayout& t = layout.value();
  CHECK(t.samples == std::vector<int64_t>{2, 1, 0, 2});
  CHECK(t.real == 0b0111);
  CHECK(t.t0 == 0.0);
  CHECK(t.t_end == std::vector<double>{5, 2, 4, 0}); // padding lane ends at t0
  // Final readout: one observation per lane end, each masking its own lane.
  REQUIRE(t.observations.size() == 3);
  CHECK(t.observations[0].t == 2.0);
  CHECK(t.observations[0].lanes == 0b0010);
  CHECK(t.observations[1].t == 4.0);
  CHECK(t.observations[1].lanes == 0b0100);
  CHECK(t.observations[2].t == 5.0);
  CHECK(t.observations[2].lanes == 0b0001);
  for (const rt::TileObservation& o : t.observations) {
    CHECK(o.loss_lanes == o.lanes);
    CHECK_FALSE(rt::has_lane(o.lanes, 3));
  }
  // Natural cubic paths add no knots.
  CHECK(t.knots.empty());

  rt::TileTargets<double> targets;
  rt::build_targets(prepared.value(), t, targets);
  REQUIRE(targets.observations.size() == 3);
  const double* y = targets.observations[2].target; // lane 0 = sample 2, one-hot of its label
  for (int c = 0; c < 3; ++c)
    CHECK(y[c * 4 + 0] == (c == data.samples[2].label ? 1.0 : 0.0));
}

TEST_CASE("each-observation readout and jumps observe every data time", "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_REGRESSION;
  spec.readout = PLASTIC_READOUT_EACH_OBSERVATION;
  spec.jump = true;
  spec.interp = 0; // linear: knots at the data times
  auto model = test::make_cde<double>(spec);
  rt::Dataset data = test::make_data({3, 4}, 2, 0, rt::TargetKind::RegressionPerStep, 3, 3);
  data.samples[1].target[3 * 1 + 0] = std::nan(""); // row 1 of sample 1: partly missing
  data.samples[0].target.assign(data.samples[0].target.size(), 0.5);
  for (int c = 0; c < 3; ++c)
    data.samples[0].target[static_cast<size_t>(3 * 2 + c)] = std::nan("");
  auto prepared = rt::prepare(model->get(), data);
  REQUIRE(prepared);
  CHECK(prepared.value().partly_missing_rows() == 1);
  CHECK(prepared.value().sample(0).target_terms == 2);
  CHECK(prepared.value().sample(1).target_terms == 3);
  const std::vector<int64_t> batch = {0, 1};
  auto layout = rt::layout_tile(prepared.value(), batch, 4);
  REQUIRE(layout);
  const rt::TileLayout& t = layout.value();
  REQUIRE(t.observations.size() == 4); // t = 0, 1, 2, 3
  CHECK(t.observations[0].lanes == 0b11);
  CHECK(t.observations[1].lanes == 0b11);
  CHECK(t.observations[1].loss_lanes == 0b01); // sample 1's row 1 has a NaN
  CHECK(t.observations[2].lanes == 0b11);
  CHECK(t.observations[2].loss_lanes == 0b10); // sample 0's row 2 is all NaN
  CHECK(t.observations[3].lanes == 0b10);
  for (const rt::TileObservation& o : t.observations)
    CHECK(o.jump);
  CHECK(t.knots == std::vector<double>{1.0, 2.0});
}

TEST_CASE("samples starting at different times are aligned or refused", "[batch]") {
  test::CdeSpec spec;
  auto model = test::make_cde<double>(spec);
  const rt::Dataset data = test::make_data({4, 4}, 2, 0, rt::TargetKind::Class, 3, 4, {0.0, 10.0});
  auto aligned = rt::prepare(model->get(), data);
  REQUIRE(aligned);
  CHECK(aligned.value().sample(1).shift == 10.0);
  const std::vector<int64_t> both = {0, 1};
  CHECK(rt::layout_tile(aligned.value(), both, 4));
  rt::PrepareOptions raw;
  raw.align_start = false;
  auto unaligned = rt::prepare(model->get(), data, raw);
  REQUIRE(unaligned);
  auto layout = rt::layout_tile(unaligned.value(), both, 4);
  REQUIRE_FALSE(layout);
  CHECK_THAT(layout.error().describe(), Contains("start at different times"));
}
