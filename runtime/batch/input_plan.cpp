// plan_inputs(): the input slots of a model table matched against a Dataset.
#include "runtime/batch/input_plan.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "runtime/logsig/lyndon.h"

namespace plastic::rt {

namespace {

std::string slot_name(const plastic_input_slot& s) {
  return s.name && *s.name ? std::string(s.name) : std::string("?");
}

bool is_path_kind(int32_t kind) {
  return kind == PLASTIC_INPUT_PATH_VALUE || kind == PLASTIC_INPUT_PATH_DERIV ||
         kind == PLASTIC_INPUT_LOGSIG_DRIVER;
}

template <class V> int index_of(std::vector<V>& list, const V& v) {
  auto it = std::find(list.begin(), list.end(), v);
  if (it != list.end()) return static_cast<int>(it - list.begin());
  list.push_back(v);
  return static_cast<int>(list.size() - 1);
}

} // namespace

Result<Interpolation, SolveFailure> slot_interpolation(const plastic_input_slot& slot) {
  switch (slot.interpolation) {
  case PLASTIC_INTERP_LINEAR:
    return Interpolation::linear;
  case PLASTIC_INTERP_CUBIC:
    return Interpolation::natural_cubic;
  case PLASTIC_INTERP_HERMITE:
    return Interpolation::hermite;
  case PLASTIC_INTERP_RECTILINEAR:
    return invalid_model(fmt::format("model input {} asks for rectilinear interpolation, which "
                                     "the runtime does not build (the checker refuses it)",
                                     slot_name(slot)));
  default:
    return invalid_model(fmt::format("model input {} has unknown interpolation {}", slot_name(slot),
                                     slot.interpolation));
  }
}

namespace {

/// The one path input the model reads (source -1 when it reads none).
struct PathInput {
  int source = -1;
  std::string name;
};

/// Finds the model's path input; a Dataset holds one series per sample, so
/// a second path source is refused.
Result<PathInput, SolveFailure> find_path_input(const plastic_model& m) {
  PathInput path;
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (!is_path_kind(s.kind)) continue;
    if (path.source >= 0 && s.source != path.source)
      return invalid_argument(
          fmt::format("the model reads two path inputs ({} and {}); more than one path input "
                      "is not supported yet",
                      path.name, slot_name(s)),
          "merge them into one path input with all channels");
    path.source = s.source;
    path.name = slot_name(s);
  }
  return path;
}

/// The width of each static source; its slots must agree on it.
Result<std::map<int32_t, int64_t>, SolveFailure> static_widths(const plastic_model& m) {
  std::map<int32_t, int64_t> width; // source -> channels
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (s.kind != PLASTIC_INPUT_STATIC) continue;
    auto [it, fresh] = width.emplace(s.source, s.channels);
    if (!fresh && it->second != s.channels)
      return invalid_model(fmt::format("static input {} appears with {} and {} channels",
                                       slot_name(s), it->second, s.channels));
  }
  return width;
}

/// Checks the `wanted` static features of the model against the data's `statics`.
std::optional<SolveFailure> check_statics(const plastic_model& m, int64_t wanted, int64_t statics) {
  if (wanted > 0 && statics == 0)
    return invalid_argument(
        fmt::format("the model has a static input ({} features) but the data has no static "
                    "features",
                    wanted),
        "give the data static features (e.g. a statics file) or remove the static input");
  if (wanted != statics && wanted > 0) {
    std::string names;
    for (int32_t i = 0; i < m.n_input_slots; ++i)
      if (m.input_slots[i].kind == PLASTIC_INPUT_STATIC)
        names += (names.empty() ? "" : ", ") + slot_name(m.input_slots[i]);
    return invalid_argument(fmt::format("model input {} is static[{}] but the data has {} static "
                                        "features",
                                        names, wanted, statics),
                            "set the input's size to the data's static features");
  }
  return std::nullopt;
}

/// Lays the static inputs out as consecutive blocks of the data's statics,
/// distinct sources in source order; gives each source's first feature.
Result<std::map<int32_t, int64_t>, SolveFailure> plan_statics(const plastic_model& m,
                                                              int64_t statics, InputPlan& plan) {
  auto width = static_widths(m);
  if (!width) return width.error();
  std::map<int32_t, int64_t> static_first;
  for (auto [source, w] : width.value()) {
    static_first[source] = plan.statics;
    plan.statics += w;
  }
  if (auto e = check_statics(m, plan.statics, statics)) return *e;
  return static_first;
}

