// Checkpoint directories: round trips, pruning, validation, and crash
// safety under SIGKILL at random moments.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "runtime/io/checkpoint.h"
#include "runtime/io/param_table.h"
#include "runtime/support/rng.h"
#include "runtime/train/adam.h"
#include "runtime/train/state_tensors.h"
#include "tests/support/temp_dir.h"

using namespace plastic::rt;
using plastic::rt::test::TempDir;
namespace fs = std::filesystem;

namespace {

ParamTable small_table() {
  ParamTable t;
  t.append("ln.gamma", {4});
  t.append("Wk", {2, 3, 4});
  t.append("out.b", {});
  return t;
}

/// A checkpoint whose every parameter equals `fill`, with a real Adam state.
Checkpoint make_checkpoint(const ParamTable& table, float fill, int64_t epoch) {
  std::vector<float> theta(table.total(), fill), grad(table.total(), 0.5f);
  Adam<float> adam(table.total(), AdamOptions{.lr = 1e-3});
  REQUIRE(adam.step(theta, grad).ok());
  std::fill(theta.begin(), theta.end(), fill);
  Checkpoint c;
  c.meta.epoch = epoch;
  c.meta.step = epoch * 10;
  c.meta.model_hash = "model-abc";
  c.meta.dims = {{"d_head", 20}};
  c.meta.rng_state = Rng(5, 0).state();
  c.meta.best_metric = 0.5 + epoch;
  c.meta.config = {{"lr", 1e-3}};
  c.params.tensors = params_to_tensors<float>(table, theta).value();
  c.optimizer = optimizer_to_file(table, adam.state()).value();
  return c;
}

/// The value all parameters of a loaded checkpoint share (NaN if they differ).
float common_value(const ParamTable& table, const Checkpoint& c) {
  std::vector<float> theta(table.total());
  REQUIRE(params_from_tensors<float>(table, c.params, theta, "", "test").ok());
  for (float x : theta)
    if (x != theta[0]) return std::nanf("");
  return theta[0];
}

void flip_byte(const fs::path& path, size_t offset_from_end) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-static_cast<std::streamoff>(offset_from_end), std::ios::end);
  char c = 0;
  f.get(c);
  f.seekp(-static_cast<std::streamoff>(offset_from_end), std::ios::end);
  f.put(static_cast<char>(c ^ 0x5a));
}

} // namespace

TEST_CASE("parameter tables", "[checkpoint]") {
  CHECK(small_table().total() == 4 + 24 + 1);
  CHECK_FALSE(ParamTable::make({{"a", {2}, 0}, {"b", {2}, 1}}, 3).ok()); // overlap
  CHECK_FALSE(ParamTable::make({{"a", {2}, 0}, {"b", {2}, 3}}, 5).ok()); // gap
  CHECK_FALSE(ParamTable::make({{"a", {2}, 0}}, 3).ok());                // does not cover
  CHECK_FALSE(ParamTable::make({{"a", {2}, 0}, {"a", {1}, 2}}, 3).ok()); // duplicate
  CHECK_FALSE(ParamTable::make({{"best/a", {2}, 0}}, 2).ok());           // '/' is reserved
  CHECK(ParamTable::make({{"b", {2}, 2}, {"a", {2}, 0}}, 4).ok());       // any order

  plastic_param p[2] = {};
  p[0].name = "w";
  p[0].rank = 2;
  p[0].shape[0] = 3;
  p[0].shape[1] = 2;
  p[0].size = 6;
  p[1].name = "b";
  p[1].rank = 1;
  p[1].shape[0] = 2;
  p[1].offset = 6;
  p[1].size = 2;
  auto t = ParamTable::from_abi(p, 2, 8);
  REQUIRE(t.ok());
  CHECK(t.value().find("w")->shape == std::vector<int64_t>{3, 2});
  p[1].size = 3;
  CHECK_FALSE(ParamTable::from_abi(p, 2, 8).ok());
}

