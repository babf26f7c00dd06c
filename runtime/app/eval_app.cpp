// The `eval` and `predict` commands (see eval_app.h).
#include "runtime/app/eval_app.h"
#include "runtime/app/program_name.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/app/binding.h"
#include "runtime/app/kernels_ready.h"
#include "runtime/app/model_data.h"
#include "runtime/app/parameters.h"
#include "runtime/app/prediction_csv.h"
#include "runtime/app/rank_agreement.h"
#include "runtime/app/run_record.h"
#include "runtime/batch/nonfinite_explainer.h"
#include "runtime/batch/predict.h"
#include "runtime/distributed/communicator.h"
#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace {

int fail(const AppError& e) {
  fmt::print(stderr, "{}: {}\n", program_name(), e.message);
  return e.exit_code;
}

// Whether --data names the run's own data (the same files, wherever they
// are now) rather than new series for the trained model.
bool is_run_data(const RunOptions& run, const std::optional<RunBinding>& binding) {
  if (!run.was_given("--data")) return true; // recalled from the record
  if (!binding || binding->record.data.empty()) return false;
  const RunRecord& record = binding->record;
  if (run.data == record.data) return true;
  if (record.data_fingerprint.empty()) return false;
  auto same = same_data(run.data, record.data_fingerprint);
  return same && same.value();
}

// The data eval and predict read: the run's own, split as it was split (the
// statistics fitted again on the same training split are the run's); or
// new series, read whole and prepared with the run's recorded statistics
// (data.json). Without that record (a run made before it existed) new
// series can only be normalised by their own statistics, which is said.
Result<ModelData, AppError> open_eval_data(const plastic_model& m, const RunOptions& run,
                                           const std::filesystem::path& run_dir,
                                           const std::optional<RunBinding>& binding) {
  if (is_run_data(run, binding)) return open_model_data(m, run);
  // Parameters copied with their data.json but no run.json still carry it.
  auto recorded = binding ? Result<std::optional<Preprocessing>, AppError>(binding->preparation)
                          : read_preprocessing(run_dir);
  if (!recorded) return recorded.error();
  if (recorded.value()) return open_new_data(m, run, *recorded.value());
  fmt::print(stderr,
             "{}: note: {} holds no data.json (how training prepared its data): {} are "
             "split and normalised with their own statistics, not the run's\n",
             program_name(), run_dir.string(), run.data);
  return open_model_data(m, run);
}

// Refuses parameters trained with another model, naming what differs.
Status<AppError> check_same_model(const RunBinding& binding, const plastic_model& m,
                                  const RunOptions& run) {
  const RunRecord& rec = binding.record;
  if (same_model(rec, m, run.model, run.dtype)) return {};
  const std::string was = describe_sets(rec.sets), now = describe_sets(run.model.sets);
  return AppError{
      kInputError,
      fmt::format(
          "the parameters in {} were trained with another model ({}, not {}): {}",
          binding.dir.string(), rec.model_identity, model_identity(m, run.model, run.dtype),
          was != now
              ? fmt::format("the run used {}, this command {}", was.empty() ? "no --set" : was,
                            now.empty() ? "gives none" : "gives " + now)
          : rec.dtype != run.dtype
              ? fmt::format("the run used --dtype {}, this command {}", rec.dtype, run.dtype)
              : std::string("the model file or its consts changed since training"))};
}

// The run's binding (run.json), with the command's options completed from
// it: its data, split and seeds unless given anew. A usage error when no
// data is named anywhere, said before anything is read.
Result<std::optional<RunBinding>, AppError> recall_binding(const EvalRequest& r, RunOptions& run) {
  const std::filesystem::path run_dir = run_folder_of(r.parameters);
  auto binding = read_binding(run_dir);
  if (!binding) return binding.error();
  if (binding.value()) recall_run_options(binding.value()->record, run);
  if (run.data.empty())
    return AppError{kUsageError,
                    fmt::format("--data is required: {} holds no run record naming the data",
                                run_dir.string())};
  return binding;
}

// The data as the run binds them: the model checked against the run's, the
// data read with the run's column flags (data.json), then opened.
Result<ModelData, AppError> bound_data(const plastic_model& m, const EvalRequest& r,
                                       const std::optional<RunBinding>& binding, RunOptions& run) {
  const std::filesystem::path run_dir = run_folder_of(r.parameters);
  if (binding)
    if (Status<AppError> s = check_same_model(*binding, m, run); !s) return s.error();
  if (Status<AppError> s = recall_data_flags(run_dir, RecordedFlags::Reuse, run.data_flags); !s)
    return s.error();
  return open_eval_data(m, run, run_dir, binding);
}

