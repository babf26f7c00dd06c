// Standard output is a file like any other: when it cannot be written (a
// full disk, `> /dev/full`, a closed pipe) the command has failed, and it is
// an environment error (exit 1) naming standard output — not a success with
// truncated output, nor an "internal error". {fmt} reports a failed write by
// throwing std::system_error; buffered output fails only at the last flush.
#pragma once

#include <exception>
#include <optional>
#include <string>

namespace plastic::rt {

/// Flushes stdout; when it failed (now or earlier), prints why on stderr
/// and returns 1, else returns `code`.
int finish_standard_output(int code, const std::string& program);

/// For an exception escaping a command: 1 (after printing why) when it is a
/// failed write to a stream, nullopt for anything else (a bug).
std::optional<int> output_failure_code(const std::exception& e, const std::string& program);

} // namespace plastic::rt
