// `plastic analyze stability` end to end. Paper 004's claim at
// initialisation: the default (Kaiming-uniform) ELU MLP of the cascaded-
// tanks model puts eigenvalues of its linearisation outside the midpoint
// method's stability region at h = 4, the stability-informed one puts them
// all inside. Also: states along data trajectories, JSON, the PNG (skipped
// without gnuplot), and the line and warning `plastic train` prints.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

TEST_CASE("paper 004: default init outside the midpoint region, stability-informed inside",
          "[analyze]") {
  Run d = run("analyze stability " + src("examples/node_elu_default_tanks.ode") + " --json");
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  auto dj = nlohmann::json::parse(d.out);
  CHECK(dj["solver"] == "midpoint");
  CHECK(dj["h"].get<double>() == 4.0);
  CHECK(dj["eigenvalues"].get<int>() == 4); // d_z = 4
  CHECK(dj["outside"].get<int>() > 0);
  CHECK(dj["max_amplification"].get<double>() > 1.0);

  Run s = run("analyze stability " + src("examples/node_elu_sii_tanks.ode") + " --json");
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  auto sj = nlohmann::json::parse(s.out);
  CHECK(sj["outside"].get<int>() == 0);
  CHECK(sj["max_amplification"].get<double>() <= 1.0);
  CHECK(sj["largest_stable_step"].get<double>() >= 4.0);
  for (const auto& p : sj["points"])
    CHECK(p["re"].get<double>() < 0);

  // The same seed gives the same eigenvalues (the initialisers are seeded).
  Run again = run("analyze stability " + src("examples/node_elu_sii_tanks.ode") + " --json");
  CHECK(nlohmann::json::parse(again.out)["points"] == sj["points"]);
}

TEST_CASE("the text report has its table and advice", "[analyze]") {
  Run d = run("analyze stability " + src("examples/node_elu_default_tanks.ode"));
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  CHECK_THAT(d.out, Catch::Contains("solver              midpoint step 4"));
  CHECK_THAT(d.out, Catch::Contains("outside the region  3 (75.0 %)"));
  CHECK_THAT(d.out, Catch::Contains("advice: an adaptive solver"));
  CHECK_THAT(d.out, Catch::Contains("init = stability_informed"));
  Run s = run("analyze stability " + src("examples/node_elu_sii_tanks.ode"));
  CHECK_THAT(s.out, Catch::Contains("advice: every h·λ lies inside the midpoint region at h = 4"));
}

