// Every zoo model trains on the real data its header comment names, at its
// default dims, through the command line a user types — and the .csv and
// .npy data sets are usable at all: target, label, time (date + clock),
// static and window flags, recorded in the run folder so that `eval` and
// `train --resume` need none of them repeated.
//
// Subsets keep the runs short: a few dozen PhysioNet stays, a few Walker2d
// rollouts, the first CharacterTrajectories samples, one epoch each. Three
// models (one per reader that had no way in before: PhysioNet statics, .npy
// next-step targets, CSV targets + statics + windows) run in the default
// suite; the whole zoo is labelled slow. Every case skips with a message
// when ../shared/data (or $PLASTIC_DATA) is absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/driver/cli_support.h"
#include "tests/driver/run_files.h"
#include "tests/runtime/data/data_test_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> data_or_skip() {
  auto dir = plastic::rt::test::real_data();
  if (!dir)
    WARN("real data not found (set PLASTIC_DATA or put it at <repo>/../shared/data): skipped");
  return dir;
}

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("zoo_test", name);
}

// The first `count` files (in name order) of `from` whose name ends in
// `suffix`, linked into a fresh folder: a subset a reader sees as the set.
fs::path subset_folder(const fs::path& from, const std::string& suffix, std::size_t count,
                       const std::string& name) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(from))
    if (e.path().filename().string().ends_with(suffix)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  files.resize(std::min(files.size(), count));
  const fs::path dir = fresh_dir(name);
  for (const fs::path& f : files)
    fs::create_symlink(fs::absolute(f), dir / f.filename());
  return dir;
}

// PhysioNet stays: the first 40, which hold septic and non-septic patients.
std::optional<fs::path> physionet_subset(const fs::path& root) {
  const auto extracted = plastic::rt::test::extracted(
      root / "physionet2019/training_setB_partial.tar.xz", "physionet2019");
  if (!extracted) return std::nullopt;
  return subset_folder(*extracted / "training_setB", ".psv", 40, "physionet");
}

std::optional<fs::path> walker_subset(const fs::path& root) {
  const auto extracted =
      plastic::rt::test::extracted(root / "walker2d/rollouts_float32.tar.xz", "walker2d");
  if (!extracted) return std::nullopt;
  return subset_folder(*extracted / "walker2d", ".npy", 6, "walker2d");
}

// The header and the first `samples` series of a .ts file.
fs::path ts_subset(const fs::path& file, std::size_t samples, const std::string& name) {
  std::ifstream in(file);
  const fs::path out_path = fresh_dir(name) / file.filename();
  std::ofstream out(out_path);
  bool data = false;
  std::size_t taken = 0;
  for (std::string line; std::getline(in, line) && taken < samples;) {
    if (data && !line.empty()) ++taken;
    if (line.rfind("@data", 0) == 0) data = true;
    out << line << "\n";
  }
  return out_path;
}

// Trains `model` (with `args`) for one epoch into a fresh folder; returns it.
fs::path train_one_epoch(const std::string& model, const std::string& args,
                         const std::string& name) {
  const fs::path out = fresh_dir(name);
  const Run r = run("train " + src(model) + " " + args +
                    " --epochs 1 --batch 8 --threads 2 --no-progress --out " + out.string());
  INFO(model << " " << args << "\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(out / "model.safetensors"));
  return out;
}

// The line `split  metric value ...` that train and eval print.
std::string evaluation_line(const std::string& output, const std::string& split) {
  std::smatch m;
  const std::regex line("(^|\n)(" + split + " +[a-z_]+ [^\n]*)");
  return std::regex_search(output, m, line) ? m[2].str() : std::string();
}

} // namespace

