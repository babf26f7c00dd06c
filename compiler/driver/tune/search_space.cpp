// The search space of `plastic tune` (see search_space.h).
#include "compiler/driver/tune/search_space.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "runtime/support/rng.h"

namespace plastic::driver {

namespace {

using dsl::TuneRange;
using dsl::TuneScale;

constexpr const char* kForms = "a range is written log(1e-4, 1e-2), (0, 1) or [16, 32, 64]";

std::string trim(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

/// "a, b, c" as numbers; nullopt with `why` set when one is not a number.
std::optional<std::vector<double>> numbers(const std::string& list, std::string& why) {
  std::vector<double> out;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = trim(list.substr(start, comma - start));
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(v)) {
      why = fmt::format("'{}' is not a number", item);
      return std::nullopt;
    }
    out.push_back(v);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

/// The point a fraction `u` of the way through a log or linear range.
double between(const TuneRange& r, double u) {
  const std::vector<double>& v = r.values;
  return r.scale == TuneScale::Log
             ? std::exp(std::log(v[0]) + u * (std::log(v[1]) - std::log(v[0])))
             : v[0] + u * (v[1] - v[0]);
}

/// A value drawn from one dimension's range with `u` uniform in [0, 1).
double draw(const TuneDimension& d, double u, rt::Rng& rng) {
  const std::vector<double>& v = d.range.values;
  if (d.range.scale == TuneScale::Choice) return v[rng.below(v.size())];
  const double x = between(d.range, u);
  return d.integer ? std::clamp(std::round(x), v[0], v[1]) : x;
}

/// `per_range` values of one dimension for a grid.
std::vector<double> grid_axis(const TuneDimension& d, int64_t per_range) {
  const std::vector<double>& v = d.range.values;
  if (d.range.scale == TuneScale::Choice) return v;
  std::vector<double> out;
  for (int64_t i = 0; i < per_range; ++i) {
    const double u =
        per_range == 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(per_range - 1);
    double x = between(d.range, u);
    if (i == 0) x = v[0]; // the bounds themselves, not exp(log(x)) of them
    if (i == per_range - 1 && per_range > 1) x = v[1];
    if (d.integer) x = std::round(x);
    if (out.empty() || out.back() != x) out.push_back(x);
  }
  return out;
}

} // namespace

const TuneDimension* SearchSpace::find(const std::string& name) const {
  for (const TuneDimension& d : dims)
    if (d.name == name) return &d;
  return nullptr;
}

Result<TuneRange, std::string> parse_range(const std::string& given) {
  const std::string text = trim(given);
  TuneRange r;
  std::string body;
  const std::string after_log = text.rfind("log", 0) == 0 ? trim(text.substr(3)) : std::string();
  if (after_log.size() >= 2 && after_log.front() == '(' && after_log.back() == ')') {
    r.scale = TuneScale::Log;
    body = after_log.substr(1, after_log.size() - 2);
  } else if (!text.empty() && text.front() == '(' && text.back() == ')') {
    r.scale = TuneScale::Linear;
    body = text.substr(1, text.size() - 2);
  } else if (!text.empty() && text.front() == '[' && text.back() == ']') {
    r.scale = TuneScale::Choice;
    body = text.substr(1, text.size() - 2);
  } else {
    return fmt::format("'{}' is not a range: {}", given, kForms);
  }
  std::string why;
  auto values = numbers(body, why);
  if (!values) return fmt::format("'{}': {}; {}", given, why, kForms);
  r.values = std::move(*values);
  if (r.scale == TuneScale::Choice) {
    if (r.values.size() < 2)
      return fmt::format("'{}' has one value: a search needs two or more", given);
    return r;
  }
  if (r.values.size() != 2)
    return fmt::format("'{}': a range has two bounds; a list of values is [a, b, c]", given);
  if (!(r.values[0] < r.values[1]))
    return fmt::format("'{}' is empty: the lower bound comes first", given);
  if (r.scale == TuneScale::Log && r.values[0] <= 0)
    return fmt::format("'{}': a log range needs positive bounds; (lo, hi) may include zero", given);
  return r;
}

std::string describe_range(const TuneRange& range) {
  std::string values;
  for (double v : range.values)
    values += (values.empty() ? "" : ", ") + exact(v);
  switch (range.scale) {
  case TuneScale::Log:
    return "log(" + values + ")";
  case TuneScale::Linear:
    return "(" + values + ")";
  case TuneScale::Choice:
    break;
  }
  return "[" + values + "]";
}

std::vector<TrialPoint> random_points(const SearchSpace& space, int64_t n, uint64_t seed) {
  // One stream per trial: trial k's values do not depend on how many
  // trials were asked for, so a larger search starts with the same ones.
  std::vector<TrialPoint> points;
  for (int64_t k = 0; k < n; ++k) {
    rt::Rng rng(seed, static_cast<uint64_t>(k));
    TrialPoint p;
    for (const TuneDimension& d : space.dims)
      p.push_back(draw(d, rng.uniform(), rng));
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<TrialPoint> grid_points(const SearchSpace& space, int64_t per_range) {
  std::vector<TrialPoint> points{TrialPoint{}};
  for (const TuneDimension& d : space.dims) {
    std::vector<TrialPoint> next;
    for (const TrialPoint& p : points)
      for (double x : grid_axis(d, per_range)) {
        TrialPoint q = p;
        q.push_back(x);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::vector<std::string> point_arguments(const SearchSpace& space, const TrialPoint& point) {
  std::vector<std::string> args;
  for (size_t i = 0; i < space.dims.size(); ++i) {
    const TuneDimension& d = space.dims[i];
    if (d.option) {
      args.push_back("--" + d.name);
      args.push_back(exact(point[i]));
    } else {
      args.emplace_back("--set");
      args.push_back(d.name + "=" + exact(point[i]));
    }
  }
  return args;
}

std::string exact(double value) {
  return fmt::format("{}", value); // fmt's shortest round-trip form
}

} // namespace plastic::driver
