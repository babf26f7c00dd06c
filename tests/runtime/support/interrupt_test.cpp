// Ctrl-C handling: a flag first, the default action on the second signal.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/support/interrupt.h"

using namespace plastic::rt;

namespace {
volatile sig_atomic_t g_custom = 0;
extern "C" void custom_handler(int) {
  g_custom = 1;
}
} // namespace

TEST_CASE("first SIGINT or SIGTERM sets the flag, previous handlers come back", "[interrupt]") {
  struct sigaction custom{}, before{}, after{};
  custom.sa_handler = custom_handler;
  sigemptyset(&custom.sa_mask);
  sigaction(SIGINT, &custom, &before);
  {
    InterruptGuard guard(/*quiet=*/true);
    CHECK_FALSE(InterruptGuard::requested());
    ::raise(SIGINT);
    CHECK(InterruptGuard::requested());
    CHECK(InterruptGuard::signal_number() == SIGINT);
    InterruptGuard::clear();
    CHECK_FALSE(InterruptGuard::requested());
    ::raise(SIGTERM);
    CHECK(InterruptGuard::signal_number() == SIGTERM);
    InterruptGuard::clear();
  }
  sigaction(SIGINT, nullptr, &after);
  CHECK(after.sa_handler == custom_handler);
  ::raise(SIGINT);
  CHECK(g_custom == 1);
  sigaction(SIGINT, &before, nullptr);
}

TEST_CASE("a second SIGINT kills the process at once", "[interrupt]") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    InterruptGuard guard(/*quiet=*/true);
    ::raise(SIGINT);
    if (!InterruptGuard::requested()) ::_exit(3);
    ::raise(SIGINT); // does not return
    ::_exit(4);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
}
