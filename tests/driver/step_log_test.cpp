// `train --log-steps`: every batch in RUN/steps.jsonl with the parameters
// before the first and after the last step, what a reference implementation
// retrains from (bench/reference/train_equivalence.py). The log agrees with
// the epoch table, each epoch visits every training sample once, and a
// resumed run's log equals an uninterrupted run's byte for byte, lines a
// crash left behind dropped.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

const std::string kNcde =
    src("examples/ncde_character.ode") + " --set classes=3 --set hidden=8 --set d_f=16";

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<nlohmann::json> read_lines(const fs::path& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string train_command(const fs::path& data, const fs::path& out, int epochs) {
  return "train " + kNcde + " --data " + data.string() +
         " --dtype f64 --batch 10 --threads 1 --no-progress --epochs " + std::to_string(epochs) +
         " --out " + out.string();
}

} // namespace

TEST_CASE("the step log lists every batch and agrees with the epoch table", "[train][steps]") {
  fs::path dir = fresh_test_dir("step_log_test", "agree");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  Run t = run(train_command(dir / "toy.ts", dir / "run", 2) + " --log-steps");
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(fs::exists(dir / "run/initial.safetensors"));
  CHECK(fs::exists(dir / "run/last.safetensors"));
  const auto steps = read_lines(dir / "run/steps.jsonl");
  const auto epochs = read_lines(dir / "run/train.jsonl");
  REQUIRE(epochs.size() == 2);
  // 60 series: 9 test, 9 validation, 42 training: 5 batches of 10, 10, 10, 10, 2.
  REQUIRE(steps.size() == 10);
  for (int e = 1; e <= 2; ++e) {
    std::set<std::string> seen;
    double weighted = 0;
    int64_t samples = 0;
    for (const auto& s : steps) {
      if (s["epoch"] != e) continue;
      CHECK(s["taken"] == true);
      CHECK(s["lr"].get<double>() == 1e-3);
      for (const auto& id : s["samples"])
        CHECK(seen.insert(id.get<std::string>()).second);
      weighted += s["loss"].get<double>() * static_cast<double>(s["samples"].size());
      samples += static_cast<int64_t>(s["samples"].size());
    }
    CHECK(seen.size() == 42);
    CHECK(samples == 42);
    CHECK(weighted / 42.0 == Approx(epochs[e - 1]["train_loss"].get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("a resumed run's step log equals an uninterrupted run's", "[train][steps]") {
  fs::path dir = fresh_test_dir("step_log_test", "resume");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  Run whole = run(train_command(dir / "toy.ts", dir / "whole", 3) + " --log-steps");
  INFO(whole.out << whole.err);
  REQUIRE(whole.exit_code == 0);

  Run first = run(train_command(dir / "toy.ts", dir / "parts", 2) + " --log-steps");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  // A line of epoch 3 logged before a crash: trained again on resume, so dropped.
  {
    std::ofstream crash(dir / "parts/steps.jsonl", std::ios::app);
    crash << R"({"epoch":3,"batch":0,"loss":1,"lr":0.001,"samples":[],"taken":true})"
          << "\n{\"epoch\":3,\"ba";
  }
  // Without --log-steps: a run that logged goes on logging.
  Run rest = run(train_command(dir / "toy.ts", dir / "parts", 3) + " --resume");
  INFO(rest.out << rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK(read_text(dir / "parts/steps.jsonl") == read_text(dir / "whole/steps.jsonl"));
  CHECK(read_text(dir / "parts/initial.safetensors") ==
        read_text(dir / "whole/initial.safetensors"));
  CHECK(read_text(dir / "parts/last.safetensors") == read_text(dir / "whole/last.safetensors"));
}

TEST_CASE("f64 training takes the same steps whatever --threads", "[train][steps]") {
  // The lane count once followed --threads (batch 10: one wide tile on one
  // thread, two narrow ones on four), and with it the order of the sums:
  // the losses differed in the last place from the first step on.
  fs::path dir = fresh_test_dir("step_log_test", "threads");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  std::string logs[2];
  int k = 0;
  for (const char* threads : {"1", "4"}) {
    const fs::path out = dir / (std::string("t") + threads);
    std::string command = train_command(dir / "toy.ts", out, 1) + " --log-steps";
    command.replace(command.find("--threads 1"), 11, std::string("--threads ") + threads);
    Run t = run(command);
    INFO(t.out << t.err);
    REQUIRE(t.exit_code == 0);
    logs[k++] = read_text(out / "steps.jsonl");
  }
  CHECK(!logs[0].empty());
  CHECK(logs[0] == logs[1]);
}

TEST_CASE("a run's lane count is recorded, and resume and eval compile with it", "[train][steps]") {
  // The lane count orders a tile's sums; another machine (or a batch that
  // now picks another width) would continue the run with other rounding.
  fs::path dir = fresh_test_dir("step_log_test", "lanes");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  const std::string exe = PLASTIC_EXE;
  Run whole = shell("PLASTIC_LANES=4 " + exe + " " +
                    train_command(dir / "toy.ts", dir / "whole", 2) + " --log-steps");
  INFO(whole.out << whole.err);
  REQUIRE(whole.exit_code == 0);
  CHECK(nlohmann::json::parse(read_text(dir / "whole/run.json"))["lanes"] == 4);

  Run first = shell("PLASTIC_LANES=4 " + exe + " " +
                    train_command(dir / "toy.ts", dir / "parts", 1) + " --log-steps");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  // Resumed without PLASTIC_LANES: the record's 4 lanes, not this machine's choice.
  Run rest = run(train_command(dir / "toy.ts", dir / "parts", 2) + " --resume");
  INFO(rest.out << rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK_THAT(rest.err, Catch::Contains("f64 x 4 lanes"));
  CHECK(read_text(dir / "parts/steps.jsonl") == read_text(dir / "whole/steps.jsonl"));

  Run eval = run("eval " + kNcde + " --parameters " + (dir / "whole").string());
  INFO(eval.out << eval.err);
  REQUIRE(eval.exit_code == 0);
  CHECK_THAT(eval.err, Catch::Contains("f64 x 4 lanes"));
}
