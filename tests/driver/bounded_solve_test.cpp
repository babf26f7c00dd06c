// A fixed-step solve is bounded before it starts, and a long one stops when
// asked: a series whose times are in another unit than the step (1e305
// seconds) is refused naming the sample, its span, max_steps and the time
// column, by train and predict alike and within seconds; a legitimately
// long solve (max_steps raised to 1e9) stops at SIGTERM within seconds,
// saving a checkpoint to resume from. A run that fails before writing
// anything leaves no folder and no lock behind.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("bounded_solve_test", name);
}

/// A CSV of `series` series of `rows` rows each, `dt` apart in time.
fs::path write_csv(const fs::path& dir, double dt, int series = 4, int rows = 20) {
  const fs::path csv = dir / "series.csv";
  std::ofstream out(csv);
  out << "id,t,u,y\n";
  for (int s = 0; s < series; ++s)
    for (int i = 0; i < rows; ++i)
      out << s << "," << i * dt << "," << 0.1 * ((i * 7 + s) % 5) << "," << 0.05 * i << "\n";
  return csv;
}

std::string csv_flags(const fs::path& csv) {
  return "--data " + csv.string() +
         " --id id --time t --channels u --target y --static y --no-progress --threads 1";
}

/// The stable-initialised tanks model with another solve and gradient line.
fs::path write_model(const fs::path& dir, const std::string& solve_line) {
  std::ifstream in(src("examples/node_elu_sii_tanks_euler.ode"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const size_t at = text.find("solve    euler step dt");
  REQUIRE(at != std::string::npos);
  const size_t end = text.find("\n", text.find("gradient", at));
  text.replace(at, end - at, solve_line);
  const fs::path model = dir / "tanks.ode";
  std::ofstream(model) << text;
  return model;
}

} // namespace

TEST_CASE("a fixed-step solve over absurd times is refused before solving, naming the time column",
          "[train][bounded_solve]") {
  const fs::path dir = fresh_dir("absurd");
  const fs::path csv = write_csv(dir, 1e305);
  const fs::path out = dir / "run";
  const auto t0 = std::chrono::steady_clock::now();
  Run r = run("train " + src("examples/node_elu_default_tanks_euler.ode") + " " + csv_flags(csv) +
              " --epochs 1 --out " + out.string());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(seconds < 60); // it used to run for ever
  CHECK_THAT(r.err, Catch::Contains("steps of euler at step 4, more than max_steps (100000)"));
  CHECK_THAT(r.err, Catch::Contains("check the data's time column"));
  CHECK_THAT(r.err, !Catch::Contains("static features"));
  // It failed before writing anything: no folder, no stale lock.
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a long series names the max_steps that would cover it", "[train][bounded_solve]") {
  const fs::path dir = fresh_dir("long");
  const fs::path csv = write_csv(dir, 4 * 10000.0); // 190000 steps per series at step 4
  Run r = run("train " + src("examples/node_elu_default_tanks_euler.ode") + " " + csv_flags(csv) +
              " --epochs 1 --out " + (dir / "run").string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("1.9e+05 steps of euler at step 4"));
  CHECK_THAT(r.err, Catch::Contains("`solve euler step 4 max_steps 210000`"));
}

TEST_CASE("a folder the user made is kept, without a lock, when the run fails before writing",
          "[train][bounded_solve]") {
  const fs::path dir = fresh_dir("kept");
  const fs::path csv = write_csv(dir, 1e305);
  const fs::path out = dir / "mine";
  fs::create_directories(out);
  Run r = run("train " + src("examples/node_elu_default_tanks_euler.ode") + " " + csv_flags(csv) +
              " --epochs 1 --out " + out.string());
  CHECK(r.exit_code == 1);
  CHECK(fs::is_directory(out));
  CHECK(fs::is_empty(out));
}

TEST_CASE("SIGTERM stops a long fixed-step solve within seconds and saves a checkpoint",
          "[train][bounded_solve][signals]") {
  const fs::path dir = fresh_dir("sigterm");
  // 5e7 steps of 0.4 per series: a minute of solving, allowed by a raised
  // max_steps; the adjoint's memory does not grow with the steps.
  const fs::path csv = write_csv(dir, 2e7 / 19);
  const fs::path model =
      write_model(dir, "solve    euler step dt max_steps 1000000000\ngradient adjoint");
  const fs::path out = dir / "run";
  const pid_t pid = start("train " + model.string() + " " + csv_flags(csv) +
                          " --set dt=0.4 --batch 1 --epochs 1 --out " + out.string());
  REQUIRE(pid > 0);
  // Past start-up (compiling, reading, ~3 s planning the memory: train.jsonl
  // is opened just before the first batch) and a second into the solve.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(out / "train.jsonl") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(fs::exists(out / "train.jsonl"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::kill(pid, SIGTERM);
  const auto t0 = std::chrono::steady_clock::now();
  const int code = wait_exit_code(pid);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(code == 128 + SIGTERM);
  CHECK(seconds < 5);
  CHECK(fs::exists(out / "checkpoints"));
}
