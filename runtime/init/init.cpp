// The initialisation driver: validates the parameter table, gives every
// parameter (or joint group) its own random stream, dispatches to the
// initialiser of its kind into a double staging buffer, and writes theta only
// when everything succeeded (see init.h).
#include "runtime/init/init.h"

#include <algorithm>
#include <map>
#include <new>
#include <numeric>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "runtime/init/critical.h"
#include "runtime/init/elementwise.h"
#include "runtime/init/orthogonal.h"
#include "runtime/init/param_dims.h"
#include "runtime/init/stability_informed.h"
#include "runtime/support/rng.h"

namespace plastic::rt {

using namespace init_detail;

namespace {

/// FNV-1a: a fixed, platform-independent hash, so a name means the same
/// stream everywhere (std::hash is not specified).
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

/// Stream ids of the initialisers: bit 62 set, bit 63 clear, so they never meet
/// Rng's thread streams (small ids) or epoch streams (bit 63 set).
Rng stream_for(uint64_t seed, std::string_view key) {
  return Rng(seed, (uint64_t{1} << 62) | (fnv1a(key) >> 2));
}

std::string key_of(const plastic_param& p, size_t index) {
  return p.name ? std::string(p.name) : fmt::format("#{}", index);
}

Status<TrainError> validate(std::span<const plastic_param> params, size_t theta_size) {
  std::set<std::string> names;
  for (size_t i = 0; i < params.size(); ++i) {
    const plastic_param& p = params[i];
    const std::string label = param_label(p);
    if (p.rank < 0 || p.rank > PLASTIC_MAX_RANK)
      return invalid_argument_error(fmt::format("parameter {} (entry {}): rank {} outside 0..{}",
                                                label, i, p.rank, PLASTIC_MAX_RANK),
                                    "the parameter table is corrupt or from another ABI version");
    int64_t product = 1;
    for (int d = 0; d < p.rank; ++d) {
      if (p.shape[d] < 0)
        return invalid_argument_error(
            fmt::format("parameter {}: negative dimension in shape {}", label, shape_string(p)));
      product *= p.shape[d];
    }
    if (product != p.size)
      return invalid_argument_error(
          fmt::format("parameter {}: size {} is not the product {} of its shape {}", label, p.size,
                      product, shape_string(p)),
          "the parameter table is inconsistent; this is a bug in the compiler");
    if (p.offset < 0 || p.size < 0 ||
        static_cast<uint64_t>(p.offset) + static_cast<uint64_t>(p.size) > theta_size)
      return invalid_argument_error(
          fmt::format("parameter {}: elements [{}, {}) lie outside theta of {} elements", label,
                      p.offset, p.offset + p.size, theta_size),
          "pass a theta of the model's n_params elements");
    if (p.init < PLASTIC_INIT_UNIFORM_FAN_IN || p.init > PLASTIC_INIT_UNIFORM)
      return invalid_argument_error(
          fmt::format("parameter {}: unknown initialiser kind {} (this runtime knows {}..{})",
                      label, p.init, static_cast<int>(PLASTIC_INIT_UNIFORM_FAN_IN),
                      static_cast<int>(PLASTIC_INIT_UNIFORM)),
          "the model was compiled by a newer Plastic; rebuild it with this version");
    // Streams are keyed by name: a duplicate would give two tensors the same values.
    if (!names.insert(key_of(p, i)).second)
      return invalid_argument_error(fmt::format("parameter name {} appears twice", label),
                                    "this is a bug in the compiler's parameter table");
  }
  std::vector<size_t> order(params.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return params[a].offset < params[b].offset; });
  const plastic_param* prev = nullptr;
  for (size_t i : order) {
    const plastic_param& p = params[i];
    if (p.size == 0) continue;
    if (prev && prev->offset + prev->size > p.offset)
      return invalid_argument_error(
          fmt::format("parameters {} [{}, {}) and {} [{}, {}) overlap in theta", param_label(*prev),
                      prev->offset, prev->offset + prev->size, param_label(p), p.offset,
                      p.offset + p.size),
          "the parameter table must describe disjoint tensors; this is a bug in the compiler");
    prev = &p;
  }
  return {};
}

template <class T>
Result<InitReport, TrainError> run(std::span<const plastic_param> params, std::span<T> theta,
                                   uint64_t seed, const InitOptions& options) {
  if (auto s = validate(params, theta.size()); !s) return s.error();

  std::vector<std::vector<double>> staged(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    staged[i].assign(static_cast<size_t>(params[i].size), 0.0);

  // Depth of each critical group: its matrices are the MLP's layers (critical.h).
  std::map<int32_t, int64_t> critical_layers;
  // Stability-informed groups; a lone parameter (group -1) is its own group.
  std::map<int32_t, std::vector<size_t>> stability_groups;
  std::vector<size_t> stability_lone;
  for (size_t i = 0; i < params.size(); ++i) {
    const plastic_param& p = params[i];
    if (p.init == PLASTIC_INIT_CRITICAL && p.rank >= 2 && p.init_group >= 0)
      ++critical_layers[p.init_group];
    if (p.init == PLASTIC_INIT_STABILITY_INFORMED) {
      if (p.init_group >= 0)
        stability_groups[p.init_group].push_back(i);
      else
        stability_lone.push_back(i);
    }
  }

  for (size_t i = 0; i < params.size(); ++i) {
    const plastic_param& p = params[i];
    if (p.init == PLASTIC_INIT_STABILITY_INFORMED) continue;
    Rng rng = stream_for(seed, key_of(p, i));
    std::span<double> out(staged[i]);
    Status<TrainError> s;
    if (is_elementwise_kind(p.init)) {
      s = fill_elementwise(p, rng, out);
    } else if (p.init == PLASTIC_INIT_ORTHOGONAL) {
      s = fill_orthogonal(p, rng, out);
    } else if (p.init == PLASTIC_INIT_CRITICAL) {
      const auto it = critical_layers.find(p.init_group);
      s = fill_critical(p, p.init_group >= 0 && it != critical_layers.end() ? it->second : 0, rng,
                        out);
    }
    if (!s) return s.error();
  }

  InitReport report;
  StabilityContext ctx;
  ctx.solver = options.solver;
  ctx.fallback_step = options.step;
  ctx.single_precision = std::is_same_v<T, float>;
  auto run_group = [&](int32_t group, const std::vector<size_t>& idx,
                       std::string_view key) -> Status<TrainError> {
    std::vector<StabilityMember> members;
    members.reserve(idx.size());
    for (size_t i : idx)
      members.push_back({&params[i], std::span<double>(staged[i])});
    Rng rng = stream_for(seed, key);
    auto r = init_stability_group(group, std::move(members), ctx, rng);
    if (!r) return r.error();
    report.stability_groups.push_back(std::move(r).value());
    return {};
  };
  for (const auto& [group, idx] : stability_groups)
    if (auto s = run_group(group, idx, fmt::format("stability_group:{}", group)); !s)
      return s.error();
  for (size_t i : stability_lone)
    if (auto s = run_group(-1, {i}, key_of(params[i], i)); !s) return s.error();

  // Everything succeeded: commit, rounding once.
  for (size_t i = 0; i < params.size(); ++i) {
    T* dst = theta.data() + params[i].offset;
    for (size_t k = 0; k < staged[i].size(); ++k)
      dst[k] = static_cast<T>(staged[i][k]);
  }
  return report;
}

template <class T>
Result<InitReport, TrainError> guarded(std::span<const plastic_param> params, std::span<T> theta,
                                       uint64_t seed, const InitOptions& options) {
  try {
    return run(params, theta, seed, options);
  } catch (const std::bad_alloc&) {
    return invalid_argument_error(
        fmt::format("out of memory while initialising {} parameter tensors", params.size()));
  }
}

} // namespace

template <class T>
Result<InitReport, TrainError> initialise_parameters(std::span<const plastic_param> params,
                                                     std::span<T> theta, uint64_t seed,
                                                     const InitOptions& options) {
  return guarded(params, theta, seed, options);
}

template <class T>
Result<InitReport, TrainError> initialise_parameters(const plastic_model& m, std::span<T> theta,
                                                     uint64_t seed, const InitOptions& options) {
  if (m.abi_version != PLASTIC_ABI_VERSION)
    return invalid_argument_error(
        fmt::format("model '{}' has ABI version {}, this runtime speaks {}", m.name ? m.name : "?",
                    m.abi_version, PLASTIC_ABI_VERSION),
        "rebuild the model with this version of Plastic");
  constexpr int32_t want = std::is_same_v<T, float> ? PLASTIC_F32 : PLASTIC_F64;
  if (m.dtype != want)
    return invalid_argument_error(
        fmt::format("model '{}' is {} but theta is {}", m.name ? m.name : "?",
                    m.dtype == PLASTIC_F32 ? "f32" : "f64", want == PLASTIC_F32 ? "f32" : "f64"),
        "initialise a theta of the model's element type");
  if (m.n_params != static_cast<int64_t>(theta.size()))
    return invalid_argument_error(fmt::format("model '{}' has {} parameters but theta has {}",
                                              m.name ? m.name : "?", m.n_params, theta.size()));
  if (m.n_param_entries < 0 || (m.n_param_entries > 0 && !m.params))
    return invalid_argument_error(
        fmt::format("model '{}' has a missing parameter table", m.name ? m.name : "?"),
        "this is a bug in the compiler");
  InitOptions o = options;
  if (o.solver.empty() && m.solver.method) o.solver = m.solver.method;
  if (o.step == 0.0) o.step = m.solver.step;
  return guarded(std::span<const plastic_param>(m.params, static_cast<size_t>(m.n_param_entries)),
                 theta, seed, o);
}

template Result<InitReport, TrainError> initialise_parameters<float>(std::span<const plastic_param>,
                                                                     std::span<float>, uint64_t,
                                                                     const InitOptions&);
template Result<InitReport, TrainError>
initialise_parameters<double>(std::span<const plastic_param>, std::span<double>, uint64_t,
                              const InitOptions&);
template Result<InitReport, TrainError>
initialise_parameters<float>(const plastic_model&, std::span<float>, uint64_t, const InitOptions&);
template Result<InitReport, TrainError> initialise_parameters<double>(const plastic_model&,
                                                                      std::span<double>, uint64_t,
                                                                      const InitOptions&);

} // namespace plastic::rt
