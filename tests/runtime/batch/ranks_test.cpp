// The batch engine over data-parallel ranks (runtime/batch/tile_shard.h),
// with ranks simulated by threads (thread_ranks.h): every rank computes a
// contiguous range of the tiles, and the loss, gradient, predictions and
// failures every rank ends with are bitwise those of one process — the
// f64 guarantee `mpirun -np K plastic train` rests on (issue 17).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/ordered_sum.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/replica_check.h"
#include "tests/runtime/batch/batch_models.h"
#include "tests/runtime/batch/thread_ranks.h"

using namespace plastic;
using Catch::Matchers::Contains;

namespace {

struct Setup {
  std::unique_ptr<test::CdeModel<double>> model;
  rt::Dataset data;
  rt::PreparedData prepared;
  std::vector<double> theta;
};

Setup make_setup(const test::CdeSpec& spec, const std::vector<int>& lengths, unsigned seed) {
  Setup s;
  s.model = test::make_cde<double>(spec);
  s.data = test::make_data(lengths, spec.d, spec.S, rt::TargetKind::Class, spec.o, seed);
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  s.theta = test::random_theta(s.model->P(), seed + 100);
  return s;
}

struct RankResult {
  bool ok = false;
  std::string failure;
  double loss = 0;
  std::vector<double> grad;
};

/// loss_and_gradient on `ranks` simulated ranks (1 = no communicator).
std::vector<RankResult> gradient_on_ranks(const Setup& s, const std::vector<int64_t>& batch,
                                          int ranks, int threads = 1) {
  std::vector<RankResult> out(static_cast<size_t>(ranks));
  auto body = [&](rt::Communicator* comm) {
    rt::BatchOptions o;
    o.threads = threads;
    o.comm = comm;
    RankResult& r = out[comm ? static_cast<size_t>(comm->rank()) : 0];
    r.grad.assign(s.theta.size(), 0.0);
    rt::BatchLoss b =
        rt::loss_and_gradient<double>(s.model->get(), s.prepared, batch, s.theta, r.grad, o);
    r.ok = b.ok();
    r.failure = b.ok() ? "" : b.status.describe();
    r.loss = b.loss;
  };
  if (ranks == 1)
    body(nullptr);
  else
    test::ThreadRanks::run(ranks, [&](rt::Communicator& c) { body(&c); });
  return out;
}

std::vector<int64_t> first_n(int n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

} // namespace

TEST_CASE("shards cover the tiles in order and differ in size by at most one", "[batch][ranks]") {
  for (size_t tiles : {0, 1, 4, 7, 64})
    for (int size : {1, 2, 3, 5}) {
      size_t next = 0, smallest = tiles, largest = 0;
      for (int r = 0; r < size; ++r) {
        const rt::TileRange range = rt::shard(tiles, r, size);
        CHECK(range.first == next);
        next = range.last;
        smallest = std::min(smallest, range.size());
        largest = std::max(largest, range.size());
        for (size_t k = range.first; k < range.last; ++k)
          CHECK(rt::shard_owner(tiles, size, k) == r);
      }
      CHECK(next == tiles);
      CHECK(largest - smallest <= 1);
    }
}

TEST_CASE("one process's ordered_sum adds items as OrderedSum does", "[batch][ranks]") {
  const std::vector<double> items = {1e16, 1.0, -1e16, 3.0, 1.0, 1e-17, 0.1, 0.2, 0.3};
  rt::OrderedSum reference(3);
  for (size_t k = 0; k < 3; ++k)
    reference.deposit(k, items.data() + 3 * k);
  const std::vector<double> sum = rt::make_single_process()->ordered_sum(items, 3);
  CHECK(sum == reference.sum());
}

TEST_CASE("the batch loss and gradient on 2 to 5 ranks are bitwise those of one process",
          "[batch][ranks]") {
  test::CdeSpec spec; // L = 4 lanes: 23 samples are 6 tiles, the last padded
  spec.S = 1;
  std::vector<int> lengths(23);
  for (int i = 0; i < 23; ++i)
    lengths[static_cast<size_t>(i)] = 3 + (i * 7) % 9;
  const Setup s = make_setup(spec, lengths, 41);
  std::vector<int64_t> batch = first_n(23);
  std::reverse(batch.begin(), batch.end()); // a shuffled batch: tiles cut in batch order
  const RankResult one = gradient_on_ranks(s, batch, 1).front();
  REQUIRE(one.ok);
  // 4 and 5 ranks split 6 tiles unevenly; 7 ranks leave one rank without a tile.
  for (int ranks : {2, 3, 4, 5, 7}) {
    CAPTURE(ranks);
    for (const RankResult& r : gradient_on_ranks(s, batch, ranks, ranks == 3 ? 2 : 1)) {
      REQUIRE(r.ok);
      CHECK(r.loss == one.loss);
      CHECK(r.grad == one.grad);
    }
  }
}

TEST_CASE("predictions and evaluation on 3 ranks are those of one process", "[batch][ranks]") {
  test::CdeSpec spec;
  const Setup s = make_setup(spec, {5, 4, 6, 3, 5, 6, 4, 5, 6, 3, 4}, 7);
  const std::vector<int64_t> all = first_n(11);
  auto single = rt::evaluate<double>(s.model->get(), s.prepared, all, s.theta);
  auto single_pred = rt::predict<double>(s.model->get(), s.prepared, all, s.theta);
  REQUIRE(single);
  REQUIRE(single_pred);
  std::mutex m;
  std::vector<rt::Evaluation> evals;
  std::vector<std::vector<double>> outputs;
  test::ThreadRanks::run(3, [&](rt::Communicator& comm) {
    rt::BatchOptions o;
    o.comm = &comm;
    auto ev = rt::evaluate<double>(s.model->get(), s.prepared, all, s.theta, o);
    auto pr = rt::predict<double>(s.model->get(), s.prepared, all, s.theta, o);
    std::lock_guard<std::mutex> lock(m);
    if (ev) evals.push_back(ev.value());
    if (pr) outputs.push_back(pr.value().outputs);
  });
  REQUIRE(evals.size() == 3);
  REQUIRE(outputs.size() == 3);
  for (size_t r = 0; r < 3; ++r) {
    CHECK(evals[r].loss == single.value().loss);
    CHECK(evals[r].metric == single.value().metric);
    CHECK(outputs[r] == single_pred.value().outputs);
  }
}

TEST_CASE("a solver failure on one rank's tile reaches every rank, naming that rank",
          "[batch][ranks]") {
  // As "a solver failure names the data set sample": sample 6 blows up, in
  // tile 1 of 2, which rank 1 of 2 computes.
  test::CdeSpec spec;
  spec.S = 1;
  spec.q = 1.0;
  Setup s = make_setup(spec, {6, 6, 6, 6, 6, 6, 6, 6}, 61);
  std::fill(s.theta.begin(), s.theta.end(), 0.0);
  auto& c = *s.model->ctx;
  for (int i = 0; i < c.n; ++i)
    s.theta[static_cast<size_t>(c.E) + static_cast<size_t>(i * (c.d + c.S) + c.d)] = 3.0;
  for (size_t i = 0; i < s.data.size(); ++i)
    s.data.samples[i].statics[0] = -1.0;
  s.data.samples[6].statics[0] = 2.0;
  s.data.samples[6].id = "patient-0042";
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  for (const RankResult& r : gradient_on_ranks(s, first_n(8), 2)) {
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.failure, Contains("on rank 1 of 2") && Contains("patient-0042"));
    for (double x : r.grad)
      CHECK(x == 0.0); // untouched, as with one process
  }
}

TEST_CASE("ranks whose parameters differ all stop with a message naming them", "[batch][ranks]") {
  std::mutex m;
  std::vector<std::string> messages;
  test::ThreadRanks::run(3, [&](rt::Communicator& comm) {
    std::vector<double> params = {1.0, 2.0, 3.0};
    const auto same = rt::check_replicas<double>(comm, 4, std::span<const double>(params));
    if (comm.rank() == 2) params[1] = std::nextafter(2.0, 3.0); // one ulp
    const auto differ = rt::check_replicas<double>(comm, 5, std::span<const double>(params));
    std::lock_guard<std::mutex> lock(m);
    messages.emplace_back(same ? "same" : "mismatch before any change");
    messages.push_back(differ ? "no mismatch found" : differ.error().describe());
  });
  REQUIRE(messages.size() == 6);
  for (size_t i = 0; i < 6; i += 2) {
    CHECK(messages[i] == "same");
    CHECK_THAT(messages[i + 1],
               Contains("after epoch 5") && Contains("ranks 0,1 have") && Contains("ranks 2 have"));
  }
}