TEST_CASE("parameters and optimiser state through tensors", "[checkpoint]") {
  const ParamTable table = small_table();
  std::vector<double> theta(table.total());
  for (size_t i = 0; i < theta.size(); ++i)
    theta[i] = 0.25 * static_cast<double>(i);
  SafetensorsFile f;
  f.tensors = params_to_tensors<double>(table, theta).value();
  for (NamedTensor& t : params_to_tensors<double>(table, theta, "best/").value())
    f.tensors.push_back(std::move(t));
  std::vector<double> back(table.total());
  REQUIRE(params_from_tensors<double>(table, f, back, "", "f").ok());
  CHECK(back == theta);
  CHECK(has_prefix(f, "best/"));
  CHECK_FALSE(has_prefix(f, "exp_avg/"));
  std::vector<float> wrong(table.total());
  auto e = params_from_tensors<float>(table, f, wrong, "", "f");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().kind == TrainErrorKind::Mismatch);

  ParamTable other;
  other.append("ln.gamma", {4});
  other.append("Wk", {2, 4, 3}); // same size, different shape
  other.append("out.b", {});
  CHECK_FALSE(params_from_tensors<double>(other, f, back, "", "f").ok());

  Adam<double> adam(table.total(), AdamOptions{.lr = 0.1, .amsgrad = true});
  std::vector<double> g(table.total(), 1.0);
  REQUIRE(adam.step(theta, g).ok());
  const SafetensorsFile of = optimizer_to_file(table, adam.state()).value();
  CHECK(of.find("exp_avg/Wk")->shape == std::vector<int64_t>{2, 3, 4});
  auto decoded = decode_safetensors(encode_safetensors(of).value(), "o");
  REQUIRE(decoded.ok());
  auto s = optimizer_from_file<double>(table, decoded.value(), "o");
  REQUIRE(s.ok());
  CHECK(s.value().step == 1);
  CHECK(s.value().kind == "adam");
  Adam<double> again(table.total(), AdamOptions{});
  REQUIRE(again.load_state(s.value()).ok());
  CHECK(again.state().buffers == adam.state().buffers);
}

TEST_CASE("checkpoint directory: save, load, keep the last K", "[checkpoint]") {
  TempDir dir;
  const ParamTable table = small_table();
  auto d = CheckpointDir::open(dir / "ckpt", 2);
  REQUIRE(d.ok());
  CHECK(d.value().load_latest().error().kind == TrainErrorKind::NotFound);
  for (int e = 1; e <= 4; ++e)
    REQUIRE(d.value().save(make_checkpoint(table, static_cast<float>(e), e)).ok());
  const auto entries = d.value().list();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].epoch == 4);
  CHECK(entries[1].epoch == 3);
  size_t files = 0;
  for (auto it = fs::directory_iterator(dir / "ckpt"); it != fs::directory_iterator(); ++it)
    ++files;
  CHECK(files == 6); // 2 checkpoints x 3 files, pruned ones fully removed

  auto latest = d.value().load_latest();
  REQUIRE(latest.ok());
  const Checkpoint& c = latest.value().checkpoint;
  CHECK(latest.value().skipped.empty());
  CHECK(c.meta.epoch == 4);
  CHECK(c.meta.step == 40);
  CHECK(c.meta.model_hash == "model-abc");
  CHECK(c.meta.dims["d_head"] == 20);
  CHECK(c.meta.best_metric == 4.5);
  CHECK(Rng::from_state(c.meta.rng_state).ok());
  CHECK(common_value(table, c) == 4.0f);
  CHECK(optimizer_from_file<float>(table, c.optimizer, "o").value().step == 1);
  CHECK(check_model_hash(c.meta, "model-abc", "x").ok());
  CHECK(check_model_hash(c.meta, "model-xyz", "x").error().kind == TrainErrorKind::Mismatch);

  // Saving an earlier epoch again (a roll-back) is simply the newest checkpoint.
  REQUIRE(d.value().save(make_checkpoint(table, 9.0f, 2)).ok());
  CHECK(d.value().load_latest().value().checkpoint.meta.epoch == 2);
}

TEST_CASE("checkpoint validation falls back to an older intact checkpoint", "[checkpoint]") {
  TempDir dir;
  const ParamTable table = small_table();
  auto d = CheckpointDir::open(dir.path(), 3).value();
  REQUIRE(d.save(make_checkpoint(table, 1.0f, 1)).ok());
  const CheckpointEntry newest = d.save(make_checkpoint(table, 2.0f, 2)).value();
  const std::string stem = newest.json.stem().string();

  SECTION("a damaged data byte") {
    flip_byte(dir / (stem + ".params.safetensors"), 3);
  }
  SECTION("a truncated tensor file") {
    fs::resize_file(dir / (stem + ".optim.safetensors"), 100);
  }
  SECTION("a missing tensor file") {
    fs::remove(dir / (stem + ".params.safetensors"));
  }
  SECTION("damaged JSON") {
    std::ofstream(newest.json) << "{\"format\": \"plastic-checkpoint\", ";
  }
  SECTION("JSON of the wrong types") {
    std::ofstream(newest.json)
        << R"({"format": "plastic-checkpoint", "version": 1, "epoch": "two"})";
  }
  auto latest = d.load_latest();
  REQUIRE(latest.ok());
  CHECK(latest.value().checkpoint.meta.epoch == 1);
  REQUIRE(latest.value().skipped.size() == 1);
  CHECK(latest.value().skipped[0].describe().find(stem) != std::string::npos);
  CHECK_FALSE(d.load(newest).ok());
}

