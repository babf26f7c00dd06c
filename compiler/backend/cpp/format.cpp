// clang::format over generated C++ (format.h).
#include "compiler/backend/cpp/format.h"

#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>
#include <fmt/format.h>

#include "compiler/backend/cpp/embedded_files.h"
#include "runtime/support/internal_error.h"

namespace plastic::backend::cpp {

std::string format_cpp(const std::string& code, const std::string& file_name) {
  clang::format::FormatStyle style =
      clang::format::getLLVMStyle(clang::format::FormatStyle::LK_Cpp);
  if (std::error_code ec = clang::format::parseConfiguration(detail::kClangFormatStyle, &style))
    throw plastic::InternalError(
        fmt::format("the built-in .clang-format does not parse: {}", ec.message()));
  const clang::tooling::Replacements replacements = clang::format::reformat(
      style, code, {clang::tooling::Range(0, static_cast<unsigned>(code.size()))}, file_name);
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted)
    throw plastic::InternalError(
        fmt::format("formatting generated C++ failed: {}", llvm::toString(formatted.takeError())));
  return *formatted;
}

} // namespace plastic::backend::cpp
