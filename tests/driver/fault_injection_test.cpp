// Faults at any moment of a training run leave a run folder that reads back
// and resumes to the very result of an uninterrupted run (f64, bit for bit:
// the same train.jsonl losses, the same model.safetensors bytes):
//   * kill -9 at random moments (seeded, so a failure can be replayed), with
//     --resume after each;
//   * a full disk at each write site, one at a time: the Nth checked write of
//     the process fails with ENOSPC through the PLASTIC_FAIL_WRITE hook
//     (runtime/io/write_faults.h), the run exits 1 naming the file, and
//     --resume finishes it.
// The default suite runs a few of each; the [slow] cases run 20 kills and
// every write site.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

constexpr int kEpochs = 12;

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("fault_injection_test", name);
}

std::string train_args(const fs::path& out, const std::string& extra = "") {
  return "train " + src("examples/gnode_flipflop.ode") +
         " --set N=6 --set H=8 --data synthetic:flipflop --dtype f64 --batch 50 --threads 1 "
         "--no-progress --epochs " +
         std::to_string(kEpochs) + " --out " + out.string() + " " + extra;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The losses of every epoch in train.jsonl (times differ between runs).
std::vector<std::pair<double, double>> losses(const fs::path& run) {
  std::vector<std::pair<double, double>> out;
  std::ifstream in(run / "train.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      auto j = nlohmann::json::parse(line);
      out.emplace_back(j["train_loss"].get<double>(), j["valid_loss"].get<double>());
    }
  return out;
}

/// Whatever a fault left must read back: every log line and every
/// checkpoint record is complete JSON.
void check_readable(const fs::path& run) {
  std::ifstream log(run / "train.jsonl");
  for (std::string line; std::getline(log, line);) {
    INFO("train.jsonl line: " << line);
    CHECK_NOTHROW(nlohmann::json::parse(line));
  }
  std::error_code ec;
  for (fs::directory_iterator it(run / "checkpoints", ec), end; !ec && it != end; ++it)
    if (it->path().extension() == ".json" && it->path().filename().string()[0] != '.') {
      INFO(it->path());
      CHECK_NOTHROW(nlohmann::json::parse(slurp(it->path())));
    }
}

/// The uninterrupted run everything is compared with, trained once per process.
const fs::path& reference_run() {
  static const fs::path ref = [] {
    fs::path r = fresh_dir("reference") / "run";
    Run t = run(train_args(r));
    REQUIRE(t.exit_code == 0);
    return r;
  }();
  return ref;
}

void check_same_result(const fs::path& run) {
  const fs::path& ref = reference_run();
  CHECK(losses(run) == losses(ref));
  CHECK(slurp(run / "model.safetensors") == slurp(ref / "model.safetensors"));
  CHECK(slurp(run / "summary.json") == slurp(ref / "summary.json"));
}

/// Kills a fresh run `kills` times at random moments, resuming after each,
/// then lets it finish.
void kill_and_resume(int kills, unsigned seed) {
  const fs::path& ref = reference_run();
  (void)ref;
  fs::path run_dir = fresh_dir("kill." + std::to_string(seed)) / "run";
  // Moments spread over a whole run: compiling, reading data, training, saving.
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(run(train_args(fresh_dir("timing") / "run")).exit_code == 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> moment(0.0, seconds);
  for (int k = 0; k < kills; ++k) {
    const double at = moment(rng);
    INFO("kill " << k << " at " << at << " s");
    pid_t pid = start(train_args(run_dir, "--resume"));
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    ::kill(pid, SIGKILL);
    const int code = wait_exit_code(pid);
    CHECK((code == -SIGKILL || code == 0)); // it may have finished first
    check_readable(run_dir);
  }
  Run last = run(train_args(run_dir, "--resume"));
  INFO(last.err);
  REQUIRE(last.exit_code == 0);
  check_same_result(run_dir);
}

/// The first checked write to each file of a run, by the order the run makes them.
std::vector<std::pair<long, std::string>> write_sites() {
  fs::path dir = fresh_dir("sites");
  fs::path log = dir / "writes.log";
  Run t = shell("PLASTIC_FAIL_WRITE_LOG=" + log.string() + " " + std::string(PLASTIC_EXE) + " " +
                train_args(dir / "run"));
  REQUIRE(t.exit_code == 0);
  std::vector<std::pair<long, std::string>> sites;
  std::map<std::string, bool> seen;
  std::ifstream in(log);
  long n = 0;
  std::string path;
  while (in >> n >> path)
    if (!seen[path]) {
      seen[path] = true;
      sites.emplace_back(n, fs::path(path).filename().string());
    }
  return sites;
}

void full_disk_at(long n, const std::string& file) {
  INFO("write " << n << " (" << file << ") fails");
  fs::path run_dir = fresh_dir("full." + std::to_string(n)) / "run";
  Run failed = shell("PLASTIC_FAIL_WRITE=" + std::to_string(n) + " " + std::string(PLASTIC_EXE) +
                     " " + train_args(run_dir));
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK_THAT(failed.err, Catch::Contains(file));
  CHECK_THAT(failed.err, Catch::Contains("No space left on device"));
  check_readable(run_dir);
  Run resumed = run(train_args(run_dir, "--resume"));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  check_same_result(run_dir);
}

} // namespace

TEST_CASE("kill -9 at 3 random moments, resumed after each, ends as an uninterrupted run",
          "[train][faults]") {
  kill_and_resume(3, 1);
}

TEST_CASE("kill -9 at 20 random moments, resumed after each, ends as an uninterrupted run",
          "[train][faults][slow]") {
  kill_and_resume(20, 2);
}

TEST_CASE("a full disk at a few write sites: exit 1 naming the file, then --resume finishes",
          "[train][faults]") {
  auto sites = write_sites();
  REQUIRE(sites.size() >= 5);
  // The first of each kind: preprocessing record, checkpoint, log, final model, summary.
  for (const char* kind :
       {"data.json", ".params.safetensors", "train.jsonl", "model.safetensors", "summary.json"})
    for (const auto& [n, file] : sites)
      if (file.find(kind) != std::string::npos) {
        full_disk_at(n, file);
        break;
      }
}

TEST_CASE("a full disk at every write site: exit 1 naming the file, then --resume finishes",
          "[train][faults][slow]") {
  for (const auto& [n, file] : write_sites())
    full_disk_at(n, file);
}
