// A run folder remembers how its run was made (run.json, model.ode):
// `eval` and `predict` need no flag repeated and give the run's numbers;
// `--resume` continues with the run's options and refuses what would mix
// two runs — a changed const or --set value, another data set, another
// learning rate; an interrupted run leaves its best parameters so far.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("run_record_test", name);
}

const std::string kModel = src("examples/gnode_flipflop.ode");
// A small neural CDE for classification on a toy .ts file (tests/support/toy_ts.h).
const std::string kNcde =
    src("examples/ncde_character.ode") + " --set classes=3 --set hidden=8 --set d_f=16";

std::string train_args(const fs::path& out, int epochs, const std::string& extra = "") {
  return "train " + kModel +
         " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 --no-progress "
         "--epochs " +
         std::to_string(epochs) + " --out " + out.string() + " " + extra;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fmt_metric(double v) {
  return fmt::format("{:.4f}", v);
}

size_t lines_of(const fs::path& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += !line.empty();
  return n;
}

bool wait_for_epochs(pid_t pid, const fs::path& run, size_t epochs) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (lines_of(run / "train.jsonl") >= epochs) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

} // namespace

TEST_CASE("eval and predict with no flag repeated give the training run's numbers",
          "[train][run_record]") {
  fs::path dir = fresh_dir("reuse");
  Run t = run(train_args(dir / "run", 2, "--seed 7 --set tau=0.02 --dtype f64"));
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  // The run keeps its model source and its record.
  CHECK(slurp(dir / "run/model.ode") == slurp(kModel));
  auto record = nlohmann::json::parse(slurp(dir / "run/run.json"));
  CHECK(record["model"]["sets"]["tau"].get<double>() == 0.02);
  CHECK(record["model"]["dtype"] == "f64");
  CHECK(record["data"]["split_seed"].get<int>() == 7);
  CHECK(record["options"]["--seed"].get<int>() == 7);

  auto summary = nlohmann::json::parse(slurp(dir / "run/summary.json"));
  const double mse = summary["validation"]["mse"].get<double>();
  // No --seed (the data is generated from it), no --set, no --dtype, no --data.
  Run e = run("eval " + kModel + " --split validation --parameters " + (dir / "run").string());
  INFO(e.out << e.err);
  REQUIRE(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("mse " + fmt_metric(mse)));

  Run p = run("predict " + kModel + " --split validation --parameters " + (dir / "run").string() +
              " --output " + (dir / "pred.csv").string());
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  std::ifstream csv(dir / "pred.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header == "split,sample,index,time,target_out0,target_out1,target_out2,y0,y1,y2");
  std::string first;
  std::getline(csv, first);
  CHECK_THAT(first, Catch::StartsWith("validation,"));

  // A --set other than the run's is refused, not silently evaluated.
  Run other =
      run("eval " + kModel + " --set N=8 --set H=8 --set tau=0.5 --dtype f64 --parameters " +
          (dir / "run").string());
  CHECK(other.exit_code == 1);
  CHECK_THAT(other.err, Catch::Contains("--set tau=0.02"));
}

TEST_CASE("resume refuses a changed const, --set value or learning rate",
          "[train][run_record][resume]") {
  fs::path dir = fresh_dir("refuse");
  REQUIRE(run(train_args(dir / "run", 1, "--lr 3e-3 --schedule cosine")).exit_code == 0);

  Run tau = run(train_args(dir / "run", 2, "--resume --set tau=0.5"));
  CHECK(tau.exit_code == 2);
  CHECK_THAT(tau.err, Catch::Contains("it used --set H=8 --set N=8, this command gives "
                                      "--set H=8 --set N=8 --set tau=0.5"));
  Run lr = run(train_args(dir / "run", 2, "--resume --lr 1e-3"));
  CHECK(lr.exit_code == 2);
  CHECK_THAT(lr.err, Catch::Contains("--lr 0.001 given, the run in " + (dir / "run").string() +
                                     " used --lr 0.003"));
  Run schedule = run(train_args(dir / "run", 2, "--resume --schedule plateau"));
  CHECK(schedule.exit_code == 2);
  CHECK(lines_of(dir / "run/train.jsonl") == 1); // none of them trained

  // Leaving the options out continues with the run's own (its cosine
  // schedule, its learning rate).
  Run resumed = run(train_args(dir / "run", 2, "--resume"));
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.out, Catch::Contains("resuming from epoch 2 (best epoch 1, valid loss"));
  CHECK(lines_of(dir / "run/train.jsonl") == 2);
}

