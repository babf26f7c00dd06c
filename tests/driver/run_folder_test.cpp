// A run folder belongs to one process and one run at a time: a second
// `train` on a folder in use is refused naming the owner (and a kill -9'd
// owner leaves no stale lock); a new run never lands beside an old one's
// files — it is refused without --force, and --force removes the old run
// first, so a failed new run cannot leave the old model for `eval` to use.
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
  return fresh_test_dir("run_folder_test", name);
}

const std::string kModel = src("examples/gnode_flipflop.ode") + " --set N=8 --set H=8";

std::string train_args(const fs::path& out, int epochs, const std::string& extra = "") {
  return "train " + kModel +
         " --data synthetic:flipflop --batch 50 --threads 1 --no-progress --epochs " +
         std::to_string(epochs) + " --out " + out.string() + " " + extra;
}

bool wait_for_file(pid_t pid, const fs::path& file) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(file) && fs::file_size(file) > 0) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

} // namespace

TEST_CASE("a run folder in use is refused naming its owner", "[train][run_folder]") {
  fs::path folder = fresh_dir("lock") / "run";
  // --patience 0: the owner must still hold the folder when the second run
  // asks for it; early stopping ended it after ~2 s, which a loaded machine
  // could spend before the second run got there.
  pid_t owner = start(train_args(folder, 100000, "--patience 0"));
  REQUIRE(owner > 0);
  REQUIRE(wait_for_file(owner, folder / "train.jsonl"));
  Run second = plastic::test::run(train_args(folder, 2, "--resume"));
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.err, Catch::Contains("run folder " + folder.string() +
                                         " is in use by process " + std::to_string(owner)));
  // kill -9 leaves the lock file behind but not the lock.
  ::kill(owner, SIGKILL);
  CHECK(wait_exit_code(owner) == -SIGKILL);
  Run resumed = plastic::test::run(train_args(folder, 2, "--resume"));
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
}

TEST_CASE("a new run in a folder holding one needs --force, which removes the old run",
          "[train][run_folder]") {
  fs::path dir = fresh_dir("replace");
  fs::path folder = dir / "run";
  REQUIRE(plastic::test::run(train_args(folder, 1)).exit_code == 0);
  REQUIRE(fs::exists(folder / "model.safetensors"));

  Run again = plastic::test::run(train_args(folder, 1));
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.err, Catch::Contains("already holds a run"));
  CHECK(fs::exists(folder / "model.safetensors")); // untouched

  // --force on data that fails: the old run's files are gone, not mixed in.
  fs::path bad = dir / "bad.csv";
  std::ofstream(bad) << "a,b\n1,2\n3,oops\n";
  std::string forced = train_args(folder, 1, "--force");
  forced.replace(forced.find("synthetic:flipflop"), 18, bad.string());
  Run f = plastic::test::run(forced);
  CHECK(f.exit_code == 1);
  CHECK(!fs::exists(folder / "model.safetensors"));
  CHECK(!fs::exists(folder / "summary.json"));
  CHECK(!fs::exists(folder / "checkpoints"));
  Run e = plastic::test::run("eval " + kModel + " --data synthetic:flipflop --parameters " +
                             folder.string());
  CHECK(e.exit_code == 1);

  Run fresh = plastic::test::run(train_args(folder, 1, "--force"));
  INFO(fresh.err);
  CHECK(fresh.exit_code == 0);
  CHECK(fs::exists(folder / "model.safetensors"));
}

TEST_CASE("the default folder runs/latest is a scratch run that a new run replaces and names",
          "[train][run_folder]") {
  fs::path dir = fresh_dir("latest");
  std::string args = train_args("runs/latest", 1);
  // The default folder, as the README's command uses it.
  const std::string out_flag = " --out runs/latest";
  args.replace(args.find(out_flag), out_flag.size(), "");
  const std::string in_dir = "cd " + dir.string() + " && " + std::string(PLASTIC_EXE) + " ";
  Run first = shell(in_dir + args);
  INFO(in_dir + args + "\n" + first.err);
  REQUIRE(first.exit_code == 0);
  REQUIRE(fs::exists(dir / "runs/latest/model.safetensors"));
  Run again = shell(in_dir + args);
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("replacing the previous run in runs/latest"));
  // Any other folder is kept: the same command with --out refuses.
  REQUIRE(shell(in_dir + args + " --out kept").exit_code == 0);
  CHECK(shell(in_dir + args + " --out kept").exit_code == 2);
}

TEST_CASE("files Plastic did not write are never removed", "[train][run_folder]") {
  fs::path folder = fresh_dir("foreign") / "run";
  fs::create_directories(folder);
  std::ofstream(folder / "notes.txt") << "mine\n";
  Run r = plastic::test::run(train_args(folder, 1, "--force"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("notes.txt"));
  CHECK(fs::exists(folder / "notes.txt"));
}

TEST_CASE("resuming a used folder that has no checkpoint is refused", "[train][run_folder]") {
  fs::path folder = fresh_dir("nothing") / "run";
  REQUIRE(plastic::test::run(train_args(folder, 1)).exit_code == 0);
  fs::remove_all(folder / "checkpoints");
  Run r = plastic::test::run(train_args(folder, 1, "--resume"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("nothing to resume"));
}

TEST_CASE("temporaries a killed writer left in the run folder are removed by the next run",
          "[train][run_folder]") {
  // kill -9 during an atomic write leaves `.<name>.tmp.<pid>.<n>` beside the
  // run's files (issue 19, defect 11): the next owner of the folder removes
  // them, on --resume as on --force, and nothing else.
  fs::path folder = fresh_dir("temporaries") / "run";
  REQUIRE(plastic::test::run(train_args(folder, 1)).exit_code == 0);
  const fs::path left = folder / ".train.jsonl.tmp.99999.0";
  const fs::path left_in_checkpoints = folder / "checkpoints" / ".epoch_1.json.tmp.99999.3";
  std::ofstream(left) << "{\"epoch\": 1";
  std::ofstream(left_in_checkpoints) << "{";
  Run resumed = plastic::test::run(train_args(folder, 2, "--resume"));
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK_FALSE(fs::exists(left));
  CHECK_FALSE(fs::exists(left_in_checkpoints));
  std::ofstream(left) << "{\"epoch\": 1";
  Run forced = plastic::test::run(train_args(folder, 1, "--force"));
  CHECK(forced.exit_code == 0);
  CHECK_FALSE(fs::exists(left));
  CHECK(fs::exists(folder / "model.safetensors"));
}
