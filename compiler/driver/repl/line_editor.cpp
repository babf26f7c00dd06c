// The libedit line editor (see line_editor.h).
#include "compiler/driver/repl/line_editor.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <histedit.h>
#include <poll.h>
#include <unistd.h>

namespace plastic::driver::repl {

namespace {

std::atomic<int> g_interrupted{0};

void on_sigint(int /*signal*/) {
  g_interrupted.store(1);
}

} // namespace

PromptInterrupts::PromptInterrupts() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; // no SA_RESTART: a read waiting for a key returns EINTR
  sigaction(SIGINT, &sa, nullptr);
}

PromptInterrupts::~PromptInterrupts() {
  std::signal(SIGINT, SIG_DFL);
}

bool PromptInterrupts::take() {
  return g_interrupted.exchange(0) != 0;
}

std::string default_history_file() {
  if (const char* env = std::getenv("PLASTIC_HISTORY")) return env;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(state) / "plastic", ec);
    return (std::filesystem::path(state) / "plastic" / "history").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".plastic_history").string();
  return "";
}

struct LineEditor::State {
  EditLine* el = nullptr;
  History* hist = nullptr;
  HistEvent ev{};
  std::string history_file;
  std::string prompt;
  Completer completer;
  LineEditor* owner = nullptr;
  bool interrupted = false; ///< Ctrl-C arrived while reading this line
};

namespace {

LineEditor::State* state_of(EditLine* el) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return static_cast<LineEditor::State*>(data);
}

char* prompt_of(EditLine* el) {
  return const_cast<char*>(state_of(el)->prompt.c_str());
}

// Reads one key; Ctrl-C ends the line (flagged so the REPL discards it),
// and the idle callback runs while no key comes.
int read_key(EditLine* el, wchar_t* out) {
  LineEditor::State* st = state_of(el);
  for (;;) {
    if (PromptInterrupts::take()) {
      st->interrupted = true;
      *out = L'\n';
      return 1;
    }
    pollfd pfd{STDIN_FILENO, POLLIN, 0};
    int ready = poll(&pfd, 1, 500);
    if (ready == 0) {
      if (st->owner->on_idle && st->owner->on_idle()) el_set(el, EL_REFRESH);
      continue;
    }
    if (ready < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    char c = 0;
    ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n == 1) {
      *out = static_cast<unsigned char>(c);
      return 1;
    }
    if (n == 0) return 0;
    if (errno != EINTR) return -1;
  }
}

std::string common_prefix(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string prefix = words[0];
  for (const std::string& w : words)
    while (w.compare(0, prefix.size(), prefix) != 0)
      prefix.pop_back();
  return prefix;
}

unsigned char complete(EditLine* el, int /*key*/) {
  LineEditor::State* st = state_of(el);
  const LineInfo* li = el_line(el);
  std::string line(li->buffer, li->cursor);
  size_t start = line.size();
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
           c == '-' || c == '~' || c == ':';
  };
  while (start > 0 && word_char(line[start - 1]))
    --start;
  const std::string word = line.substr(start);
  std::vector<std::string> matches;
  for (const std::string& c : st->completer(line, start))
    if (c.compare(0, word.size(), word) == 0) matches.push_back(c);
  if (matches.empty()) return CC_REFRESH_BEEP;
  if (matches.size() == 1) {
    std::string rest = matches[0].substr(word.size());
    if (rest.empty() || rest.back() != '/') rest += ' ';
    el_insertstr(el, rest.c_str());
    return CC_REFRESH;
  }
  const std::string prefix = common_prefix(matches);
  if (prefix.size() > word.size()) {
    el_insertstr(el, prefix.substr(word.size()).c_str());
    return CC_REFRESH;
  }
  std::fputs("\n", stdout);
  size_t width = 0;
  for (const std::string& m : matches)
    width = std::max(width, m.size());
  size_t per_line = std::max<size_t>(1, 78 / (width + 2)), n = 0;
  for (const std::string& m : matches) {
    std::fprintf(stdout, "%-*s", static_cast<int>(width + 2), m.c_str());
    if (++n % per_line == 0) std::fputs("\n", stdout);
  }
  if (n % per_line != 0) std::fputs("\n", stdout);
  std::fflush(stdout);
  return CC_REDISPLAY;
}

} // namespace

LineEditor::LineEditor(std::string history_file, Completer completer)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.history_file = std::move(history_file);
  s.completer = std::move(completer);
  s.owner = this;
  s.hist = history_init();
  history(s.hist, &s.ev, H_SETSIZE, 1000);
  history(s.hist, &s.ev, H_SETUNIQUE, 1);
  if (!s.history_file.empty()) history(s.hist, &s.ev, H_LOAD, s.history_file.c_str());
  s.el = el_init("plastic", stdin, stdout, stderr);
  el_set(s.el, EL_CLIENTDATA, &s);
  el_set(s.el, EL_EDITOR, "emacs");
  el_set(s.el, EL_PROMPT, prompt_of);
  el_set(s.el, EL_HIST, history, s.hist);
  el_wset(s.el, EL_GETCFN, read_key);
  el_set(s.el, EL_ADDFN, "plastic-complete", "Complete a command, name or file", complete);
  el_set(s.el, EL_BIND, "^I", "plastic-complete", nullptr);
  el_source(s.el, nullptr); // the user's ~/.editrc, as other libedit programs
}

LineEditor::~LineEditor() {
  el_end(state_->el);
  history_end(state_->hist);
}

std::optional<std::string> LineEditor::read(const std::string& prompt) {
  State& s = *state_;
  s.prompt = prompt;
  s.interrupted = false;
  int count = 0;
  // The terminal goes into editing mode before el_gets prints the prompt:
  // otherwise keys typed (or pasted) the moment the prompt shows can reach a
  // terminal still in cooked mode, where Ctrl-C flushes them and a Ctrl-D
  // turns into a NUL byte once libedit switches modes.
  el_set(s.el, EL_PREP_TERM, 1);
  const char* line = el_gets(s.el, &count);
  el_set(s.el, EL_PREP_TERM, 0);
  if (s.interrupted) {
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    return std::string();
  }
  if (!line || count <= 0) return std::nullopt;
  std::string out(line, static_cast<size_t>(count));
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
    out.pop_back();
  return out;
}

void LineEditor::remember(const std::string& entry) {
  State& s = *state_;
  if (entry.empty()) return;
  history(s.hist, &s.ev, H_ENTER, entry.c_str());
  if (!s.history_file.empty()) history(s.hist, &s.ev, H_SAVE, s.history_file.c_str());
}

} // namespace plastic::driver::repl