// `eval`: the loss and metric of every part, one line each.
template <class T>
int evaluate_parts(const plastic_model& m, const std::vector<ModelData::Part>& parts,
                   std::span<const T> theta, const BatchOptions& options) {
  for (const ModelData::Part& part : parts) {
    const PreparedData& prepared = *part.split.prepared;
    std::vector<int64_t> samples = all_samples(prepared);
    auto ev = evaluate<T>(m, prepared, samples, theta, options);
    if (!ev) {
      fmt::print(stderr, "{}: {}{}\n", program_name(), ev.status().describe(),
                 explain_failure<T>(ev.error(), prepared, samples, theta));
      return kInputError;
    }
    print_evaluation(part.name, ev.value());
  }
  return kOk;
}

// `predict`: every part's rows into one CSV, written whole and atomically at
// the end (a full disk or a failed run leaves no truncated file behind).
template <class T>
int predict_parts(const plastic_model& m, const std::vector<ModelData::Part>& parts,
                  std::span<const T> theta, const BatchOptions& options, const std::string& csv) {
  const bool to_file = !csv.empty() && csv != "-";
  std::ostringstream text;
  std::ostream& out = to_file ? static_cast<std::ostream&>(text) : std::cout;
  bool header = false;
  for (const ModelData::Part& part : parts) {
    const PreparedData& prepared = *part.split.prepared;
    std::vector<int64_t> samples = all_samples(prepared);
    auto pred = predict<T>(m, prepared, samples, theta, options);
    if (!pred) {
      fmt::print(stderr, "{}: {}{}\n", program_name(), pred.status().describe(),
                 explain_failure<T>(pred.error(), prepared, samples, theta));
      return kInputError;
    }
    if (!header) write_prediction_header(out, m, part.split.data);
    header = true;
    write_prediction_rows(out, m, part.split.data, part.name, pred.value());
  }
  if (to_file && world().root()) // every rank has every prediction; rank 0 writes them
    if (Status<TrainError> s = write_file_atomic(csv, std::move(text).str()); !s)
      return fail(AppError{kInputError, s.describe()});
  return kOk;
}

// The parts of `data` the request names, each non-empty; an error when one
// named explicitly is empty or absent.
Result<std::vector<ModelData::Part>, AppError>
chosen_parts(const ModelData& data, const EvalRequest& r, const RunOptions& run) {
  std::vector<ModelData::Part> parts = data.parts(r.split, r.run.was_given("--split"));
  if (parts.empty())
    return AppError{kUsageError,
                    fmt::format("--split {}: the new data {} are predicted whole and have no such "
                                "part (leave out --split)",
                                r.split, run.data)};
  std::vector<ModelData::Part> out;
  for (const ModelData::Part& part : parts) {
    if (part.split.prepared) {
      out.push_back(part);
    } else if (r.split != "all") {
      return AppError{kInputError, fmt::format("the {} split of {} is empty", part.name, run.data)};
    }
  }
  return out;
}

// Under mpirun: every rank evaluates the same parameters on the same data
// and parts, or none does (rank_agreement.h) — ranks given another --split
// or copy of the data would wait for ever in a collective or mix numbers.
template <class T>
Status<AppError> ranks_agree(const plastic_model& m, const EvalRequest& r, const RunOptions& run,
                             const ModelData& data, const std::vector<T>& theta,
                             const char* command) {
  return check_ranks_agree(world(),
                           eval_binding(command, model_identity(m, run.model, run.dtype),
                                        data_digest(data.splits),
                                        parameters_digest(std::as_bytes(std::span(theta))), r));
}

template <class T>
int eval_typed(const plastic_model& m, const EvalRequest& r, const std::string* csv) {
  RunOptions run = r.run;
  auto binding = recall_binding(r, run);
  if (!binding) return fail(binding.error());
  std::vector<T> theta;
  if (Status<AppError> s = load_parameters<T>(m, r.parameters, theta); !s) return fail(s.error());
  auto data = bound_data(m, r, binding.value(), run);
  if (!data) return fail(data.error());
  auto parts = chosen_parts(data.value(), r, run);
  if (!parts) return fail(parts.error());
  if (Status<AppError> s = ranks_agree<T>(m, r, run, data.value(), theta, csv ? "predict" : "eval");
      !s)
    return refuse_disagreement(world(), s.error());
  if (Status<AppError> s = kernels_ready(); !s) return fail(s.error());
  BatchOptions options;
  options.threads = r.run.threads;
  options.comm = &world(); // under mpirun: each rank evaluates a share of the tiles
  options.series_alone = r.series_alone;
  const std::span<const T> params(theta);
  return csv ? predict_parts<T>(m, parts.value(), params, options, *csv)
             : evaluate_parts<T>(m, parts.value(), params, options);
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
