// PlotWriter: the guarded files of one gnuplot plot (see plot_writer.h).
#include "runtime/io/plot_writer.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"

extern char** environ;

namespace plastic::rt {

namespace fs = std::filesystem;

namespace {

std::string tail_of(const fs::path& log) {
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s.size() > 600 ? "..." + s.substr(s.size() - 600) : s;
}

/// A fresh temporary name beside `path` (is_temporary_name() knows it).
fs::path temporary_beside(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.parent_path() /
         fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), counter.fetch_add(1));
}

/// `script` with its `set output` line drawing into `png` instead.
std::string output_into(const std::string& script, const fs::path& png) {
  std::istringstream in(script);
  std::string out;
  for (std::string line; std::getline(in, line);)
    out += (line.rfind("set output", 0) == 0 ? "set output " + gnuplot_quote(png.string()) : line) +
           "\n";
  return out;
}

/// Runs `exe script` with output to `log`; returns the exit status or an error.
Result<int, TrainError> run(const fs::path& exe, const fs::path& script, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string exe_s = exe.string(), script_s = script.string();
  char* argv[] = {exe_s.data(), script_s.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe_s.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return TrainError{TrainErrorKind::Unavailable, exe_s, errno_message("cannot start", rc), {}};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return TrainError{
          TrainErrorKind::Unavailable, exe_s, errno_message("waitpid failed", errno), {}};
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

/// gnuplot's exit status and the tail of what it printed; its temporaries removed.
struct Rendered {
  int status = 0;
  std::string output;
};

Result<Rendered, TrainError> run_gnuplot(const fs::path& exe, const std::string& script,
                                         const fs::path& beside) {
  const fs::path script_file = temporary_beside(beside), log = temporary_beside(beside);
  if (Status<TrainError> s = write_file_atomic(script_file, script); !s) return s.error();
  Result<int, TrainError> rc = run(exe, script_file, log);
  Rendered r{rc ? rc.value() : -1, tail_of(log)};
  (void)remove_file(script_file);
  (void)remove_file(log);
  if (!rc) return rc.error();
  return r;
}

} // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::optional<fs::path> find_executable(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? std::optional<fs::path>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

Result<PlotWriter, TrainError> PlotWriter::open(const fs::path& given) {
  std::error_code ec;
  fs::path png = fs::weakly_canonical(fs::absolute(given, ec), ec); // links resolved
  if (ec) png = given;
  const fs::file_status st = fs::status(png, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    return TrainError{TrainErrorKind::Io, given.string(),
                      fs::is_directory(st)
                          ? "it is a folder, not a file"
                          : "not a regular file (a device or a FIFO cannot take a plot)",
                      "give a path ending in .png"};
  if (!fs::is_directory(png.parent_path(), ec))
    return TrainError{TrainErrorKind::Io, given.string(),
                      fmt::format("the folder {} does not exist", png.parent_path().string()),
                      "create it first, or give a path in an existing folder"};
  return PlotWriter(png);
}

PlotWriter::PlotWriter(PlotWriter&& other) noexcept
    : png_(std::move(other.png_)), written_(std::move(other.written_)), keep_(other.keep_) {
  other.written_.clear();
}

PlotWriter::~PlotWriter() {
  if (keep_) return;
  for (const fs::path& f : written_)
    (void)remove_file(f);
}

fs::path PlotWriter::beside(std::string_view suffix) const {
  return fs::path(png_).replace_extension(std::string(suffix));
}

Status<TrainError> PlotWriter::write(const fs::path& file, std::string_view text) {
  if (Status<TrainError> s = write_file_atomic(file, text); !s) return s;
  written_.push_back(file);
  return {};
}

Result<PlotFiles, TrainError> PlotWriter::render(const std::string& script,
                                                 const std::string& gnuplot) {
  const PlotFiles files{png_, beside(".gp")};
  if (Status<TrainError> s = write(files.script, script); !s) return s.error();
  const auto exe = find_executable(gnuplot);
  if (!exe) {
    keep_ = true; // to be rendered later
    return TrainError{
        TrainErrorKind::Unavailable, png_.string(),
        fmt::format("cannot draw the plot: '{}' was not found on PATH; the script is {}", gnuplot,
                    files.script.string()),
        fmt::format("install gnuplot (Debian: apt-get install gnuplot-nox) and run `gnuplot {}`",
                    files.script.string())};
  }
  const fs::path drawing = temporary_beside(png_);
  Result<Rendered, TrainError> r = run_gnuplot(*exe, output_into(script, drawing), png_);
  if (!r) return r.error();
  std::error_code ec;
  const bool drawn = fs::is_regular_file(drawing, ec) && fs::file_size(drawing, ec) > 0;
  if (r.value().status != 0 || !drawn) {
    (void)remove_file(drawing);
    return TrainError{
        TrainErrorKind::Unavailable,
        png_.string(),
        r.value().status != 0
            ? fmt::format("gnuplot failed (exit status {}): {}", r.value().status, r.value().output)
            : fmt::format("gnuplot wrote no image: {}", r.value().output),
        {}};
  }
  if (::rename(drawing.c_str(), png_.c_str()) != 0) {
    const int e = errno;
    (void)remove_file(drawing);
    return io_error(png_.string(), errno_message("rename into place failed", e));
  }
  if (Status<TrainError> s = sync_directory(png_.parent_path()); !s) return s.error();
  keep_ = true;
  return files;
}

} // namespace plastic::rt
