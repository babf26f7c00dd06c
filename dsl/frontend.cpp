// The front end's entry points (see frontend.h).
#include "dsl/frontend.h"

#include "dsl/parser.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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
  return check_source_file(std::make_shared<SourceFile>(std::move(name), std::move(text)), options,
                           diag);
}

CheckResult check_source_file(const SourceFilePtr& file, const CheckOptions& options,
                              DiagnosticEngine& diag) {
  auto module = std::make_unique<Module>(parse(file, diag, false));
  if (diag.has_errors()) return {}; // shapes of a broken parse would only add noise
  std::unique_ptr<Module> prelude = parse_prelude();
  // Diagnostics may point into the prelude (a layer's definition): its text
  // must outlive the checked model, which a failed check destroys.
  diag.keep(prelude->source);
  return check(std::move(prelude), std::move(module), options, diag);
}

bool read_file(const std::string& path, std::string& out, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  // Not blocking on open: a FIFO named like a model would wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st{};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(!stat_ok              ? std::string(std::strerror(errno))
                : S_ISDIR(st.st_mode) ? "it is a folder, not a model file (*.ode)"
                                      : "is not a regular file (a FIFO, socket or device)");
  }
  // A model is a page or two of text; megabytes are a wrong path.
  constexpr off_t kLargestModel = off_t{64} << 20;
  if (st.st_size > kLargestModel) {
    ::close(fd);
    return fail(fmt::format("has {} bytes; a model file is text of at most 64 MB", st.st_size));
  }
  out.assign(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return fail(std::strerror(e));
    }
    if (n == 0) break; // the file shrank while being read
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  ::close(fd);
  return true;
}

bool declares_data_dims(const std::string& path) {
  return !data_dims(path).empty();
}

bool source_declares_data_dims(const std::string& name, std::string text) {
  return !source_data_dims(name, std::move(text)).empty();
}

std::vector<DataDim> data_dims(const std::string& path) {
  std::string text;
  if (!read_file(path, text)) return {};
  return source_data_dims(path, std::move(text));
}

std::vector<DataDim> source_data_dims(const std::string& name, std::string text) {
  DiagnosticEngine quiet; // the command's own check reports any error
  auto file = std::make_shared<SourceFile>(name, std::move(text));
  const Module module = parse(file, quiet);
  std::vector<DataDim> out;
  for (const Decl& decl : module.decls)
    if (const auto* dim = std::get_if<DimDecl>(&decl); dim && dim->from_data)
      out.push_back({dim->name.name, dim->from_data->name,
                     dim->value ? std::string(dim->value->span.text()) : std::string(),
                     static_cast<int>(file->line_col(dim->name.span.begin).line)});
  return out;
}

CheckResult check_file(const std::string& path, const CheckOptions& options,
                       DiagnosticEngine& diag) {
  std::string text;
  if (std::string why; !read_file(path, text, &why)) {
    diag.error({}, fmt::format("cannot read '{}': {}", path, why));
    return {};
  }
  return check_source(path, std::move(text), options, diag);
}

} // namespace plastic::dsl
