// The record of a training run (see run_record.h).
#include "runtime/app/run_record.h"

#include <functional>
#include <vector>

#include <fmt/format.h>

#include "runtime/app/model_hash.h"
#include "runtime/io/atomic_file.h"
#include "runtime/support/printable.h"

namespace plastic::rt {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFile = "run.json";
constexpr const char* kSource = "model.ode";

/// One option of a run: its flag, and how it goes into and out of the record.
struct RecordedOption {
  const char* flag;
  std::function<json(const TrainRequest&)> get;
  std::function<void(TrainRequest&, const json&)> set;
};

template <class M> RecordedOption option(const char* flag, M TrainRequest::* member) {
  return {flag, [member](const TrainRequest& r) { return json(r.*member); },
          [member](TrainRequest& r, const json& j) { r.*member = j.get<M>(); }};
}
template <class M> RecordedOption run_option(const char* flag, M RunOptions::* member) {
  return {flag, [member](const TrainRequest& r) { return json(r.run.*member); },
          [member](TrainRequest& r, const json& j) { r.run.*member = j.get<M>(); }};
}

/// Every option that changes what a run computes, in one table so that
/// writing, reading and comparing cannot disagree. --epochs, --out and the
/// output options are not here: they change nothing already computed.
const std::vector<RecordedOption>& recorded_options() {
  static const std::vector<RecordedOption> table = {
      run_option("--seed", &RunOptions::seed),
      {"--split-seed", [](const TrainRequest& r) { return json(r.run.data_seed()); },
       [](TrainRequest& r, const json& j) { r.run.split_seed = j.get<uint64_t>(); }},
      run_option("--valid-fraction", &RunOptions::valid_fraction),
      run_option("--folds", &RunOptions::folds),
      run_option("--fold", &RunOptions::fold),
      run_option("--train-fraction", &RunOptions::train_fraction),
      run_option("--batch", &RunOptions::batch),
      run_option("--dtype", &RunOptions::dtype),
      run_option("--oi", &RunOptions::oi),
      option("--optimizer", &TrainRequest::optimizer),
      option("--lr", &TrainRequest::lr),
      option("--weight-decay", &TrainRequest::weight_decay),
      option("--momentum", &TrainRequest::momentum),
      option("--schedule", &TrainRequest::schedule),
      option("--clip", &TrainRequest::clip_norm),
      option("--input-noise", &TrainRequest::input_noise),
      option("--norm-penalty", &TrainRequest::norm_penalty),
      option("--norm-penalty-on", &TrainRequest::norm_penalty_on),
      option("--patience", &TrainRequest::patience),
      option("--select", &TrainRequest::select),
      option("--curriculum", &TrainRequest::curriculum),
      // The gradient method changes the gradients (the adjoint's differ
      // from direct's), and with `auto` the budget picks the method.
      {"--gradient", [](const TrainRequest& r) { return json(r.memory.gradient); },
       [](TrainRequest& r, const json& j) { r.memory.gradient = j.get<std::string>(); }},
      {"--memory-budget",
       [](const TrainRequest& r) { return r.memory.budget ? json(*r.memory.budget) : json(); },
       [](TrainRequest& r, const json& j) {
         if (j.is_number()) r.memory.budget = j.get<double>();
       }},
  };
  return table;
}

std::string show(const json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}

} // namespace

std::vector<std::pair<std::string, json>> recorded_option_values(const TrainRequest& request) {
  std::vector<std::pair<std::string, json>> out;
  for (const RecordedOption& o : recorded_options())
    out.emplace_back(o.flag, o.get(request));
  return out;
}

