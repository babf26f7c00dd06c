// Locating the real data sets (see data_dir.h).
#include "runtime/data/data_dir.h"

#include <cstdlib>
#include <system_error>

namespace plastic::rt {

std::optional<std::filesystem::path> find_data_dir(const std::filesystem::path& repo_root) {
  namespace fs = std::filesystem;
  std::error_code ec; // a missing or unreadable directory is "not found", never an exception
  if (const char* env = std::getenv("PLASTIC_DATA"); env != nullptr && *env != '\0') {
    fs::path dir(env);
    if (fs::is_directory(dir, ec)) return dir;
  }
  fs::path root = repo_root;
  if (root.empty()) {
    std::error_code cwd_ec;
    root = fs::current_path(cwd_ec);
    if (cwd_ec) return std::nullopt;
  }
  fs::path dir = (root / ".." / "shared" / "data").lexically_normal();
  if (fs::is_directory(dir, ec)) return dir;
  return std::nullopt;
}

} // namespace plastic::rt
