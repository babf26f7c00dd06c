// Why a control path or a log-signature driver could not be built, as a
// value: observation times that do not increase, values that do not fill
// times x channels, a log-signature depth or step out of range. The message
// is a complete phrase ("observation times must be strictly increasing:
// t[3] = 2 follows t[2] = 2"); the batch runtime prefixes the sample it
// belongs to. Preconditions that the runtime itself guarantees (a buffer's
// channel count, a known interpolation scheme) are PLASTIC_CHECKs instead.
#pragma once

#include <string>
#include <utility>

#include "runtime/support/result.h"

namespace plastic::rt {

/// A path or driver that cannot be built from the given observations or options.
struct PathError {
  std::string message; ///< what is wrong, with numbers

  /// The message as it is.
  std::string describe() const { return message; }
};

/// PathError{message}.
inline PathError path_error(std::string message) {
  return PathError{std::move(message)};
}

} // namespace plastic::rt
