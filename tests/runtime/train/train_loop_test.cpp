// The training loop end to end on logistic regression: learning, files,
// bit-exact resume after Ctrl-C, early stopping with roll-back, failures.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include "runtime/io/checkpoint.h"
#include "runtime/io/plot.h"
#include "runtime/io/safetensors.h"
#include "runtime/train/lr_schedule.h"
#include "runtime/train/metrics.h"
#include "runtime/train/train_loop.h"
#include "tests/support/temp_dir.h"

using namespace plastic::rt;
using plastic::rt::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// y = [w.x + b + noise > 0] with w = (2, -1, 0.5), b = 0.3.
struct Data {
  std::vector<double> x; // [n, 3]
  std::vector<int64_t> y;
  explicit Data(int n, uint64_t seed) {
    Rng r(seed);
    for (int i = 0; i < n; ++i) {
      double z = 0.3 + 0.5 * r.normal();
      const double w[3] = {2, -1, 0.5};
      for (double wk : w) {
        const double v = r.normal();
        x.push_back(v);
        z += wk * v;
      }
      y.push_back(z > 0 ? 1 : 0);
    }
  }
  size_t size() const { return y.size(); }
};

ParamTable table() {
  ParamTable t;
  t.append("w", {3});
  t.append("b", {});
  return t;
}

/// Mean BCE-with-logits over `rows` and its gradient (added to grads).
double loss_and_grad(const Data& d, const std::vector<int64_t>& rows, std::span<const double> p,
                     std::span<double> grads) {
  double loss = 0;
  for (int64_t i : rows) {
    const double z = p[0] * d.x[3 * i] + p[1] * d.x[3 * i + 1] + p[2] * d.x[3 * i + 2] + p[3];
    const double y = static_cast<double>(d.y[i]);
    loss += std::max(z, 0.0) - z * y + std::log1p(std::exp(-std::fabs(z)));
    const double dz = (1 / (1 + std::exp(-z)) - y) / static_cast<double>(rows.size());
    if (!grads.empty()) {
      for (int k = 0; k < 3; ++k)
        grads[k] += dz * d.x[3 * i + k];
      grads[3] += dz;
    }
  }
  return loss / static_cast<double>(rows.size());
}

struct Problem {
  Data train{256, 1}, valid{128, 2};
  std::vector<int64_t> order;
  int64_t batch = 32;
  std::function<void(int64_t, int64_t)> on_batch; // test hook: raise signals, count calls

  TrainHooks<double> hooks() {
    TrainHooks<double> h;
    h.batches_per_epoch = static_cast<int64_t>(train.size()) / batch;
    h.begin_epoch = [this](int64_t, Rng& rng) {
      order = permutation(static_cast<int64_t>(train.size()), rng);
    };
    h.train_batch = [this](int64_t epoch, int64_t b, std::span<const double> p, std::span<double> g,
                           Rng& rng) -> plastic::Result<BatchResult, TrainError> {
      if (on_batch) on_batch(epoch, b);
      std::vector<int64_t> rows(order.begin() + b * batch, order.begin() + (b + 1) * batch);
      const double loss = loss_and_grad(train, rows, p, g);
      for (double& gi : g)
        gi += 1e-3 * rng.normal(); // stochastic gradients use the stream
      return BatchResult{loss, batch};
    };
    h.validate =
        [this](std::span<const double> p) -> plastic::Result<ValidationResult, TrainError> {
      std::vector<int64_t> rows(valid.size());
      std::iota(rows.begin(), rows.end(), 0);
      ValidationResult e;
      e.loss = loss_and_grad(valid, rows, p, {});
      std::vector<double> scores;
      for (size_t i = 0; i < valid.size(); ++i)
        scores.push_back(p[0] * valid.x[3 * i] + p[1] * valid.x[3 * i + 1] +
                         p[2] * valid.x[3 * i + 2] + p[3]);
      auto a = auroc<double>(scores, valid.y);
      if (!a) return a.error();
      e.metric = a.value();
      return e;
    };
    return h;
  }
};

TrainConfig config(const fs::path& dir) {
  TrainConfig c;
  c.epochs = 6;
  c.seed = 11;
  c.optimizer.kind = "adam";
  c.optimizer.lr = 0.05;
  c.schedule = {{"kind", "plateau"}, {"factor", 0.5}, {"patience", 1}};
  c.clip_norm = 5.0;
  c.metric_name = "auroc";
  c.run_dir = dir;
  c.progress = false;
  c.print_summary = false;
  c.model_hash = "logreg-v1";
  return c;
}

} // namespace

