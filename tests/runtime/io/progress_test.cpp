// The progress bar with a fake clock, in both output modes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "runtime/io/progress.h"

using namespace plastic::rt;

namespace {
struct Capture {
  std::string out;
  double now = 0;
  ProgressOptions options(int tty) {
    ProgressOptions o;
    o.label = "epoch 2/10";
    o.metric_name = "acc";
    o.tty = tty;
    o.width = 100;
    o.sink = [this](std::string_view s) { out += s; };
    o.clock = [this] { return now; };
    return o;
  }
};
size_t count(const std::string& s, char c) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), c));
}
} // namespace

TEST_CASE("progress bar: plain lines when not a terminal", "[progress]") {
  Capture cap;
  {
    ProgressBar bar(1000, cap.options(0));
    CHECK_FALSE(bar.tty());
    for (int i = 1; i <= 1000; ++i) {
      cap.now = i * 0.01; // 100 it/s, 10 s in all
      bar.update(i, 1.0 / i, 0.5);
    }
    bar.finish();
  }
  // A line on the first update and then at 10 %, 20 %, ... 100 %; finish()
  // does not repeat the 100 % line.
  CHECK(count(cap.out, '\r') == 0);
  CHECK(count(cap.out, '\n') == 11);
  CHECK(cap.out.find(" 10% [===>                          ] 100/1000 00:01<00:09") !=
        std::string::npos);
  const std::string last = cap.out.substr(cap.out.rfind('\n', cap.out.size() - 2) + 1);
  CHECK(last.find("epoch 2/10 100% [==============================] ") ==
        0); // 30 cells at width 100
  CHECK(last.find("1000/1000 00:10<00:00") != std::string::npos);
  CHECK(last.find("100 it/s") != std::string::npos);
  CHECK(last.find("loss 0.001") != std::string::npos);
  CHECK(last.find("acc 0.5") != std::string::npos);
  CHECK(cap.out.find(" 50% [===============>              ]") != std::string::npos);
  CHECK(cap.out.find("500/1000 00:05<00:05") != std::string::npos); // ETA from the average rate
}

TEST_CASE("progress bar: plain lines also come every plain_interval seconds", "[progress]") {
  Capture cap;
  ProgressOptions o = cap.options(0);
  o.plain_interval = 5;
  ProgressBar bar(1000000, o);
  for (int i = 1; i <= 30; ++i) {
    cap.now = i; // slow: 1 % would take far longer than 30 s
    bar.update(i);
  }
  CHECK(count(cap.out, '\n') == 1 + 5); // the first update, then t = 6, 11, 16, 21, 26
}

TEST_CASE("progress bar: redraws in place on a terminal, at most 10 per second", "[progress]") {
  Capture cap;
  ProgressBar bar(500, cap.options(1));
  CHECK(bar.tty());
  for (int i = 1; i <= 500; ++i) {
    cap.now = i * 0.002; // 1 s in all, 500 updates
    bar.update(i, 0.25);
  }
  bar.finish();
  const size_t redraws = count(cap.out, '\r');
  CHECK(redraws >= 10);
  CHECK(redraws <= 12); // 10 Hz over 1 s, plus the first draw and the final one
  CHECK(count(cap.out, '\n') == 1);
  CHECK(cap.out.back() == '\n');
  // Every redrawn line fits the width.
  size_t at = 0;
  while ((at = cap.out.find('\r', at)) != std::string::npos) {
    const size_t end = cap.out.find_first_of("\r\n", at + 1);
    CHECK(end - at - 1 <= 100);
    at = end;
  }
}

TEST_CASE("progress bar: unknown total and clock format", "[progress]") {
  Capture cap;
  ProgressBar bar(0, cap.options(0));
  cap.now = 2;
  bar.update(40);
  CHECK(cap.out.find("epoch 2/10 40 00:02 20 it/s") == 0);
  CHECK(format_clock(65) == "01:05");
  CHECK(format_clock(3723) == "1:02:03");
  CHECK(format_clock(NAN) == "--:--");
}
