// Resolving a --data argument (see open_data.h).
#include "runtime/data/open_data.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/data/flipflop.h"
#include "runtime/data/normalise.h"
#include "runtime/data/npy.h"
#include "runtime/data/physionet.h"
#include "runtime/data/split.h"
#include "runtime/data/transforms.h"
#include "runtime/data/ts_reader.h"
#include "runtime/data/window_split.h"

namespace plastic::rt {

namespace fs = std::filesystem;

namespace {

// Files of `dir` whose names end with `suffix`, sorted.
std::vector<fs::path> files_ending(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  // Error-code overloads throughout: an entry that cannot be examined (a
  // symlink loop, a dangling link) is skipped, as a FIFO or a folder is,
  // instead of ending the program with an exception.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Entries of `dir` named like data (.ts, .psv, .npy) that files_ending
// skipped (a device or FIFO, a dangling link): named in the refusal, so a
// folder whose only .npy links to /dev/zero does not read as empty.
std::string skipped_data_entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    std::error_code type_ec;
    if ((ext == ".ts" || ext == ".psv" || ext == ".npy") && !it->is_regular_file(type_ec))
      names.push_back(it->path().filename().string());
  }
  if (names.empty()) return {};
  std::sort(names.begin(), names.end());
  if (names.size() > 5) names.resize(5), names.emplace_back("...");
  return fmt::format("; {} {} not a regular file (a device, a FIFO or a broken link)",
                     fmt::join(names, ", "), names.size() == 1 ? "is" : "are");
}

constexpr double kTestFraction = 0.15;

// Training and validation parts of `pool` (sample indices of a data set
// whose labels are `labels`): a K-fold part validates under --folds, else
// o.validation_fraction of it, stratified either way.
SplitIndices split_pool(std::span<const int> labels, const std::vector<std::size_t>& pool,
                        const DataOptions& o) {
  std::vector<int> pool_labels;
  pool_labels.reserve(pool.size());
  for (std::size_t i : pool)
    pool_labels.push_back(labels[i]);
  SplitIndices idx = o.folds >= 2 ? fold_split(pool_labels, o.folds, o.fold - 1, o.seed)
                                  : validation_split(pool_labels, o.validation_fraction, o.seed);
  for (auto* part : {&idx.train, &idx.validation})
    for (std::size_t& i : *part)
      i = pool[i];
  return idx;
}

// The test part stays 15 %; the validation part is o.validation_fraction,
// or a fold of the rest under --folds (the rest is trained on).
SplitIndices three_parts(std::span<const int> labels, const DataOptions& o) {
  SplitIndices idx;
  if (o.folds >= 2) {
    // The test part first, the same for every fold of the seed.
    const double f[2] = {1 - kTestFraction, kTestFraction};
    auto parts = stratified_partition(labels, f, o.seed);
    idx = split_pool(labels, parts[0], o);
    idx.test = std::move(parts[1]);
  } else {
    idx = stratified_split(labels, o.seed, 1 - kTestFraction - o.validation_fraction,
                           o.validation_fraction);
  }
  return idx;
}

// Three parts of `all` (window_split.h: windows split by their series when
// there are enough series for every part); the description holds the note
// on windows, for the caller to append to.
DataSplits split_three(Dataset all, const DataOptions& o) {
  if (o.whole) {
    DataSplits s;
    s.validation = subset(all, {});
    s.test = subset(all, {});
    s.train = std::move(all);
    return s;
  }
  const std::vector<int64_t> sources = window_sources(all);
  // One series for the test part, one per fold or for validation, one to train on.
  const std::size_t parts = o.folds >= 2 ? static_cast<std::size_t>(o.folds) + 1 : 3;
  const bool by_source = sources.size() >= parts;
  const SplitIndices idx =
      by_source
          ? split_by_source(all, sources,
                            [&](std::span<const int> strata) { return three_parts(strata, o); })
          : three_parts(all.labels(), o);
  DataSplits s;
  s.train = subset(all, idx.train);
  s.validation = subset(all, idx.validation);
  s.test = subset(all, idx.test);
  s.description = window_split_note(sources.size(), by_source);
  return s;
}

DataSplits split_given_test(Dataset train_file, Dataset test_file, const DataOptions& o) {
  if (o.whole) {
    DataSplits s;
    s.validation = subset(train_file, {});
    s.train = std::move(train_file);
    s.test = std::move(test_file);
    return s;
  }
  std::vector<int> labels = train_file.labels();
  std::vector<std::size_t> everything(labels.size());
  for (std::size_t i = 0; i < everything.size(); ++i)
    everything[i] = i;
  SplitIndices idx = split_pool(labels, everything, o);
  DataSplits s;
  s.train = subset(train_file, idx.train);
  s.validation = subset(train_file, idx.validation);
  s.test = std::move(test_file);
  return s;
}

// How the samples were split, for the description line.
std::string three_way(const DataOptions& o, bool by_label = false) {
  if (o.whole) return "read whole";
  if (by_label) return three_way(o) + " by label";
  if (o.folds >= 2)
    return fmt::format("15% held out for test, the rest in {} folds (fold {} validates)", o.folds,
                       o.fold);
  return fmt::format("split {:.0f}/{:.0f}/15", 100 * (1 - kTestFraction - o.validation_fraction),
                     100 * o.validation_fraction);
}
std::string given_test(const DataOptions& o) {
  if (o.whole) return "each read whole";
  if (o.folds >= 2) return fmt::format("training in {} folds (fold {} validates)", o.folds, o.fold);
  return fmt::format("{:.0f}% of training held out for validation", 100 * o.validation_fraction);
}

// Column options only the CSV reader understands (or the .npy shaping), so
// that giving them for another format is an error, not a silent no-op.
bool has_column_options(const DataOptions& o) {
  const CsvOptions defaults;
  const CsvOptions& c = o.csv;
  return !c.targets.empty() || !c.channels.empty() || !c.label_column.empty() ||
         !c.time_column.empty() || !c.date_column.empty() || !c.id_column.empty() ||
         c.separator != defaults.separator || c.decimal_point != defaults.decimal_point ||
         c.missing_value || !o.shaping.empty();
}

DataError column_options_refused(const std::string& spec) {
  return file_error(spec, "--target, --label, --time, --channels, --id, --static, --window, "
                          "--period, --sep, --decimal and --missing apply to a .csv file or a "
                          "folder of .npy series only");
}

// A folder of .npy series: channels picked and targets moved by name, then
// the shaping.
Result<Dataset, DataError> read_npy_shaped(const fs::path& dir, const std::string& spec,
                                           const DataOptions& o) {
  const CsvOptions& c = o.csv;
  if (!c.label_column.empty() || !c.date_column.empty() || !c.id_column.empty() ||
      c.missing_value || c.separator != CsvOptions{}.separator ||
      c.decimal_point != CsvOptions{}.decimal_point)
    return file_error(spec, ".npy series have no header: only --target, --channels, --time, "
                            "--static, --window and --period apply (channels are named dim_0, "
                            "dim_1, ...)");
  if (!c.time_column.empty() && o.shaping.period != 1)
    return file_error(spec, "--period sets the time between rows when there is no --time");
  auto data = read_npy_series(dir);
  if (!data) return data.error();
  if (!c.time_column.empty())
    if (auto s = take_time_channel(data.value(), c.time_column, dir.string()); !s) return s.error();
  SeriesShaping shaping = o.shaping;
  shaping.target_channels = c.targets;
  if (!c.channels.empty()) {
    // Keep the named channels (and targets), in the order given.
    std::vector<std::string> keep = c.channels;
    keep.insert(keep.end(), c.targets.begin(), c.targets.end());
    if (auto s = select_channels(data.value(), keep, spec); !s) return s.error();
  }
  if (auto s = shape_series(data.value(), shaping, spec); !s) return s.error();
  return data;
}

// A folder whose train/ and test/ (and, optionally, validation/) hold .npy
// series: a preparation that fixed its own split (ODE-LSTM's Walker2d,
// examples/experiments/walker2d_odelstm_split.py) is taken as given, as a
// UEA folder's test file is. Without validation/ (or with --folds, or
// --valid, which pool it with train/), validation is held out of train/.
Result<DataSplits, DataError> read_npy_parts(const fs::path& dir, const std::string& spec,
                                             const DataOptions& o) {
  auto train = read_npy_shaped(dir / "train", spec, o);
  if (!train) return train.error();
  auto test = read_npy_shaped(dir / "test", spec, o);
  if (!test) return test.error();
  const bool given_validation = !files_ending(dir / "validation", ".npy").empty();
  std::optional<Dataset> validation;
  if (given_validation) {
    auto v = read_npy_shaped(dir / "validation", spec, o);
    if (!v) return v.error();
    validation = std::move(v).value();
  }
  const size_t n_train = train.value().size(), n_test = test.value().size();
  DataSplits s;
  if (validation && !o.whole && o.folds < 2) {
    s.train = std::move(train).value();
    s.validation = std::move(*validation);
    s.test = std::move(test).value();
    s.given_validation = true;
    s.description = fmt::format("{} + {} + {} .npy series in {}: the given train/, validation/ "
                                "and test/ parts",
                                n_train, s.validation.size(), n_test, spec);
    return s;
  }
  if (validation) // pooled: the folds, or --valid, decide the validation part
    for (Sample& x : validation->samples)
      train.value().samples.push_back(std::move(x));
  s = split_given_test(std::move(train).value(), std::move(test).value(), o);
  s.description = fmt::format("{} + {} .npy series in {}: the given test/ part, {}",
                              s.train.size() + s.validation.size(), n_test, spec, given_test(o));
  return s;
}

/// The number of bits of synthetic:TASK:BITS, or 0 (refused) when `text` is no number.
int flipflop_bits(const std::string& text) {
  try {
    return std::stoi(text);
  } catch (...) {
    return 0;
  }
}

/// The fixed parts of a flip-flop task: trials 0-499 train, 500-599 validate, no test.
DataSplits flipflop_splits(const Dataset& all) {
  DataSplits s;
  std::vector<size_t> train(500), valid(100);
  for (size_t i = 0; i < 500; ++i)
    train[i] = i;
  for (size_t i = 0; i < 100; ++i)
    valid[i] = 500 + i;
  s.train = subset(all, train);
  s.validation = subset(all, valid);
  s.test.channels = all.channels;
  s.test.target_kind = all.target_kind;
  s.test.targets = all.targets;
  s.description =
      fmt::format("{}: 500 training and 100 validation trials (paper 003 App. F)", all.name);
  return s;
}

/// A generated task: synthetic:flipflop[:BITS] or synthetic:flipflop-fixed[:BITS].
Result<DataSplits, DataError> read_synthetic(const std::string& spec, const DataOptions& o) {
  if (o.folds >= 2 && !o.whole)
    return file_error(spec, "a synthetic task has fixed training and validation trials: "
                            "--folds needs a data set to divide");
  std::string what = spec.substr(10);
  // flipflop: variable amplitude (App. F.2); flipflop-fixed: pulses of
  // +-1 (App. F.1), the task of 2^n stable fixed points (Sec. 6.1).
  const std::string task = what.substr(0, what.find(':'));
  if (task != "flipflop" && task != "flipflop-fixed")
    return file_error(spec, "unknown synthetic task; known: synthetic:flipflop[:BITS], "
                            "synthetic:flipflop-fixed[:BITS]");
  FlipFlopOptions ff;
  ff.seed = o.seed;
  ff.variable_amplitude = task == "flipflop";
  if (what.size() > task.size()) {
    ff.bits = flipflop_bits(what.substr(task.size() + 1));
    if (ff.bits < 1 || ff.bits > 64) return file_error(spec, "the number of bits must be 1..64");
  }
  return flipflop_splits(make_flipflop(ff));
}

/// A UEA folder's *_TRAIN.ts and *_TEST.ts: the test file as given.
Result<DataSplits, DataError> read_uea_pair(const fs::path& train_ts, const fs::path& test_ts,
                                            const DataOptions& o) {
  auto train = read_ts(train_ts);
  if (!train) return train.error();
  auto test = read_ts(test_ts);
  if (!test) return test.error();
  DataSplits s = split_given_test(std::move(train.value()), std::move(test.value()), o);
  s.description = fmt::format("{} + {}: the given test file, {}", train_ts.filename().string(),
                              test_ts.filename().string(), given_test(o));
  return s;
}

/// A folder of PhysioNet 2019 stays (.psv), split three ways by label.
Result<DataSplits, DataError> read_physionet_folder(const fs::path& dir, const std::string& spec,
                                                    const DataOptions& o) {
  auto data = read_physionet2019(dir, PhysioNetOptions::kidger2020(o.observational_intensity));
  if (!data) return data.error();
  DataSplits s = split_three(std::move(data.value()), o);
  s.description = fmt::format("PhysioNet 2019 stays in {} ({}), {}", spec,
                              o.observational_intensity ? "OI" : "no-OI", three_way(o, true));
  return s;
}

/// A folder of .npy series (or windows cut from them), split three ways.
Result<DataSplits, DataError> read_npy_folder(const fs::path& dir, const std::string& spec,
                                              const DataOptions& o) {
  auto data = read_npy_shaped(dir, spec, o);
  if (!data) return data.error();
  DataSplits s = split_three(std::move(data.value()), o);
  s.description =
      fmt::format("{} .npy {} in {}, {}{}", s.train.size() + s.validation.size() + s.test.size(),
                  s.description.empty() ? "series" : "windows", spec, three_way(o), s.description);
  return s;
}

/// A data folder, by what it holds: a UEA pair, PhysioNet stays, given
/// train/ and test/ .npy parts, or .npy series, in that order.
Result<DataSplits, DataError> read_folder(const fs::path& dir, const std::string& spec,
                                          const DataOptions& o, bool columns) {
  auto train_ts = files_ending(dir, "_TRAIN.ts"), test_ts = files_ending(dir, "_TEST.ts");
  if (train_ts.size() == 1 && test_ts.size() == 1) {
    if (columns) return column_options_refused(spec);
    return read_uea_pair(train_ts[0], test_ts[0], o);
  }
  if (!files_ending(dir, ".psv").empty()) {
    if (columns) return column_options_refused(spec);
    return read_physionet_folder(dir, spec, o);
  }
  if (!files_ending(dir / "train", ".npy").empty() && !files_ending(dir / "test", ".npy").empty())
    return read_npy_parts(dir, spec, o);
  if (!files_ending(dir, ".npy").empty()) return read_npy_folder(dir, spec, o);
  return file_error(spec, "a data folder needs *_TRAIN.ts and *_TEST.ts (UEA), *.psv (PhysioNet "
                          "2019) or *.npy files" +
                              skipped_data_entries(dir));
}

/// A UEA/UCR .ts file, split three ways by label.
Result<DataSplits, DataError> read_ts_file(const fs::path& file, const std::string& spec,
                                           const DataOptions& o) {
  auto data = read_ts(file);
  if (!data) return data.error();
  DataSplits s = split_three(std::move(data.value()), o);
  s.description = fmt::format("{}, {}", spec, three_way(o, true));
  return s;
}

/// A .csv file read under the column options, shaped, then split three ways.
Result<DataSplits, DataError> read_csv_file(const fs::path& file, const std::string& spec,
                                            const DataOptions& o) {
  auto data = read_csv(file, o.csv);
  if (!data) return data.error();
  if (auto st = shape_series(data.value(), o.shaping, spec); !st) return st.error();
  DataSplits s = split_three(std::move(data.value()), o);
  s.description = fmt::format("{}, {}{}", spec, three_way(o), s.description);
  return s;
}

/// The splits `spec` names: a synthetic task, a data folder or a data file.
Result<DataSplits, DataError> read_spec(const std::string& spec, const DataOptions& o) {
  const bool columns = has_column_options(o);
  if (spec.rfind("synthetic:", 0) == 0) {
    if (columns) return column_options_refused(spec);
    return read_synthetic(spec, o);
  }
  fs::path p(spec);
  std::error_code ec;
  if (!fs::exists(p, ec))
    return file_error(spec, ec ? ec.message() // e.g. a symlink loop
                               : std::string("no such file or directory"));
  if (fs::is_directory(p, ec)) return read_folder(p, spec, o, columns);
  std::string ext = p.extension().string();
  if (ext == ".ts") {
    if (columns) return column_options_refused(spec);
    return read_ts_file(p, spec, o);
  }
  if (ext == ".csv") return read_csv_file(p, spec, o);
  return file_error(spec,
                    "unknown data format; expected a .ts, .csv file, a folder of .ts/.psv/.npy "
                    "files, or synthetic:flipflop");
}

/// Keeps o.train_fraction of the training part (DataOptions::train_fraction).
Status<DataError> thin_training(DataSplits& s, const std::string& spec, const DataOptions& o) {
  const std::vector<int> labels = s.train.labels();
  const std::vector<std::size_t> share = stratified_share(labels, o.train_fraction, o.seed);
  if (share.empty())
    return file_error(spec, fmt::format("--train-fraction {:g} keeps none of the {} training "
                                        "samples; give a larger fraction",
                                        o.train_fraction, s.train.size()));
  const std::size_t before = s.train.size();
  s.train = subset(s.train, share);
  s.description += fmt::format("; training on {} of the {} training samples (--train-fraction "
                               "{:g}; validation and test kept whole)",
                               s.train.size(), before, o.train_fraction);
  return {};
}

} // namespace