TEST_CASE("resume on a folder with nothing to resume says it starts a new run",
          "[train][run_record][resume]") {
  fs::path dir = fresh_dir("fresh");
  Run r = run(train_args(dir / "run", 1, "--resume"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("nothing to resume in " + (dir / "run").string() +
                                    ": starting a new run"));
}

TEST_CASE("resume refuses another data set, not a copy of the same one",
          "[train][run_record][resume]") {
  fs::path dir = fresh_dir("data");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string args = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                           " --threads 1 --no-progress --out " + (dir / "run").string();
  Run first = run(args + " --epochs 1");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  // The same bytes rewritten (another modification time) are the same data.
  const std::string same = slurp(dir / "toy.ts");
  std::ofstream(dir / "toy.ts") << same;
  Run again = run(args + " --epochs 2 --resume");
  INFO(again.err);
  CHECK(again.exit_code == 0);
  // Another data set of the same shape is refused.
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16, 0, 999);
  Run changed = run(args + " --epochs 3 --resume");
  CHECK(changed.exit_code == 1);
  CHECK_THAT(changed.err, Catch::Contains("not the data the run in " + (dir / "run").string() +
                                          " was trained on"));
}

TEST_CASE("an interrupted run leaves its best parameters so far for eval",
          "[train][run_record][signals]") {
  fs::path run_dir = fresh_dir("interrupted") / "run";
  // --patience 0: early stopping would end the run before the signal.
  pid_t pid = start(train_args(run_dir, 100000, "--patience 0"));
  REQUIRE(pid > 0);
  REQUIRE(wait_for_epochs(pid, run_dir, 2));
  ::kill(pid, SIGINT);
  REQUIRE(wait_exit_code(pid) == 130);
  REQUIRE(fs::exists(run_dir / "model.safetensors"));
  Run e = run("eval " + kModel + " --split validation --parameters " + run_dir.string());
  INFO(e.err);
  CHECK(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("validation  mse"));
  Run resumed = run(train_args(run_dir, 1, "--resume"));
  INFO(resumed.err);
  CHECK_THAT(resumed.out, Catch::Contains("resuming from epoch"));
}

TEST_CASE("the validation fraction, a split seed apart from --seed, --select, split sizes printed",
          "[train][run_record]") {
  fs::path dir = fresh_dir("split");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string args = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                           " --threads 1 --no-progress --epochs 1 ";
  Run plain = run(args + "--out " + (dir / "plain").string());
  INFO(plain.out << plain.err);
  REQUIRE(plain.exit_code == 0);
  CHECK_THAT(plain.out,
             Catch::Contains("42 training, 9 validation, 9 test samples (split seed 0)"));
  Run wide = run(args + "--valid-fraction 0.3 --split-seed 5 --seed 1 --select accuracy --out " +
                 (dir / "wide").string());
  INFO(wide.out << wide.err);
  REQUIRE(wide.exit_code == 0);
  CHECK_THAT(wide.out,
             Catch::Contains("33 training, 18 validation, 9 test samples (split seed 5)"));
  auto record = nlohmann::json::parse(slurp(dir / "wide/run.json"));
  CHECK(record["data"]["split_seed"].get<int>() == 5);
  CHECK(record["options"]["--seed"].get<int>() == 1);
  CHECK(record["options"]["--select"] == "accuracy");
  // eval reuses the run's split: its validation part has 18 samples.
  Run e = run("eval " + kNcde + " --split validation --parameters " + (dir / "wide").string());
  INFO(e.err);
  CHECK(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("(18 samples)"));
}

