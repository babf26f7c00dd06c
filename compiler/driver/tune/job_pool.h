// Runs `plastic train` jobs as child processes, a few at a time: the trials
// of a search. A child process, not a thread, so that a trial that crashes,
// runs out of memory or is refused cannot take the search down with it, and
// each trial is an ordinary run of its own (its folder, lock and log).
//
// Each child writes its standard output and error into its log file, runs
// in a process group of its own (a Ctrl-C at the terminal reaches the
// search, which passes it on once), and is sent SIGTERM if the search dies.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace plastic::driver {

struct Job {
  /// argv[0] names the program in its messages; the program run is this
  /// very executable (/proc/self/exe), even if a rebuild has replaced the
  /// file since the search started.
  std::vector<std::string> argv;
  std::filesystem::path log;     ///< standard output and error, appended
  std::function<void()> started; ///< called when the process starts (optional)
  /// Called on the search's thread when the job ends, with its exit code
  /// (128 + the signal's number when a signal ended it; 127 when it could
  /// not be started).
  std::function<void(int exit_code)> done;
};

class JobPool {
public:
  explicit JobPool(int slots) : slots_(slots < 1 ? 1 : slots) {}

  void submit(Job job) { queue_.push_back(std::move(job)); }

  /// Runs every submitted job, `slots` at a time, calling each one's `done`
  /// as it ends. On SIGINT / SIGTERM (rt::InterruptGuard) the running jobs
  /// get the same signal and are waited for — they save a checkpoint — and
  /// the queued ones never start. Returns false when interrupted.
  bool run();

private:
  int slots_;
  std::vector<Job> queue_;
};

/// The path of the running program, for argv[0].
std::string self_executable();

} // namespace plastic::driver
