// Ctrl-C handling for training runs.
//
// While an InterruptGuard lives, SIGINT and SIGTERM only set a flag: the
// training loop polls requested() between steps, saves a checkpoint and
// returns cleanly, so an interrupted run can be resumed. A second signal
// means "now": the default action is restored and the signal re-raised, so
// the process dies as an uninterrupted Ctrl-C would (exit status 130 in a
// shell). The handler only touches a lock-free atomic and write(2), both
// async-signal-safe. Previous handlers come back when the guard dies.
//
// Guards nest: a command installs one before its start-up (compiling the
// model, reading the data) so a Ctrl-C there is not lost, and the training
// loop's own guard inside it keeps the request instead of resetting it.
// Only the outermost guard installs and restores handlers.
#pragma once

namespace plastic::rt {

class InterruptGuard {
public:
  /// Installs the handlers (the outermost guard only). `quiet` suppresses
  /// the one-line notice on stderr.
  explicit InterruptGuard(bool quiet = false);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// Whether SIGINT or SIGTERM arrived since installation (or clear()).
  static bool requested();
  /// The signal that arrived (SIGINT, SIGTERM), 0 if none.
  static int signal_number();
  /// Forgets a request, so the next signal is again "stop gracefully".
  static void clear();
  /// The exit status a shell reports for the signal that arrived: 128 + its
  /// number (130 for SIGINT, 143 for SIGTERM); 0 if none did.
  static int exit_code();
};

} // namespace plastic::rt
