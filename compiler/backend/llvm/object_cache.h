// The on-disk cache of compiled kernels: relocatable objects keyed by a hash
// of exactly what codegen receives — the unoptimised LLVM IR of one kernel —
// and of everything else that shapes the machine code (target triple, CPU,
// features, optimisation level, unrolling, LLVM's version, this cache's
// format). A `plastic train` after a `plastic train`, an `eval` of the run,
// or a REPL going back to an earlier dim or solver then links the objects
// instead of running the O3 pipeline and instruction selection again.
//
// Where: $PLASTIC_CACHE_DIR if set ("" or "off" disables the cache), else
// $XDG_CACHE_HOME/plastic/kernels, else ~/.cache/plastic/kernels. Entries are
// written atomically (temporary file + rename), so processes may share the
// folder; an entry that does not parse as an object is removed and rebuilt.
// The folder is kept under $PLASTIC_CACHE_MB megabytes (default 512) by
// removing the least recently used entries. A cache that cannot be written
// is reported once and compilation goes on without it.
//
// Internal header of compiler/backend/llvm/: nothing outside that folder includes it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/backend/llvm/options.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace plastic::backend::detail {

class ObjectCache {
public:
  /// The cache at the configured place, or a disabled one.
  static ObjectCache from_environment();
  /// A cache in `dir` (created on first store); empty = disabled.
  explicit ObjectCache(std::filesystem::path dir, uint64_t limit_bytes = 512ull << 20);

  bool enabled() const { return !dir_.empty(); }
  const std::filesystem::path& dir() const { return dir_; }

  /// Everything besides the compiled text that shapes the machine code: the
  /// target and the options, as text for key().
  static std::string context(const TargetSpec& spec, const CompileOptions& options);

  /// The key of one kernel: 128 bits of xxh3 over `ir_text` and `context`
  /// (target and options), as 32 hex digits.
  static std::string key(std::string_view ir_text, std::string_view context);

  /// The object stored under `key`, if there is a valid one.
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string& key) const;
  /// Stores `object` under `key` (atomically), then trims the folder to
  /// its size limit. Failures are reported once per process, never thrown.
  void store(const std::string& key, std::string_view object) const;

private:
  std::filesystem::path entry(const std::string& key) const;
  void trim() const;

  std::filesystem::path dir_;
  uint64_t limit_bytes_;
};

} // namespace plastic::backend::detail
