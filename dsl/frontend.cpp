// The front end's entry points (see frontend.h).
#include "dsl/frontend.h"

#include "dsl/parser.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace plastic::dsl {

std::string_view prelude_source() {
  static const char text[] =
#include "dsl/prelude_text.inc"
      ;
  return {text, sizeof(text) - 1};
}

std::unique_ptr<Module> parse_prelude() {
  DiagnosticEngine diag;
  auto file = std::make_shared<SourceFile>("<prelude>", std::string(prelude_source()));
  auto module = std::make_unique<Module>(parse(file, diag, true));
  if (diag.has_errors()) {
    std::ostringstream os;
    diag.render(os);
    throw InternalError("the prelude does not parse:\n" + os.str());
  }
  return module;
}

CheckResult check_source(std::string name, std::string text, const CheckOptions& options,
                         DiagnosticEngine& diag) {
  auto file = std::make_shared<SourceFile>(std::move(name), std::move(text));
  auto module = std::make_unique<Module>(parse(file, diag, false));
  if (diag.has_errors()) return {}; // shapes of a broken parse would only add noise
  std::unique_ptr<Module> prelude = parse_prelude();
  // Diagnostics may point into the prelude (a layer's definition): its text
  // must outlive the checked model, which a failed check destroys.
  diag.keep(prelude->source);
  return check(std::move(prelude), std::move(module), options, diag);
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = ss.str();
  return true;
}

CheckResult check_file(const std::string& path, const CheckOptions& options,
                       DiagnosticEngine& diag) {
  std::string text;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // A folder opens as a stream that reads nothing: say what it is rather
    // than "found end of file".
    diag.error({}, fmt::format("cannot read '{}': it is a folder, not a model file (*.ode)", path));
    return {};
  }
  if (!read_file(path, text)) {
    diag.error({}, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    return {};
  }
  return check_source(path, std::move(text), options, diag);
}

} // namespace plastic::dsl
