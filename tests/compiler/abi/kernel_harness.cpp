// The kernel-vs-interpreter driver (see kernel_harness.h).
#include "tests/compiler/abi/kernel_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

namespace plastic::test {

namespace {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
CaseResult run_typed(const KernelCase& k, int L, int batch, uint64_t seed, double t, double h) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  auto gen = [&](const ArgSpec& a) {
    if (auto it = k.generate.find(a.name); it != k.generate.end()) return it->second(rng);
    Vec v(static_cast<size_t>(a.size));
    for (double& x : v)
      x = U(rng);
    return v;
  };
  // Values as the kernel sees them (rounded to T) so both sides start equal.
  auto round = [](Vec v) {
    for (double& x : v)
      x = static_cast<double>(static_cast<T>(x));
    return v;
  };
  // Per-sample data (varying) and shared data (uniform), inputs and initial outputs.
  std::map<std::string, std::vector<Vec>> per_sample;
  std::map<std::string, Vec> shared;
  for (const ArgSpec& a : k.args) {
    if (a.uniform)
      shared[a.name] = round(gen(a));
    else
      for (int s = 0; s < batch; ++s)
        per_sample[a.name].push_back(round(gen(a)));
  }
  // Sample s as the references see it: its arrays, the shared ones, t and h.
  auto sample_of = [&](int s) {
    std::map<std::string, Vec> sample = shared;
    for (auto& [name, v] : per_sample)
      sample[name] = v[static_cast<size_t>(s)];
    sample["t"] = {t};
    sample["h"] = {h};
    return sample;
  };
  if (k.derive)
    for (int s = 0; s < batch; ++s)
      for (auto& [name, v] : k.derive(sample_of(s)))
        per_sample.at(name)[static_cast<size_t>(s)] = round(std::move(v));
  // Expected outputs: from the f64 interpreter and, for f32 kernels, from the
  // interpreter in f32 (the yardstick of judge()).
  struct Expected {
    std::map<std::string, std::vector<Vec>> v;
    std::map<std::string, Vec> u;
  };
  std::map<std::string, std::vector<double>> floors;
  auto expected = [&](bool f32) {
    std::optional<F32Reference> in_f32;
    if (f32) in_f32.emplace();
    Expected e;
    for (const ArgSpec& a : k.args) {
      if (a.role == ArgSpec::In) continue;
      if (a.uniform)
        e.u[a.name] =
            a.role == ArgSpec::Acc ? shared[a.name] : Vec(static_cast<size_t>(a.size), 0.0);
      else
        e.v[a.name] =
            a.role == ArgSpec::Acc ? per_sample[a.name] : std::vector<Vec>(batch, Vec(a.size, 0.0));
    }
    for (int s = 0; s < batch; ++s) {
      const std::map<std::string, Vec> sample = sample_of(s);
      std::map<std::string, Vec> r = k.reference(sample);
      if (!f32)
        for (const ArgSpec& a : k.args)
          floors[a.name].push_back(k.scale_floor ? k.scale_floor(a.name, sample, r) : 0.0);
      for (const ArgSpec& a : k.args) {
        if (a.role == ArgSpec::In) continue;
        auto it = r.find(a.name);
        if (it == r.end()) continue; // no contribution
        Vec& dst = a.uniform ? e.u[a.name] : e.v[a.name][static_cast<size_t>(s)];
        for (size_t i = 0; i < dst.size(); ++i)
          dst[i] += it->second.at(i);
      }
    }
    return e;
  };
  const Expected want = expected(false);
  const bool f32 = std::is_same_v<T, float>;
  const Expected want_f32 = f32 ? expected(true) : Expected{};
  // Run the kernel tile by tile.
  std::map<std::string, std::vector<Vec>> got_v;
  std::map<std::string, Vec> got_u =
      shared; // uniform outputs accumulate across tiles (Set: per tile, summed below)
  for (const ArgSpec& a : k.args)
    if (a.uniform && a.role == ArgSpec::Set) got_u[a.name] = Vec(static_cast<size_t>(a.size), 0.0);
  std::unique_ptr<void, AlignedFree> scratch(
      std::aligned_alloc(64, std::max<uint64_t>(64, (k.scratch + 63) / 64 * 64)));
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
            if (a.role == ArgSpec::Set) v = 777; // garbage: must be written
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
        const size_t wb = static_cast<size_t>(a.written_begin);
        const size_t we = a.written_end < 0 ? dst.size() : static_cast<size_t>(a.written_end);
        for (size_t i = 0; i < dst.size(); ++i) {
          double v = bufs[j][i];
          // Outside the written span the garbage must still be there: it then
          // counts as 0 (the reference's value), anything else as written.
          if (a.role == ArgSpec::Set && (i < wb || i >= we) && v == 12345) v = 0;
          dst[i] = a.role == ArgSpec::Set ? dst[i] + v : v;
        }
        continue;
      }
      for (int l = 0; l < L && tile0 + l < batch; ++l) {
        Vec v(static_cast<size_t>(a.size));
        for (int64_t i = 0; i < a.size; ++i)
          v[static_cast<size_t>(i)] = bufs[j][static_cast<size_t>(i * L + l)];
        got_v[a.name].push_back(std::move(v));
      }
    }
  }
  CaseResult res;
  res.batch = batch;
  auto max_error = [](const Vec& got, const Vec& want) {
    double err = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      double e = std::abs(got[i] - want[i]);
      if (std::isnan(got[i]) != std::isnan(want[i])) e = INFINITY;
      err = std::max(err, e);
    }
    return err;
  };
  auto compare = [&](const std::string& name, const Vec& got, const Vec& ref, const Vec* ref_f32,
                     double floor) {
    OutputErrors& o = res.outputs[name];
    double scale = floor;
    for (double x : ref)
      scale = std::max(scale, std::abs(x));
    o.kernel.push_back(max_error(got, ref));
    o.scale.push_back(scale);
    double e32 = ref_f32 ? max_error(*ref_f32, ref) : 0.0;
    o.f32_reference.push_back(std::isfinite(e32) ? e32 : 0.0);
  };
  // A uniform output is a lane sum: its floor is the largest of its samples'.
  for (auto& [name, ref] : want.u) {
    const std::vector<double>& f = floors[name];
    compare(name, got_u[name], ref, f32 ? &want_f32.u.at(name) : nullptr,
            f.empty() ? 0.0 : *std::max_element(f.begin(), f.end()));
  }
  for (auto& [name, ref] : want.v)
    for (size_t s = 0; s < static_cast<size_t>(batch); ++s)
      compare(name, got_v[name][s], ref[s], f32 ? &want_f32.v.at(name)[s] : nullptr,
              floors[name][s]);
  return res;
}

} // namespace

