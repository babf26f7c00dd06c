// The name messages start with (see program_name.h).
#include "runtime/app/program_name.h"

#include <utility>

namespace plastic::rt {

namespace {

std::string& name() {
  static std::string value = "plastic";
  return value;
}

} // namespace

const std::string& program_name() {
  return name();
}

void set_program_name(std::string value) {
  name() = std::move(value);
}

} // namespace plastic::rt
