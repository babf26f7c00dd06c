// CLI11 validators for single option values (see option_checks.h).
#include "runtime/app/option_checks.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

/// The text as a double, or an error message.
bool parse_double(const std::string& text, double& value) {
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

CLI::Validator number_check(const char* what, bool (*ok)(double)) {
  return CLI::Validator(
      [what, ok](std::string& text) -> std::string {
        double v = 0;
        if (!parse_double(text, v)) return fmt::format("'{}' is not a number", text);
        if (!ok(v)) return fmt::format("'{}' is not {}", text, what);
        return {};
      },
      what);
}

} // namespace

CLI::Validator finite_number() {
  return number_check("a finite number", [](double v) { return std::isfinite(v); });
}

CLI::Validator positive_finite() {
  return number_check("a finite number > 0", [](double v) { return std::isfinite(v) && v > 0; });
}

CLI::Validator non_negative_finite() {
  return number_check("a finite number >= 0", [](double v) { return std::isfinite(v) && v >= 0; });
}

CLI::Validator validation_fraction() {
  return number_check("a fraction in (0, 0.8]",
                      [](double v) { return std::isfinite(v) && v > 0 && v <= 0.8; });
}

CLI::Validator share_fraction() {
  return number_check("a fraction in (0, 1]",
                      [](double v) { return std::isfinite(v) && v > 0 && v <= 1; });
}

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size())
          return fmt::format("'{}' is not a whole number", text);
        if (errno == ERANGE || v < lo || v > hi)
          return fmt::format("{} is outside [{}, {}]", text, lo, hi);
        return {};
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? std::string("must not be empty") : std::string();
      },
      "NONEMPTY");
}

} // namespace plastic::rt