TEST_CASE(
    "ncde_sepsis_static runs on PhysioNet at its default dims (--oi), and --set groups=1 without",
    "[zoo][physionet]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto stays = physionet_subset(*root);
  REQUIRE(stays);
  train_one_epoch("examples/ncde_sepsis_static.ode", "--data " + stays->string() + " --oi",
                  "sepsis_oi");
  train_one_epoch("examples/ncde_sepsis_static.ode", "--set groups=1 --data " + stays->string(),
                  "sepsis_no_oi");
  // The OI model on data read without --oi: refused, saying what differs.
  const Run r =
      run("train " + src("examples/ncde_sepsis_static.ode") + " --data " + stays->string() +
          " --epochs 1 --no-progress --out " + fresh_dir("sepsis_mismatch").string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--oi") != std::string::npos);
  // d_in is derived (1 + groups * d_feat): `--set d_in=35` cannot fix this,
  // so the message must not advise it (it did; issue 19).
  CHECK(r.err.find("--set d_in") == std::string::npos);
}

TEST_CASE("a binary classifier reports AUROC and, with --select accuracy, keeps the epoch of "
          "best accuracy of the logit's sign",
          "[zoo][physionet][select]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto stays = physionet_subset(*root);
  REQUIRE(stays);
  const fs::path out = fresh_dir("sepsis_select_accuracy");
  const Run r = run("train " + src("examples/ncde_sepsis_static.ode") + " --set groups=1 --data " +
                    stays->string() +
                    " --epochs 4 --patience 0 --select accuracy --lr 0.01 --batch 8 --threads 2 "
                    "--no-progress --out " +
                    out.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Kidger et al.'s loop keeps the epoch of highest validation accuracy:
  // the run reports accuracy each epoch and keeps its best.
  const std::vector<nlohmann::json> epochs = epoch_rows(out);
  REQUIRE(epochs.size() == 4);
  double best = -1;
  for (const nlohmann::json& e : epochs) {
    CHECK(e.at("metric") == "accuracy");
    best = std::max(best, e.at("valid_metric").get<double>());
  }
  const nlohmann::json summary = nlohmann::json::parse(file_bytes(out / "summary.json"));
  const int64_t kept = summary.at("best_epoch").get<int64_t>();
  CHECK(epochs.at(static_cast<size_t>(kept - 1)).at("valid_metric").get<double>() == best);
  // The test split still reports the task's AUROC, and the accuracy beside it.
  CHECK(summary.at("test").contains("auroc"));
  CHECK(summary.at("test").contains("accuracy"));

  // A value the task does not report is refused, naming what it does.
  const Run mse =
      run("train " + src("examples/ncde_sepsis_static.ode") + " --set groups=1 --data " +
          stays->string() + " --epochs 1 --select mse --no-progress --out " +
          fresh_dir("sepsis_select_mse").string());
  CHECK(mse.exit_code != 0);
  CHECK(mse.err.find("select loss or auroc, or accuracy") != std::string::npos);
}

TEST_CASE("ode_rfwp learns the next Walker2d observation from .npy rollouts (--target next)",
          "[zoo][npy]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto rollouts = walker_subset(*root);
  REQUIRE(rollouts);
  // Smaller sizes than App. C.3's keep the default suite quick; the slow zoo
  // case runs the default dims.
  const fs::path out = train_one_epoch("examples/ode_rfwp.ode",
                                       "--set heads=2 --set d_head=4 --set d_ff=16 --data " +
                                           rollouts->string() + " --target next",
                                       "rfwp_smoke");
  std::ifstream record(out / "data.json");
  const std::string text((std::istreambuf_iterator<char>(record)), {});
  CHECK(text.find("\"target\": \"next\"") != std::string::npos);
}

TEST_CASE("the cascaded tanks CSV: channel, target, first-row static, windows and period / eval "
          "and --resume reuse them",
          "[zoo][csv]") {
  const auto root = data_or_skip();
  if (!root) return;
  const std::string data = (*root / "cascaded_tanks/dataBenchmark.csv").string();
  const std::string model = "examples/node_elu_sii_tanks.ode";
  const fs::path out = train_one_epoch(model,
                                       "--data " + data +
                                           " --channels uEst --target yEst --static yEst "
                                           "--window 64 --period 4 --seed 3",
                                       "tanks");
  // eval with only --data and the run folder: the flags come from data.json,
  // so the same samples are read and the numbers agree with training's.
  const Run trained = run("eval " + src(model) + " --data " + data + " --parameters " +
                          out.string() + " --split validation --threads 2 --seed 3");
  INFO(trained.out << trained.err);
  REQUIRE(trained.exit_code == 0);
  CHECK(!evaluation_line(trained.out, "validation").empty());
  // Without the record the CSV has no target: refused, not misread.
  fs::remove(out / "data.json");
  const Run bare = run("eval " + src(model) + " --data " + data + " --parameters " + out.string());
  CHECK(bare.exit_code == 1);
}

TEST_CASE("train --resume reads the data as the run did and refuses a changed data flag",
          "[zoo][csv]") {
  const auto root = data_or_skip();
  if (!root) return;
  const std::string data = (*root / "cascaded_tanks/dataBenchmark.csv").string();
  const std::string model = "examples/node_elu_sii_tanks_euler.ode";
  const fs::path out = train_one_epoch(model,
                                       "--data " + data +
                                           " --channels uEst --target yEst --static yEst "
                                           "--window 64 --period 4",
                                       "tanks_resume");
  const std::string resume = "train " + src(model) + " --data " + data +
                             " --epochs 2 --batch 8 --threads 2 --no-progress --resume --out " +
                             out.string();
  const Run changed = run(resume + " --window 32");
  INFO(changed.err);
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("--window 64") != std::string::npos);
  const Run resumed = run(resume);
  INFO(resumed.out << resumed.err);
  CHECK(resumed.exit_code == 0);
}

TEST_CASE("the air-quality CSV trains with a date + clock time, a missing-value number and "
          "named targets",
          "[zoo][csv]") {
  const auto root = data_or_skip();
  if (!root) return;
  const std::string data = (*root / "airquality/AirQualityUCI.csv").string();
  // Before the flags existed every column was read as a channel and the
  // file failed on its Date column.
  const Run plain = run("train " + src("examples/node_elu_default_tanks.ode") + " --data " + data +
                        " --epochs 1 --no-progress --out " + fresh_dir("aq_plain").string());
  CHECK(plain.exit_code == 1);
  CHECK(plain.err.find("AirQualityUCI.csv:2:1:") != std::string::npos);
  // Benzene from two sensors, hourly, one day per sample, starting from the
  // day's first benzene reading.
  const fs::path out = train_one_epoch(
      "examples/node_elu_default_tanks.ode",
      "--set d_u=2 --data " + data +
          " --time Date,Time --missing -200 --channels PT08_S2_NMHC,T --target C6H6_GT "
          "--static C6H6_GT --window 24",
      "airquality");
  std::ifstream record(out / "data.json");
  const std::string text((std::istreambuf_iterator<char>(record)), {});
  CHECK(text.find("\"time\": \"Date,Time\"") != std::string::npos);
  CHECK(text.find("\"missing\": \"-200\"") != std::string::npos);
}

TEST_CASE("column flags given for data without columns are refused", "[zoo][csv]") {
  const Run r =
      run("train " + src("examples/gnode_flipflop.ode") +
          " --set N=4 --set H=4 --data synthetic:flipflop --target y --epochs 1 --no-progress "
          "--out " +
          fresh_dir("refused").string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("apply to a .csv file or a folder of .npy series only") != std::string::npos);
  const Run bad = run("train " + src("examples/gnode_flipflop.ode") +
                      " --data synthetic:flipflop --window 1 --epochs 1 --out " +
                      fresh_dir("refused2").string());
  CHECK(bad.exit_code == 2);
}

// The whole zoo: each model whose header names a data set in ../shared/data,
// at its default dims, one epoch on a subset.
TEST_CASE("every zoo model trains on the data its header names", "[zoo][slow]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto stays = physionet_subset(*root);
  const auto rollouts = walker_subset(*root);
  REQUIRE(stays);
  REQUIRE(rollouts);
  const std::string character =
      ts_subset(*root / "uea/CharacterTrajectories/CharacterTrajectories_TRAIN.ts", 60, "character")
          .string();
  const std::string swj = (*root / "uea/StandWalkJump").string();
  const std::string tanks = (*root / "cascaded_tanks/dataBenchmark.csv").string() +
                            " --channels uEst --target yEst --static yEst --window 64 --period 4";
  const struct {
    const char* model;
    std::string data;
  } zoo[] = {
      {"fwp_hebb_node", stays->string() + " --oi"},
      {"fwp_oja_node", stays->string()},
      {"fwp_oja_cde", stays->string() + " --oi"},
      {"fwp_hebb_cde_sepsis", stays->string() + " --oi"},
      {"fwp_delta_node_sepsis", stays->string() + " --oi"},
      {"fwp_delta_cde_predelta", stays->string()},
      {"ncde_sepsis_static", stays->string() + " --oi"},
      {"ncde_character", character},
      {"gnode_character", character},
      {"fwp_delta_cde_character", character},
      {"fwp_hebb_rde", swj},
      {"fwp_oja_rde", swj},
      {"fwp_delta_rde", swj},
      {"fwp_delta_2layer", swj},
      {"nrde_depth2", swj},
      {"nrde_depth3", swj},
      {"ode_rfwp", rollouts->string() + " --target next"},
      {"ode_rnn", rollouts->string() + " --target next"},
      {"gnode_walker2d", rollouts->string() + " --target next"},
      {"gnode_walker2d_nc", rollouts->string() + " --target next"},
      {"node_walker2d", rollouts->string() + " --target next"},
      {"mgru_walker2d", rollouts->string() + " --target next"},
      {"node_elu_sii_tanks", tanks},
      {"node_elu_sii_tanks_euler", tanks},
      // The default-init baselines are unstable on purpose (paper 004 Sec.
      // 3.1); their headers train with a clip: at seed 0 the midpoint one's
      // gradient (1.4e21) is beyond f32 Adam's second moment.
      {"node_elu_default_tanks", tanks + " --clip 1"},
      {"node_elu_default_tanks_euler", tanks + " --clip 1"},
  };
  for (const auto& z : zoo) {
    SECTION(z.model) {
      train_one_epoch(std::string("examples/") + z.model + ".ode", "--data " + z.data, z.model);
    }
  }
}
