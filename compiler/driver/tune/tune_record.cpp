// The record of a search (see tune_record.h).
#include "compiler/driver/tune/tune_record.h"

#include <fstream>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"
#include "runtime/io/epoch_log.h"
#include "runtime/support/json_util.h"

namespace plastic::driver {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kPlan = "tune.json";
constexpr const char* kRows = "tune.jsonl";

const char* scale_name(dsl::TuneScale s) {
  switch (s) {
  case dsl::TuneScale::Log:
    return "log";
  case dsl::TuneScale::Linear:
    return "linear";
  case dsl::TuneScale::Choice:
    break;
  }
  return "choice";
}

dsl::TuneScale scale_from(const std::string& name) {
  if (name == "log") return dsl::TuneScale::Log;
  if (name == "linear") return dsl::TuneScale::Linear;
  return dsl::TuneScale::Choice;
}

ojson space_json(const SearchSpace& space) {
  ojson dims = ojson::array();
  for (const TuneDimension& d : space.dims)
    dims.push_back({{"name", d.name},
                    {"scale", scale_name(d.range.scale)},
                    {"values", d.range.values},
                    {"integer", d.integer},
                    {"option", d.option},
                    {"origin", d.origin}});
  return dims;
}

SearchSpace space_from(const json& dims) {
  SearchSpace space;
  for (const json& j : dims) {
    TuneDimension d;
    d.name = j.at("name").get<std::string>();
    d.range.scale = scale_from(j.at("scale").get<std::string>());
    d.range.values = j.at("values").get<std::vector<double>>();
    d.integer = j.at("integer").get<bool>();
    d.option = j.at("option").get<bool>();
    d.origin = j.value("origin", std::string());
    space.dims.push_back(std::move(d));
  }
  return space;
}

rt::AppError input_error(const std::string& message) {
  return rt::AppError{rt::kInputError, message};
}

} // namespace

fs::path trial_folder(const fs::path& out, int64_t k) {
  return out / fmt::format("trial-{:03}", k);
}

Status<rt::AppError> write_plan(const fs::path& out, const TunePlan& plan, const json& best) {
  ojson j;
  j["model"] = {{"file", plan.model_file}, {"digest", plan.model_digest}};
  j["arguments"] = plan.arguments;
  j["space"] = space_json(plan.space);
  j["search"] = plan.search;
  j["seed"] = plan.seed;
  j["points"] = plan.points; // exact: nlohmann writes doubles in round-trip form
  j["epochs"] = plan.epochs;
  j["eta"] = plan.eta;
  j["rungs"] = plan.rungs;
  j["folds"] = plan.folds;
  j["selection"] = plan.selection_note;
  j["select"] = plan.by.select;
  j["threads"] = plan.threads;
  j["best"] = best;
  if (Status<rt::TrainError> s = rt::write_file_atomic(out / kPlan, j.dump(2) + "\n"); !s)
    return input_error(s.describe());
  return {};
}

Result<TunePlan, rt::AppError> read_plan(const fs::path& out) {
  std::ifstream in(out / kPlan);
  if (!in)
    return rt::AppError{
        rt::kUsageError,
        fmt::format("{} holds no search (no {}): start one without --resume", out.string(), kPlan)};
  try {
    const json j = json::parse(in);
    TunePlan p;
    p.model_file = j.at("model").at("file").get<std::string>();
    p.model_digest = j.at("model").at("digest").get<std::string>();
    p.arguments = j.at("arguments").get<std::vector<std::string>>();
    p.space = space_from(j.at("space"));
    p.search = j.at("search").get<std::string>();
    p.seed = j.at("seed").get<uint64_t>();
    p.points = j.at("points").get<std::vector<TrialPoint>>();
    p.epochs = j.at("epochs").get<int64_t>();
    p.eta = j.at("eta").get<int64_t>();
    p.rungs = j.at("rungs").get<std::vector<int64_t>>();
    p.folds = j.at("folds").get<int64_t>();
    p.selection_note = j.at("selection").get<std::string>();
    p.by = selection_for(j.at("select").get<std::string>());
    p.threads = j.at("threads").get<int>();
    return p;
  } catch (const json::exception& e) {
    return input_error(fmt::format("{}: not a search record written by `plastic tune`: {}",
                                   (out / kPlan).string(), e.what()));
  }
}

Status<rt::AppError> append_row(const fs::path& out, const TunePlan& plan, const TrialRow& row) {
  ojson j;
  j["trial"] = row.trial;
  j["rung"] = row.rung;
  j["epochs"] = plan.rungs[static_cast<size_t>(row.rung)];
  ojson values;
  for (size_t i = 0; i < plan.space.dims.size(); ++i)
    values[plan.space.dims[i].name] = plan.points[static_cast<size_t>(row.trial)][i];
  j["values"] = values;
  j[plan.by.select] = row.value ? json(*row.value) : json();
  j["status"] = row.value ? "ok" : "failed";
  if (!row.error.empty()) j["error"] = row.error;
  j["seconds"] = rt::json_double(row.seconds);
  j["run"] = trial_folder(fs::path(), row.trial).string();
  auto log = rt::JsonlLog::open(out / kRows);
  if (!log) return input_error(log.error().describe());
  if (Status<rt::TrainError> s = log.value().append_json(j); !s) return input_error(s.describe());
  return {};
}

std::map<std::pair<int64_t, int64_t>, TrialRow> read_rows(const fs::path& out,
                                                          const Selection& by) {
  std::map<std::pair<int64_t, int64_t>, TrialRow> rows;
  std::ifstream in(out / kRows);
  for (std::string line; std::getline(in, line);) {
    try {
      const json j = json::parse(line);
      TrialRow r;
      r.trial = j.at("trial").get<int64_t>();
      r.rung = j.at("rung").get<int64_t>();
      if (j.at("status").get<std::string>() == "ok") r.value = j.at(by.select).get<double>();
      r.error = j.value("error", std::string());
      r.seconds = rt::read_json_double(j, "seconds").value_or(0);
      rows[{r.trial, r.rung}] = r;
    } catch (const json::exception&) {
      continue; // a line cut short by a kill: its trial is run again
    }
  }
  return rows;
}

} // namespace plastic::driver
