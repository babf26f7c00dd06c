// The full-disk test hook (see write_faults.h).
#include "runtime/io/write_faults.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace plastic::rt {

namespace {

/// PLASTIC_FAIL_WRITE as a number, 0 when unset or malformed (read once).
long long failing_write() {
  static const long long n = [] {
    const char* v = std::getenv("PLASTIC_FAIL_WRITE");
    return v ? std::atoll(v) : 0LL;
  }();
  return n;
}

} // namespace

bool inject_write_failure(std::string_view path) {
  static std::atomic<long long> count{0};
  static const char* log = std::getenv("PLASTIC_FAIL_WRITE_LOG");
  if (failing_write() <= 0 && log == nullptr) return false;
  const long long n = count.fetch_add(1) + 1;
  if (log != nullptr)
    if (std::FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "%lld %.*s\n", n, static_cast<int>(path.size()), path.data());
      std::fclose(f);
    }
  if (n != failing_write()) return false;
  errno = ENOSPC;
  return true;
}

} // namespace plastic::rt