std::string describe_sets(const std::map<std::string, double>& sets) {
  std::string out;
  for (const auto& [name, value] : sets)
    out += fmt::format("{}--set {}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string model_identity(const plastic_model& m, const ModelSource& source,
                           const std::string& dtype) {
  std::string interface = model_hash(m);
  if (source.canonical.empty()) return interface;
  std::string text = interface + "|" + dtype + "|" + source.canonical;
  for (const auto& [name, value] : source.sets)
    text += fmt::format("|{}={}", name, value);
  return fmt::format("{}-{}", m.name ? m.name : "model", text_digest(text));
}

bool same_model(const RunRecord& rec, const plastic_model& m, const ModelSource& source,
                const std::string& dtype) {
  if (rec.model_identity.empty()) return true; // nothing recorded to compare with
  const bool recorded_source = rec.model_identity != rec.interface_hash;
  if (source.canonical.empty() || !recorded_source)
    return rec.interface_hash.empty() || rec.interface_hash == model_hash(m);
  return rec.model_identity == model_identity(m, source, dtype);
}

Result<RunRecord, AppError> make_run_record(const plastic_model& m, const TrainRequest& r) {
  RunRecord rec;
  rec.model_file = r.run.model.file;
  rec.model_identity = model_identity(m, r.run.model, r.run.dtype);
  rec.interface_hash = model_hash(m);
  rec.sets = r.run.model.sets;
  rec.dtype = r.run.dtype;
  rec.lanes = static_cast<int>(m.lanes);
  // Absolute, so that eval and predict find the data from any folder.
  auto absolute = [](const std::string& spec) {
    std::error_code ec;
    if (spec.empty() || !fs::exists(spec, ec)) return spec;
    return fs::absolute(spec, ec).lexically_normal().string();
  };
  rec.data = absolute(r.run.data);
  rec.valid = absolute(r.run.valid);
  rec.oi = r.run.oi;
  rec.split_seed = r.run.data_seed();
  rec.valid_fraction = r.run.valid_fraction;
  if (!r.run.data.empty()) { // a REPL session saved before any data was chosen has none
    auto data = fingerprint_data(r.run.data);
    if (!data) return data.error();
    rec.data_fingerprint = std::move(data.value());
  }
  if (!r.run.valid.empty()) {
    auto valid = fingerprint_data(r.run.valid);
    if (!valid) return valid.error();
    rec.valid_fingerprint = std::move(valid.value());
  }
  rec.train = r;
  return rec;
}

Status<AppError> write_run_record(const fs::path& dir, const RunRecord& rec,
                                  const ModelSource& source) {
  nlohmann::ordered_json j;
  j["model"] = {{"file", rec.model_file},
                {"identity", rec.model_identity},
                {"interface", rec.interface_hash},
                {"sets", rec.sets},
                {"dtype", rec.dtype}};
  j["data"] = {{"spec", rec.data},
               {"valid", rec.valid},
               {"oi", rec.oi},
               {"split_seed", rec.split_seed},
               {"valid_fraction", rec.valid_fraction},
               {"fingerprint", fingerprint_json(rec.data_fingerprint)},
               {"valid_fingerprint", fingerprint_json(rec.valid_fingerprint)}};
  nlohmann::ordered_json options;
  for (const RecordedOption& o : recorded_options())
    options[o.flag] = o.get(rec.train);
  options["--epochs"] = rec.train.epochs;
  j["options"] = options;
  j["ranks"] = rec.ranks;
  j["lanes"] = rec.lanes;
  if (!source.text.empty())
    if (Status<TrainError> s = write_file_atomic(dir / kSource, source.text); !s)
      return AppError{kInputError, s.describe()};
  if (Status<TrainError> s = write_file_atomic(dir / kFile, j.dump(2) + "\n"); !s)
    return AppError{kInputError, s.describe()};
  return {};
}

Result<std::optional<RunRecord>, AppError> read_run_record(const fs::path& dir) {
  const fs::path path = dir / kFile;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    // A cross-validation (cross_validation.h) is recorded by its folds,
    // which differ only in the fold they validate on.
    if (fs::exists(dir / "folds.json", ec) && fs::exists(dir / "fold-1" / kFile, ec)) {
      auto first = read_run_record(dir / "fold-1");
      if (first && first.value()) first.value()->train.run.fold = 0;
      return first;
    }
    return std::optional<RunRecord>{};
  }
  auto bytes = read_file(path);
  if (!bytes) return AppError{kInputError, bytes.error().describe()};
  try {
    const auto* text = reinterpret_cast<const char*>(bytes.value().data());
    const json j = json::parse(text, text + bytes.value().size());
    RunRecord rec;
    const json& model = j.at("model");
    rec.model_file = model.value("file", std::string());
    rec.model_identity = model.value("identity", std::string());
    rec.interface_hash = model.value("interface", std::string());
    rec.sets = model.value("sets", std::map<std::string, double>());
    rec.dtype = model.value("dtype", std::string("f32"));
    const json& data = j.at("data");
    rec.data = data.value("spec", std::string());
    rec.valid = data.value("valid", std::string());
    rec.oi = data.value("oi", false);
    rec.split_seed = data.value("split_seed", uint64_t{0});
    rec.valid_fraction = data.value("valid_fraction", 0.15);
    rec.data_fingerprint = fingerprint_from_json(data.value("fingerprint", json()));
    rec.valid_fingerprint = fingerprint_from_json(data.value("valid_fingerprint", json()));
    const json& options = j.at("options");
    for (const RecordedOption& o : recorded_options())
      if (options.contains(o.flag)) o.set(rec.train, options.at(o.flag));
    rec.train.epochs = options.value("--epochs", rec.train.epochs);
    rec.train.run.data = rec.data;
    rec.ranks = j.value("ranks", 1);
    rec.lanes = j.value("lanes", 0);
    return std::optional<RunRecord>(std::move(rec));
  } catch (const json::exception& e) {
    return AppError{kInputError, fmt::format("{}: not a run record written by `train`: {}",
                                             path.string(), escape_unprintable(e.what()))};
  }
}

