// The exclusive lock on a run folder (see run_lock.h).
#include "runtime/io/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace plastic::rt {

Result<RunLock, TrainError> RunLock::acquire(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error(dir.string(), "cannot create the run folder: " + ec.message());
  const std::filesystem::path file = dir / kFileName;
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_error(file.string(), errno_message("cannot open the run's lock file", errno));
  RunLock lock(fd);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return io_error(file.string(), errno_message("cannot lock the run folder", errno));
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
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
    return io_error(file.string(), errno_message("cannot write the run's lock file", errno));
  return lock;
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_); // closing the last descriptor releases the flock
}

} // namespace plastic::rt