TEST_CASE("opening a checkpoint directory removes leftovers of interrupted saves", "[checkpoint]") {
  TempDir dir;
  const ParamTable table = small_table();
  {
    auto d = CheckpointDir::open(dir.path(), 3).value();
    REQUIRE(d.save(make_checkpoint(table, 1.0f, 1)).ok());
  }
  std::ofstream(dir / ".ckpt-00000002-e000002.params.safetensors.tmp.123.0") << "partial";
  std::ofstream(dir / "ckpt-00000002-e000002.params.safetensors") << "complete but uncommitted";
  std::ofstream(dir / "notes.txt") << "not ours";
  auto d = CheckpointDir::open(dir.path(), 3).value();
  size_t files = 0;
  for (auto it = fs::directory_iterator(dir.path()); it != fs::directory_iterator(); ++it)
    ++files;
  CHECK(files == 4); // checkpoint 1 (3 files) and notes.txt
  CHECK(fs::exists(dir / "notes.txt"));
  CHECK(d.load_latest().value().checkpoint.meta.epoch == 1);
}

namespace {

/// See the test cases below: `trials` saves killed at random moments (the
/// first one is left to finish and times a save).
void crash_during_save(int trials, uint64_t seed) {
  // A child process saves a big checkpoint ("new", all parameters 2) over an
  // existing one ("old", all 1) with keep_last = 1, and is killed at a random
  // moment: during the tensor writes, the fsyncs, the commit or the pruning.
  // Whatever the moment, the directory must hold exactly one loadable
  // checkpoint, equal to the old or the new one, with nothing skipped.
  TempDir dir;
  ParamTable table;
  table.append("big", {1 << 20}); // 4 MB of parameters, 8 MB of Adam moments
  const Checkpoint old_ckpt = make_checkpoint(table, 1.0f, 1);
  const Checkpoint new_ckpt = make_checkpoint(table, 2.0f, 2);

  Rng rng(seed);
  double save_seconds = 0;
  int saw_old = 0, saw_new = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const fs::path path = dir / ("run" + std::to_string(trial));
    {
      auto d = CheckpointDir::open(path, 1).value();
      REQUIRE(d.save(old_ckpt).ok());
    }
    const auto forked = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      auto d = CheckpointDir::open(path, 1);
      const bool ok = d.ok() && d.value().save(new_ckpt).ok();
      ::_exit(ok ? 0 : 1);
    }
    // The first trial lets the save finish and times it; the others kill
    // the child somewhere in 0 .. 1.2 x that time.
    const double delay = trial == 0 ? -1 : rng.uniform(0, 1.2 * save_seconds);
    if (delay >= 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      ::kill(pid, SIGKILL);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    if (delay < 0) {
      REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
      save_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - forked).count();
    }

    auto d = CheckpointDir::open(path, 1);
    REQUIRE(d.ok());
    auto latest = d.value().load_latest();
    INFO("trial " << trial << ", kill after " << delay << " s of a " << save_seconds << " s save");
    REQUIRE(latest.ok());
    CHECK(latest.value().skipped.empty());
    const Checkpoint& c = latest.value().checkpoint;
    const float v = common_value(table, c);
    const bool is_old = v == 1.0f && c.meta.epoch == 1, is_new = v == 2.0f && c.meta.epoch == 2;
    CHECK((is_old || is_new));
    saw_old += is_old;
    saw_new += is_new;
    CHECK(d.value().list().size() == 1);
    fs::remove_all(path); // 12 MB per trial
  }
  CHECK(saw_new >= 1);
  WARN("SIGKILL during save: " << saw_old << " trials left the old checkpoint, " << saw_new - 1
                               << " the new one (an uninterrupted save takes " << save_seconds
                               << " s)");
}

} // namespace

TEST_CASE("a checkpoint survives SIGKILL at any moment of a save", "[checkpoint]") {
  crash_during_save(6, 2024);
}

TEST_CASE("a checkpoint survives SIGKILL at any moment of a save, many times",
          "[checkpoint][slow]") {
  crash_during_save(60, 77);
}
