// The progress bar (behaviour in progress.h).
#include "runtime/io/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

std::string format_clock(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const int64_t t = static_cast<int64_t>(s);
  if (t >= 3600) return fmt::format("{}:{:02d}:{:02d}", t / 3600, (t / 60) % 60, t % 60);
  return fmt::format("{:02d}:{:02d}", t / 60, t % 60);
}

ProgressBar::ProgressBar(int64_t total, ProgressOptions options)
    : total_(total), o_(std::move(options)) {
  const int fd = o_.stream ? ::fileno(o_.stream) : -1;
  tty_ = o_.tty >= 0 ? o_.tty == 1 : (!o_.sink && fd >= 0 && ::isatty(fd));
  width_ = o_.width > 0 ? o_.width : 100;
  if (o_.width <= 0 && tty_ && fd >= 0) {
    winsize ws{};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) width_ = ws.ws_col - 1;
  }
  start_ = now();
}

ProgressBar::~ProgressBar() {
  if (drawn_ && !finished_) finish();
}

double ProgressBar::now() const {
  if (o_.clock) return o_.clock();
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void ProgressBar::emit(std::string_view text) {
  if (o_.sink) {
    o_.sink(text);
  } else if (o_.stream) {
    std::fwrite(text.data(), 1, text.size(), o_.stream);
    std::fflush(o_.stream);
  }
}

std::string ProgressBar::line() const {
  const double elapsed = std::max(0.0, now() - start_);
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  std::string head = o_.label.empty() ? "" : o_.label + " ";
  std::string tail;
  if (total_ > 0) {
    const double remaining = rate > 0 ? static_cast<double>(total_ - done_) / rate : NAN;
    tail =
        fmt::format(" {}/{} {}<{}", done_, total_, format_clock(elapsed), format_clock(remaining));
  } else {
    tail = fmt::format(" {} {}", done_, format_clock(elapsed));
  }
  tail += rate > 0 ? fmt::format(" {:.3g} {}/s", rate, o_.unit) : fmt::format(" ? {}/s", o_.unit);
  if (!std::isnan(loss_)) tail += fmt::format(" loss {:.4g}", loss_);
  if (!std::isnan(metric_)) tail += fmt::format(" {} {:.4g}", o_.metric_name, metric_);
  if (total_ <= 0) return head + tail.substr(1);
  const double frac =
      std::clamp(static_cast<double>(done_) / static_cast<double>(total_), 0.0, 1.0);
  head += fmt::format("{:3.0f}% ", std::floor(frac * 100));
  // A fixed bar width (what the line leaves beside a typical label and
  // tail), so the bar does not jitter as the numbers change length.
  const int cells = std::clamp(width_ - static_cast<int>(o_.label.size()) - 60, 10, 40);
  const int full = static_cast<int>(frac * cells);
  std::string bar(static_cast<size_t>(cells), ' ');
  std::fill_n(bar.begin(), full, '=');
  if (full < cells && full > 0) bar[full] = '>';
  return head + "[" + bar + "]" + tail;
}

void ProgressBar::update(int64_t done, double loss, double metric) {
  done_ = done;
  loss_ = loss;
  metric_ = metric;
  const double t = now();
  if (tty_) {
    if (drawn_ && t - last_draw_ < o_.min_interval) return;
    const std::string text = line();
    // Pad over the remains of a longer previous line instead of relying on escape codes.
    const std::string pad(last_len_ > text.size() ? last_len_ - text.size() : 0, ' ');
    emit("\r" + text + pad);
    last_len_ = text.size();
  } else {
    // Progress buckets of plain_percent each: a line whenever a new bucket is reached.
    const double percent =
        total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 0;
    const double bucket = o_.plain_percent > 0 ? std::floor(percent / o_.plain_percent) : 0;
    const bool due =
        !drawn_ || t - last_draw_ >= o_.plain_interval || (total_ > 0 && bucket > last_bucket_);
    if (!due) return;
    emit(line() + "\n");
    last_bucket_ = bucket;
    plain_done_ = done;
  }
  last_draw_ = t;
  drawn_ = true;
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  const std::string text = line();
  if (tty_) {
    const std::string pad(last_len_ > text.size() ? last_len_ - text.size() : 0, ' ');
    emit("\r" + text + pad + "\n");
  } else if (plain_done_ != done_) { // the last plain line may already say this
    emit(text + "\n");
  }
  drawn_ = true;
}

} // namespace plastic::rt
