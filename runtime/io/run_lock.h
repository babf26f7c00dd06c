// One process owns a run folder at a time. Two `train --resume --out r`
// started together would otherwise both write checkpoints of their own
// seeds into r, or one would die on a file the other had just replaced.
//
// The owner holds an exclusive flock(2) on `r/.lock` for the run's lifetime
// and writes its process id into it; the kernel drops the lock when the
// process ends however it ends (kill -9 included), so a stale lock file
// never blocks the next run. A second process is refused at once with the
// owner's id rather than waiting.
#pragma once

#include <filesystem>

#include "runtime/support/train_error.h"

namespace plastic::rt {

class RunLock {
public:
  /// Creates `dir` if needed and locks it; fails (Io) naming the process
  /// that holds it when another does.
  static Result<RunLock, TrainError> acquire(const std::filesystem::path& dir);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

  /// The lock file's name inside the run folder.
  static constexpr const char* kFileName = ".lock";

private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace plastic::rt
