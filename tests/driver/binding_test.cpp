// One binding of a model to its data, whatever the door: a trained run's
// record (run.json, data.json) says how the model was bound — its dims
// from the data, the channels, classes and statistics of its training
// split — and eval, predict, the REPL and `plastic build` bind the same
// way. New series given to predict are prepared with the run's statistics
// (never re-fitted, never re-split), so a series predicted alone gets the
// numbers it gets inside its file.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

// The CharacterTrajectories Delta CDE made small; d_data and classes come
// from the data (`dim ... from data.*`).
const std::string kModel = "examples/fwp_delta_cde_character.ode --set heads=2 --set d_head=4 "
                           "--set d_ff=8";

// A UEA folder: 3 channels, 4 classes. The test file is offset by 2 so that
// statistics fitted on it differ from the training split's.
fs::path toy_uea(const fs::path& root) {
  const fs::path dir = root / "Toy";
  fs::create_directories(dir);
  write_toy_ts(dir / "Toy_TRAIN.ts", 3, 4, 40, 12);
  write_toy_ts(dir / "Toy_TEST.ts", 3, 4, 16, 24, 2.0, 777);
  return dir;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A .ts file holding data line `index` of `from` alone, its header's class
// list replaced by `classes` (a file of one series need not list them all).
fs::path one_series(const fs::path& from, size_t index, const std::string& classes,
                    const fs::path& to, const std::string& relabel = "") {
  std::vector<std::string> header, data;
  bool in_data = false;
  for (const std::string& line : lines_of(slurp(from))) {
    if (in_data)
      data.push_back(line);
    else
      header.push_back(line.rfind("@classLabel", 0) == 0 ? "@classLabel true " + classes : line);
    in_data = in_data || line == "@data";
  }
  std::string series = data.at(index);
  if (!relabel.empty()) series = series.substr(0, series.rfind(':') + 1) + relabel;
  std::ofstream out(to);
  for (const std::string& h : header)
    out << h << "\n";
  out << series << "\n";
  return to;
}

// A prediction row from its label column on (label, predicted,
// probabilities, outputs): what must not depend on the file the series
// came in. The first four columns name the split, the sample and its index.
std::string outputs_of(const std::string& row) {
  size_t at = 0;
  for (int comma = 0; comma < 4; ++comma)
    at = row.find(',', at) + 1;
  return row.substr(at);
}

struct TrainedRun {
  fs::path root, data, run;
};

// One f64 epoch on the toy folder (f64: the comparisons below are exact).
TrainedRun trained(const std::string& name) {
  TrainedRun t;
  t.root = fresh_test_dir("binding_test", name);
  t.data = toy_uea(t.root);
  t.run = t.root / "run";
  Run r =
      run("train " + src(kModel) + " --data " + t.data.string() +
          " --epochs 1 --batch 16 --threads 2 --no-progress --dtype f64 --out " + t.run.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return t;
}

} // namespace

TEST_CASE("a series predicted alone equals itself inside its file", "[binding][predict]") {
  const TrainedRun t = trained("alone");
  const fs::path whole_csv = t.root / "whole.csv", alone_csv = t.root / "alone.csv";
  Run whole = run("predict " + src(kModel) + " --parameters " + t.run.string() + " --data " +
                  t.data.string() + " --output " + whole_csv.string());
  INFO(whole.out << whole.err);
  REQUIRE(whole.exit_code == 0);
  const std::vector<std::string> rows = lines_of(slurp(whole_csv));
  REQUIRE(rows.size() == 17); // the header and the 16 test series

  // Series 6 of the test file (class c2) alone, in a file that lists only
  // its own class: its label is renumbered by the run's class names.
  one_series(t.data / "Toy_TEST.ts", 6, "c2", t.root / "one.ts");
  Run alone = run("predict " + src(kModel) + " --parameters " + t.run.string() + " --data " +
                  (t.root / "one.ts").string() + " --output " + alone_csv.string());
  INFO(alone.out << alone.err);
  REQUIRE(alone.exit_code == 0);
  const std::vector<std::string> one = lines_of(slurp(alone_csv));
  REQUIRE(one.size() == 2); // predicted whole: not split into train/validation/test
  CHECK(one[0] == rows[0]); // the same columns, the run's class names
  CHECK(one[1].rfind("data,", 0) == 0);
  CHECK(outputs_of(one[1]) == outputs_of(rows[7]));
  CHECK(outputs_of(one[1]).rfind("c2,", 0) == 0);

  // eval of the same file: its one series, with the run's statistics.
  Run ev = run("eval " + src(kModel) + " --parameters " + t.run.string() + " --data " +
               (t.root / "one.ts").string());
  INFO(ev.out << ev.err);
  CHECK(ev.exit_code == 0);
  CHECK_THAT(ev.out, Catch::Contains("data") && Catch::Contains("(1 samples)"));

  // --split names a part of new data: a single file has none but "data".
  Run split = run("predict " + src(kModel) + " --parameters " + t.run.string() + " --data " +
                  (t.root / "one.ts").string() + " --split validation --output -");
  CHECK(split.exit_code == 2);
  CHECK_THAT(split.err, Catch::Contains("predicted whole"));
}

TEST_CASE("new series are checked against the run's channels and classes", "[binding][predict]") {
  const TrainedRun t = trained("checked");
  // Two channels where the run read three: the run's dims stand (no
  // recompilation for the new file), and the count is named.
  write_toy_ts(t.root / "two.ts", 2, 4, 4, 12);
  Run two = run("predict " + src(kModel) + " --parameters " + t.run.string() + " --data " +
                (t.root / "two.ts").string() + " --output -");
  INFO(two.out << two.err);
  CHECK(two.exit_code == 1);
  CHECK_THAT(two.err, Catch::Contains("the series have 2 channels; the model was trained on 3"));

  // A class the run never saw.
  one_series(t.data / "Toy_TEST.ts", 0, "c0 zebra", t.root / "zebra.ts", "zebra");
  Run zebra = run("predict " + src(kModel) + " --parameters " + t.run.string() + " --data " +
                  (t.root / "zebra.ts").string() + " --output -");
  INFO(zebra.out << zebra.err);
  CHECK(zebra.exit_code == 1);
  CHECK_THAT(zebra.err, Catch::Contains("class 'zebra', which the model was not trained on"));
}

TEST_CASE("the run's own data given again is split as the run split it", "[binding][predict]") {
  const TrainedRun t = trained("own");
  // A copy of the data elsewhere is the same data (its fingerprint): the
  // default split is the test file, as without --data.
  const fs::path copy = t.root / "copy" / "Toy";
  fs::create_directories(copy.parent_path());
  fs::copy(t.data, copy, fs::copy_options::recursive);
  Run recalled = run("eval " + src(kModel) + " --parameters " + t.run.string());
  Run again =
      run("eval " + src(kModel) + " --parameters " + t.run.string() + " --data " + copy.string());
  INFO(recalled.out << recalled.err << again.out << again.err);
  REQUIRE(recalled.exit_code == 0);
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::StartsWith("test") && Catch::Contains("(16 samples)"));
  CHECK(again.out == recalled.out);
}