TEST_CASE("states along data trajectories / a stiff field gets the step that fixes it",
          "[analyze]") {
  Run r = run("analyze stability " + src("tests/driver/nonfinite/step_too_large.ode") +
              " --data synthetic:flipflop --samples 2 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["states"].get<int>() == 20); // 2 samples x 10 states
  CHECK(j["fraction_outside"].get<double>() == 1.0);
  // z' = -1e6 z: Euler is stable for h <= 2 / 1e6.
  CHECK(j["largest_stable_step"].get<double>() == Approx(2e-6).epsilon(1e-6));
  CHECK_THAT(j["advice"][0].get<std::string>(), Catch::Contains("a step of at most 2e-06"));
}

TEST_CASE("the Delta CDE's Jacobian is one block per fast-weight row, with its one eigenvalue",
          "[analyze]") {
  // Paper 000 Eqs. 24-25 with the post-delta tanh: row i of a head's W
  // follows W_i' = β tanh(v_i − W_i·k) k, which reads only row i, so
  // ∂W_i'/∂W_i = −β tanh'(·) k kᵀ: blocks of d_head, each of rank one with
  // the eigenvalue −β tanh'(·) |k|². At the origin (inputs 0) β =
  // beta_scale·σ(0) = 0.015, tanh'(0) = 1 and k = softmax(0) is uniform,
  // |k|² = 1/d_head = 1/4: λ = −0.00375 once per row (heads·d_head = 8),
  // and 0 for the other 24 of the 32 states.
  Run r = run("analyze stability " + src("examples/fwp_delta_cde_character.ode") +
              " --set heads=2 --set d_head=4 --set d_ff=8 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["state_dimension"].get<int>() == 32);
  CHECK(j["largest_coupled_block"].get<int>() == 4);
  int rows = 0, zeros = 0;
  for (const auto& p : j["points"]) {
    const double re = p["re"].get<double>(), im = p["im"].get<double>();
    rows += std::abs(re + 0.00375) < 1e-15 && im == 0;
    zeros += std::abs(re) < 1e-15 && std::abs(im) < 1e-15;
  }
  CHECK(rows == 8);
  CHECK(zeros == 24);
}

TEST_CASE("a large state takes fewer states per trajectory, and the report says so", "[analyze]") {
  // 2 heads x 24 x 24 = 1152 states: 4 samples x 10 states would be 46 080
  // Jacobian rows, over the budget of 20 000; 4 states per sample fit.
  fs::path dir = fresh_test_dir("analyze_test", "row_budget");
  write_toy_ts(dir / "toy_TRAIN.ts", 2, 2, 12, 20);
  Run r = run("analyze stability " + src("examples/fwp_delta_cde_character.ode") +
              " --set heads=2 --set d_head=24 --set d_ff=8 --samples 4 --data " +
              (dir / "toy_TRAIN.ts").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("4 states along each of 4 training samples' trajectories"));
  CHECK_THAT(r.out, Catch::Contains("states              16 (18432 eigenvalues; coupled blocks "
                                    "of at most 24)"));
}

TEST_CASE("Ctrl-C stops the stability report and prints the states done", "[analyze][signals]") {
  fs::path dir = fresh_test_dir("analyze_test", "interrupt");
  write_toy_ts(dir / "toy_TRAIN.ts", 2, 2, 12, 20);
  const fs::path log = dir / "log";
  // 1600 states, 8 samples x 2 states: several seconds of Jacobians.
  const pid_t pid = start("analyze stability " + src("examples/fwp_delta_cde_character.ode") +
                              " --samples 8 --data " + (dir / "toy_TRAIN.ts").string(),
                          log.string());
  REQUIRE(pid > 0);
  auto text = [&] {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  // The progress line appears once the first trajectory is followed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (text().find("stability") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  CHECK(wait_exit_code(pid) == 128 + SIGINT);
  const std::string out = text();
  INFO(out);
  CHECK_THAT(out, Catch::Contains("stopped             after"));
  CHECK_THAT(out, Catch::Contains("of 16 states (interrupted)"));
}

TEST_CASE("analyze stability --plot draws the region and the points", "[analyze]") {
  if (shell("command -v gnuplot").exit_code != 0) {
    WARN("gnuplot is not installed: the PNG part of `analyze stability --plot` is not tested");
    return;
  }
  fs::path dir = fresh_test_dir("analyze_test", "plot");
  Run r = run("analyze stability " + src("examples/node_elu_default_tanks.ode") + " --plot " +
              (dir / "region.png").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::file_size(dir / "region.png") > 1000);
  CHECK(fs::exists(dir / "region.region.dat"));
}

TEST_CASE("analyze stability --plot to a device or a missing folder is refused, writing nothing",
          "[analyze]") {
  fs::path dir = fresh_test_dir("analyze_test", "plot_refused");
  const std::string analyze = "analyze stability " + src("examples/node_elu_default_tanks.ode");
  Run device = run(analyze + " --plot /dev/full");
  CHECK(device.exit_code != 0);
  CHECK_THAT(device.err, Catch::Contains("/dev/full: i/o error: not a regular file"));
  CHECK(fs::is_character_file("/dev/full")); // not renamed over
  for (const char* left : {"/dev/full.dat", "/dev/full.gp", "/dev/full.region.dat"})
    CHECK_FALSE(fs::exists(left));
  Run missing = run(analyze + " --plot " + (dir / "no/such/region.png").string());
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("does not exist"));
  CHECK_FALSE(fs::exists(dir / "no"));
}

TEST_CASE("train prints the stability line and warns when points are outside", "[analyze]") {
  fs::path dir = fresh_test_dir("analyze_test", "train");
  Run r = run("train " + src("examples/gnode_flipflop.ode") +
              " --set N=6 --set H=8 --data synthetic:flipflop --dtype f64 --batch 100 --threads 2 "
              "--epochs 1 --no-progress --out " +
              (dir / "run").string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("stability euler h=0.01: 0 of 6 h·λ outside the region"));
  CHECK_THAT(r.err, !Catch::Contains("stability region"));

  Run bad = run("train " + src("tests/driver/nonfinite/step_too_large.ode") +
                " --data synthetic:flipflop --dtype f64 --batch 100 --threads 2 --epochs 1 "
                "--no-progress --out " +
                (dir / "bad").string());
  CHECK_THAT(bad.out, Catch::Contains("stability euler h=0.01: 3 of 3 h·λ outside the region"));
  CHECK_THAT(bad.err, Catch::Contains("plastic: warning: 3 of 3 eigenvalues of the field's "
                                      "Jacobian at initialisation give h·λ outside the euler "
                                      "stability region"));
}

TEST_CASE("analyze fixed-points finds and classifies the roots of z' = z - z^3", "[analyze]") {
  Run r =
      run("analyze fixed-points " + src("tests/driver/analyze/cubic.ode") + " --starts 60 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["starts"].get<int>() == 60);
  CHECK(j["state_size"].get<int>() == 2);
  CHECK(j["input"].get<double>() == 0.0);
  CHECK(j["to_fixed"].get<int>() == 60);
  CHECK(j["fixed_points"]["stable"].get<int>() == 4);
  CHECK(j["fixed_points"]["saddle"].get<int>() == 4);
  CHECK(j["fixed_points"]["unstable"].get<int>() == 1);
  REQUIRE(j["points"].size() == 9);
  for (const auto& p : j["points"]) {
    const double a = p["z"][0].get<double>(), b = p["z"][1].get<double>();
    const int unstable = (std::abs(a) < 1e-6) + (std::abs(b) < 1e-6);
    CHECK(p["unstable"].get<int>() == unstable);
    CHECK(p["eigenvalues"].size() == 2);
    CHECK(p["speed"].get<double>() <= 1e-8);
  }

  // --input holds x(t) at 1/2: one stable root of z^3 - z - 1/2 per coordinate.
  Run held = run("analyze fixed-points " + src("tests/driver/analyze/cubic.ode") +
                 " --starts 10 --input 0.5 --json");
  REQUIRE(held.exit_code == 0);
  auto h = nlohmann::json::parse(held.out);
  REQUIRE(h["points"].size() == 1);
  CHECK(h["points"][0]["kind"] == "stable");
  const double z = h["points"][0]["z"][0].get<double>();
  CHECK(z * z * z - z - 0.5 == Approx(0).margin(1e-9));
}

TEST_CASE("analyze fixed-points: the table, and starts along data trajectories", "[analyze]") {
  Run r = run("analyze fixed-points " + src("tests/driver/analyze/cubic.ode") + " --starts 40");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("fixed points         9 (4 stable, 0 marginal, 4 saddle, "
                                    "1 unstable)"));
  CHECK_THAT(r.out, Catch::Contains("starts from          the origin and states drawn"));

  // The gnODE at initialisation, starts along flip-flop trials.
  Run g = run("analyze fixed-points " + src("examples/gnode_flipflop_n3.ode") +
              " --set H=8 --data synthetic:flipflop --samples 2 --starts 10 --json");
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  auto j = nlohmann::json::parse(g.out);
  CHECK(j["starts"].get<int>() == 10);
  CHECK(j["to_fixed"].get<int>() + j["to_slow"].get<int>() + j["to_nowhere"].get<int>() == 10);
  for (const auto& p : j["points"]) {
    // The classification agrees with the eigenvalues it reports.
    const double radius = p["spectral_radius"].get<double>();
    int unstable = 0;
    for (const auto& l : p["eigenvalues"])
      unstable += l["re"].get<double>() > 1e-3 * radius;
    CHECK(p["unstable"].get<int>() == unstable);
    CHECK(p["eigenvalues"].size() == 3);
  }
}

TEST_CASE("analyze flow draws the plane, the trajectories and the points", "[analyze]") {
  fs::path dir = fresh_test_dir("analyze_test", "flow");
  Run missing = run("analyze flow " + src("tests/driver/analyze/cubic.ode"));
  CHECK(missing.exit_code == 2); // --plot is required
  if (shell("command -v gnuplot").exit_code != 0) {
    WARN("gnuplot is not installed: `analyze flow` is not tested");
    return;
  }
  Run r = run("analyze flow " + src("tests/driver/analyze/cubic.ode") +
              " --starts 30 --grid 7 --plot " + (dir / "flow.png").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("plane                PC 1 and PC 2 of 4 trajectories"));
  CHECK(fs::file_size(dir / "flow.png") > 1000);
  std::ifstream arrows(dir / "flow.arrows.dat");
  int lines = 0;
  for (std::string line; std::getline(arrows, line);)
    lines += !line.empty() && line[0] != '#';
  CHECK(lines == 49); // 7 x 7 arrows
  CHECK(fs::exists(dir / "flow.points.dat"));
  CHECK(fs::exists(dir / "flow.trajectories.dat"));
}

TEST_CASE("rounding noise on exact zeros is neutral, neither growing nor stiff", "[analyze]") {
  // The Delta CDE's fast weights accumulate: at the origin many of its
  // eigenvalues are exact zeros, which the eigensolver returns as +-1e-27.
  // Counted by sign they made "growing modes" and a stiffness ratio of 1e16.
  Run r = run("analyze stability " + src("examples/fwp_delta_cde_character.ode") +
              " --set heads=2 --set d_head=4 --set d_ff=8 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  const double tolerance = j["neutral_tolerance"].get<double>();
  CHECK(tolerance == Approx(1e-6 * j["spectral_radius"].get<double>()));
  CHECK(j["neutral"].get<int>() > 0);
  int64_t growing = 0, neutral = 0;
  double fastest = 0, slowest = INFINITY;
  for (const auto& p : j["points"]) {
    const double re = p["re"].get<double>();
    if (std::abs(re) <= tolerance) {
      ++neutral;
      continue;
    }
    growing += re > 0;
    if (re < 0) fastest = std::max(fastest, -re), slowest = std::min(slowest, -re);
  }
  CHECK(j["neutral"].get<int64_t>() == neutral);
  CHECK(j["growing"].get<int64_t>() == growing);
  if (fastest > 0) CHECK(j["stiffness"].get<double>() == Approx(fastest / slowest));
  const bool calm = j["stiffness"].is_null() || j["stiffness"].get<double>() < 1e6;
  CHECK(calm);

  Run text = run("analyze stability " + src("examples/fwp_delta_cde_character.ode") +
                 " --set heads=2 --set d_head=4 --set d_ff=8");
  CHECK_THAT(text.out, Catch::Contains("neutral modes") &&
                           Catch::Contains("(|Re λ| <= 1e-06 x spectral radius)"));
}
