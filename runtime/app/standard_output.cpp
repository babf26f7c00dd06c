// Failures to write standard output (see standard_output.h).
#include "runtime/app/standard_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>

#include "runtime/app/app_error.h"

namespace plastic::rt {

namespace {

// Why a write to `fd` failed, when stdio no longer knows: a failed write
// sets the stream's error flag, but errno is gone by the time the command
// ends (any later call may change it). A full device or file system is
// what users meet (`> /dev/full`, a full disk), and "Input/output error"
// would send them looking for a hardware fault: look at what `fd` is.
std::string unknown_write_error(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) == 0) {
    // /dev/full is character device 1:7 on Linux.
    if (S_ISCHR(st.st_mode) && ::major(st.st_rdev) == 1 && ::minor(st.st_rdev) == 7)
      return std::strerror(ENOSPC);
    struct statvfs fs{};
    if (S_ISREG(st.st_mode) && ::fstatvfs(fd, &fs) == 0 && fs.f_bavail == 0)
      return std::strerror(ENOSPC);
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return "a write failed (was the reading end closed?)";
  }
  return "a write failed";
}

} // namespace

int finish_standard_output(int code, const std::string& program) {
  errno = 0;
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const std::string why = errno != 0 ? std::strerror(errno) : unknown_write_error(fileno(stdout));
  std::fprintf(stderr, "%s: cannot write to standard output: %s\n", program.c_str(), why.c_str());
  return code == kOk ? kInputError : code;
}

std::optional<int> output_failure_code(const std::exception& e, const std::string& program) {
  const auto* sys = dynamic_cast<const std::system_error*>(&e);
  if (sys == nullptr || sys->code().category() != std::generic_category()) return std::nullopt;
  // Drop what is still buffered: it can no more be written than what failed.
  std::clearerr(stdout);
  std::fprintf(stderr, "%s: cannot write to standard output: %s\n", program.c_str(),
               sys->code().message().c_str());
  return kInputError;
}

} // namespace plastic::rt
