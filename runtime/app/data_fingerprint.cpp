// Fingerprints of data files (see data_fingerprint.h).
#include "runtime/app/data_fingerprint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;

/// 64-bit FNV-1a: not cryptographic (nobody forges a data set to fool a
/// resume), stable across machines and builds.
class Fnv {
public:
  void add(const char* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h_ ^= static_cast<unsigned char>(data[i]);
      h_ *= 1099511628211ull;
    }
  }
  void add(const std::string& s) { add(s.data(), s.size() + 1); } // with the NUL: a separator
  std::string hex() const { return fmt::format("{:016x}", h_); }

private:
  uint64_t h_ = 1469598103934665603ull;
};

/// The regular files under `root` (or `root` itself), with their paths
/// relative to it, in a fixed order.
Result<std::vector<std::pair<std::string, fs::path>>, AppError> files_of(const fs::path& root) {
  std::vector<std::pair<std::string, fs::path>> out;
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    out.emplace_back(root.filename().string(), root);
    return out;
  }
  if (!fs::is_directory(root, ec))
    return AppError{kInputError, fmt::format("{}: no such file or folder", root.string())};
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.emplace_back(fs::relative(it->path(), root).string(), *it);
  if (ec)
    return AppError{kInputError, fmt::format("cannot list {}: {}", root.string(), ec.message())};
  std::sort(out.begin(), out.end());
  return out;
}

Result<DataFingerprint, AppError> fingerprint(const std::string& spec, bool contents) {
  DataFingerprint f;
  if (spec.rfind("synthetic:", 0) == 0) return f;
  auto files = files_of(spec);
  if (!files) return files.error();
  Fnv stats, data;
  std::vector<char> buffer(1 << 20);
  for (const auto& [name, path] : files.value()) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
    if (ec) return AppError{kInputError, fmt::format("{}: {}", path.string(), ec.message())};
    ++f.files;
    f.bytes += static_cast<int64_t>(size);
    stats.add(fmt::format("{}|{}|{}", name, size, mtime));
    if (!contents) continue;
    data.add(name);
    std::ifstream in(path, std::ios::binary);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      data.add(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) return AppError{kInputError, fmt::format("cannot read {}", path.string())};
  }
  f.stat_digest = stats.hex();
  if (contents) f.content_digest = data.hex();
  return f;
}

} // namespace

Result<DataFingerprint, AppError> fingerprint_data(const std::string& spec) {
  return fingerprint(spec, /*contents=*/true);
}

Result<bool, AppError> same_data(const std::string& spec, const DataFingerprint& recorded) {
  auto quick = fingerprint(spec, /*contents=*/false);
  if (!quick) return quick.error();
  if (quick->files != recorded.files || quick->bytes != recorded.bytes) return false;
  if (quick->stat_digest == recorded.stat_digest) return true;
  auto full = fingerprint(spec, /*contents=*/true);
  if (!full) return full.error();
  return full->content_digest == recorded.content_digest;
}

nlohmann::json fingerprint_json(const DataFingerprint& f) {
  return {{"files", f.files},
          {"bytes", f.bytes},
          {"stat_digest", f.stat_digest},
          {"content_digest", f.content_digest}};
}

DataFingerprint fingerprint_from_json(const nlohmann::json& j) {
  DataFingerprint f;
  if (!j.is_object()) return f;
  f.files = j.value("files", int64_t{0});
  f.bytes = j.value("bytes", int64_t{0});
  f.stat_digest = j.value("stat_digest", std::string());
  f.content_digest = j.value("content_digest", std::string());
  return f;
}

} // namespace plastic::rt
