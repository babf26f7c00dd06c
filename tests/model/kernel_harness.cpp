// The kernel-vs-interpreter driver (see kernel_harness.h).
#include "tests/model/kernel_harness.h"

#include <cmath>
#include <cstdlib>
#include <memory>

namespace plastic::test {

namespace {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

template <class T> CaseResult run_typed(const KernelCase& k, int L, int batch, uint64_t seed, double t, double h) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  auto gen = [&](const ArgSpec& a) {
    if (auto it = k.generate.find(a.name); it != k.generate.end()) return it->second(rng);
    Vec v(static_cast<size_t>(a.size));
    for (double& x : v) x = U(rng);
    return v;
  };
  // Values as the kernel sees them (rounded to T) so both sides start equal.
  auto round = [](Vec v) {
    for (double& x : v) x = static_cast<double>(static_cast<T>(x));
    return v;
  };
  // Per-sample data (varying) and shared data (uniform), inputs and initial outputs.
  std::map<std::string, std::vector<Vec>> per_sample;
  std::map<std::string, Vec> shared;
  for (const ArgSpec& a : k.args) {
    if (a.uniform) shared[a.name] = round(gen(a));
    else
      for (int s = 0; s < batch; ++s) per_sample[a.name].push_back(round(gen(a)));
  }
  // Expected outputs.
  std::map<std::string, std::vector<Vec>> expect_v;
  std::map<std::string, Vec> expect_u;
  for (const ArgSpec& a : k.args) {
    if (a.role == ArgSpec::In) continue;
    if (a.uniform) expect_u[a.name] = a.role == ArgSpec::Acc ? shared[a.name] : Vec(static_cast<size_t>(a.size), 0.0);
    else expect_v[a.name] = a.role == ArgSpec::Acc ? per_sample[a.name] : std::vector<Vec>(batch, Vec(a.size, 0.0));
  }
  std::map<std::string, std::vector<double>> floors;
  for (int s = 0; s < batch; ++s) {
    std::map<std::string, Vec> sample = shared;
    for (auto& [name, v] : per_sample) sample[name] = v[static_cast<size_t>(s)];
    sample["t"] = {t};
    sample["h"] = {h};
    std::map<std::string, Vec> r = k.reference(sample);
    for (const ArgSpec& a : k.args)
      floors[a.name].push_back(k.scale_floor ? k.scale_floor(a.name, sample, r) : 0.0);
    for (const ArgSpec& a : k.args) {
      if (a.role == ArgSpec::In) continue;
      auto it = r.find(a.name);
      if (it == r.end()) continue;  // no contribution
      Vec& dst = a.uniform ? expect_u[a.name] : expect_v[a.name][static_cast<size_t>(s)];
      for (size_t i = 0; i < dst.size(); ++i) dst[i] += it->second.at(i);
    }
  }
  // Run the kernel tile by tile.
  std::map<std::string, std::vector<Vec>> got_v;
  std::map<std::string, Vec> got_u = shared;  // uniform outputs accumulate across tiles (Set: per tile, summed below)
  for (const ArgSpec& a : k.args)
    if (a.uniform && a.role == ArgSpec::Set) got_u[a.name] = Vec(static_cast<size_t>(a.size), 0.0);
  std::unique_ptr<void, AlignedFree> scratch(std::aligned_alloc(64, std::max<uint64_t>(64, (k.scratch + 63) / 64 * 64)));
  for (int tile0 = 0; tile0 < batch; tile0 += L) {
    std::vector<std::vector<T>> bufs;
    std::vector<void*> ptrs;
    for (const ArgSpec& a : k.args) {
      if (a.uniform) {
        std::vector<T> b(static_cast<size_t>(a.size));
        // A written (Set) uniform output starts as garbage: the kernel must overwrite it.
        for (size_t i = 0; i < b.size(); ++i)
          b[i] = a.role == ArgSpec::Set ? T(12345) : static_cast<T>(got_u[a.name][i]);
        bufs.push_back(std::move(b));
      } else {
        std::vector<T> b(static_cast<size_t>(a.size * L));
        for (int l = 0; l < L; ++l) {
          int s = tile0 + l;
          bool pad = s >= batch;
          const Vec& src = per_sample[a.name][static_cast<size_t>(pad ? 0 : s)];
          for (int64_t i = 0; i < a.size; ++i) {
            double v = src[static_cast<size_t>(i)];
            if (pad && (a.cotangent || a.role != ArgSpec::In)) v = 0;
            if (a.role == ArgSpec::Set) v = 777;  // garbage: must be written
            b[static_cast<size_t>(i * L + l)] = static_cast<T>(v);
          }
        }
        bufs.push_back(std::move(b));
      }
      ptrs.push_back(bufs.back().data());
    }
    k.call(k.fn, ptrs, t, h, scratch.get());
    for (size_t j = 0; j < k.args.size(); ++j) {
      const ArgSpec& a = k.args[j];
      if (a.role == ArgSpec::In) continue;
      if (a.uniform) {
        Vec& dst = got_u[a.name];
        for (size_t i = 0; i < dst.size(); ++i)
          dst[i] = a.role == ArgSpec::Set ? dst[i] + bufs[j][i] : static_cast<double>(bufs[j][i]);
        continue;
      }
      for (int l = 0; l < L && tile0 + l < batch; ++l) {
        Vec v(static_cast<size_t>(a.size));
        for (int64_t i = 0; i < a.size; ++i) v[static_cast<size_t>(i)] = bufs[j][static_cast<size_t>(i * L + l)];
        got_v[a.name].push_back(std::move(v));
      }
    }
  }
  CaseResult res;
  auto compare = [&](const std::string& name, const Vec& got, const Vec& want, double floor) {
    double scale = floor, err = 0;
    for (size_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::abs(want[i]));
    for (size_t i = 0; i < want.size(); ++i) {
      double e = std::abs(got[i] - want[i]);
      if (std::isnan(got[i]) != std::isnan(want[i])) e = INFINITY;
      err = std::max(err, e);
    }
    double rel = err / std::max(scale, 1e-30);
    if (err == 0) rel = 0;
    if (rel > res.max_rel_error || std::isnan(rel)) res.max_rel_error = rel, res.worst = name, res.worst_abs = err, res.worst_scale = scale;
  };
  for (auto& [name, want] : expect_u) compare(name, got_u[name], want, 0.0);
  for (auto& [name, want] : expect_v)
    for (int s = 0; s < batch; ++s)
      compare(name, got_v[name][static_cast<size_t>(s)], want[static_cast<size_t>(s)],
              floors[name][static_cast<size_t>(s)]);
  return res;
}

}  // namespace

CaseResult run_case(const KernelCase& k, plastic_dtype dtype, int lanes, int batch, uint64_t seed, double t,
                    double h) {
  return dtype == PLASTIC_F64 ? run_typed<double>(k, lanes, batch, seed, t, h)
                              : run_typed<float>(k, lanes, batch, seed, t, h);
}

}  // namespace plastic::test
