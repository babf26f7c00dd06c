// Shell completion and man pages from the option tables (see cli_reference.h).
#include "compiler/driver/cli_reference.h"

#include "runtime/io/atomic_file.h"

#include <fmt/format.h>

namespace plastic::driver {
namespace {

/// The subcommands a user sees: hidden ones (no group) are left out.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options(
      [](const CLI::Option* opt) { return !opt->get_group().empty() && !opt->get_positional(); });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* opt) { return opt->get_positional(); });
}

/// "--data --epochs -h --help": every spelling of every option.
std::string option_words(const CLI::App& app) {
  std::string words;
  for (const CLI::Option* opt : visible_options(app)) {
    for (const std::string& s : opt->get_snames())
      words += " -" + s;
    for (const std::string& l : opt->get_lnames())
      words += " --" + l;
  }
  return words.empty() ? words : words.substr(1);
}

/// The options that take a value: after one, complete a file name.
std::string value_options(const CLI::App& app) {
  std::string words;
  for (const CLI::Option* opt : visible_options(app)) {
    if (opt->get_expected_min() == 0) continue; // a flag
    for (const std::string& l : opt->get_lnames())
      words += "|--" + l;
  }
  return words.empty() ? words : words.substr(1);
}

/// One `case` arm per subcommand path ("train", "analyze stability").
void bash_arms(const CLI::App& app, const std::string& path, std::string& out) {
  const std::vector<const CLI::App*> subs = visible_subcommands(app);
  std::string names;
  for (const CLI::App* sub : subs)
    names += (names.empty() ? "" : " ") + sub->get_name();
  const std::string values = value_options(app);
  out += fmt::format("    '{}')\n      options='{}'\n      subcommands='{}'\n", path,
                     option_words(app), names);
  if (!values.empty())
    out += fmt::format("      case \"$prev\" in {}) _plastic_files; return ;; esac\n", values);
  out += "      ;;\n";
  for (const CLI::App* sub : subs)
    bash_arms(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

/// Roff: backslashes doubled, a leading `.` or `'` made literal, dashes kept as dashes.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  std::string escaped;
  size_t start = 0;
  while (start <= out.size()) {
    size_t end = out.find('\n', start);
    std::string line =
        out.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) escaped += "\\&";
    escaped += line;
    if (end == std::string::npos) break;
    escaped += "\n";
    start = end + 1;
  }
  return escaped;
}

std::string upper(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// One man page: NAME, SYNOPSIS, DESCRIPTION, COMMANDS, OPTIONS, SEE ALSO.
std::string man_page(const CLI::App& app, const std::string& command, const std::string& version) {
  const std::string page = command == "plastic" ? command : "plastic-" + command;
  std::string out =
      fmt::format(".TH {} 1 \"\" \"plastic {}\" \"User Commands\"\n", upper(page), version);
  const std::string summary = app.get_description();
  out += fmt::format(".SH NAME\n{} \\- {}\n", page, roff(summary.substr(0, summary.find('\n'))));
  std::string usage = command == "plastic" ? "plastic" : "plastic " + command;
  const auto subs = visible_subcommands(app);
  out += fmt::format(".SH SYNOPSIS\n.B {}\n[\\fIOPTIONS\\fR]", roff(usage));
  for (const CLI::Option* p : positionals(app))
    out += p->get_required() ? fmt::format(" \\fI{}\\fR", roff(p->get_name()))
                             : fmt::format(" [\\fI{}\\fR]", roff(p->get_name()));
  if (!subs.empty()) out += " \\fISUBCOMMAND\\fR";
  out += "\n.SH DESCRIPTION\n" + roff(summary) + "\n";
  if (!subs.empty()) {
    out += ".SH COMMANDS\n";
    for (const CLI::App* sub : subs)
      out += fmt::format(".TP\n.B {}\n{}\n", roff(sub->get_name()), roff(sub->get_description()));
  }
  out += ".SH OPTIONS\n";
  for (const CLI::Option* p : positionals(app))
    out += fmt::format(".TP\n\\fI{}\\fR\n{}\n", roff(p->get_name()), roff(p->get_description()));
  for (const CLI::Option* opt : visible_options(app)) {
    std::string names;
    for (const std::string& s : opt->get_snames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-" + roff(s) + "\\fR");
    for (const std::string& l : opt->get_lnames())
      names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + roff(l) + "\\fR");
    if (opt->get_expected_min() > 0) names += " \\fI" + roff(opt->get_type_name()) + "\\fR";
    out += fmt::format(".TP\n{}\n{}\n", names, roff(opt->get_description()));
  }
  if (const std::string footer = app.get_footer(); !footer.empty() && footer != "\n")
    out += ".SH NOTES\n" + roff(footer) + "\n";
  out += ".SH SEE ALSO\n";
  out += command == "plastic" ? "The user guide: docs/README.md in the source tree.\n"
                              : ".BR plastic (1)\n";
  return out;
}

int write_pages(const CLI::App& app, const std::string& command, const std::string& folder,
                const std::string& version) {
  const std::string page = command == "plastic" ? command : "plastic-" + command;
  const std::string path = folder + "/" + page + ".1";
  if (auto s = rt::write_file_atomic(path, man_page(app, command, version)); !s)
    throw std::runtime_error(s.describe());
  int written = 1;
  for (const CLI::App* sub : visible_subcommands(app)) {
    const std::string name =
        command == "plastic" ? sub->get_name() : command + "-" + sub->get_name();
    written += write_pages(*sub, name, folder, version);
  }
  return written;
}

} // namespace

std::string bash_completion(const CLI::App& app) {
  std::string arms;
  bash_arms(app, "", arms);
  return fmt::format(R"(# bash completion for plastic, generated by `plastic completion bash`
# from the option tables of `plastic --help`.
_plastic_files() {{
  local IFS=$'\n'
  COMPREPLY=($(compgen -f -- "$cur"))
  compopt -o filenames 2>/dev/null
}}

_plastic() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local path='' word options subcommands i
  # The subcommand path so far: the words that name subcommands, in order.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${{COMP_WORDS[i]}}
    case "$word" in -*) continue ;; esac
    _plastic_arm "$path"
    case " $subcommands " in *" $word "*) path=${{path:+$path }}$word ;; esac
  done
  _plastic_arm "$path" || return
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ -n $subcommands ]]; then
    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
  else
    _plastic_files
  fi
}}

# Sets `options` and `subcommands` for a subcommand path; after an option
# that takes a value it completes a file name and fails.
_plastic_arm() {{
  options='' subcommands=''
  case "$1" in
{}  esac
}}

complete -F _plastic plastic
)",
                     arms);
}

std::string zsh_completion(const CLI::App& app) {
  return "# zsh completion for plastic, generated by `plastic completion zsh`: the bash\n"
         "# completion through zsh's bashcompinit.\n"
         "autoload -U +X bashcompinit && bashcompinit\n" +
         bash_completion(app);
}

int write_man_pages(const CLI::App& app, const std::string& folder, const std::string& version) {
  return write_pages(app, "plastic", folder, version);
}

} // namespace plastic::driver