TEST_CASE("a training share thins only the training part and is remembered",
          "[train][run_record]") {
  fs::path dir = fresh_dir("share");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string args = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                           " --threads 1 --no-progress --epochs 1 ";
  Run half = run(args + "--train-fraction 0.5 --out " + (dir / "half").string());
  INFO(half.out << half.err);
  REQUIRE(half.exit_code == 0);
  // 42 training samples (14 per class) thinned to 7 per class; validation
  // and test are the whole split's.
  CHECK_THAT(half.out, Catch::Contains("21 training, 9 validation, 9 test samples (split seed 0)"));
  CHECK_THAT(half.out, Catch::Contains("training on 21 of the 42 training samples"));
  auto record = nlohmann::json::parse(slurp(dir / "half/run.json"));
  CHECK(record["options"]["--train-fraction"].get<double>() == 0.5);
  // eval recalls the share: its training split is the run's 21 samples,
  // its test split the whole split's 9.
  Run e = run("eval " + kNcde + " --split all --parameters " + (dir / "half").string());
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("(21 samples)"));
  CHECK_THAT(e.out, Catch::Contains("(9 samples)"));
  // --resume refuses another share; --valid and a share are refused together.
  Run other = run(args + "--train-fraction 0.25 --resume --out " + (dir / "half").string());
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("--train-fraction 0.25 given"));
  Run with_valid = run(args + "--train-fraction 0.5 --valid " + (dir / "toy.ts").string() +
                       " --out " + (dir / "valid").string());
  CHECK(with_valid.exit_code == 2);
  CHECK_THAT(with_valid.err, Catch::Contains("give one of them"));
  Run zero = run(args + "--train-fraction 0 --out " + (dir / "zero").string());
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("(0, 1]"));
}

// The first epoch's training loss in a run folder's train.jsonl.
double first_train_loss(const fs::path& run_dir) {
  std::ifstream in(run_dir / "train.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("epoch") && j.contains("train_loss"))
      return j["train_loss"].get<double>();
  }
  return std::nan("");
}

TEST_CASE("a norm penalty joins the training loss and is remembered", "[train][run_record]") {
  fs::path dir = fresh_dir("penalty");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string args = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                           " --threads 1 --no-progress --epochs 1 ";
  Run plain = run(args + "--out " + (dir / "plain").string());
  REQUIRE(plain.exit_code == 0);
  Run pen = run(args + "--norm-penalty 1 --norm-penalty-on f --out " + (dir / "pen").string());
  INFO(pen.out << pen.err);
  REQUIRE(pen.exit_code == 0);
  // f is the field's mlp: 8 tensors (4 layers' weights and biases).
  CHECK_THAT(pen.out, Catch::Contains("penalty   1 x the sum of 8 parameter tensors' norms"));
  auto record = nlohmann::json::parse(slurp(dir / "pen/run.json"));
  CHECK(record["options"]["--norm-penalty"].get<double>() == 1);
  CHECK(record["options"]["--norm-penalty-on"].get<std::string>() == "f");
  // The same seed and data: the loss gains the norms (the last layer's
  // weight alone, 32 x 16 drawn from U(+-1/4), has a norm near 3.3).
  CHECK(first_train_loss(dir / "pen") > first_train_loss(dir / "plain") + 1);
  // --resume keeps the penalty without the flag repeated, and refuses
  // another weight; a name the model lacks and a cover without a weight are
  // refused before any data is read.
  Run again = run("train " + kNcde + " --threads 1 --no-progress --epochs 2 --resume --out " +
                  (dir / "pen").string());
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("penalty   1 x the sum of 8 parameter tensors' norms"));
  Run other =
      run(args + "--norm-penalty 0.5 --norm-penalty-on f --resume --out " + (dir / "pen").string());
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("--norm-penalty 0.5 given"));
  Run typo = run(args + "--norm-penalty 1 --norm-penalty-on g --out " + (dir / "typo").string());
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("'g' names no parameter of the model"));
  CHECK_THAT(typo.err, Catch::Contains("name a parameter or a layer: "));
  Run alone = run(args + "--norm-penalty-on f --out " + (dir / "alone").string());
  CHECK(alone.exit_code == 2);
  CHECK_THAT(alone.err, Catch::Contains("--norm-penalty-on without --norm-penalty"));
}

