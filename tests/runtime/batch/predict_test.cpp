// predict(), evaluate() and the training hooks.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/train_hooks.h"
#include "runtime/io/param_table.h"
#include "runtime/train/metrics.h"
#include "tests/runtime/batch/batch_models.h"

using namespace plastic;

TEST_CASE("predict reports final outputs and per-sample losses / evaluate the accuracy",
          "[batch]") {
  test::CdeSpec spec;
  spec.S = 1;
  auto model = test::make_cde<double>(spec);
  const rt::Dataset data =
      test::make_data({6, 4, 7, 5, 3, 6, 5}, 2, 1, rt::TargetKind::Class, 3, 81);
  auto prepared = rt::prepare(model->get(), data);
  REQUIRE(prepared);
  const std::vector<double> theta = test::random_theta(model->P(), 82, 1.0);
  const std::vector<int64_t> ids = rt::all_samples(prepared.value());
  rt::BatchOptions two;
  two.threads = 2;
  auto pred = rt::predict<double>(model->get(), prepared.value(), ids, theta, two);
  REQUIRE(pred);
  const rt::Predictions<double>& p = pred.value();
  REQUIRE(p.rows() == ids.size());
  double loss = 0;
  std::vector<int64_t> labels;
  for (size_t i = 0; i < ids.size(); ++i) {
    CHECK(p.times[i] == data.samples[i].times.back());
    // Cross-entropy of the reported logits is the reported loss.
    std::vector<int64_t> label = {data.samples[i].label};
    auto ce = rt::cross_entropy<double>(p.row(i), 3, label);
    REQUIRE(ce);
    CHECK(p.sample_loss(i) == Approx(ce.value()).epsilon(1e-12));
    loss += p.sample_loss(i) / double(ids.size());
    labels.push_back(data.samples[i].label);
  }
  // The training loss of the same samples agrees (same solver, same tiles).
  std::vector<double> g(theta.size(), 0.0);
  rt::BatchLoss r = rt::loss_and_gradient<double>(model->get(), prepared.value(), ids, theta, g);
  REQUIRE(r.ok());
  CHECK(r.loss == Approx(loss).epsilon(1e-12));
  auto ev = rt::evaluate<double>(model->get(), prepared.value(), ids, theta);
  REQUIRE(ev);
  CHECK(ev.value().metric_name == "accuracy");
  CHECK(ev.value().loss == Approx(loss).epsilon(1e-12));
  CHECK(ev.value().metric == rt::accuracy_from_logits<double>(p.outputs, 3, labels).value());
  CHECK(ev.value().accuracy == ev.value().metric);
}

TEST_CASE("predict reports every observation for per-step readouts", "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_REGRESSION;
  spec.readout = PLASTIC_READOUT_EACH_OBSERVATION;
  auto model = test::make_cde<double>(spec);
  rt::Dataset data =
      test::make_data({5, 3, 6}, 2, 0, rt::TargetKind::RegressionPerStep, 3, 91, {2.0, 0.0, 1.0});
  auto prepared = rt::prepare(model->get(), data);
  REQUIRE(prepared);
  const std::vector<double> theta = test::random_theta(model->P(), 92);
  const std::vector<int64_t> ids = {2, 0, 1};
  auto pred = rt::predict<double>(model->get(), prepared.value(), ids, theta);
  REQUIRE(pred);
  const rt::Predictions<double>& p = pred.value();
  CHECK(p.first_row == std::vector<size_t>{0, 6, 11, 14});
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t k = 0; k < data.samples[size_t(ids[i])].length(); ++k)
      CHECK(p.times[p.first_row[i] + k] == data.samples[size_t(ids[i])].times[k]); // unshifted
  // The output at t0 is the readout of z0: the same for a sample alone.
  const std::vector<int64_t> alone = {0};
  auto single = rt::predict<double>(model->get(), prepared.value(), alone, theta);
  REQUIRE(single);
  for (int c = 0; c < 3; ++c)
    CHECK(single.value().row(0)[size_t(c)] == Approx(p.row(6)[size_t(c)]).epsilon(1e-14));
  auto ev = rt::evaluate<double>(model->get(), prepared.value(), ids, theta);
  REQUIRE(ev);
  CHECK(ev.value().metric_name == "mse");
  // MSE over elements = 2 * (mean 1/2 |y - t|^2 per row) / 3 outputs.
  CHECK(ev.value().metric == Approx(2 * ev.value().loss / 3).epsilon(1e-12));
}

