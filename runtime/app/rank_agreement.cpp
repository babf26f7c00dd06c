// Ranks that bind the same model to the same data (see rank_agreement.h).
#include "runtime/app/rank_agreement.h"

#include <cstring>

#include <fmt/format.h>

#include "runtime/app/program_name.h"
#include "runtime/app/run_record.h"

namespace plastic::rt {

namespace {

using json = nlohmann::ordered_json;

// 64-bit FNV-1a over raw bytes, continued from `h`.
uint64_t fnv(uint64_t h, const void* bytes, size_t n) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t fnv_doubles(uint64_t h, const std::vector<double>& v) {
  const uint64_t n = v.size();
  h = fnv(h, &n, sizeof n);
  return v.empty() ? h : fnv(h, v.data(), v.size() * sizeof(double));
}

uint64_t digest_of(uint64_t h, const Dataset& d) {
  const uint64_t n = d.size();
  h = fnv(h, &n, sizeof n);
  for (const std::string& c : d.classes)
    h = fnv(h, c.data(), c.size() + 1);
  for (const Sample& s : d.samples) {
    h = fnv_doubles(h, s.times);
    h = fnv_doubles(h, s.values);
    h = fnv_doubles(h, s.statics);
    h = fnv(h, &s.label, sizeof s.label);
    h = fnv_doubles(h, s.target);
  }
  return h;
}

std::string show(const nlohmann::ordered_json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}

} // namespace

std::string data_digest(const DataSplits& splits) {
  uint64_t h = 1469598103934665603ull;
  for (const Dataset* d : {&splits.train, &splits.validation, &splits.test})
    h = digest_of(h, *d);
  return fmt::format("{:016x} ({} training, {} validation, {} test samples)", h,
                     splits.train.size(), splits.validation.size(), splits.test.size());
}

json train_binding(const std::string& model_identity, const std::string& data,
                   const TrainRequest& request) {
  json j;
  j["the model"] = model_identity;
  j["the data as read"] = data;
  for (const auto& [flag, value] : recorded_option_values(request))
    j[flag] = value;
  j["--epochs"] = request.epochs;
  j["--resume"] = request.resume;
  return j;
}

std::string parameters_digest(std::span<const std::byte> bytes) {
  return fmt::format("{:016x} ({} bytes)", fnv(1469598103934665603ull, bytes.data(), bytes.size()),
                     bytes.size());
}

json eval_binding(const std::string& command, const std::string& model_identity,
                  const std::string& data, const std::string& parameters,
                  const EvalRequest& request) {
  json j;
  j["the command"] = command;
  j["the model"] = model_identity;
  j["the data as prepared"] = data;
  j["the parameters' digest"] = parameters;
  j["--split"] = request.split;
  j["--series-alone"] = request.series_alone;
  return j;
}

Status<AppError> check_ranks_agree(Communicator& comm, const json& mine) {
  if (comm.size() == 1) return {};
  std::string root_text = mine.dump();
  comm.broadcast(root_text, 0);
  const json root = json::parse(root_text);
  std::string difference;
  for (const auto& [key, value] : mine.items()) {
    const json theirs = root.contains(key) ? root.at(key) : json();
    if (theirs != value) {
      difference = fmt::format("{} is {} on rank {} and {} on rank 0", key, show(value),
                               comm.rank(), show(theirs));
      break;
    }
  }
  const std::vector<int64_t> differs = comm.all_gather(difference.empty() ? 0 : 1);
  int first = -1;
  for (size_t r = 0; r < differs.size() && first < 0; ++r)
    if (differs[r] != 0) first = static_cast<int>(r);
  if (first < 0) return {};
  comm.broadcast(difference, first); // every rank says the same
  return AppError{kUsageError,
                  fmt::format("the {} ranks of this job disagree: {}. Every rank must run the "
                              "same command on the same data",
                              comm.size(), difference)};
}

int refuse_disagreement(const Communicator& comm, const AppError& disagreement) {
  if (comm.root()) fmt::print(stderr, "{}: {}\n", program_name(), disagreement.message);
  return disagreement.exit_code;
}

} // namespace plastic::rt
