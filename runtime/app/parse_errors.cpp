// Reporting command lines CLI11 refused (see parse_errors.h).
#include "runtime/app/parse_errors.h"

#include <algorithm>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "runtime/app/app_error.h"

namespace plastic::rt {

namespace {

/// The first word that is not an option when no subcommand was recognised:
/// what the user meant as one.
std::string unknown_subcommand(CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->parsed()) return {};
  for (const std::string& word : app.remaining())
    if (!word.empty() && word[0] != '-') return word;
  return {};
}

/// Edit distance counting an insertion, a deletion, a substitution or a
/// swap of two neighbours as one edit (optimal string alignment), so that
/// `trian` is one edit from `train`.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The candidate nearest to `word` when it is a plausible typo (at most two
/// edits, and fewer than a third of the word), else empty.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && d * 3 < std::max(word.size(), c.size())) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

/// The subcommand that was parsed (the deepest), or `app` itself.
CLI::App& parsed_command(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->parsed()) return parsed_command(*sub);
  return app;
}

/// For an unknown option: "unknown option '--epoch'; did you mean '--epochs'?"
/// (empty when no option is near).
std::string suggest_option(CLI::App& app, const std::string& program) {
  CLI::App& cmd = parsed_command(app);
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& n : o->get_lnames())
      names.push_back("--" + n);
  for (const std::string& word : cmd.remaining()) {
    if (word.rfind("--", 0) != 0) continue;
    const std::string flag = word.substr(0, word.find('='));
    if (std::string near = nearest(flag, names); !near.empty())
      return fmt::format("{}{}: unknown option '{}'; did you mean '{}'?", program,
                         &cmd == &app ? "" : " " + cmd.get_name(), flag, near);
  }
  return {};
}

} // namespace

int report_parse_error(CLI::App& app, const CLI::ParseError& e, const std::string& program) {
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    if (std::string word = unknown_subcommand(app); !word.empty()) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({}))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      std::vector<std::string> commands;
      for (const CLI::App* sub : app.get_subcommands({}))
        commands.push_back(sub->get_name());
      const std::string near = nearest(word, commands);
      std::cerr << fmt::format("{}: unknown command '{}'; {}the commands are: {}\n", program, word,
                               near.empty() ? "" : "did you mean '" + near + "'? ", names);
      return kUsageError;
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
    if (std::string hint = suggest_option(app, program); !hint.empty()) {
      std::cerr << hint << "\n";
      return kUsageError;
    }
  return app.exit(e) == 0 ? kOk : kUsageError;
}

} // namespace plastic::rt
