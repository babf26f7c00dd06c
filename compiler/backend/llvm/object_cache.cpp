// The on-disk object cache (object_cache.h).
#include "compiler/backend/llvm/object_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/xxhash.h>

namespace plastic::backend::detail {

namespace fs = std::filesystem;

namespace {

// Bumped whenever what an entry holds changes meaning (not needed for
// compiler changes: those change the IR text, hence the key).
constexpr const char* kFormat = "plastic-kernel-object-1";

// A cache that cannot be written is worth one line, not one per kernel.
void warn_once(const std::string& what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr, "plastic: note: %s; compiling without the kernel cache\n", what.c_str());
  });
}

uint64_t limit_from_environment() {
  if (const char* mb = std::getenv("PLASTIC_CACHE_MB"); mb && *mb) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(mb, &end, 10);
    if (end && *end == '\0' && v > 0) return static_cast<uint64_t>(v) << 20;
  }
  return 512ull << 20;
}

} // namespace

ObjectCache ObjectCache::from_environment() {
  fs::path base;
  if (const char* dir = std::getenv("PLASTIC_CACHE_DIR")) {
    const std::string d = dir;
    if (d.empty() || d == "off") return ObjectCache({}, 0);
    base = d;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    base = fs::path(xdg) / "plastic" / "kernels";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = fs::path(home) / ".cache" / "plastic" / "kernels";
  } else {
    return ObjectCache({}, 0);
  }
  // One subfolder per LLVM release: objects of another release are never
  // looked at (their keys differ anyway) and are easy to remove by hand.
  return ObjectCache(base / ("llvm-" LLVM_VERSION_STRING), limit_from_environment());
}

ObjectCache::ObjectCache(fs::path dir, uint64_t limit_bytes)
    : dir_(std::move(dir)), limit_bytes_(limit_bytes) {}

// The IR carries the triple, data layout and per-function target
// attributes too; listing them again costs nothing and keeps the key honest
// for text that does not (the C++ backend's source).
std::string ObjectCache::context(const TargetSpec& spec, const CompileOptions& options) {
  return fmt::format("triple={} cpu={} features={} O{} unroll={} contract={} math={} packed={}",
                     spec.triple, spec.cpu, spec.features, options.opt_level,
                     options.unroll_loops ? 1 : 0, options.contract ? 1 : 0,
                     static_cast<int>(options.math), options.packed_entries ? 1 : 0);
}

std::string ObjectCache::key(std::string_view ir_text, std::string_view context) {
  std::string all = fmt::format("{}\n{}\n{}\n", kFormat, LLVM_VERSION_STRING, context);
  all.append(ir_text);
  const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(all.data()), all.size()));
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

fs::path ObjectCache::entry(const std::string& key) const {
  return dir_ / (key + ".o");
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const std::string& key) const {
  if (!enabled()) return nullptr;
  const fs::path file = entry(key);
  auto buffer = llvm::MemoryBuffer::getFile(file.string(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return nullptr;
  // An entry that is not a whole object file (a disk fault, a hand edit) is
  // dropped and rebuilt rather than handed to the linker.
  auto parsed = llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    std::error_code ec;
    fs::remove(file, ec);
    return nullptr;
  }
  // Least recently used goes first when the folder is trimmed.
  std::error_code ec;
  fs::last_write_time(file, fs::file_time_type::clock::now(), ec);
  return std::move(*buffer);
}

void ObjectCache::store(const std::string& key, std::string_view object) const {
  if (!enabled()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    warn_once(fmt::format("cannot create {}: {}", dir_.string(), ec.message()));
    return;
  }
  static std::atomic<uint64_t> counter{0};
  const fs::path tmp =
      dir_ / fmt::format("{}.o.tmp.{}.{}", key, static_cast<long>(getpid()), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      warn_once(fmt::format("cannot write {}", tmp.string()));
      return;
    }
  }
  fs::rename(tmp, entry(key), ec);
  if (ec) {
    fs::remove(tmp, ec);
    warn_once(fmt::format("cannot write {}: {}", entry(key).string(), ec.message()));
    return;
  }
  trim();
}

void ObjectCache::trim() const {
  struct Entry {
    fs::path path;
    uint64_t size;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != ".o") continue; // temporaries of other writers
    std::error_code e1, e2;
    const uint64_t size = e.file_size(e1);
    const fs::file_time_type used = e.last_write_time(e2);
    if (e1 || e2) continue;
    entries.push_back({e.path(), size, used});
    total += size;
  }
  if (total <= limit_bytes_) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  // Down to 80 % of the limit, so that trimming is not needed at every store.
  for (const Entry& e : entries) {
    if (total <= limit_bytes_ / 5 * 4) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

} // namespace plastic::backend::detail
