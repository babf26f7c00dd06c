// Shared by the data-reader tests: scratch directories for small synthetic
// files, and access to the real data sets (skipped with a message when they
// are absent, so a clone elsewhere still passes).
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include <unistd.h>

#include "runtime/data/data_dir.h"

namespace plastic::rt::test {

namespace fs = std::filesystem;

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("plastic-data-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  /// Writes `content` byte for byte to `name` inside the directory.
  fs::path write(const std::string& name, const std::string& content) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

private:
  fs::path path_;
};

/// The real data directory, or nullopt (callers WARN and skip).
inline std::optional<fs::path> real_data() {
  return find_data_dir(PLASTIC_SOURCE_DIR);
}

/// Extracts `archive` (a .tar.xz of the real data) once into the build tree
/// and returns the extraction root; later calls (and later runs) reuse it.
/// Extracts into a private directory and renames it into place, so parallel
/// test processes never see half an archive.
inline std::optional<fs::path> extracted(const fs::path& archive, const std::string& name) {
  const fs::path root = fs::path(PLASTIC_BINARY_DIR) / "test-data" / name;
  if (fs::exists(root / ".complete")) return root;
  const fs::path staging = root.string() + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging);
  const std::string command = "tar -xJf '" + archive.string() + "' -C '" + staging.string() + "'";
  if (std::system(command.c_str()) != 0) {
    fs::remove_all(staging, ec);
    return std::nullopt;
  }
  std::ofstream(staging / ".complete") << "extracted from " << archive.string() << "\n";
  fs::rename(staging, root, ec); // fails harmlessly if another process got there first
  fs::remove_all(staging, ec);
  if (fs::exists(root / ".complete")) return root;
  return std::nullopt;
}

} // namespace plastic::rt::test