CaseResult run_case(const KernelCase& k, plastic_dtype dtype, int lanes, int batch, uint64_t seed,
                    double t, double h) {
  return dtype == PLASTIC_F64 ? run_typed<double>(k, lanes, batch, seed, t, h)
                              : run_typed<float>(k, lanes, batch, seed, t, h);
}

Verdict judge(const std::vector<CaseResult>& runs, double tol, double C) {
  std::map<std::string, double> yardstick;
  for (const CaseResult& r : runs)
    for (const auto& [name, o] : r.outputs)
      for (double e : o.f32_reference)
        yardstick[name] = std::max(yardstick[name], e);
  Verdict v;
  for (const CaseResult& r : runs)
    for (const auto& [name, o] : r.outputs)
      for (size_t s = 0; s < o.kernel.size(); ++s) {
        const double bound = std::max(tol * o.scale[s], C * yardstick[name]);
        double ratio = o.kernel[s] == 0 ? 0.0 : o.kernel[s] / std::max(bound, 1e-300);
        if (std::isnan(ratio)) ratio = INFINITY;
        if (!v.message.empty() && !(ratio > v.worst)) continue;
        v.worst = ratio;
        const std::string f32_note =
            yardstick[name] > 0
                ? fmt::format(", f32 interpreter error up to {:.3g}", yardstick[name])
                : "";
        v.message = fmt::format(
            "worst: {} of sample {} in batch {}: error {:.3g}, scale {:.3g} (relative {:.3g}){}; "
            "{:.3g} x the bound",
            name, s, r.batch, o.kernel[s], o.scale[s], o.kernel[s] / std::max(o.scale[s], 1e-300),
            f32_note, ratio);
      }
  v.ok = v.worst <= 1;
  return v;
}

} // namespace plastic::test
