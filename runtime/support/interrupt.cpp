// SIGINT/SIGTERM to a polled flag (behaviour in interrupt.h).
#include "runtime/support/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace plastic::rt {

namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_quiet{false};
int g_depth = 0; // guards alive; only touched outside signal handlers
struct sigaction g_old_int, g_old_term;

static_assert(std::atomic<int>::is_always_lock_free, "the signal flag must be lock-free");

extern "C" void on_signal(int sig) {
  if (g_signal.exchange(sig) != 0) {
    // Second signal: stop now, as if no handler were installed.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  if (!g_quiet.load()) {
    static const char msg[] = "\ninterrupted: stopping at the next safe point, saving a checkpoint "
                              "if training has begun (interrupt again to quit at once)\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof(msg) - 1);
  }
}

} // namespace

InterruptGuard::InterruptGuard(bool quiet) {
  if (g_depth++ > 0) return; // an outer guard is installed and keeps its request
  g_signal.store(0);
  g_quiet.store(quiet);
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; // reads and writes of the training loop carry on
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  if (--g_depth > 0) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool InterruptGuard::requested() {
  return g_signal.load() != 0;
}
int InterruptGuard::signal_number() {
  return g_signal.load();
}
void InterruptGuard::clear() {
  g_signal.store(0);
}
int InterruptGuard::exit_code() {
  const int sig = g_signal.load();
  return sig == 0 ? 0 : 128 + sig;
}

} // namespace plastic::rt
