// `plastic tune`: a search over the training options and the model's `tune`
// ranges, with successive halving, whose trials are ordinary runs. Each
// trial trains on the exact values its record names; the search halves as
// planned; its best run evaluates to the number it printed; a failed trial
// is recorded and the search goes on; an interrupted search resumes to the
// same rows and the same best parameters bit for bit. And `train --until`,
// which the halving builds on: a run trained in pieces equals one trained
// at once.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const std::string kModel = src("tests/driver/tune/tiny_classifier.ode");

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json> rows_of(const fs::path& search) {
  std::vector<json> rows;
  std::ifstream in(search / "tune.jsonl");
  for (std::string line; std::getline(in, line);)
    rows.push_back(json::parse(line));
  return rows;
}

/// The rows by (trial, rung), without the wall time.
std::map<std::pair<int, int>, json> keyed(const std::vector<json>& rows) {
  std::map<std::pair<int, int>, json> out;
  for (json r : rows) {
    r.erase("seconds");
    out[{r["trial"].get<int>(), r["rung"].get<int>()}] = r;
  }
  return out;
}

std::string search_command(const fs::path& data, const fs::path& out, const std::string& more,
                           const std::string& min_epochs = "1") {
  return "tune " + kModel + " --data " + data.string() + " --dtype f64 --batch 10 --epochs 3 " +
         "--min-epochs " + min_epochs + " --eta 2 --selection split --out " + out.string() + " " +
         more;
}

} // namespace

TEST_CASE("a search halves its trials and its best run evaluates to the number it printed",
          "[tune]") {
  fs::path dir = fresh_test_dir("tune_test", "halving");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  Run t = run(search_command(dir / "toy.ts", dir / "search", "--trials 4 --jobs 2"));
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("successive halving: trials compared at 1, 2, 3 epochs") != std::string::npos);

  // 4 trials at 1 epoch, the best 2 at 2, the best 1 at 3.
  const std::vector<json> rows = rows_of(dir / "search");
  std::map<int, int> per_rung;
  for (const json& r : rows)
    ++per_rung[r["rung"].get<int>()];
  CHECK(per_rung == std::map<int, int>{{0, 4}, {1, 2}, {2, 1}});

  // Every trial trained on the values its row names, drawn from the ranges.
  for (const json& r : rows) {
    const json& v = r["values"];
    CHECK(v["lr"].get<double>() >= 1e-4);
    CHECK(v["lr"].get<double>() <= 1e-2);
    CHECK((v["hidden"] == 4 || v["hidden"] == 6));
    CHECK(v["scale"].get<double>() >= 0.5);
    CHECK(v["scale"].get<double>() <= 2);
    const fs::path trial = dir / "search" / r["run"].get<std::string>();
    const json record = json::parse(slurp(trial / "run.json"));
    CHECK(record["model"]["sets"]["hidden"] == v["hidden"]);
    CHECK(record["model"]["sets"]["scale"].get<double>() == v["scale"].get<double>());
    CHECK(record["options"]["--lr"].get<double>() == v["lr"].get<double>());
    CHECK(record["options"]["--batch"] == 10);
  }

  // The best run is an ordinary run folder, and eval agrees with the table.
  std::smatch m;
  const std::regex printed("best validation: accuracy ([0-9.e+-]+), loss ([0-9.e+-]+)");
  REQUIRE(std::regex_search(t.out, m, printed));
  const double loss = std::stod(m[2].str());
  Run e = run("eval " + kModel + " --parameters " + (dir / "search/best").string() +
              " --split validation");
  INFO(e.out << e.err);
  REQUIRE(e.exit_code == 0);
  std::smatch em;
  REQUIRE(std::regex_search(e.out, em, std::regex("loss ([0-9.]+)")));
  CHECK(std::stod(em[1].str()) == Approx(loss).margin(6e-5));
}

TEST_CASE("a failed trial is recorded with its reason and the search goes on", "[tune]") {
  fs::path dir = fresh_test_dir("tune_test", "failed");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  // hidden = 10^9 cannot fit in memory: that trial is refused by train.
  Run t = run(search_command(dir / "toy.ts", dir / "search",
                             "--search grid --lr 1e-3 --weight-decay 0 --set scale=1 "
                             "--space hidden=[4,1000000000]",
                             "3"));
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  const std::vector<json> rows = rows_of(dir / "search");
  REQUIRE(rows.size() == 2);
  int failed = 0;
  for (const json& r : rows)
    if (r["status"] == "failed") {
      ++failed;
      CHECK(r["values"]["hidden"] == 1000000000);
      CHECK(!r["error"].get<std::string>().empty());
    }
  CHECK(failed == 1);
  CHECK(fs::exists(dir / "search/best/model.safetensors"));
}

