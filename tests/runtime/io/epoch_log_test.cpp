// The JSONL epoch log and the summary table.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "runtime/io/epoch_log.h"
#include "tests/support/temp_dir.h"

using namespace plastic::rt;
using plastic::rt::test::TempDir;

namespace {
EpochRecord record(int64_t epoch, double loss, double metric) {
  EpochRecord r;
  r.epoch = epoch;
  r.train_loss = loss;
  r.valid_loss = loss * 1.1;
  r.valid_metric = metric;
  r.metric_name = "auroc";
  r.lr = 1e-3;
  r.seconds = 2.5;
  r.evals_per_second = 1234.5;
  return r;
}
} // namespace

TEST_CASE("epoch log appends, flushes and reads back", "[log]") {
  TempDir dir;
  const auto path = dir / "train.jsonl";
  {
    auto log = JsonlLog::open(path, /*truncate=*/true);
    REQUIRE(log.ok());
    REQUIRE(log.value().append(record(1, 0.7, 0.6)).ok());
    EpochRecord no_valid = record(2, 0.5, NAN);
    no_valid.valid_loss = NAN;
    no_valid.extra = {{"grad_norm", 3.5}};
    REQUIRE(log.value().append(no_valid).ok());
    // Flushed: visible before the log is closed.
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    CHECK(first.find(R"("epoch":1,"train_loss":0.7)") == 1);
  }
  auto back = read_jsonl_log(path);
  REQUIRE(back.ok());
  REQUIRE(back.value().records.size() == 2);
  const EpochRecord& r = back.value().records[1];
  CHECK(r.epoch == 2);
  CHECK(std::isnan(r.valid_metric));
  CHECK(std::isnan(r.valid_loss));
  CHECK(r.metric_name == "auroc");
  CHECK(r.extra["grad_norm"] == 3.5);
  CHECK(back.value().records[0].evals_per_second == 1234.5);
}

TEST_CASE("epoch log recovers from a line cut short by a crash", "[log]") {
  TempDir dir;
  const auto path = dir / "train.jsonl";
  std::ofstream(path) << record(1, 0.7, 0.6).to_json().dump() << "\n{\"epoch\":2,\"train_lo";
  {
    auto log = JsonlLog::open(path);
    REQUIRE(log.ok());
    REQUIRE(log.value().append(record(2, 0.6, 0.65)).ok());
  }
  auto back = read_jsonl_log(path);
  REQUIRE(back.ok());
  REQUIRE(back.value().records.size() == 2);
  CHECK(back.value().records[1].epoch == 2);
  REQUIRE(back.value().skipped.size() == 1);
  CHECK(back.value().skipped[0].find("line 2") == 0);
}

TEST_CASE("summary table marks the best epoch and elides the middle of long runs", "[log]") {
  std::vector<EpochRecord> rs;
  for (int e = 1; e <= 60; ++e)
    rs.push_back(record(e, 1.0 / e, e == 17 ? 0.99 : 0.5 + e / 1000.0));
  const std::string s = format_summary(rs, MetricMode::Max);
  CHECK(s.find("auroc") != std::string::npos);
  CHECK(s.find("*     17") != std::string::npos);
  CHECK(s.find("...") != std::string::npos);
  CHECK(s.find("best epoch 17: train loss 0.05882, valid loss 0.06471, auroc 0.99; 60 epochs in "
               "2m30s") != std::string::npos);
  // The epoch early stopping kept, when given, is the one marked.
  const std::string kept = format_summary(rs, MetricMode::Max, 24, 60);
  CHECK(kept.find("*     60") != std::string::npos);
  CHECK(kept.find("*     17") == std::string::npos);
  CHECK(std::count(s.begin(), s.end(), '\n') <= 2 + 24 + 2 + 1);
  const std::string loss_only =
      format_summary({record(1, 0.5, NAN), record(2, 0.4, NAN)}, MetricMode::Max);
  CHECK(loss_only.find("best epoch 2: train loss 0.4, valid loss 0.44;") != std::string::npos);
  CHECK(format_summary({}) == "no epochs were run\n");
}
