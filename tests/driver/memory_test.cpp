// The memory a training step needs (issue 19 defect 6, issue 15 item 4):
// a model too large for the machine (or --memory-limit) is refused with a
// located message before anything is allocated — `--set N=100000` on the
// flip-flop gNODE and `--set d_head=100000` on the Delta CDE used to check
// clean and then die in bad_alloc / "out of memory" —; the estimate agrees
// with what the gradient methods' MemoryMeter measures (bench-train's
// gradient_peak_mb) within 20 %; and `--gradient auto` never picks a
// method whose measured memory exceeds its budget.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"

using namespace plastic::test;

namespace {

const std::string kFlipflop = src("examples/gnode_flipflop.ode");
const std::string kDeltaCde = src("examples/fwp_delta_cde.ode");

/// One bench-train step, its JSON line (and the run, for messages).
nlohmann::json bench(const std::string& args, Run* out = nullptr) {
  Run r = run("bench-train " + args + " --steps 1 --threads 1 --batch 16 --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  if (out) *out = r;
  return nlohmann::json::parse(r.out);
}

} // namespace

TEST_CASE("check refuses the flip-flop gNODE at N=100000 with the memory it needs",
          "[cli][memory]") {
  Run r = run("check " + kFlipflop + " --set N=100000 --memory-limit 8GB");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("gnode_flipflop.ode:") != std::string::npos);
  CHECK(r.err.find("error: a training step of gnode_flipflop needs at least") != std::string::npos);
  CHECK(r.err.find("the --memory-limit of 8.0 GB") != std::string::npos);
  CHECK(r.err.find("parameter 'Wz' [100000,100003] takes the most; N = 100000 here; --set N=") !=
        std::string::npos);
  // The N the hint gives fits; one more does not.
  const size_t at = r.err.find("--set N=");
  REQUIRE(at != std::string::npos);
  const int fit = std::stoi(r.err.substr(at + 8));
  CHECK(run("check " + kFlipflop + " --set N=" + std::to_string(fit) + " --memory-limit 8GB")
            .exit_code == 0);
  CHECK(run("check " + kFlipflop + " --set N=" + std::to_string(fit + 1) + " --memory-limit 8GB")
            .exit_code == 1);
}

TEST_CASE("train refuses N=100000 before compiling instead of bad_alloc", "[cli][memory]") {
  const auto dir = fresh_test_dir("memory_test", "train_huge");
  Run r = run("train " + kFlipflop +
              " --set N=100000 --data synthetic:flipflop --memory-limit 8GB "
              "--epochs 1 --out " +
              (dir / "run").string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("needs at least") != std::string::npos);
  CHECK(r.err.find("model     ") == std::string::npos); // printed when compiling starts
  CHECK(r.err.find("out of memory") == std::string::npos);
}

TEST_CASE("train refuses a step too large for its data before recording the run", "[cli][memory]") {
  // The parameters (1.8 MB with the optimiser's moments) fit 2.5 MB; the
  // direct tape over the flip-flop trials' 100 steps on top of them does not,
  // for a tile of 8 lanes (AVX2, 1 MB) as of 16 (AVX-512, 1.8 MB).
  const auto dir = fresh_test_dir("memory_test", "train_data");
  Run r = run("train " + kFlipflop +
              " --data synthetic:flipflop --memory-limit 2.5MB --threads 1 "
              "--batch 16 --epochs 1 --no-progress --out " +
              (dir / "run").string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("a training step of gnode_flipflop needs about") != std::string::npos);
  CHECK(r.err.find("direct's tapes over 100 steps and 101 events") != std::string::npos);
  CHECK(r.err.find("more than the --memory-limit of 2.5 MB") != std::string::npos);
  CHECK(r.err.find("`--gradient auto` would choose checkpoint every") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "run" / "run.json"));
}

TEST_CASE("the Delta CDE at d_head=100000 is refused at its fast-weight state", "[cli][memory]") {
  Run check = run("check " + kDeltaCde + " --set d_head=100000 --memory-limit 64GB");
  INFO(check.err);
  CHECK(check.exit_code == 1);
  CHECK(check.err.find("fwp_delta_cde.ode:34:") != std::string::npos);
  CHECK(check.err.find("state 'W' [4,100000,100000] takes the most; d_head = 100000 here; --set "
                       "d_head=") != std::string::npos);
  Run b = run("bench-train " + kDeltaCde + " --set d_head=100000 --memory-limit 64GB --steps 1");
  INFO(b.err);
  CHECK(b.exit_code == 1);
  CHECK(b.err.find("needs at least") != std::string::npos);
}

