// Learning-curve plots through gnuplot (behaviour in plot.h).
#include "runtime/io/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"

extern char** environ;

namespace plastic::rt {

namespace fs = std::filesystem;

namespace {

/// A gnuplot single-quoted string: no escapes except '' for a quote.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string value(double x) {
  return std::isfinite(x) ? fmt::format("{:.10g}", x) : "NaN";
}

bool any_finite(const std::vector<EpochRecord>& r, double EpochRecord::* field) {
  for (const EpochRecord& e : r)
    if (std::isfinite(e.*field)) return true;
  return false;
}

std::string tail_of(const fs::path& log) {
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s.size() > 600 ? "..." + s.substr(s.size() - 600) : s;
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

std::string script_text(const std::vector<EpochRecord>& r, const PlotFiles& f,
                        const PlotOptions& o) {
  const std::string metric = r.empty() ? "metric" : r.back().metric_name;
  std::string s = fmt::format("# Learning curve written by Plastic. Render again with: gnuplot {}\n"
                              "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{\n"
                              "  set terminal pngcairo size {},{} font 'sans,10'\n"
                              "}} else {{\n"
                              "  set terminal png size {},{}\n"
                              "}}\n"
                              "set output {}\n"
                              "set title {} noenhanced\n"
                              "set datafile missing 'NaN'\n"
                              "set xlabel 'epoch'\nset ylabel 'loss'\n"
                              "set grid\nset key below horizontal noenhanced\nset bmargin 5\n"
                              "set ytics nomirror\n",
                              quote(f.script.string()), o.width, o.height, o.width, o.height,
                              quote(f.png.string()), quote(o.title));
  if (o.log_loss) s += "set logscale y\n";
  std::vector<std::string> curves;
  const std::string data = quote(f.data.string());
  if (any_finite(r, &EpochRecord::train_loss))
    curves.push_back(
        fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'train loss'", data));
  if (any_finite(r, &EpochRecord::valid_loss))
    curves.push_back(
        fmt::format("{} using 1:3 with linespoints pt 7 ps 0.5 lw 2 title 'valid loss'", data));
  if (any_finite(r, &EpochRecord::valid_metric)) {
    s += fmt::format("set y2label {} noenhanced\nset y2tics\n", quote("valid " + metric));
    curves.push_back(
        fmt::format("{} using 1:4 axes x1y2 with linespoints pt 7 ps 0.5 lw 2 dt 1 title {}", data,
                    quote("valid " + metric)));
  }
  // The best epoch: as given, else the highest metric, else the lowest valid loss.
  int64_t best = o.best_epoch;
  double best_v = NAN;
  for (const EpochRecord& e : o.best_epoch >= 0 ? std::vector<EpochRecord>{} : r) {
    const bool by_metric = any_finite(r, &EpochRecord::valid_metric);
    const double v = by_metric ? e.valid_metric : e.valid_loss;
    if (std::isfinite(v) && (best < 0 || (by_metric ? v > best_v : v < best_v))) {
      best = e.epoch;
      best_v = v;
    }
  }
  if (best >= 0)
    s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb 'gray40'\n"
                     "set label 'best' at {0}, graph 0.97 right offset -0.5,0 tc rgb 'gray40'\n",
                     best);
  if (curves.empty())
    curves.push_back(fmt::format("{} using 1:2 with points title 'no data'", data));
  s += "plot " + fmt::format("{}", fmt::join(curves, ", \\\n     ")) + "\n";
  return s;
}

} // namespace

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

Result<PlotFiles, TrainError> plot_learning_curve(const std::vector<EpochRecord>& records,
                                                  const fs::path& png, const PlotOptions& options) {
  std::error_code ec;
  PlotFiles f;
  f.png = fs::absolute(png, ec);
  if (ec) f.png = png;
  f.data = fs::path(f.png).replace_extension(".dat");
  f.script = fs::path(f.png).replace_extension(".gp");
  f.log = fs::path(f.png).replace_extension(".gnuplot.log");
  std::string data = "# epoch train_loss valid_loss valid_metric lr\n";
  for (const EpochRecord& r : records)
    data += fmt::format("{} {} {} {} {}\n", r.epoch, value(r.train_loss), value(r.valid_loss),
                        value(r.valid_metric), value(r.lr));
  if (Status<TrainError> s = write_file_atomic(f.data, data); !s) return s.error();
  return render_with_gnuplot(f, script_text(records, f, options), options.gnuplot);
}

Result<PlotFiles, TrainError> render_with_gnuplot(PlotFiles f, const std::string& script,
                                                  const std::string& gnuplot) {
  std::error_code ec;
  if (f.log.empty()) f.log = fs::path(f.png).replace_extension(".gnuplot.log");
  if (Status<TrainError> s = write_file_atomic(f.script, script); !s) return s.error();
  const auto exe = find_executable(gnuplot);
  if (!exe)
    return TrainError{
        TrainErrorKind::Unavailable, f.png.string(),
        fmt::format("cannot draw the plot: '{}' was not found on PATH; the data is in {} and the "
                    "script in {}",
                    gnuplot, f.data.string(), f.script.string()),
        fmt::format("install gnuplot (Debian: apt-get install gnuplot-nox) and run `gnuplot {}`",
                    f.script.string())};
  (void)remove_file(f.png);
  Result<int, TrainError> rc = run(*exe, f.script, f.log);
  if (!rc) return rc.error();
  if (rc.value() != 0)
    return TrainError{
        TrainErrorKind::Unavailable, f.png.string(),
        fmt::format("gnuplot failed (exit status {}): {}", rc.value(), tail_of(f.log)),
        fmt::format("the script is {}", f.script.string())};
  if (!fs::is_regular_file(f.png, ec) || fs::file_size(f.png, ec) == 0)
    return TrainError{TrainErrorKind::Unavailable,
                      f.png.string(),
                      fmt::format("gnuplot wrote no image: {}", tail_of(f.log)),
                      {}};
  return f;
}

} // namespace plastic::rt
