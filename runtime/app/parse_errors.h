// How a command line that CLI11 could not parse is reported, the same way
// by the `plastic` driver and by model binaries: CLI11's own message, except
// where it misleads — a misspelt subcommand is named as unknown (CLI11 says
// "A subcommand is required") with the list of the real ones.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace plastic::rt {

/// Prints the error for `e` (raised while parsing `app`) and returns the
/// exit code: 0 for --help / --version, 2 (usage error) otherwise.
int report_parse_error(CLI::App& app, const CLI::ParseError& e, const std::string& program);

} // namespace plastic::rt
