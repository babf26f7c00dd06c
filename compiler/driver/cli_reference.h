// The command line's reference outside `--help`: shell completion scripts
// and man pages, generated from the same option tables as `--help` (the
// CLI::App every subcommand declares itself on), so they cannot drift from
// what the parser accepts.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace plastic::driver {

/// A bash completion script for `app` (subcommands, nested ones, options;
/// files for values and positional arguments).
std::string bash_completion(const CLI::App& app);
/// zsh: the bash script through zsh's bashcompinit.
std::string zsh_completion(const CLI::App& app);

/// Writes `plastic.1` and one `plastic-SUB.1` per subcommand (nested ones
/// as `plastic-analyze-stability.1`) into `folder`; returns the number of
/// pages written, or throws what a failed write reports.
int write_man_pages(const CLI::App& app, const std::string& folder, const std::string& version);

} // namespace plastic::driver
