// Failures to write standard output (see standard_output.h).
#include "runtime/app/standard_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "runtime/app/app_error.h"

namespace plastic::rt {

int finish_standard_output(int code, const std::string& program) {
  errno = 0;
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const int e = errno != 0 ? errno : EIO;
  std::fprintf(stderr, "%s: cannot write to standard output: %s\n", program.c_str(),
               std::strerror(e));
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