TEST_CASE("training loop learns and writes its files", "[loop]") {
  TempDir dir;
  Problem prob;
  std::vector<double> theta(4, 0.0);
  TrainConfig c = config(dir.path());
  c.plot = true;
  auto r = train<double>(table(), theta, prob.hooks(), c);
  INFO(r.describe());
  REQUIRE(r.ok());
  const TrainOutcome& o = r.value();
  CHECK(o.epochs_completed == 6);
  CHECK(o.steps == 6 * 8);
  CHECK_FALSE(o.interrupted);
  REQUIRE(o.history.size() == 6);
  CHECK(o.history.back().train_loss < 0.5 * o.history.front().train_loss);
  CHECK(o.history.back().valid_metric > 0.9);
  CHECK(theta[0] > 0); // the sign of the true weights
  CHECK(theta[1] < 0);
  CHECK(read_jsonl_log(dir / "train.jsonl").value().records.size() == 6);
  CHECK(fs::exists(dir / "model.safetensors"));
  CHECK(CheckpointDir::open(dir / "checkpoints").value().list().size() == 3);
  if (find_executable("gnuplot")) CHECK(fs::file_size(dir / "learning_curve.png") > 0);
  // The final parameters are the best epoch's.
  auto model = read_safetensors(dir / "model.safetensors");
  REQUIRE(model.ok());
  CHECK(model.value().find("w")->values<double>().value()[0] == theta[0]);
}

TEST_CASE("training loop resumes bit-exactly after Ctrl-C", "[loop]") {
  TempDir a, b;
  Problem pa;
  std::vector<double> ta(4, 0.0);
  auto ra = train<double>(table(), ta, pa.hooks(), config(a.path()));
  REQUIRE(ra.ok());

  for (auto [stop_epoch, stop_batch] : {std::pair{3, 5}, std::pair{4, 0}, std::pair{6, 7}}) {
    TempDir dir;
    Problem pb;
    std::vector<double> tb(4, 0.0);
    pb.on_batch = [&, e = stop_epoch, bt = stop_batch](int64_t epoch, int64_t batch) {
      if (epoch == e && batch == bt) ::raise(SIGINT); // lands in the middle of this batch
    };
    auto first = train<double>(table(), tb, pb.hooks(), config(dir.path()));
    REQUIRE(first.ok());
    CHECK(first.value().interrupted);
    pb.on_batch = nullptr;
    std::vector<double> tc(4, 123.0); // a fresh process: everything comes from the checkpoint
    auto second = train<double>(table(), tc, pb.hooks(), config(dir.path()));
    INFO("interrupted at epoch " << stop_epoch << " batch " << stop_batch << ": "
                                 << second.describe());
    REQUIRE(second.ok());
    CHECK(second.value().resumed);
    CHECK_FALSE(second.value().interrupted);
    CHECK(tc == ta);
    REQUIRE(second.value().history.size() == ra.value().history.size());
    for (size_t i = 0; i < ra.value().history.size(); ++i) {
      CHECK(second.value().history[i].train_loss == ra.value().history[i].train_loss);
      CHECK(second.value().history[i].valid_loss == ra.value().history[i].valid_loss);
      CHECK(second.value().history[i].lr == ra.value().history[i].lr);
    }
    CHECK(second.value().steps == ra.value().steps);
  }
}

TEST_CASE("training loop stops early and rolls back to the best epoch", "[loop]") {
  Problem prob;
  TrainHooks<double> h = prob.hooks();
  std::vector<double> at_epoch3;
  int64_t epoch = 0;
  // A validation loss that is best after epoch 3 and worse afterwards.
  h.validate = [&](std::span<const double> p) -> plastic::Result<ValidationResult, TrainError> {
    ++epoch;
    if (epoch == 3) at_epoch3.assign(p.begin(), p.end());
    return ValidationResult{std::fabs(static_cast<double>(epoch) - 3.0), 0.5};
  };
  std::vector<double> theta(4, 0.0);
  TrainConfig c = config({});
  c.epochs = 50;
  c.early_stopping_patience = 4;
  auto r = train<double>(table(), theta, h, c);
  REQUIRE(r.ok());
  CHECK(r.value().early_stopped);
  CHECK(r.value().epochs_completed == 8); // 5 epochs after the best one > patience 4
  CHECK(r.value().best_epoch == 3);
  CHECK(theta == at_epoch3);
  // ReduceLROnPlateau (patience 1, factor 0.5) halved the rate after epochs 5 and 7.
  CHECK(r.value().history[4].lr == 0.05);
  CHECK(r.value().history[5].lr == 0.025);
}