fs::path run_folder_of(const std::string& parameters) {
  fs::path given(parameters);
  std::error_code ec;
  if (fs::is_directory(given, ec)) return given;
  return given.parent_path().empty() ? fs::path(".") : given.parent_path();
}

void recall_run_options(const RunRecord& rec, RunOptions& run) {
  if (!run.was_given("--data")) run.data = rec.data;
  if (!run.was_given("--valid")) run.valid = rec.valid;
  if (!run.was_given("--oi")) run.oi = rec.oi;
  if (!run.was_given("--seed")) run.seed = rec.train.run.seed;
  if (!run.was_given("--split-seed") && !run.was_given("--seed")) run.split_seed = rec.split_seed;
  if (!run.was_given("--valid-fraction")) run.valid_fraction = rec.valid_fraction;
  // The training share decides the normalisation's statistics.
  if (!run.was_given("--train-fraction")) run.train_fraction = rec.train.run.train_fraction;
  // A fold's validation part is its fold of the data: always the run's.
  run.folds = rec.train.run.folds;
  run.fold = rec.train.run.fold;
  if (!run.was_given("--batch")) run.batch = rec.train.run.batch;
}

Status<AppError> check_resume(const RunRecord& rec, const plastic_model& m, const fs::path& dir,
                              TrainRequest& r) {
  const std::string identity = model_identity(m, r.run.model, r.run.dtype);
  if (!same_model(rec, m, r.run.model, r.run.dtype)) {
    const std::string now = describe_sets(r.run.model.sets), was = describe_sets(rec.sets);
    std::string why = "the model file or its consts changed since";
    if (now != was)
      why = fmt::format("it used {}, this command gives {}", was.empty() ? "no --set" : was,
                        now.empty() ? "none" : now);
    else if (rec.dtype != r.run.dtype)
      why = fmt::format("it used --dtype {}, this command {}", rec.dtype, r.run.dtype);
    return AppError{kUsageError,
                    fmt::format("--resume: the run in {} was trained with another model (identity "
                                "{}, now {}): {}; a run continues only with the same model file, "
                                "consts, --set values and --dtype (start a new run with --force "
                                "or another --out)",
                                dir.string(), rec.model_identity, identity, why)};
  }
  for (const RecordedOption& o : recorded_options()) {
    if (std::string(o.flag) == "--dtype") continue; // part of the identity, checked above
    const json was = o.get(rec.train);
    if (!r.run.was_given(o.flag)) {
      o.set(r, was);
      continue;
    }
    if (o.get(r) != was)
      return AppError{kUsageError,
                      fmt::format("{} {} given, the run in {} used {} {}: --resume continues a run "
                                  "with its own options (leave {} out, or start a new run with "
                                  "--force or another --out)",
                                  o.flag, show(o.get(r)), dir.string(), o.flag, show(was), o.flag)};
  }
  if (!r.run.was_given("--epochs")) r.epochs = rec.train.epochs;
  if (!r.run.was_given("--data")) r.run.data = rec.data;
  if (!r.run.was_given("--valid")) r.run.valid = rec.valid;
  auto check_data = [&](const std::string& spec, const char* flag, const std::string& was,
                        const DataFingerprint& fingerprint) -> Status<AppError> {
    if (spec.empty() || fingerprint.empty()) return {};
    auto same = same_data(spec, fingerprint);
    if (!same) return same.error();
    if (!same.value())
      return AppError{kInputError,
                      fmt::format("{} {}: not the data the run in {} was trained on ({}: {} "
                                  "files, {} bytes); --resume continues a run on its own data",
                                  flag, spec, dir.string(), was, fingerprint.files,
                                  fingerprint.bytes)};
    return {};
  };
  if (Status<AppError> s = check_data(r.run.data, "--data", rec.data, rec.data_fingerprint); !s)
    return s;
  if (Status<AppError> s = check_data(r.run.valid, "--valid", rec.valid, rec.valid_fingerprint); !s)
    return s;
  return {};
}

} // namespace plastic::rt
