// `plastic train | eval | predict` end to end, as a user runs them: a small
// gated neural ODE on the generated flip-flop task (paper 003 App. F). What
// the issue asks of training: results that resume bit-for-bit in f64, a
// `kill -9` mid-run that leaves no corrupt file and resumes, and malformed
// data that is refused with file:line:col and touches no checkpoint.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the build tree for one test's runs.
fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("train_test", name);
}

const std::string kModel = "examples/gnode_flipflop.ode --set N=6 --set H=8";

std::string train_args(const fs::path& out, int epochs, const std::string& extra = "") {
  return "train " + src(kModel) +
         " --data synthetic:flipflop --dtype f64 --batch 50 --threads 2 --epochs " +
         std::to_string(epochs) + " --out " + out.string() + " --no-progress " + extra;
}

std::string fmt_mse(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "mse %.4f", v);
  return text;
}

std::vector<nlohmann::json> epochs_of(const fs::path& run_dir) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(run_dir / "train.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

} // namespace

TEST_CASE("train learns, writes its run folder, and eval reproduces its numbers", "[train]") {
  fs::path dir = fresh_dir("basic");
  Run r = run(train_args(dir / "run", 3));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("validation  mse"));
  REQUIRE(fs::exists(dir / "run/model.safetensors"));
  auto epochs = epochs_of(dir / "run");
  REQUIRE(epochs.size() == 3);
  // Three epochs of Adam lower the training loss.
  CHECK(epochs.back()["train_loss"].get<double>() < epochs.front()["train_loss"].get<double>());

  auto summary = nlohmann::json::parse(std::ifstream(dir / "run/summary.json"));
  double mse = summary["validation"]["mse"].get<double>();
  Run e = run("eval " + src(kModel) +
              " --data synthetic:flipflop --dtype f64 --split validation --parameters " +
              (dir / "run").string());
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains(fmt_mse(mse)));

  Run p = run("predict " + src(kModel) +
              " --data synthetic:flipflop --dtype f64 --split validation --parameters " +
              (dir / "run").string() + " --output " + (dir / "pred.csv").string());
  REQUIRE(p.exit_code == 0);
  std::ifstream csv(dir / "pred.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header == "split,sample,index,time,target_out0,target_out1,target_out2,y0,y1,y2");
  int rows = 0;
  for (std::string line; std::getline(csv, line);)
    ++rows;
  CHECK(rows == 100 * 101); // 100 validation trials x 101 bin edges (the first without a target)
}

TEST_CASE("parameters of another model are refused", "[train]") {
  fs::path dir = fresh_dir("mismatch");
  REQUIRE(run(train_args(dir / "run", 1)).exit_code == 0);
  Run e = run("eval " + src("examples/gnode_flipflop.ode --set N=7 --set H=8") +
              " --data synthetic:flipflop --dtype f64 --parameters " + (dir / "run").string());
  CHECK(e.exit_code == 1);
  CHECK_THAT(e.err, Catch::Contains("belong to model"));
}

TEST_CASE("train --resume continues bit for bit in f64", "[train][resume]") {
  fs::path dir = fresh_dir("resume");
  REQUIRE(run(train_args(dir / "straight", 4)).exit_code == 0);
  REQUIRE(run(train_args(dir / "split", 2)).exit_code == 0);
  Run r = run(train_args(dir / "split", 4, "--resume"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto a = epochs_of(dir / "straight"), b = epochs_of(dir / "split");
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    INFO("epoch " << i + 1);
    CHECK(a[i]["train_loss"].get<double>() == b[i]["train_loss"].get<double>());
    CHECK(a[i]["valid_loss"].get<double>() == b[i]["valid_loss"].get<double>());
  }
}

TEST_CASE("kill -9 mid-run leaves readable checkpoints and --resume finishes the run",
          "[train][resume]") {
  fs::path dir = fresh_dir("kill");
  const int epochs = 40;
  REQUIRE(run(train_args(dir / "straight", epochs)).exit_code == 0);

  std::string cmd = std::string(PLASTIC_EXE) + " " + train_args(dir / "killed", epochs);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), (char*)nullptr);
    _exit(127);
  }
  // Wait for the second checkpoint, then kill without warning.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool killed_mid_run = false;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) break; // finished before we could kill it
    if (epochs_of(dir / "killed").size() >= 2) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      killed_mid_run = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(killed_mid_run);
  Run r = run(train_args(dir / "killed", epochs, "--resume"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto a = epochs_of(dir / "straight"), b = epochs_of(dir / "killed");
  REQUIRE(b.size() == a.size());
  CHECK(a.back()["train_loss"].get<double>() == b.back()["train_loss"].get<double>());
  CHECK(a.back()["valid_loss"].get<double>() == b.back()["valid_loss"].get<double>());
}

TEST_CASE("malformed data is refused with its location and touches no run", "[train][data]") {
  fs::path dir = fresh_dir("malformed");
  auto write = [&](const std::string& name, const std::string& text) {
    fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  };
  struct Case {
    fs::path data;
    std::string expect;
  };
  std::string ts =
      "@problemName t\n@timeStamps false\n@univariate true\n@classLabel true a b\n@data\n"
      "1.0,2.0,3.0:a\n1.0,2.0";
  std::string psv_header = "HR|O2Sat|Temp|SBP|MAP|DBP|Resp|EtCO2|BaseExcess|HCO3|FiO2|pH|PaCO2|"
                           "SaO2|AST|BUN|Alkalinephos|Calcium|"
                           "Chloride|Creatinine|Bilirubin_direct|Glucose|Lactate|Magnesium|"
                           "Phosphate|Potassium|Bilirubin_total|"
                           "TroponinI|Hct|Hgb|PTT|WBC|Fibrinogen|Platelets|Age|Gender|Unit1|Unit2|"
                           "HospAdmTime|ICULOS|SepsisLabel\n";
  std::string npy_header = "\x93NUMPY\x01\x00";
  std::string dict = "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 1), }";
  dict += std::string(118 - dict.size(), ' ') + "\n";
  std::string npy = npy_header + std::string(1, char(dict.size() & 0xff)) +
                    std::string(1, char(dict.size() >> 8)) + dict + std::string(16, '\0');
  std::vector<Case> cases = {
      {write("truncated.ts", ts), "truncated.ts:7:"},
      {write("psv/p000001.psv", psv_header + "80|97\n").parent_path(), "p000001.psv:2:"},
      {write("bad.csv", "a,b\n1,2\n3,oops\n"), "bad.csv:3:"},
      {write("npy/r0.npy", npy).parent_path(), "r0.npy"},
  };
  for (const Case& c : cases) {
    fs::path out = dir / "run";
    Run r = run(train_args(out, 1).replace(train_args(out, 1).find("synthetic:flipflop"), 18,
                                           c.data.string()));
    INFO(c.data << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
    CHECK(!fs::exists(out / "checkpoints"));
  }
}
