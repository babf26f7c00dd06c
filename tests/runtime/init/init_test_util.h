// Helpers shared by the initialiser tests: building parameter-table entries
// and sample statistics with their standard errors.
//
// Tolerances are derived from the sample size: a moment is accepted within
// kSigmas standard errors of its exact value, where the standard error of
// the sample variance uses the distribution's fourth central moment,
// se(s^2) = sqrt((mu_4 - sigma^4) / N).
#pragma once

#include <cmath>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "runtime/abi.h"

namespace plastic::rt::test {

inline constexpr double kSigmas = 5.0;

/// One table entry; `name` must outlive the entry (string literals do).
inline plastic_param make_param(const char* name, std::initializer_list<int64_t> shape,
                                int64_t offset, int32_t kind,
                                std::initializer_list<double> args = {}, int64_t fan_in = 0,
                                int64_t fan_out = 0, int32_t group = -1, int32_t index = 0) {
  plastic_param p{};
  p.name = name;
  p.rank = static_cast<int32_t>(shape.size());
  p.init = kind;
  int64_t size = 1;
  int r = 0;
  for (int64_t d : shape) {
    p.shape[r++] = d;
    size *= d;
  }
  p.offset = offset;
  p.size = size;
  p.fan_in = fan_in;
  p.fan_out = fan_out;
  p.init_group = group;
  p.init_index = index;
  int k = 0;
  for (double a : args)
    p.init_args[k++] = a;
  return p;
}

struct Moments {
  double mean = 0, var = 0, min = 0, max = 0;
  double n = 0;
};

template <class T> Moments moments(std::span<const T> x) {
  Moments m;
  m.n = static_cast<double>(x.size());
  m.min = m.max = static_cast<double>(x[0]);
  for (T v : x) {
    m.mean += static_cast<double>(v);
    m.min = std::min(m.min, static_cast<double>(v));
    m.max = std::max(m.max, static_cast<double>(v));
  }
  m.mean /= m.n;
  for (T v : x)
    m.var += (static_cast<double>(v) - m.mean) * (static_cast<double>(v) - m.mean);
  m.var /= (m.n - 1);
  return m;
}

/// Standard errors of mean and variance for N(mu, s^2): s/sqrt(N), s^2 sqrt(2/N).
inline double normal_se_mean(double sd, double n) {
  return sd / std::sqrt(n);
}
inline double normal_se_var(double sd, double n) {
  return sd * sd * std::sqrt(2.0 / n);
}
/// U(-a, a): variance a^2/3, mu_4 = a^4/5, so se(s^2) = a^2 sqrt(4/45/N).
inline double uniform_se_mean(double a, double n) {
  return a / std::sqrt(3.0 * n);
}
inline double uniform_se_var(double a, double n) {
  return a * a * std::sqrt(4.0 / 45.0 / n);
}

} // namespace plastic::rt::test
