// Describing training-utility failures.
#include "runtime/support/train_error.h"

#include <system_error>

namespace plastic::rt {

const char* train_error_kind_name(TrainErrorKind kind) {
  switch (kind) {
  case TrainErrorKind::InvalidArgument:
    return "invalid argument";
  case TrainErrorKind::Io:
    return "i/o error";
  case TrainErrorKind::Format:
    return "format error";
  case TrainErrorKind::Mismatch:
    return "mismatch";
  case TrainErrorKind::NotFound:
    return "not found";
  case TrainErrorKind::Unavailable:
    return "unavailable";
  case TrainErrorKind::Undefined:
    return "undefined";
  }
  return "error";
}

std::string TrainError::describe() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  out += train_error_kind_name(kind);
  out += ": " + message;
  if (!advice.empty()) out += " (" + advice + ")";
  return out;
}

TrainError invalid_argument_error(std::string message, std::string advice) {
  return {TrainErrorKind::InvalidArgument, {}, std::move(message), std::move(advice)};
}

TrainError io_error(std::string file, std::string message, std::string advice) {
  return {TrainErrorKind::Io, std::move(file), std::move(message), std::move(advice)};
}

TrainError format_error(std::string file, std::string message) {
  return {TrainErrorKind::Format, std::move(file), std::move(message), {}};
}

TrainError mismatch_error(std::string file, std::string message, std::string advice) {
  return {TrainErrorKind::Mismatch, std::move(file), std::move(message), std::move(advice)};
}

std::string errno_message(const std::string& what, int errno_value) {
  // system_category().message is thread safe, unlike strerror.
  return what + ": " + std::system_category().message(errno_value);
}

} // namespace plastic::rt
