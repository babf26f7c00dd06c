// Crash-safe file replacement.
//
// A checkpoint must survive `kill -9` and power loss at any instant: the new
// contents go to a temporary file in the same directory (same file system,
// so rename is atomic), which is fsynced before being renamed over the
// target, and the directory is fsynced after the rename so the new name is
// durable. Readers therefore see the complete old file or the complete new
// one, never a mixture. Temporaries left by a crash are named
// ".<name>.tmp.<pid>.<n>" and can be removed by whoever next owns the
// directory (see is_temporary_name).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// Replaces `path` atomically by the concatenation of `pieces`.
Status<TrainError> write_file_atomic(const std::filesystem::path& path,
                                     std::span<const std::span<const std::byte>> pieces);

/// Replaces `path` atomically by `text`.
Status<TrainError> write_file_atomic(const std::filesystem::path& path, std::string_view text);

/// Reads a whole file; fails (Format) when it is larger than `max_bytes`, by
/// default (0) the largest file this machine's memory allows reading whole.
Result<std::vector<std::byte>, TrainError> read_file(const std::filesystem::path& path,
                                                     uint64_t max_bytes = 0);

/// fsync of a directory, making renames and removals inside it durable.
Status<TrainError> sync_directory(const std::filesystem::path& dir);

/// Removes `path` if it exists (no error when it does not).
Status<TrainError> remove_file(const std::filesystem::path& path);

/// Whether a directory entry is a temporary left by write_file_atomic.
bool is_temporary_name(std::string_view filename);

} // namespace plastic::rt
