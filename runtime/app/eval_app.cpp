// The `eval` and `predict` commands (see eval_app.h).
#include "runtime/app/eval_app.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/app/model_data.h"
#include "runtime/app/parameters.h"
#include "runtime/app/prediction_csv.h"
#include "runtime/app/preprocessing.h"
#include "runtime/app/run_record.h"
#include "runtime/batch/nonfinite_explainer.h"
#include "runtime/batch/predict.h"
#include "runtime/distributed/communicator.h"
#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace {

// Whether --data names the run's own data (the same files, wherever they
// are now) rather than new series for the trained model.
bool is_run_data(const RunOptions& run, const std::optional<RunRecord>& record) {
  if (!run.was_given("--data")) return true; // recalled from the record
  if (!record || record->data.empty()) return false;
  if (run.data == record->data) return true;
  if (record->data_fingerprint.empty()) return false;
  auto same = same_data(run.data, record->data_fingerprint);
  return same && same.value();
}

// The data eval and predict read: the run's own, split as it was split (the
// statistics fitted again on the same training split are the run's); or
// new series, read whole and prepared with the run's recorded statistics
// (data.json). Without that record (parameters copied alone, a run made
// before it existed) new series can only be normalised by their own
// statistics, which is said.
Result<ModelData, AppError> open_eval_data(const plastic_model& m, const RunOptions& run,
                                           const std::filesystem::path& run_dir,
                                           const std::optional<RunRecord>& record) {
  if (is_run_data(run, record)) return open_model_data(m, run);
  auto recorded = read_preprocessing(run_dir);
  if (!recorded) return recorded.error();
  if (recorded.value()) return open_new_data(m, run, *recorded.value());
  fmt::print(stderr,
             "plastic: note: {} holds no data.json (how training prepared its data): {} are "
             "split and normalised with their own statistics, not the run's\n",
             run_dir.string(), run.data);
  return open_model_data(m, run);
}

template <class T>
int eval_typed(const plastic_model& m, const EvalRequest& r, const std::string* csv) {
  // The run folder's records say how the run was made: its data, split and
  // seeds (run.json) and how its data was read (data.json: --target, ...).
  RunOptions run = r.run;
  const std::filesystem::path run_dir = run_folder_of(r.parameters);
  auto record = read_run_record(run_dir);
  if (!record) {
    fmt::print(stderr, "plastic: {}\n", record.error().message);
    return record.error().exit_code;
  }
  if (record.value()) recall_run_options(*record.value(), run);
  if (run.data.empty()) { // a usage error, said before anything is read
    fmt::print(stderr, "plastic: --data is required: {} holds no run record naming the data\n",
               run_dir.string());
    return kUsageError;
  }
  std::vector<T> theta;
  if (Status<AppError> s = load_parameters<T>(m, r.parameters, theta); !s) {
    fmt::print(stderr, "plastic: {}\n", s.error().message);
    return s.error().exit_code;
  }
  if (const std::optional<RunRecord>& rec = record.value()) {
    const std::string identity = model_identity(m, run.model, run.dtype);
    if (!same_model(*rec, m, run.model, run.dtype)) {
      const std::string was = describe_sets(rec->sets), now = describe_sets(run.model.sets);
      fmt::print(
          stderr,
          "plastic: the parameters in {} were trained with another model ({}, not {}): "
          "{}\n",
          run_dir.string(), rec->model_identity, identity,
          was != now
              ? fmt::format("the run used {}, this command {}", was.empty() ? "no --set" : was,
                            now.empty() ? "gives none" : "gives " + now)
          : rec->dtype != run.dtype
              ? fmt::format("the run used --dtype {}, this command {}", rec->dtype, run.dtype)
              : std::string("the model file or its consts changed since training"));
      return kInputError;
    }
  }
  if (Status<AppError> s = recall_data_flags(run_dir, RecordedFlags::Reuse, run.data_flags); !s) {
    fmt::print(stderr, "plastic: {}\n", s.error().message);
    return s.error().exit_code;
  }
  auto data = open_eval_data(m, run, run_dir, record.value());
  if (!data) {
    fmt::print(stderr, "plastic: {}\n", data.error().message);
    return data.error().exit_code;
  }
  BatchOptions options;
  options.threads = r.run.threads;
  options.comm = &world(); // under mpirun: each rank evaluates a share of the tiles
  const std::vector<ModelData::Part> parts =
      data.value().parts(r.split, r.run.was_given("--split"));
  if (parts.empty()) {
    fmt::print(stderr,
               "plastic: --split {}: the new data {} are predicted whole and have no such "
               "part (leave out --split)\n",
               r.split, run.data);
    return kUsageError;
  }
  // A CSV file is written whole and atomically at the end: a full disk or
  // a failed run leaves no truncated file behind, and the error names it.
  const bool to_file = csv && !csv->empty() && *csv != "-";
  std::ostringstream text;
  std::ostream* out = to_file ? static_cast<std::ostream*>(&text) : &std::cout;
  bool header = false;
  for (const ModelData::Part& part : parts) {
    const std::string& split = part.name;
    const PreparedData* prepared = part.split.prepared;
    if (!prepared) {
      if (r.split != "all") {
        fmt::print(stderr, "plastic: the {} split of {} is empty\n", split, run.data);
        return kInputError;
      }
      continue;
    }
    std::vector<int64_t> samples = all_samples(*prepared);
    if (!csv) {
      auto ev = evaluate<T>(m, *prepared, samples, std::span<const T>(theta), options);
      if (!ev) {
        fmt::print(stderr, "plastic: {}{}\n", ev.status().describe(),
                   explain_failure<T>(ev.error(), *prepared, samples, std::span<const T>(theta)));
        return kInputError;
      }
      print_evaluation(split, ev.value());
      continue;
    }
    auto pred = predict<T>(m, *prepared, samples, std::span<const T>(theta), options);
    if (!pred) {
      fmt::print(stderr, "plastic: {}{}\n", pred.status().describe(),
                 explain_failure<T>(pred.error(), *prepared, samples, std::span<const T>(theta)));
      return kInputError;
    }
    const Predictions<T>& p = pred.value();
    const Dataset& source = part.split.data;
    if (!header) {
      write_prediction_header(*out, m, source);
      header = true;
    }
    write_prediction_rows(*out, m, source, split, p);
  }
  if (to_file && world().root()) // every rank has every prediction; rank 0 writes them
    if (Status<TrainError> s = write_file_atomic(*csv, std::move(text).str()); !s) {
      fmt::print(stderr, "plastic: {}\n", s.describe());
      return kInputError;
    }
  return kOk;
}

} // namespace

int run_eval(const plastic_model& m, const EvalRequest& r) {
  return m.dtype == PLASTIC_F64 ? eval_typed<double>(m, r, nullptr)
                                : eval_typed<float>(m, r, nullptr);
}

int run_predict(const plastic_model& m, const PredictRequest& r) {
  return m.dtype == PLASTIC_F64 ? eval_typed<double>(m, r.eval, &r.output)
                                : eval_typed<float>(m, r.eval, &r.output);
}

} // namespace plastic::rt
