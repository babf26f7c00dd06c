// Where the REPL's input comes from: a libedit line editor on a terminal
// (Emacs keys, history kept across sessions, tab completion, multi-line
// statements), or plain lines from a script or a pipe.
//
// The editor reads the terminal through its own character reader so that
// it can (a) turn Ctrl-C at the prompt into "discard this line" instead of
// ending the process, and (b) run an idle callback every half second while
// waiting for keys (the REPL's `watch` reloads a model saved by an editor).
#pragma once

#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace plastic::driver::repl {

/// Candidates for the word being completed, given the whole line up to the
/// cursor and where that word starts in it.
using Completer =
    std::function<std::vector<std::string>(const std::string& line, size_t word_start)>;

class LineEditor {
public:
  /// A terminal editor; `history_file` may be empty (no history kept).
  LineEditor(std::string history_file, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  /// One line; nullopt at end of input (Ctrl-D on an empty line). A line
  /// interrupted by Ctrl-C comes back empty.
  std::optional<std::string> read(const std::string& prompt);
  /// Adds a complete (possibly multi-line) entry to the history and saves it.
  void remember(const std::string& entry);
  /// Called about twice a second while waiting for a key; returns true when
  /// it printed something (the prompt and line are then drawn again).
  std::function<bool()> on_idle;

  /// The editor's state, opaque (public for libedit's C callbacks).
  struct State;

private:
  std::unique_ptr<State> state_;
};

/// Where the history lives: $PLASTIC_HISTORY, else $XDG_STATE_HOME/plastic/history
/// when XDG_STATE_HOME is set, else ~/.plastic_history ("" without a home).
std::string default_history_file();

/// SIGINT sets a flag instead of ending the process while this lives (the
/// training loop installs its own handler in between and restores this one).
class PromptInterrupts {
public:
  PromptInterrupts();
  ~PromptInterrupts();
  PromptInterrupts(const PromptInterrupts&) = delete;
  PromptInterrupts& operator=(const PromptInterrupts&) = delete;
  /// Whether Ctrl-C arrived since the last call (and forgets it).
  static bool take();
};

} // namespace plastic::driver::repl
