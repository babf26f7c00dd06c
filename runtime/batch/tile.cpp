// layout_tile() and build_targets(): see tile.h.
#include "runtime/batch/tile.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

Result<TileLayout, SolveFailure> layout_tile(const PreparedData& data,
                                             std::span<const int64_t> samples, int lanes) {
  if (samples.empty() || samples.size() > static_cast<size_t>(lanes) || lanes > 64)
    return invalid_argument(
        fmt::format("a tile holds 1..{} samples, got {}", lanes, samples.size()));
  for (int64_t s : samples)
    if (s < 0 || static_cast<size_t>(s) >= data.size())
      return invalid_argument(
          fmt::format("sample index {} is outside the data set of {} samples", s, data.size()));
  TileLayout t;
  t.lanes = lanes;
  const size_t L = static_cast<size_t>(lanes);
  t.samples.assign(L, samples[0]);
  std::copy(samples.begin(), samples.end(), t.samples.begin());
  t.real = all_lanes(static_cast<int>(samples.size()));
  t.t0 = data.sample(static_cast<size_t>(samples[0])).t0;
  t.t_end.assign(L, t.t0);

  struct Hit {
    double t;
    int lane;
    int32_t row;
  };
  std::vector<Hit> hits;
  for (size_t l = 0; l < samples.size(); ++l) {
    const size_t index = static_cast<size_t>(samples[l]);
    const PreparedSample& s = data.sample(index);
    if (s.t0 != t.t0)
      return invalid_argument(
          fmt::format("samples {} and {} of one tile start at different times ({} and {})",
                      data.id(static_cast<size_t>(samples[0])), data.id(index), t.t0, s.t0),
          "prepare the data with align_start, or batch samples that start together");
    t.t_end[l] = s.t_end;
    for (size_t k = 0; k < s.observations.size(); ++k)
      hits.push_back({s.observations[k].t, static_cast<int>(l), static_cast<int32_t>(k)});
    t.knots.insert(t.knots.end(), s.knots.begin(), s.knots.end());
  }
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.t < b.t; });
  for (const Hit& h : hits) {
    const bool merge =
        !t.observations.empty() &&
        h.t - t.observations.back().t <=
            1e-12 * std::max({1.0, std::abs(h.t), std::abs(t.observations.back().t)});
    if (!merge) {
      t.observations.push_back({h.t, 0, 0, false});
      t.rows.resize(t.rows.size() + L, -1);
    }
    TileObservation& o = t.observations.back();
    const LaneMask bit = LaneMask{1} << h.lane;
    if (o.lanes & bit)
      return invalid_argument(fmt::format("sample {} has two observations closer than 1e-12 "
                                          "(relative) at t={}",
                                          data.id(t.samples[static_cast<size_t>(h.lane)]), h.t));
    const SampleObservation& so =
        data.sample(static_cast<size_t>(t.samples[static_cast<size_t>(h.lane)]))
            .observations[static_cast<size_t>(h.row)];
    o.lanes |= bit;
    if (so.target >= 0) o.loss_lanes |= bit;
    o.jump = o.jump || so.jump;
    t.rows[(t.observations.size() - 1) * L + static_cast<size_t>(h.lane)] = h.row;
  }
  std::sort(t.knots.begin(), t.knots.end());
  t.knots.erase(std::unique(t.knots.begin(), t.knots.end()), t.knots.end());
  return t;
}

template <class T>
void build_targets(const PreparedData& data, const TileLayout& layout, TileTargets<T>& out) {
  const size_t L = static_cast<size_t>(layout.lanes);
  const size_t g = static_cast<size_t>(data.targets().width);
  size_t blocks = 0;
  for (const TileObservation& o : layout.observations)
    blocks += o.loss_lanes ? 1 : 0;
  out.values.assign(blocks * g * L, T{0});
  out.observations.clear();
  size_t block = 0;
  for (size_t k = 0; k < layout.observations.size(); ++k) {
    const TileObservation& o = layout.observations[k];
    Observation<T> obs;
    obs.t = o.t;
    obs.lanes = o.lanes;
    obs.loss_lanes = o.loss_lanes;
    obs.jump = o.jump;
    if (o.loss_lanes) {
      T* dst = out.values.data() + block * g * L;
      for (size_t l = 0; l < L; ++l) {
        if (!has_lane(o.loss_lanes, static_cast<int>(l))) continue;
        const PreparedSample& s = data.sample(static_cast<size_t>(layout.samples[l]));
        const int32_t row =
            s.observations[static_cast<size_t>(layout.row(k, static_cast<int>(l)))].target;
        for (size_t c = 0; c < g; ++c)
          dst[c * L + l] = static_cast<T>(s.targets[static_cast<size_t>(row) * g + c]);
      }
      obs.target = dst;
      ++block;
    }
    out.observations.push_back(obs);
  }
}

template void build_targets<float>(const PreparedData&, const TileLayout&, TileTargets<float>&);
template void build_targets<double>(const PreparedData&, const TileLayout&, TileTargets<double>&);

} // namespace plastic::rt
