// The REPL's main loop (see repl.h): read an entry (one line, or several
// while a statement is unfinished), run it, and go on whatever happened —
// or, reading a script, stop at the first error with its exit code.
#include "compiler/driver/repl/repl.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include <fmt/format.h>

#include "compiler/driver/repl/command_table.h"
#include "compiler/driver/repl/line_editor.h"
#include "compiler/driver/repl/source_edit.h"

namespace plastic::driver {

namespace {

using namespace repl;

// Reloads the watched model file when an editor saved it.
bool reload_if_saved(ReplState& st) {
  Session& s = st.session;
  if (!st.watch || s.file().empty()) return false;
  const int64_t now = s.disk_mtime();
  if (now == 0 || now == s.file_mtime()) return false;
  std::cout << fmt::format("\n{} changed on disk: reloading\n", s.file());
  if (!s.reload()) std::cout << "the previous model stays loaded; fix the file and save again\n";
  std::cout.flush();
  return true;
}

int run_interactive(ReplState& st) {
  PromptInterrupts interrupts;
  LineEditor editor(default_history_file(), [&](const std::string& line, size_t start) {
    return complete(st, line, start);
  });
  editor.on_idle = [&] { return reload_if_saved(st); };
  std::cout << "plastic repl: `help` lists the commands; Tab completes; Ctrl-D leaves.\n";
  while (!st.quit) {
    reload_if_saved(st);
    auto line = editor.read("plastic> ");
    if (!line) {
      std::cout << "\n";
      break;
    }
    std::string entry = *line;
    bool abandoned = false;
    while (!entry.empty() && needs_more_input(entry)) {
      auto more = editor.read("   ...> ");
      if (!more || more->empty()) { // an empty line (or Ctrl-C) ends the statement as typed
        abandoned = !more;
        break;
      }
      entry += "\n" + *more;
    }
    if (abandoned) break;
    editor.remember(entry);
    execute(st, entry);
    std::cout.flush();
  }
  return kOk;
}

// A script: the same entries, echoed after a prompt so the output reads as
// a transcript; the first error ends the run with its exit code.
int run_script(ReplState& st, std::istream& in, const std::string& name) {
  std::string line;
  int line_no = 0;
  while (!st.quit && std::getline(in, line)) {
    ++line_no;
    const int first = line_no;
    std::string entry = line;
    while (needs_more_input(entry) && std::getline(in, line) && !line.empty()) {
      ++line_no;
      entry += "\n" + line;
    }
    if (entry.find_first_not_of(" \t") == std::string::npos) continue;
    std::cout << "plastic> " << entry << "\n";
    std::cout.flush();
    if (int code = execute(st, entry); code != kOk) {
      std::cerr << fmt::format("plastic: {}:{}: the script stops at this error\n", name, first);
      return code;
    }
    std::cout.flush();
  }
  return kOk;
}

} // namespace

int run_repl(const ReplRequest& request, const CommonOptions& common) {
  ReplState st(common);
  if (!request.dtype.empty() && !st.session.set_dtype(request.dtype)) return kUsageError;
  const bool interactive = request.script.empty() && isatty(STDIN_FILENO) != 0;
  if (!request.data.empty()) (void)st.session.set_data(request.data); // before any model
  std::error_code ec;
  const bool run_folder = std::filesystem::is_directory(request.file, ec); // a trained run
  if (!request.file.empty() &&
      !(run_folder ? st.session.load_run(request.file) : st.session.load(request.file)) &&
      !interactive)
    return kInputError;
  if (interactive) return run_interactive(st);
  if (request.script.empty() || request.script == "-") return run_script(st, std::cin, "<stdin>");
  std::ifstream in(request.script);
  if (!in) {
    std::cerr << fmt::format("plastic repl: cannot read '{}'\n", request.script);
    return kInputError;
  }
  return run_script(st, in, request.script);
}

} // namespace plastic::driver
