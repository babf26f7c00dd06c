// Where the real data sets live.
//
// The recordings used by tests, examples and benchmarks sit beside the
// project (`<repo>/../shared/data`), not inside it, or wherever the
// environment variable PLASTIC_DATA points. Callers skip with a clear message
// when neither exists, so a fresh clone elsewhere still builds and passes.
#pragma once

#include <filesystem>
#include <optional>

namespace plastic::rt {

/// $PLASTIC_DATA if it names a directory, else `<repo_root>/../shared/data`
/// if that is a directory (repo_root defaults to the current directory),
/// else nullopt.
std::optional<std::filesystem::path> find_data_dir(const std::filesystem::path& repo_root = {});

} // namespace plastic::rt
