// Running the `plastic` binary as a user does, for the command-line tests:
// its exit code and what it printed, each run with private capture files
// (CTest runs the cases of these files in parallel processes).
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace plastic::test {

struct Run {
  int exit_code;
  std::string out, err;
};

// Each run gets its own capture files: CTest runs the cases of this file in
// parallel processes, and a shared file would mix their outputs.
inline std::string capture_file(const char* suffix) {
  static int counter = 0;
  return std::string(PLASTIC_BINARY_DIR) + "/cli_test." + std::to_string(::getpid()) + "." +
         std::to_string(counter++) + suffix;
}

/// Any command line (a model binary, readelf, objdump, cmake), captured.
inline Run shell(const std::string& command) {
  std::string out_file = capture_file(".out");
  std::string err_file = capture_file(".err");
  int status = std::system((command + " >" + out_file + " 2>" + err_file).c_str());
  auto slurp = [](const std::string& f) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  Run result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_file), slurp(err_file)};
  std::remove(out_file.c_str());
  std::remove(err_file.c_str());
  return result;
}

/// An empty folder for one test case: build/<suite>/<name>.<pid>, emptied first.
inline std::filesystem::path fresh_test_dir(const std::string& suite, const std::string& name) {
  std::filesystem::path dir =
      std::filesystem::path(PLASTIC_BINARY_DIR) / suite / (name + "." + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The `plastic` driver with these arguments.
inline Run run(const std::string& args) {
  return shell(std::string(PLASTIC_EXE) + " " + args);
}

/// The `plastic` driver started in the background with these arguments
/// (output to `log`, discarded by default): its process id, for tests that
/// signal or kill it.
inline pid_t start(const std::string& args, const std::string& log = "/dev/null") {
  const std::string cmd = "exec " + std::string(PLASTIC_EXE) + " " + args + " >'" + log + "' 2>&1";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

/// Waits for a started process: its exit code, or -signal when a signal killed it.
inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

inline std::string src(const std::string& rel) {
  return std::string(PLASTIC_SOURCE_DIR) + "/" + rel;
}

} // namespace plastic::test