/// Checks each log-signature driver against the data and adds it to
/// plan.logsigs; done first, so PATH_VALUE slots can refer to them.
std::optional<SolveFailure> plan_logsig_drivers(const plastic_model& m, int64_t channels,
                                                InputPlan& plan) {
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (s.kind != PLASTIC_INPUT_LOGSIG_DRIVER) continue;
    if (s.logsig_depth < 1 || s.logsig_step < 1)
      return invalid_model(fmt::format("model input {} has log-signature depth {} and step {}",
                                       slot_name(s), s.logsig_depth, s.logsig_step));
    if (s.path_channels != channels)
      return invalid_argument(
          fmt::format("model input {} is path[{}] logsig(depth {}, step {}) but the data has {} "
                      "channels",
                      slot_name(s), s.path_channels, s.logsig_depth, s.logsig_step, channels),
          "set the input's size to the data's channels");
    const int64_t beta = logsig_dim(static_cast<int>(channels), s.logsig_depth);
    if (s.channels != beta)
      return invalid_model(fmt::format(
          "model input {} expects {} log-signature channels, but {} channels at depth {} give {}",
          slot_name(s), s.channels, channels, s.logsig_depth, beta));
    index_of(plan.logsigs, LogSigBuild{s.logsig_depth, s.logsig_step, beta});
  }
  return std::nullopt;
}

/// Feeds a PATH_VALUE or PATH_DERIV slot: the data path, or the path in
/// log-signature space of a driver with as many channels.
std::optional<SolveFailure> plan_path_slot(const plastic_input_slot& s, int64_t channels,
                                           InputPlan& plan, SlotPlan& p) {
  const bool deriv = s.kind == PLASTIC_INPUT_PATH_DERIV;
  if (s.channels != channels) {
    // x(t) of a logsig input may be the path in log-signature space.
    auto ls = std::find_if(plan.logsigs.begin(), plan.logsigs.end(),
                           [&](const LogSigBuild& b) { return b.channels == s.channels; });
    if (deriv || ls == plan.logsigs.end())
      return invalid_argument(fmt::format("model input {} is path[{}] but the data has {} channels",
                                          p.name, s.channels, channels),
                              "set the input's size to the data's channels");
    p.feed = SlotFeed::LogSigValue;
    p.source = static_cast<int>(ls - plan.logsigs.begin());
    return std::nullopt;
  }
  Result<Interpolation, SolveFailure> scheme = slot_interpolation(s);
  if (!scheme) return scheme.error();
  p.feed = SlotFeed::DataPath;
  p.derivative = deriv;
  p.source = index_of(plan.paths, scheme.value());
  // Steps must not straddle a kink of what the kernels read. Not so for
  // the value of a log-signature input: the log-ODE method (paper 002,
  // Eqs. 9-10) sees the path inside a window only through the window's
  // log-signature and steps window by window, whose boundaries are
  // knots already; forcing a step at every sample would multiply the
  // work by the window length.
  const bool logsig_value = s.logsig_step > 0;
  if (!logsig_value && (scheme.value() == Interpolation::linear ||
                        (deriv && scheme.value() == Interpolation::hermite)))
    plan.kinks_at_data_times = true;
  return std::nullopt;
}

/// Where one slot's values come from; `static_first` is plan_statics' layout.
Result<SlotPlan, SolveFailure> plan_slot(const plastic_input_slot& s, int64_t channels,
                                         const std::map<int32_t, int64_t>& static_first,
                                         InputPlan& plan) {
  SlotPlan p;
  p.name = slot_name(s);
  p.offset = s.offset;
  p.channels = s.channels;
  switch (s.kind) {
  case PLASTIC_INPUT_STATIC:
    p.feed = SlotFeed::Static;
    p.static_first = static_first.at(s.source); // every static source has a block
    break;
  case PLASTIC_INPUT_LOGSIG_DRIVER:
    p.feed = SlotFeed::LogSigDriver;
    p.source = index_of(plan.logsigs, LogSigBuild{s.logsig_depth, s.logsig_step, s.channels});
    break;
  case PLASTIC_INPUT_PATH_VALUE:
  case PLASTIC_INPUT_PATH_DERIV:
    if (auto e = plan_path_slot(s, channels, plan, p)) return *e;
    break;
  default:
    return invalid_model(fmt::format("model input {} has unknown kind {}", p.name, s.kind));
  }
  return p;
}

} // namespace

Result<InputPlan, SolveFailure> plan_inputs(const plastic_model& m, const Dataset& data) {
  InputPlan plan;
  const int64_t channels = static_cast<int64_t>(data.num_channels());
  const int64_t statics = static_cast<int64_t>(data.num_statics());
  auto path = find_path_input(m);
  if (!path) return path.error();
  auto static_first = plan_statics(m, statics, plan);
  if (!static_first) return static_first.error();
  if (auto e = plan_logsig_drivers(m, channels, plan)) return *e;
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    auto p = plan_slot(m.input_slots[i], channels, static_first.value(), plan);
    if (!p) return p.error();
    plan.slots.push_back(std::move(p).value());
  }
  const bool reads_path = path.value().source >= 0;
  plan.data_channels = reads_path ? channels : 0;
  if (reads_path && channels == 0)
    return invalid_argument(fmt::format("model input {} is a path but the data has no time-series "
                                        "channels",
                                        path.value().name));
  return plan;
}

} // namespace plastic::rt