TEST_CASE("check states the memory of a training step", "[cli][memory]") {
  Run r = run("check " + kFlipflop);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("memory      a training step: direct ") != std::string::npos);
  CHECK(r.out.find("batch 32") != std::string::npos);
}

TEST_CASE("the gradient memory estimate is within 20 % of the measured peak", "[cli][memory]") {
  struct Case {
    std::string model, sets;
  };
  for (const Case& c : {Case{kFlipflop, "--set N=24 --set H=64"}, Case{kDeltaCde, ""}})
    for (const char* gradient : {"direct", "checkpoint"})
      for (int length : {20, 80, 320}) {
        const nlohmann::json j = bench(c.model + " " + c.sets + " --gradient " + gradient +
                                       " --length " + std::to_string(length));
        const double measured = j["gradient_peak_mb"].get<double>();
        const double estimate = j["gradient_estimate_mb"].get<double>();
        INFO(c.model << " " << gradient << " length " << length << ": measured " << measured
                     << " MB, estimated " << estimate << " MB");
        REQUIRE(measured > 0);
        CHECK(std::abs(estimate - measured) <= 0.2 * measured);
      }
}

TEST_CASE("gradient auto chooses within its budget", "[cli][memory]") {
  const std::string model = kFlipflop + " --set N=24 --set H=64 --length 400";
  const double direct = bench(model + " --gradient direct")["gradient_peak_mb"].get<double>();
  // Room for direct: direct.
  Run r;
  nlohmann::json j =
      bench(model + " --gradient auto --memory-budget " + std::to_string(direct * 2) + "MB", &r);
  CHECK(j["gradient_method"] == "direct");
  CHECK(r.err.find("gradient auto: direct, est.") != std::string::npos);
  // Half of what direct needs: a method that recomputes, and fits.
  const double budget = direct / 2;
  j = bench(model + " --gradient auto --memory-budget " + std::to_string(budget) + "MB", &r);
  INFO(r.err);
  CHECK(j["gradient_method"] != "direct");
  CHECK(j["gradient_peak_mb"].get<double>() <= budget);
  CHECK(r.err.find("gradient auto: ") != std::string::npos);
  // Too little for any method: refused, saying what the smallest needs.
  Run none = run("bench-train " + model + " --gradient auto --memory-budget 1KB --steps 1");
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("no gradient method fits the 1.0 KB budget") != std::string::npos);
}

TEST_CASE("a bad --memory-limit is a usage error", "[cli][memory]") {
  CHECK(run("check " + kFlipflop + " --memory-limit lots").exit_code == 2);
  CHECK(run("bench-train " + kFlipflop + " --memory-budget -3GB").exit_code == 2);
}

TEST_CASE("gradient auto with a budget in the model is chosen at train time", "[cli][memory]") {
  const auto dir = fresh_test_dir("memory_test", "auto_in_model");
  std::ifstream in(kFlipflop);
  std::stringstream text;
  text << in.rdbuf();
  auto with_gradient = [&](const std::string& line) {
    std::string s = text.str();
    const size_t at = s.find("gradient direct");
    REQUIRE(at != std::string::npos);
    s.replace(at, std::string("gradient direct").size(), line);
    const auto file = dir / "auto.ode";
    std::ofstream(file) << s;
    return file.string();
  };
  const std::string roomy = with_gradient("gradient auto budget 1 GB");
  Run check = run("check " + roomy);
  INFO(check.err);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("auto: chosen at train time within 1.0 GB") != std::string::npos);
  Run r;
  nlohmann::json j = bench(roomy + " --set N=24 --set H=64 --length 50", &r);
  CHECK(j["gradient_method"] == "direct");
  CHECK(r.err.find("of 1.0 GB budget") != std::string::npos);
  const std::string tight = with_gradient("gradient auto budget 2 KB");
  Run none = run("bench-train " + tight + " --set N=24 --set H=64 --length 50 --steps 1");
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("no gradient method fits the 2.0 KB budget") != std::string::npos);
}

TEST_CASE("gradient auto's refusal names the method that needs the least", "[cli][memory]") {
  // On the flip-flop gnODE a checkpoint interval holds less than the
  // adjoint's backward solve: the refusal used to call the adjoint the smallest.
  const auto dir = fresh_test_dir("memory_test", "auto_least");
  Run r = run("train " + kFlipflop +
              " --data synthetic:flipflop --gradient auto --memory-budget 100KB --epochs 1 "
              "--no-progress --out " +
              (dir / "run").string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no gradient method fits the 100 KB budget: checkpoint every"));
  CHECK_THAT(r.err, Catch::Contains("needs the least") && Catch::Contains("direct ") &&
                        Catch::Contains("adjoint "));
}