TEST_CASE("predict names the classes, the true label and the probabilities",
          "[train][run_record]") {
  fs::path dir = fresh_dir("classes");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  Run t = run("train " + kNcde + " --data " + (dir / "toy.ts").string() +
              " --threads 1 --no-progress --epochs 1 --out " + (dir / "run").string());
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  Run p = run("predict " + kNcde + " --parameters " + (dir / "run").string() + " --output " +
              (dir / "p.csv").string());
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  std::ifstream csv(dir / "p.csv");
  std::string header, row;
  std::getline(csv, header);
  CHECK(header == "split,sample,index,time,label,predicted,p_c0,p_c1,p_c2,y0,y1,y2");
  int rows = 0;
  while (std::getline(csv, row)) {
    ++rows;
    std::vector<std::string> f;
    std::stringstream ss(row);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    REQUIRE(f.size() == 12);
    CHECK(f[0] == "test");
    CHECK((f[4] == "c0" || f[4] == "c1" || f[4] == "c2"));
    const double sum = std::stod(f[6]) + std::stod(f[7]) + std::stod(f[8]);
    CHECK(sum == Approx(1.0).epsilon(1e-9));
  }
  CHECK(rows == 9);
}

TEST_CASE("the selection metric must be the loss or the task's metric", "[train][run_record]") {
  fs::path dir = fresh_dir("select");
  Run r = run(train_args(dir / "run", 1, "--select accuracy"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--select accuracy: this model's task reports mse"));
  CHECK(!fs::exists(dir / "run/run.json")); // refused before any work
  Run mse = run(train_args(dir / "run", 1, "--select mse"));
  INFO(mse.err);
  CHECK(mse.exit_code == 0);
}

TEST_CASE("eval and predict read a long CSV as the run did when the model takes its dims from it",
          "[train][run_record]") {
  // ncde_character.ode sizes its path and classes from the data. eval and
  // predict used to count the channels before recalling the run's --id,
  // --time, --label and --channels, compile another model, and refuse the
  // run's own parameters (issue 19).
  const fs::path dir = fresh_dir("long_csv");
  fs::create_directories(dir);
  const fs::path csv = dir / "series.csv";
  {
    std::ofstream f(csv);
    f << "id,t,x1,x2,cls\n";
    for (int s = 0; s < 24; ++s)
      for (int k = 0; k < 6; ++k)
        f << s << ',' << k << ',' << (s % 2 ? 0.3 * k : -0.2 * k) << ',' << 0.1 * (s % 5) << ','
          << (s % 2 ? "up" : "down") << '\n';
  }
  const std::string model =
      src("examples/ncde_character.ode") + " --set hidden=8 --set d_f=16 --threads 1";
  const fs::path out = dir / "run";
  Run train = run("train " + model + " --data " + csv.string() +
                  " --id id --time t --label cls --channels x1,x2 --epochs 1 --batch 8 "
                  "--no-progress --out " +
                  out.string());
  INFO(train.err);
  REQUIRE(train.exit_code == 0);
  Run eval = run("eval " + src("examples/ncde_character.ode") + " --parameters " + out.string());
  INFO(eval.err);
  CHECK(eval.exit_code == 0);
  Run predict = run("predict " + src("examples/ncde_character.ode") + " --parameters " +
                    out.string() + " --split validation");
  INFO(predict.err);
  CHECK(predict.exit_code == 0);
  CHECK_THAT(predict.out, Catch::Contains("up") || Catch::Contains("down"));
}