TEST_CASE("training loop failures are reported, not hidden", "[loop]") {
  TempDir dir;
  Problem prob;
  std::vector<double> theta(4, 0.0);
  SECTION("a checkpoint of another model") {
    TrainConfig c = config(dir.path());
    c.epochs = 1;
    REQUIRE(train<double>(table(), theta, prob.hooks(), c).ok());
    c.epochs = 2;
    c.model_hash = "logreg-v2";
    auto r = train<double>(table(), theta, prob.hooks(), c);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == TrainErrorKind::Mismatch);
  }
  SECTION("divergence") {
    TrainHooks<double> h = prob.hooks();
    h.train_batch = [](int64_t, int64_t, std::span<const double>, std::span<double>,
                       Rng&) -> plastic::Result<BatchResult, TrainError> {
      return BatchResult{NAN, 32};
    };
    auto r = train<double>(table(), theta, h, config(dir.path()));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("diverged") != std::string::npos);
  }
  SECTION("divergence after finished epochs keeps the best one's parameters, and says so") {
    TrainHooks<double> h = prob.hooks();
    const auto normal = h.train_batch;
    h.train_batch = [normal](int64_t epoch, int64_t b, std::span<const double> p,
                             std::span<double> g,
                             Rng& rng) -> plastic::Result<BatchResult, TrainError> {
      if (epoch == 4) return BatchResult{NAN, 32};
      return normal(epoch, b, p, g, rng);
    };
    auto r = train<double>(table(), theta, h, config(dir.path()));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("every step of epoch 4"));
    CHECK_THAT(r.error().message,
               Catch::Contains("model.safetensors keeps the parameters of epoch"));
    CHECK_THAT(r.error().message, Catch::Contains("(the best)"));
    auto model = read_safetensors(dir / "model.safetensors");
    REQUIRE(model.ok());
    CHECK_THAT(model.value().metadata.at("parameters"),
               Catch::Matches("best epoch [1-3] \\(training failed in epoch 4\\)"));
    for (const NamedTensor& tensor : model.value().tensors)
      for (double v : tensor.values<double>().value())
        CHECK(std::isfinite(v));
  }
  SECTION("divergence in the first epoch keeps nothing") {
    TrainHooks<double> h = prob.hooks();
    h.train_batch = [](int64_t, int64_t, std::span<const double>, std::span<double>,
                       Rng&) -> plastic::Result<BatchResult, TrainError> {
      return BatchResult{NAN, 32};
    };
    auto r = train<double>(table(), theta, h, config(dir.path()));
    REQUIRE_FALSE(r.ok());
    CHECK_FALSE(fs::exists(dir / "model.safetensors"));
  }
  SECTION("a finite gradient too large for adam is skipped, named, and not saved") {
    // 1e160 is finite in f64 but its square is not: adam would keep inf in
    // exp_avg_sq for good. Without --clip the step is skipped, with a warning.
    TrainConfig c = config(dir.path());
    c.clip_norm = 0;
    TrainHooks<double> h = prob.hooks();
    const auto normal = h.train_batch;
    h.train_batch = [normal](int64_t epoch, int64_t b, std::span<const double> p,
                             std::span<double> g,
                             Rng& rng) -> plastic::Result<BatchResult, TrainError> {
      auto r = normal(epoch, b, p, g, rng);
      if (epoch == 1 && b == 3) g[1] = 1e160;
      return r;
    };
    auto r = train<double>(table(), theta, h, c);
    REQUIRE(r.ok());
    CHECK(r.value().skipped_steps == 1);
    const auto& w = r.value().warnings;
    const auto skipped = std::find_if(w.begin(), w.end(), [](const std::string& x) {
      return x.find("step skipped") != std::string::npos;
    });
    REQUIRE(skipped != w.end());
    CHECK(skipped->find("epoch 1, batch 3: step skipped") != std::string::npos);
    CHECK(skipped->find("second moment") != std::string::npos);
    for (double v : theta)
      CHECK(std::isfinite(v));
  }
  SECTION("every step too large for adam: stopped, saying why") {
    TrainConfig c = config(dir.path());
    c.clip_norm = 0;
    TrainHooks<double> h = prob.hooks();
    h.train_batch = [](int64_t, int64_t, std::span<const double>, std::span<double> g,
                       Rng&) -> plastic::Result<BatchResult, TrainError> {
      g[0] = 1e160;
      return BatchResult{1e300, 32};
    };
    auto r = train<double>(table(), theta, h, c);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("too large for the optimiser") != std::string::npos);
    CHECK(r.error().advice.find("--clip") != std::string::npos);
  }
  SECTION("a failing batch names the epoch and batch") {
    TrainHooks<double> h = prob.hooks();
    h.train_batch = [](int64_t, int64_t b, std::span<const double>, std::span<double>,
                       Rng&) -> plastic::Result<BatchResult, TrainError> {
      if (b == 2) return invalid_argument_error("sample 70 has NaN inputs");
      return BatchResult{1.0, 32};
    };
    auto r = train<double>(table(), theta, h, config(dir.path()));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "epoch 1, batch 2: sample 70 has NaN inputs");
  }
  SECTION("bad configuration") {
    TrainConfig c = config(dir.path());
    c.optimizer.kind = "lbfgs";
    CHECK_FALSE(train<double>(table(), theta, prob.hooks(), c).ok());
    std::vector<double> wrong(3);
    CHECK_FALSE(train<double>(table(), wrong, prob.hooks(), config(dir.path())).ok());
  }
}

TEST_CASE("paper 002's neural RDE set-up", "[loop]") {
  const TrainConfig c = neural_rde_config(1024);
  CHECK(c.optimizer.kind == "adam");
  CHECK(c.optimizer.lr == 0.032 / 1024);
  CHECK(c.early_stopping_patience == 60);
  auto s = make_schedule(c.schedule, c.optimizer.lr);
  REQUIRE(s.ok());
  for (int e = 0; e < 16; ++e)
    s.value()->step(1.0); // the first sets best; 15 flat epochs
  CHECK(s.value()->lr() == c.optimizer.lr);
  s.value()->step(1.0);
  CHECK(s.value()->lr() == Approx(c.optimizer.lr / 10));
}