TEST_CASE("the REPL takes the model's dims from its data", "[binding][repl]") {
  const fs::path root = fresh_test_dir("binding_test", "repl");
  const fs::path data = toy_uea(root);
  write_toy_ts(root / "two.ts", 2, 3, 30, 12);
  const fs::path script = root / "session.repl";
  std::ofstream(script) << "info\ntrain 1\ndata " << (root / "two.ts").string()
                        << "\ninfo\ntrain 1\n";
  Run r = run("repl " + src(kModel) + " --data " + data.string() + " --script " + script.string());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // 3 channels and 4 classes first, then the new data's 2 and 3.
  CHECK_THAT(r.out, Catch::Contains("d_data=3") && Catch::Contains("classes=4"));
  CHECK_THAT(r.out, Catch::Contains("d_data=2") && Catch::Contains("classes=3"));
}

TEST_CASE("build freezes dims from the data only when it has the data", "[binding][build]") {
  const fs::path root = fresh_test_dir("binding_test", "build");
  const fs::path data = toy_uea(root);
  const fs::path bin = root / "toy_model";
  Run refused = run("build " + src(kModel) + " -o " + bin.string());
  INFO(refused.out << refused.err);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("dim 'd_data' comes from data.channels"));
  CHECK_THAT(refused.err, Catch::Contains("--data DATA"));
  CHECK_THAT(refused.err, Catch::Contains("--set d_data=N --set classes=N"));
  CHECK_FALSE(fs::exists(bin));

  Run built = run("build " + src(kModel) + " --data " + data.string() + " -o " + bin.string());
  INFO(built.out << built.err);
  REQUIRE(built.exit_code == 0);
  Run info = shell(bin.string() + " info --json");
  INFO(info.out << info.err);
  REQUIRE(info.exit_code == 0);
  const nlohmann::json frozen = nlohmann::json::parse(info.out)["dims"];
  CHECK(frozen["d_data"] == 3);
  CHECK(frozen["classes"] == 4);
  // Integer dims print as integers (they printed as 3.0), consts as reals.
  CHECK(frozen["d_data"].is_number_integer());
  CHECK(frozen["beta_scale"].is_number_float());
  // Its messages start with its own name, not `plastic:`.
  Run named = shell(bin.string() + " eval --parameters " + (root / "no_run").string());
  CHECK(named.exit_code == 2);
  CHECK_THAT(named.err, Catch::StartsWith("toy_model: "));
  // The binary reads the data it was built for.
  Run trains =
      shell(bin.string() + " train --data " + data.string() +
            " --epochs 1 --batch 16 --threads 2 --no-progress --out " + (root / "run").string());
  INFO(trains.out << trains.err);
  CHECK(trains.exit_code == 0);
}

