// An interrupted `train` ends as a shell reports a process killed by the
// signal — 130 after SIGINT, 143 after SIGTERM — once it has saved a
// checkpoint, so a script can tell it from a finished run (which exits 0);
// and a SIGINT while the model compiles is honoured, not swallowed.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("signals_test", name);
}

// --patience 0: a run is stopped by its signal, never early by itself.
std::string train_args(const fs::path& out, int epochs) {
  return "train " + src("examples/gnode_flipflop.ode") +
         " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 --no-progress "
         "--patience 0 --epochs " +
         std::to_string(epochs) + " --out " + out.string();
}

size_t lines_of(const fs::path& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += !line.empty();
  return n;
}

/// Waits (up to a minute) until the run has logged an epoch.
bool wait_for_first_epoch(pid_t pid, const fs::path& run) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (lines_of(run / "train.jsonl") >= 1) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

/// Waits (up to a minute) until the process handles SIGINT itself
/// (/proc/PID/status, SigCgt): start-up has reached the point where a
/// Ctrl-C must stop the run rather than kill the process.
bool wait_for_sigint_handler(pid_t pid) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const fs::path proc = "/proc/" + std::to_string(pid);
  while (std::chrono::steady_clock::now() < deadline) {
    // The shell that starts it may catch SIGINT too: look once it is plastic.
    std::error_code ec;
    if (fs::read_symlink(proc / "exe", ec).filename() != fs::path(PLASTIC_EXE).filename()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    std::ifstream status(proc / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("SigCgt:", 0) == 0 &&
          (std::stoull(line.substr(7), nullptr, 16) & (1ULL << (SIGINT - 1))) != 0)
        return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

} // namespace

TEST_CASE("an interrupted run saves a checkpoint and exits 130 or 143", "[train][signals]") {
  for (int sig : {SIGINT, SIGTERM}) {
    fs::path run = fresh_dir("mid") / "run";
    pid_t pid = start(train_args(run, 100000));
    REQUIRE(pid > 0);
    REQUIRE(wait_for_first_epoch(pid, run));
    ::kill(pid, sig);
    CHECK(wait_exit_code(pid) == 128 + sig);
    CHECK(!fs::is_empty(run / "checkpoints"));
  }
}

TEST_CASE("a SIGINT while the model compiles stops the run", "[train][signals]") {
  fs::path run = fresh_dir("startup") / "run";
  pid_t pid = start(train_args(run, 100000));
  REQUIRE(pid > 0);
  // The handler is installed before the model is compiled, which takes
  // most of a second: the signal arrives during compilation.
  REQUIRE(wait_for_sigint_handler(pid));
  ::kill(pid, SIGINT);
  CHECK(wait_exit_code(pid) == 130);
  CHECK(lines_of(run / "train.jsonl") == 0);
}

TEST_CASE("with stdout on a file, each epoch's row is there as it ends and survives kill -9",
          "[train][signals]") {
  // A log file, a pipe, nohup, a cluster's log: the table's rows are
  // written (and flushed) as the epochs end, not once at the end, so a run
  // that is killed keeps every line it printed.
  const fs::path dir = fresh_dir("live_rows");
  const fs::path log = dir / "train.log";
  const std::string cmd = "exec " + std::string(PLASTIC_EXE) + " " +
                          train_args(dir / "run", 100000) + " >" + log.string() + " 2>/dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  REQUIRE(wait_for_first_epoch(pid, dir / "run"));
  // The epoch logged in train.jsonl is printed by the same step; give the
  // row a moment to be written after the log line.
  auto has_row = [&] {
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);)
      if (line.find("      1 ") != std::string::npos) return true;
    return false;
  };
  for (int i = 0; i < 200 && !has_row(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(pid, SIGKILL);
  CHECK(wait_exit_code(pid) == -SIGKILL);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  INFO(text.str());
  CHECK_THAT(text.str(), Catch::Contains("epoch  train loss  valid loss"));
  CHECK(has_row());
}
