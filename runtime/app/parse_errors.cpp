// Reporting command lines CLI11 refused (see parse_errors.h).
#include "runtime/app/parse_errors.h"

#include <iostream>

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

} // namespace

int report_parse_error(CLI::App& app, const CLI::ParseError& e, const std::string& program) {
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    if (std::string word = unknown_subcommand(app); !word.empty()) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({}))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      std::cerr << fmt::format("{}: unknown command '{}'; the commands are: {}\n", program, word,
                               names);
      return kUsageError;
    }
  }
  return app.exit(e) == 0 ? kOk : kUsageError;
}

} // namespace plastic::rt