TEST_CASE("resume refuses a folder whose run record is missing", "[binding][resume]") {
  const TrainedRun t = trained("resume");
  fs::remove(t.run / "run.json");
  Run r = run("train " + src(kModel) + " --resume --out " + t.run.string() + " --data " +
              t.data.string() + " --epochs 2 --lr 0.5 --threads 2 --no-progress --dtype f64");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no run.json"));
}

namespace {

// The REPL running `text` as a script: its exit code and output.
Run repl_script(const fs::path& dir, const std::string& name, const std::string& text,
                const std::string& flags = "") {
  const fs::path script = dir / (name + ".repl");
  std::ofstream(script) << text;
  return run("repl --script " + script.string() + " " + flags);
}

// The `params` table of a script's output (from its header on).
std::string params_table(const std::string& out) {
  const size_t at = out.rfind("parameter ");
  return at == std::string::npos ? std::string() : out.substr(at);
}

} // namespace

TEST_CASE("the REPL guards its settings and run folders as train does", "[binding][repl]") {
  const fs::path dir = fresh_test_dir("binding_test", "repl_guards");
  Run nan = repl_script(dir, "nan", "set lr nan\n");
  CHECK(nan.exit_code == 2);
  CHECK_THAT(nan.err, Catch::Contains("'nan' is not a finite non-negative number"));

  // A dim far too large is refused before compiling, as train refuses it,
  // and the session lives on (it used to end in std::bad_alloc).
  const std::string load = "load " + src("examples/gnode_flipflop.ode") + "\nN = 6\nH = 8\n";
  Run huge = repl_script(dir, "huge", load + "N = 100000\n", "--dtype f64");
  INFO(huge.out << huge.err);
  CHECK(huge.exit_code == 1);
  CHECK_THAT(huge.err, Catch::Contains("a training step of") && Catch::Contains("fits"));
  CHECK_THAT(huge.err, !Catch::Contains("internal error"));

  // save: a folder holding a run is replaced only with --force.
  const fs::path out = dir / "saved";
  Run first = repl_script(dir, "save1", load + "save " + out.string() + "\n");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  Run again = repl_script(dir, "save2", load + "save " + out.string() + "\n");
  INFO(again.out << again.err);
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, Catch::Contains("already holds a run") &&
                            Catch::Contains("save " + out.string() + " --force"));
  Run forced = repl_script(dir, "save3", load + "save " + out.string() + " --force\n");
  INFO(forced.out << forced.err);
  CHECK(forced.exit_code == 0);
}

TEST_CASE("loading another model file carries none of the previous parameters", "[binding][repl]") {
  const fs::path dir = fresh_test_dir("binding_test", "repl_load");
  // Two files of the same small gnODE: every parameter shares its name and
  // shape with the other's, and still belongs to another model.
  std::string text = slurp(src("examples/gnode_flipflop.ode"));
  const std::string dims = "dim n_bits = 3, N = 100, H = 100";
  REQUIRE(text.find(dims) != std::string::npos);
  text.replace(text.find(dims), dims.size(), "dim n_bits = 3, N = 6, H = 8");
  std::ofstream(dir / "a.ode") << text;
  std::ofstream(dir / "b.ode") << text;
  const std::string a = (dir / "a.ode").string(), b = (dir / "b.ode").string();
  Run trained_then_b = repl_script(
      dir, "ab",
      "load " + a + "\ndata synthetic:flipflop\nset batch 50\ntrain 1\nload " + b + "\nparams\n");
  Run fresh_b = repl_script(dir, "b", "load " + b + "\nparams\n");
  INFO(trained_then_b.out << trained_then_b.err << fresh_b.out << fresh_b.err);
  REQUIRE(trained_then_b.exit_code == 0);
  REQUIRE(fresh_b.exit_code == 0);
  CHECK_THAT(trained_then_b.out, !Catch::Contains("carried over"));
  CHECK(params_table(trained_then_b.out) == params_table(fresh_b.out));
  CHECK_FALSE(params_table(fresh_b.out).empty());
}

TEST_CASE("a --set given twice, a bad size and a --parameters that names nothing are said as such",
          "[binding][cli]") {
  Run twice = run("check " + src("examples/gnode_flipflop.ode") + " --set N=8 --set N=16");
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("--set N given twice (8 and 16)"));

  Run size = run("check " + src("examples/gnode_flipflop.ode") + " --memory-limit 1Q");
  CHECK(size.exit_code == 2);
  CHECK_THAT(size.err, Catch::Contains("--memory-limit 1Q: expected a size such as 512MB or 2GB"));

  Run missing = run("eval " + src(kModel) + " --parameters /nonexistent/run");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("--parameters: /nonexistent/run does not exist"));
  CHECK_THAT(missing.err, !Catch::Contains("--data is required"));
}

TEST_CASE("build checks the output folder before compiling", "[binding][build]") {
  Run r = run("build " + src("examples/gnode_flipflop.ode") + " -o /nonexistent/folder/model");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("the folder /nonexistent/folder does not exist"));
  CHECK_THAT(r.err, !Catch::Contains("collect2"));
}
