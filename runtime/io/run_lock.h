// One process owns a run folder at a time. Two `train --resume --out r`
// started together would otherwise both write checkpoints of their own
// seeds into r, or one would die on a file the other had just replaced.
//
// The owner holds an exclusive flock(2) on `r/.lock` for the run's lifetime
// and writes its process id into it; the kernel drops the lock when the
// process ends however it ends (kill -9 included), so a stale lock file
// never blocks the next run. A second process is refused at once with the
// owner's id rather than waiting.
//
// A run that fails before writing anything (bad data, a refused option, a
// Ctrl-C during start-up) leaves nothing behind: when the owner lets go of
// a folder holding only its lock file, the file goes, and so does the
// folder if acquire() created it. A waiting process that opened the lock
// file before it was unlinked sees the file it locked is no longer the one
// at the path, and tries again.
#pragma once

#include <filesystem>
#include <utility>

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
  RunLock(int fd, std::filesystem::path dir, bool created)
      : fd_(fd), dir_(std::move(dir)), created_(created) {}
  /// Removes the lock file, and the folder if created_, when nothing else is in it.
  void remove_if_unused() noexcept;
  /// remove_if_unused(), then unlocks.
  void release() noexcept;

  int fd_ = -1;
  std::filesystem::path dir_;
  bool created_ = false; ///< acquire() made the folder
};

} // namespace plastic::rt