TEST_CASE("evaluate reports AUROC, or NaN with a note when one class is present", "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_BINARY;
  spec.o = 1;
  auto model = test::make_cde<double>(spec);
  rt::Dataset data = test::make_data({5, 6, 4, 5, 6, 7}, 2, 0, rt::TargetKind::Binary, 2, 101);
  for (size_t i = 0; i < data.size(); ++i)
    data.samples[i].label = int(i % 2);
  auto prepared = rt::prepare(model->get(), data);
  REQUIRE(prepared);
  const std::vector<double> theta = test::random_theta(model->P(), 102, 1.0);
  const std::vector<int64_t> ids = rt::all_samples(prepared.value());
  auto ev = rt::evaluate<double>(model->get(), prepared.value(), ids, theta);
  REQUIRE(ev);
  auto pred = rt::predict<double>(model->get(), prepared.value(), ids, theta);
  std::vector<int64_t> labels = {0, 1, 0, 1, 0, 1};
  CHECK(ev.value().metric == rt::auroc<double>(pred.value().outputs, labels).value());
  // Beside the AUROC, the accuracy of the logit's sign (what --select
  // accuracy keeps the best epoch by), counted here by hand.
  int hits = 0;
  for (size_t i = 0; i < labels.size(); ++i)
    hits += (pred.value().outputs[i] > 0) == (labels[i] == 1);
  CHECK(ev.value().accuracy == double(hits) / double(labels.size()));
  // The training hooks validate by either value.
  for (const bool by_accuracy : {false, true}) {
    rt::HookOptions ho;
    ho.validate_by_accuracy = by_accuracy;
    rt::TrainHooks<double> hooks =
        rt::make_train_hooks<double>(model->get(), prepared.value(), &prepared.value(), ho);
    auto validated = hooks.validate(theta);
    REQUIRE(validated);
    CHECK(validated.value().metric == (by_accuracy ? ev.value().accuracy : ev.value().metric));
  }
  const std::vector<int64_t> zeros = {0, 2, 4};
  auto one_class = rt::evaluate<double>(model->get(), prepared.value(), zeros, theta);
  REQUIRE(one_class);
  CHECK(std::isnan(one_class.value().metric));
  CHECK_FALSE(one_class.value().note.empty());
  CHECK(std::isfinite(one_class.value().loss));
}

TEST_CASE("training hooks drive train_loop.h and lower the loss", "[batch]") {
  test::CdeSpec spec;
  spec.S = 1;
  auto model = test::make_cde<double>(spec);
  std::vector<int> lengths;
  for (int i = 0; i < 24; ++i)
    lengths.push_back(4 + i % 4);
  const rt::Dataset data = test::make_data(lengths, 2, 1, rt::TargetKind::Class, 3, 111);
  rt::PrepareOptions po;
  po.require_targets = true;
  auto train = rt::prepare(model->get(), data, po);
  REQUIRE(train);
  auto table = rt::ParamTable::from_abi(model->get().params, model->get().n_param_entries,
                                        model->get().n_params);
  REQUIRE(table);
  std::vector<double> theta = test::random_theta(model->P(), 112);
  const std::vector<int64_t> ids = rt::all_samples(train.value());
  const double before = rt::evaluate<double>(model->get(), train.value(), ids, theta).value().loss;

  rt::HookOptions ho;
  ho.batch_size = 8;
  ho.batch.threads = 2;
  rt::TrainHooks<double> hooks =
      rt::make_train_hooks<double>(model->get(), train.value(), &train.value(), ho);
  CHECK(hooks.batches_per_epoch == 3);
  rt::TrainConfig config;
  config.epochs = 15;
  config.optimizer.lr = 0.05;
  config.progress = false;
  config.print_summary = false;
  config.metric_mode = rt::task_metric(model->get().task).mode;
  auto outcome = rt::train<double>(table.value(), std::span<double>(theta), hooks, config);
  INFO((outcome ? std::string("ok") : outcome.describe()));
  REQUIRE(outcome);
  CHECK(outcome.value().epochs_completed == 15);
  const double after = rt::evaluate<double>(model->get(), train.value(), ids, theta).value().loss;
  CHECK(after < before);
}
