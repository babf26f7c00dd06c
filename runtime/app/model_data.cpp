// Opening and preparing a model's data (see model_data.h).
#include "runtime/app/model_data.h"

#include <string>
#include <vector>

#include <fmt/format.h>

namespace plastic::rt {

int64_t model_path_channels(const plastic_model& m) {
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (s.kind != PLASTIC_INPUT_STATIC) return s.path_channels;
  }
  return 0;
}

int32_t model_path_options(const plastic_model& m) {
  for (int32_t i = 0; i < m.n_input_slots; ++i) {
    const plastic_input_slot& s = m.input_slots[i];
    if (s.kind != PLASTIC_INPUT_STATIC) return s.path_options;
  }
  return 0;
}

ModelData::Split ModelData::split(const std::string& name) const {
  auto of = [](const Dataset& d, const std::optional<PreparedData>& p) {
    return Split{d, p ? &*p : nullptr};
  };
  if (name == "train") return of(splits.train, train);
  if (name == "validation") return of(splits.validation, validation);
  return of(splits.test, test);
}

std::vector<ModelData::Part> ModelData::parts(const std::string& name, bool given) const {
  std::vector<Part> out;
  if (!whole) {
    if (name != "all") return {{name, split(name)}};
    for (const char* s : {"train", "validation", "test"})
      if (split(s).prepared) out.push_back({s, split(s)});
    return out;
  }
  const bool folder = splits.test.size() > 0;
  out.push_back({folder ? "train" : "data", split("train")});
  if (folder) out.push_back({"test", split("test")});
  if (!given || name == "all") return out;
  for (const Part& p : out)
    if (p.name == name) return {p};
  return {};
}

void print_evaluation(const std::string& split, const Evaluation& e) {
  fmt::print("{:<12}{} {:.4f}   loss {:.4f}   ({} samples){}\n", split, e.metric_name, e.metric,
             e.loss, e.samples, e.note.empty() ? "" : "  " + e.note);
}

std::string size_advice(const plastic_model& m, const ModelSource& source, const Dataset& data) {
  std::vector<std::string> fixes;
  const int64_t classes = static_cast<int64_t>(data.classes.size());
  if (!source.classes_dim.empty() && classes > 0 && m.task == PLASTIC_TASK_CLASSIFICATION &&
      m.n_targets != classes)
    fixes.push_back(fmt::format("--set {}={} (the data's classes)", source.classes_dim, classes));
  const int64_t want = model_path_channels(m);
  const auto has = static_cast<int64_t>(data.num_channels());
  const bool timed = has > 0 && data.channels.front().kind == ChannelKind::Time;
  if (!source.path_dim.empty() && want > 0 && want != has) {
    const int64_t raw = timed ? has - 1 : has;
    fixes.push_back(fmt::format(
        "--set {}={} (the data's {} channels and a time channel, which is prepended when the "
        "model's path has one channel more than the data; --set {}={} reads them without time)",
        source.path_dim, raw + 1, raw, source.path_dim, raw));
  }
  std::string out;
  for (const std::string& f : fixes)
    out += (out.empty() ? "" : ", ") + f;
  return out;
}

Result<std::map<std::string, int64_t>, AppError> data_quantities(const RunOptions& run) {
  DataOptions o;
  o.seed = run.seed;
  o.observational_intensity = run.oi;
  o.normalise = false;
  o.whole = true;
  if (Status<AppError> s = apply_data_flags(run.data_flags, o); !s) return s.error();
  auto splits = open_data(run.data, o);
  if (!splits) return AppError{kInputError, splits.error().describe()};
  const Dataset& d = splits.value().train;
  std::map<std::string, int64_t> out{{"channels", static_cast<int64_t>(d.num_channels())}};
  if (d.target_kind == TargetKind::Class || d.target_kind == TargetKind::Binary)
    out["classes"] = static_cast<int64_t>(d.classes.size());
  return out;
}

Result<TrainingPool, AppError> training_pool(const RunOptions& run) {
  DataOptions o;
  o.seed = run.data_seed();
  o.observational_intensity = run.oi;
  o.normalise = false;
  o.validation_fraction = run.valid_fraction;
  if (Status<AppError> s = apply_data_flags(run.data_flags, o); !s) return s.error();
  auto splits = open_data(run.data, o);
  if (!splits) return AppError{kInputError, splits.error().describe()};
  const DataSplits& s = splits.value();
  return TrainingPool{static_cast<int64_t>(s.train.size() + s.validation.size()),
                      s.given_validation};
}

PrepareOptions split_prepare_options(const RunOptions& run) {
  PrepareOptions po;
  po.require_targets = true;
  po.threads = run.threads;
  return po;
}

