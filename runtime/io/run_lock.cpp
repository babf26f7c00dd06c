// The exclusive lock on a run folder (see run_lock.h).
#include "runtime/io/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

/// Whether `fd` is still the file at `path` (not unlinked by a previous owner
/// between our open and our flock).
bool still_at_path(int fd, const std::filesystem::path& path) {
  struct stat held{}, named{};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
         held.st_ino == named.st_ino && held.st_dev == named.st_dev;
}

} // namespace

Result<RunLock, TrainError> RunLock::acquire(const std::filesystem::path& dir) {
  std::error_code ec;
  const bool created = std::filesystem::create_directories(dir, ec);
  if (ec) return io_error(dir.string(), "cannot create the run folder: " + ec.message());
  const std::filesystem::path file = dir / kFileName;
  for (;;) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return io_error(file.string(), errno_message("cannot open the run's lock file", errno));
    RunLock lock(fd, dir, created);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      if (error == EINTR) continue;
      lock.dir_.clear(); // not ours: leave every file as it is
      if (error != EWOULDBLOCK)
        return io_error(file.string(), errno_message("cannot lock the run folder", error));
      // The owner wrote its id when it took the lock; it may be mid-write.
      char text[32] = {};
      const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
      const std::string pid = n > 0 ? std::string(text, static_cast<size_t>(n)) : "unknown";
      return TrainError{TrainErrorKind::Io,
                        {},
                        fmt::format("run folder {} is in use by process {}", dir.string(),
                                    pid.substr(0, pid.find('\n'))),
                        "wait for it to finish, or choose another --out"};
    }
    if (!still_at_path(fd, file)) { // a previous owner removed it: lock the new one
      lock.dir_.clear();
      continue;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
      return io_error(file.string(), errno_message("cannot write the run's lock file", errno));
    return lock;
  }
}

void RunLock::remove_if_unused() noexcept {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (it->path().filename() != kFileName) return;
  if (ec) return;
  std::filesystem::remove(dir_ / kFileName, ec);
  if (!ec && created_) std::filesystem::remove(dir_, ec); // fails harmlessly if not empty
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), dir_(std::move(other.dir_)),
      created_(std::exchange(other.created_, false)) {
  other.dir_.clear();
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    dir_ = std::move(other.dir_);
    other.dir_.clear();
    created_ = std::exchange(other.created_, false);
  }
  return *this;
}

RunLock::~RunLock() {
  release();
}

void RunLock::release() noexcept {
  if (fd_ < 0) return;
  remove_if_unused(); // while still holding the lock
  ::close(fd_);       // closing the last descriptor releases the flock
  fd_ = -1;
}

} // namespace plastic::rt
