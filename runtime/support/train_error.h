// Failures of the training utilities, as values.
//
// Checkpoints, logs and plots touch the file system, and a training run must
// never die on a bad file: every fallible call returns a Status<TrainError>
// or a Result<V, TrainError> (runtime/support/result.h) whose error names the
// file, says what is wrong with it and, where one is known, what to do. The
// same error serves optimisers and schedules (runtime/train), files
// (runtime/io), initialisation (runtime/init) and RNG states, so it lives
// here. Nothing in those folders throws across its public API
// (nlohmann::json is used with exceptions disabled or caught at the
// boundary).
#pragma once

#include <string>

#include "runtime/support/result.h"

namespace plastic::rt {

/// Why a training utility failed.
enum class TrainErrorKind {
  InvalidArgument, ///< the caller passed inconsistent sizes or options
  Io,              ///< the operating system refused (open, write, rename, fsync ...)
  Format,          ///< a file exists but its contents are malformed
  Mismatch,        ///< a well-formed file does not fit the model (names, shapes, dtypes)
  NotFound,        ///< no such file, or no usable checkpoint
  Unavailable,     ///< an external tool (gnuplot) is missing or failed
  Undefined,       ///< a metric is undefined for this data (AUROC with one class)
};

/// Short lower-case name ("format error").
const char* train_error_kind_name(TrainErrorKind kind);

/// One failure: its kind, the file concerned (may be empty) and a message.
struct TrainError {
  TrainErrorKind kind = TrainErrorKind::InvalidArgument;
  std::string file;    ///< path of the file concerned, empty when none
  std::string message; ///< what is wrong, with numbers
  std::string advice;  ///< what to try, empty when nothing useful is known

  /// "ckpt.safetensors: format error: tensor 'w' ... (advice)"
  std::string describe() const;
};

/// Shorthands.
TrainError invalid_argument_error(std::string message, std::string advice = {});
TrainError io_error(std::string file, std::string message, std::string advice = {});
TrainError format_error(std::string file, std::string message);
TrainError mismatch_error(std::string file, std::string message, std::string advice = {});

/// `what` followed by strerror(errno_value): "cannot open for writing: No such file or directory".
std::string errno_message(const std::string& what, int errno_value);

} // namespace plastic::rt
