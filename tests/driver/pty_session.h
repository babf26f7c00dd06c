// Running the `plastic` binary in a pseudo-terminal, as a person at a
// terminal does: the line editor, the progress bar and Ctrl-C all behave as
// they do for a user. Tests type keys and wait for text to appear on the
// "screen" (the terminal's output with escape sequences removed).
//
// The waits are bounded only so that a broken REPL fails the test instead
// of hanging it; nothing asserts how long anything took.
#pragma once

#include <chrono>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

namespace plastic::test {

class PtySession {
public:
  /// Starts `argv` (argv[0] a path) in a new pseudo-terminal with `env`
  /// entries ("NAME=value") added to the environment.
  PtySession(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    winsize ws{};
    ws.ws_row = 50;
    ws.ws_col = 160;
    pid_ = forkpty(&fd_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      for (const std::string& e : env)
        putenv(strdup(e.c_str()));
      std::vector<char*> args;
      for (const std::string& a : argv)
        args.push_back(strdup(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~PtySession() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }
  PtySession(const PtySession&) = delete;
  PtySession& operator=(const PtySession&) = delete;

  bool started() const { return pid_ > 0; }

  /// Types `keys` (a "\n" presses Enter, "\x03" is Ctrl-C, "\x04" Ctrl-D).
  void type(const std::string& keys) {
    size_t done = 0;
    while (done < keys.size()) {
      ssize_t n = write(fd_, keys.data() + done, keys.size() - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

  /// Reads until `text` appears in what was printed since the last wait
  /// (the screen's new text); true if it did before `limit`.
  bool wait_for(const std::string& text, std::chrono::seconds limit = std::chrono::seconds(180)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      size_t at = screen_.find(text, consumed_);
      if (at != std::string::npos) {
        last_ = screen_.substr(consumed_, at + text.size() - consumed_);
        consumed_ = at + text.size();
        return true;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_some(static_cast<int>(left.count()))) {
        last_ = screen_.substr(consumed_);
        return false;
      }
    }
  }

  /// The text between the previous wait and the end of the last match.
  const std::string& last() const { return last_; }
  /// Everything printed so far (escape sequences removed).
  const std::string& screen() const { return screen_; }

  /// Waits for the process to end (bounded); its exit code, or -1.
  int wait_exit(std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      read_some(100);
    }
    return -1;
  }

private:
  // Appends what the terminal printed within `ms`, dropping ANSI escape
  // sequences and carriage returns; false at end of output or timeout.
  bool read_some(int ms) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return false;
    char buf[4096];
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return false;
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buf[i];
      if (escape_ == 1) {
        escape_ = c == '[' ? 2 : 0;
        continue;
      }
      if (escape_ == 2) {
        if (c >= '@' && c <= '~') escape_ = 0;
        continue;
      }
      if (c == '\x1b') {
        escape_ = 1;
        continue;
      }
      if (c == '\r' || c == '\x07') continue;
      screen_ += c;
    }
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  bool exited_ = false;
  int escape_ = 0; ///< 0 text, 1 after ESC, 2 inside a CSI sequence
  std::string screen_, last_;
  size_t consumed_ = 0;
};

} // namespace plastic::test