TEST_CASE("an interrupted search resumes to the same rows and best parameters bit for bit",
          "[tune][resume]") {
  fs::path dir = fresh_test_dir("tune_test", "resume");
  write_toy_ts(dir / "toy.ts", 2, 3, 60, 12);
  const std::string more = "--trials 3 --jobs 1";
  Run whole = run(search_command(dir / "toy.ts", dir / "whole", more));
  INFO(whole.out << whole.err);
  REQUIRE(whole.exit_code == 0);

  const pid_t pid =
      start(search_command(dir / "toy.ts", dir / "cut", more), (dir / "cut.log").string());
  // Stopped once the first trial's row is written, mid-search.
  for (int i = 0; i < 600 && rows_of(dir / "cut").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(pid, SIGINT);
  const int code = wait_exit_code(pid);
  INFO(slurp(dir / "cut.log"));
  REQUIRE((code == 130 || code == 0)); // 0 only if it finished before the signal
  CHECK(rows_of(dir / "cut").size() < rows_of(dir / "whole").size());

  Run changed = run("tune " + kModel + " --resume --out " + (dir / "cut").string() + " --lr 0.1");
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("--lr given: --resume continues the search") != std::string::npos);

  Run resumed = run("tune --resume --out " + (dir / "cut").string());
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(keyed(rows_of(dir / "cut")) == keyed(rows_of(dir / "whole")));
  CHECK(slurp(dir / "cut/best/model.safetensors") == slurp(dir / "whole/best/model.safetensors"));
}

TEST_CASE("small training sets are validated by k-fold cross-validation", "[tune][folds]") {
  fs::path dir = fresh_test_dir("tune_test", "folds");
  write_toy_ts(dir / "toy.ts", 2, 3, 30, 10);
  Run t = run("tune " + kModel + " --data " + (dir / "toy.ts").string() +
              " --dtype f64 --batch 10 --epochs 2 --min-epochs 2 --trials 2 --folds 2 "
              "--lr 1e-3 --weight-decay 0 --out " +
              (dir / "search").string());
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("2-fold cross-validation: 25 samples to train on, fewer than 1000") !=
        std::string::npos);
  CHECK(fs::exists(dir / "search/trial-000/fold-1/summary.json"));
  CHECK(fs::exists(dir / "search/trial-000/fold-2/summary.json"));
  // The best setting is trained once more on one split: an ordinary run.
  CHECK(fs::exists(dir / "search/best/summary.json"));
  CHECK(!fs::exists(dir / "search/best/fold-1"));
}

TEST_CASE("a search refuses what it cannot search", "[tune]") {
  fs::path dir = fresh_test_dir("tune_test", "refused");
  write_toy_ts(dir / "toy.ts", 2, 3, 30, 10);
  const std::string base = "tune " + kModel + " --data " + (dir / "toy.ts").string() + " --out " +
                           (dir / "search").string();
  Run unknown = run(base + " --space width=[1,2]");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--space width: neither a training option") != std::string::npos);
  Run both = run(base + " --lr 1e-3 '--space=lr=log(1e-4,1e-2)'");
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--lr is given and --space searches it") != std::string::npos);
  Run bad = run(base + " '--space=lr=log(0,1)'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("a log range needs positive bounds") != std::string::npos);
  CHECK(!fs::exists(dir / "search/tune.json"));
}

TEST_CASE("a model's tune ranges are checked with the line and a hint", "[tune][dsl]") {
  fs::path dir = fresh_test_dir("tune_test", "dsl");
  const fs::path model = dir / "bad.ode";
  std::ofstream(model) << slurp(kModel).replace(slurp(kModel).find("tune [4, 6]"), 11,
                                                "tune [4, 4.5]");
  Run t = run("check " + model.string());
  CHECK(t.exit_code == 1);
  CHECK(t.err.find("bad.ode:8:") != std::string::npos);
  CHECK(t.err.find("dim 'hidden' is a positive integer; 4.5 is not") != std::string::npos);
  Run summary = run("check " + kModel);
  CHECK(summary.out.find("tunable     hidden [4, 6], scale log(0.5, 2) (plastic tune)") !=
        std::string::npos);
  Run ast = run("emit --ast " + kModel);
  CHECK(ast.out.find("dim hidden = 4 tune [4, 6]") != std::string::npos);
  CHECK(ast.out.find("const scale = 1 tune log(0.5, 2)") != std::string::npos);
}

TEST_CASE("a run trained in pieces with --until equals one trained at once", "[train][until]") {
  fs::path dir = fresh_test_dir("tune_test", "until");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  const std::string base = "train " + kModel + " --data " + (dir / "toy.ts").string() +
                           " --dtype f64 --batch 10 --epochs 3 --schedule cosine --no-progress";
  REQUIRE(run(base + " --out " + (dir / "whole").string()).exit_code == 0);
  Run first = run(base + " --until 1 --out " + (dir / "pieces").string());
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("paused after epoch 1 of 3") != std::string::npos);
  CHECK(!fs::exists(dir / "pieces/summary.json"));
  CHECK(fs::exists(dir / "pieces/model.safetensors"));
  REQUIRE(run(base + " --until 2 --resume --out " + (dir / "pieces").string()).exit_code == 0);
  REQUIRE(run(base + " --resume --out " + (dir / "pieces").string()).exit_code == 0);
  CHECK(slurp(dir / "pieces/model.safetensors") == slurp(dir / "whole/model.safetensors"));
  CHECK(fs::exists(dir / "pieces/summary.json"));
}
