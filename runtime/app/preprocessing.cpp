// The run folder's record of the data preparation (see preprocessing.h).
#include "runtime/app/preprocessing.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/data/series_shaping.h"
#include "runtime/data/transforms.h"
#include "runtime/io/atomic_file.h"
#include "runtime/support/printable.h"

namespace plastic::rt {

namespace {

constexpr const char* kFile = "data.json";

// The channel count, then the time channel and the recorded statistics.
Status<AppError> apply_statistics(const Preprocessing& p, Dataset& data) {
  if (static_cast<int64_t>(data.num_channels()) != p.raw_channels)
    return AppError{kInputError,
                    fmt::format("the series have {} channels; the model was trained on {}",
                                data.num_channels(), p.raw_channels)};
  if (p.time_channel) add_time_channel(data);
  if (p.normaliser)
    if (Status<DataError> s = p.normaliser->apply(data); !s)
      return AppError{kInputError, s.error().describe()};
  return {};
}

// The names training read, without the time channel it prepended.
std::vector<std::string> raw_channel_names(const Preprocessing& p) {
  std::vector<std::string> names = p.channels;
  if (p.time_channel && !names.empty()) names.erase(names.begin());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The file's channels as training read them: the same names in the same
// order, or reordered when only the order differs (a CSV whose columns were
// rearranged); a count that differs is left to apply_statistics' message.
Status<AppError> match_channels(const Preprocessing& p, Dataset& data, const std::string& source) {
  const std::vector<std::string> trained = raw_channel_names(p);
  if (static_cast<int64_t>(trained.size()) != p.raw_channels ||
      data.num_channels() != trained.size())
    return {}; // a record without names (or another count): the count decides
  std::vector<std::string> names;
  names.reserve(data.channels.size());
  for (const Channel& c : data.channels)
    names.push_back(c.name);
  if (names == trained) return {};
  for (const std::string& want : trained)
    if (std::find(names.begin(), names.end(), want) == names.end())
      return AppError{kInputError,
                      fmt::format("{}: has no channel '{}', which the model was trained on "
                                  "(training read {}; these data have {})",
                                  source, want, joined(trained), joined(names))};
  if (Status<DataError> s = select_channels(data, trained, source); !s)
    return AppError{kInputError, s.error().describe()};
  return {};
}

// Labels renumbered by the run's class names: label k of a file means its
// k-th class name, and the model's output for that name is the run's index.
Status<AppError> match_classes(const Preprocessing& p, Dataset& data, const std::string& source) {
  if (p.classes.empty() || data.classes.empty() || data.classes == p.classes) return {};
  std::vector<int> index(data.classes.size(), -1);
  for (size_t k = 0; k < data.classes.size(); ++k) {
    auto it = std::find(p.classes.begin(), p.classes.end(), data.classes[k]);
    if (it != p.classes.end()) index[k] = static_cast<int>(it - p.classes.begin());
  }
  for (Sample& s : data.samples) {
    if (s.label < 0) continue;
    const auto k = static_cast<size_t>(s.label);
    if (k >= index.size() || index[k] < 0)
      return AppError{kInputError,
                      fmt::format("{}: series '{}' has class '{}', which the model was not "
                                  "trained on (its classes: {})",
                                  source, s.id, k < data.classes.size() ? data.classes[k] : "?",
                                  joined(p.classes))};
    s.label = index[k];
  }
  data.classes = p.classes;
  return {};
}

} // namespace

Preprocessing preprocessing_of(const DataSplits& splits, const RunOptions& run) {
  Preprocessing p;
  const Dataset& train = splits.train;
  p.intensity = run.oi;
  p.data_flags = run.data_flags;
  p.time_channel = !train.channels.empty() && train.channels.front().kind == ChannelKind::Time;
  p.raw_channels = static_cast<int64_t>(train.num_channels()) - (p.time_channel ? 1 : 0);
  for (const Channel& c : train.channels)
    p.channels.push_back(c.name);
  p.classes = train.classes;
  p.normaliser = splits.normaliser;
  return p;
}

Status<AppError> write_preprocessing(const std::filesystem::path& dir, const Preprocessing& p) {
  nlohmann::ordered_json j;
  j["raw_channels"] = p.raw_channels;
  j["time_channel"] = p.time_channel;
  j["observational_intensity"] = p.intensity;
  j["channels"] = p.channels;
  j["classes"] = p.classes;
  j["data_flags"] = data_flags_json(p.data_flags);
  if (p.normaliser) {
    // nlohmann writes doubles with enough digits to read back the same bits.
    const Normaliser& n = *p.normaliser;
    j["normaliser"] = {{"channel_mean", n.channel_mean}, {"channel_scale", n.channel_scale},
                       {"static_mean", n.static_mean},   {"static_scale", n.static_scale},
                       {"time_scale", n.time_scale},     {"increment_rms", n.increment_rms}};
  } else {
    j["normaliser"] = nullptr;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (Status<TrainError> s = write_file_atomic(dir / kFile, j.dump(2) + "\n"); !s)
    return AppError{kInputError, s.error().describe()};
  return {};
}

Result<std::optional<Preprocessing>, AppError>
read_preprocessing(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<Preprocessing>{};
  auto text = read_file(path);
  if (!text) return AppError{kInputError, text.error().describe()};
  try {
    const std::vector<std::byte>& bytes = text.value();
    const nlohmann::json j =
        nlohmann::json::parse(reinterpret_cast<const char*>(bytes.data()),
                              reinterpret_cast<const char*>(bytes.data()) + bytes.size());
    Preprocessing p;
    p.raw_channels = j.at("raw_channels").get<int64_t>();
    p.time_channel = j.at("time_channel").get<bool>();
    p.intensity = j.value("observational_intensity", false);
    p.channels = j.at("channels").get<std::vector<std::string>>();
    p.classes = j.at("classes").get<std::vector<std::string>>();
    if (j.contains("data_flags")) {
      auto flags = data_flags_from_json(j.at("data_flags"));
      if (!flags)
        return AppError{kInputError, fmt::format("{}: {}", path.string(), flags.error().message)};
      p.data_flags = std::move(flags.value());
    }
    if (const nlohmann::json& n = j.at("normaliser"); !n.is_null()) {
      Normaliser out;
      out.channel_mean = n.at("channel_mean").get<std::vector<double>>();
      out.channel_scale = n.at("channel_scale").get<std::vector<double>>();
      out.static_mean = n.at("static_mean").get<std::vector<double>>();
      out.static_scale = n.at("static_scale").get<std::vector<double>>();
      // Records written before time was rescaled: raw time, plain scales.
      out.time_scale = n.value("time_scale", 1.0);
      out.increment_rms = n.value("increment_rms", 1.0);
      p.normaliser = std::move(out);
    }
    return std::optional<Preprocessing>(std::move(p));
  } catch (const nlohmann::json::exception& e) {
    return AppError{1, fmt::format("{}: not a data record written by `train`: {}", path.string(),
                                   escape_unprintable(e.what()))};
  }
}

Status<AppError> apply_preprocessing(const Preprocessing& p, Dataset& data) {
  if (p.intensity)
    return AppError{kInputError,
                    "the model was trained with observational-intensity channels (--oi), "
                    "which only the PhysioNet reader builds; prepare such series yourself"};
  return apply_statistics(p, data);
}

Status<AppError> prepare_as_trained(const Preprocessing& p, Dataset& data,
                                    const std::string& source) {
  if (Status<AppError> s = match_channels(p, data, source); !s) return s;
  if (Status<AppError> s = match_classes(p, data, source); !s) return s;
  return apply_statistics(p, data);
}

std::map<std::string, int64_t> recorded_data_quantities(const Preprocessing& p) {
  std::map<std::string, int64_t> out{{"channels", p.raw_channels}};
  if (!p.classes.empty()) out["classes"] = static_cast<int64_t>(p.classes.size());
  return out;
}

} // namespace plastic::rt