Result<DataSplits, DataError> open_data(const std::string& spec, const DataOptions& o) {
  auto result = read_spec(spec, o);
  if (!result) return result;
  DataSplits& s = result.value();
  if (s.train.size() == 0) return file_error(spec, "no training samples");
  if (o.folds >= 2 && !o.whole) {
    const size_t pool = s.train.size() + s.validation.size();
    if (pool < static_cast<size_t>(o.folds))
      return file_error(spec, fmt::format("{} folds need at least {} samples to divide; {} has {} "
                                          "besides its test part",
                                          o.folds, o.folds, spec, pool));
    if (s.validation.size() == 0)
      return file_error(
          spec, fmt::format("fold {} of {} holds no sample; use fewer folds", o.fold, o.folds));
  }
  if (o.train_fraction < 1 && !o.whole)
    if (Status<DataError> st = thin_training(s, spec, o); !st) return st.error();
  const auto data_channels = static_cast<int64_t>(s.train.num_channels());
  if (o.model_time_channel && o.model_channels != data_channels + 1)
    return file_error(spec, fmt::format("the data have {} channels, so the model's path `with "
                                        "time` needs 1 + {} = {} channels; it declares {}",
                                        data_channels, data_channels, data_channels + 1,
                                        o.model_channels));
  if (o.model_time_channel || (o.model_channels > 0 && o.model_channels == data_channels + 1)) {
    for (Dataset* d : {&s.train, &s.validation, &s.test})
      add_time_channel(*d);
    s.description += "; time channel prepended";
  }
  // Generated tasks are already on the scale their targets use; normalising
  // the sparse flip-flop pulses would blow them up to ~5 while the targets
  // stay in [-1, 1].
  bool synthetic = spec.rfind("synthetic:", 0) == 0;
  if (o.normalise && !synthetic) {
    Normaliser n = fit_normaliser(s.train, 1e-5, o.unit_increments);
    s.normaliser = n;
    for (Dataset* d : {&s.train, &s.validation, &s.test})
      if (d->size() > 0)
        if (auto st = n.apply(*d); !st) return st.error();
    s.description += "; normalised with training statistics";
    if (n.time_scale != 1.0)
      s.description += fmt::format(" (time / {:.4g}, the mean span)", 1.0 / n.time_scale);
    if (o.unit_increments)
      s.description +=
          fmt::format("; increments to unit RMS (channels / {:.4g} more)", n.increment_rms);
  }
  return result;
}

} // namespace plastic::rt