namespace {

// Prepares the non-empty splits of md for m's kernels; errors name the split
// and the data, with the exact --set that fits the model to them.
Status<AppError> prepare_splits(const plastic_model& m, const RunOptions& run, ModelData& md) {
  const PrepareOptions po = split_prepare_options(run);
  const std::string fix = size_advice(m, run.model, md.splits.train);
  auto prep = [&](const Dataset& d, const char* which,
                  std::optional<PreparedData>& out) -> Status<AppError> {
    if (d.size() == 0) return {};
    auto p = prepare(m, d, po);
    if (!p) {
      // The one data set whose shape a flag changes: say what each setting gives.
      const bool physionet = md.splits.description.rfind("PhysioNet", 0) == 0;
      return AppError{
          1, fmt::format("{} ({} split of {}): {}{}{}", m.name, which, run.data,
                         p.status().describe(), fix.empty() ? "" : "\n  fix: " + fix,
                         !physionet ? ""
                         : run.oi   ? " (read with --oi, PhysioNet stays give time + 2 x 34 "
                                      "channels and 7 static features; without --oi, time + 34 "
                                      "channels and 5)"
                                    : " (read without --oi, PhysioNet stays give time + 34 "
                                      "channels and 5 static features; with --oi, time + 2 x 34 "
                                      "channels and 7)")};
    }
    out = std::move(p.value());
    return {};
  };
  if (Status<AppError> s = prep(md.splits.train, "training", md.train); !s) return s;
  if (Status<AppError> s = prep(md.splits.validation, "validation", md.validation); !s) return s;
  return prep(md.splits.test, "test", md.test);
}

} // namespace

Result<ModelData, AppError> open_new_data(const plastic_model& m, const RunOptions& run,
                                          const Preprocessing& recorded) {
  if (recorded.intensity != run.oi)
    return AppError{kUsageError, fmt::format("the run read its data {} --oi; read {} the same way",
                                             recorded.intensity ? "with" : "without", run.data)};
  DataOptions o;
  o.seed = run.data_seed();
  o.observational_intensity = run.oi;
  o.normalise = false; // the run's statistics, below
  o.whole = true;
  if (Status<AppError> s = apply_data_flags(run.data_flags, o); !s) return s.error();
  auto splits = open_data(run.data, o);
  if (!splits) return AppError{kInputError, splits.error().describe()};
  ModelData md;
  md.whole = true;
  md.splits = std::move(splits.value());
  for (Dataset* d : {&md.splits.train, &md.splits.test})
    if (d->size() > 0)
      if (Status<AppError> s = prepare_as_trained(recorded, *d, run.data); !s) return s.error();
  md.splits.normaliser = recorded.normaliser;
  md.splits.description += "; every series, prepared with the run's recorded statistics";
  if (Status<AppError> s = prepare_splits(m, run, md); !s) return s.error();
  return md;
}

Result<ModelData, AppError> open_model_data(const plastic_model& m, const RunOptions& run) {
  DataOptions o;
  o.seed = run.data_seed();
  o.validation_fraction = run.valid_fraction;
  o.folds = run.folds;
  o.fold = run.fold;
  o.train_fraction = run.train_fraction;
  o.model_channels = model_path_channels(m);
  o.model_time_channel = (model_path_options(m) & PLASTIC_PATH_WITH_TIME) != 0;
  o.unit_increments = (model_path_options(m) & PLASTIC_PATH_UNIT_INCREMENTS) != 0;
  o.observational_intensity = run.oi;
  if (Status<AppError> s = apply_data_flags(run.data_flags, o); !s) return s.error();
  if (!run.valid.empty() && run.train_fraction < 1)
    return AppError{kUsageError, "--train-fraction thins the training part of --data's split; "
                                 "with --valid, --data's validation part joins training "
                                 "unthinned: give one of them"};
  auto splits = open_data(run.data, o);
  if (!splits) return AppError{kInputError, splits.error().describe()};
  ModelData md;
  md.splits = std::move(splits.value());
  if (!run.valid.empty()) {
    // A validation set of its own: read whole, normalised with the training
    // statistics of --data; --data's held-out validation part joins training.
    DataOptions vo = o;
    vo.whole = true;
    vo.normalise = false;
    auto valid = open_data(run.valid, vo);
    if (!valid) return AppError{kInputError, valid.error().describe()};
    Dataset v = std::move(valid.value().train);
    if (md.splits.normaliser)
      if (auto st = md.splits.normaliser->apply(v); !st)
        return AppError{kInputError, run.valid + ": " + st.error().describe()};
    Dataset& train = md.splits.train;
    for (Sample& s : md.splits.validation.samples)
      train.samples.push_back(std::move(s));
    md.splits.validation = std::move(v);
    md.splits.description += "; validation from " + run.valid;
  }
  if (Status<AppError> s = prepare_splits(m, run, md); !s) return s.error();
  return md;
}

} // namespace plastic::rt
