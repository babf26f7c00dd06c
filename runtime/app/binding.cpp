// A run's binding of model to data, read and written whole (see binding.h).
#include "runtime/app/binding.h"

#include <fmt/format.h>

namespace plastic::rt {

std::map<std::string, int64_t> RunBinding::data_quantities() const {
  return preparation ? recorded_data_quantities(*preparation) : std::map<std::string, int64_t>{};
}

std::map<std::string, double>
RunBinding::sets_with(const std::map<std::string, double>& given) const {
  std::map<std::string, double> sets = record.sets;
  for (const auto& [name, value] : given)
    sets[name] = value;
  return sets;
}

std::string RunBinding::name() const {
  return fmt::format("the run in {}", dir.string());
}

Result<RunBinding, AppError> bind_run(const plastic_model& model, const TrainRequest& request,
                                      const DataSplits& splits, int ranks) {
  auto record = make_run_record(model, request);
  if (!record) return record.error();
  RunBinding b;
  b.record = std::move(record.value());
  b.record.ranks = ranks;
  b.preparation = preprocessing_of(splits, request.run);
  return b;
}

Status<AppError> write_binding(const std::filesystem::path& dir, const RunBinding& binding,
                               const ModelSource& source) {
  if (Status<AppError> s = write_run_record(dir, binding.record, source); !s) return s;
  if (binding.preparation) return write_preprocessing(dir, *binding.preparation);
  return {};
}

Result<std::optional<RunBinding>, AppError> read_binding(const std::filesystem::path& dir) {
  auto record = read_run_record(dir);
  if (!record) return record.error();
  if (!record.value()) return std::optional<RunBinding>{};
  auto preparation = read_preprocessing(dir);
  if (!preparation) return preparation.error();
  RunBinding b;
  b.dir = dir;
  b.record = std::move(*record.value());
  b.preparation = std::move(preparation.value());
  return std::optional<RunBinding>(std::move(b));
}

} // namespace plastic::rt
