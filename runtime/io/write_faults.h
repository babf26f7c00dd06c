// A test hook that makes the Nth checked write of the process fail as a
// full disk does (ENOSPC), so tests can prove that every write site reports
// the failure and leaves its files readable. Compiled in always and inert
// unless the environment variable PLASTIC_FAIL_WRITE=N (N >= 1) is set;
// PLASTIC_FAIL_WRITE_LOG=FILE additionally appends one line per checked
// write ("N path") so a test can count the write sites of a run.
#pragma once

#include <string_view>

namespace plastic::rt {

/// Counts one write about to go to `path`; returns true (with errno set to
/// ENOSPC) when the hook says this one must fail.
bool inject_write_failure(std::string_view path);

} // namespace plastic::rt
