// Reading trained parameters (see parameters.h), moved here from eval_app
// so that programs embedding a model share it.
#include "runtime/app/parameters.h"

#include <filesystem>

#include <fmt/format.h>

#include "runtime/app/model_hash.h"
#include "runtime/io/param_table.h"
#include "runtime/io/safetensors.h"
#include "runtime/train/state_tensors.h"

namespace plastic::rt {

template <class T>
Status<AppError> load_parameters(const plastic_model& m, const std::string& where,
                                 std::vector<T>& theta) {
  std::filesystem::path path(where);
  if (std::filesystem::is_directory(path)) {
    std::error_code ec;
    // A cross-validation (train --folds) keeps one model per fold.
    if (!std::filesystem::exists(path / "model.safetensors", ec) &&
        std::filesystem::exists(path / "folds.json", ec))
      return AppError{kUsageError,
                      fmt::format("{} holds a cross-validation, one model per fold: give one "
                                  "fold's run (--parameters {}); their results are in {}",
                                  where, (path / "fold-1").string(),
                                  (path / "folds.json").string())};
    path /= "model.safetensors";
  }
  auto file = read_safetensors(path);
  if (!file) return AppError{kInputError, file.error().describe()};
  auto hash = file.value().metadata.find("model_hash");
  if (hash != file.value().metadata.end() && hash->second != model_hash(m)) {
    // The hash covers the element type too: name the likelier cause.
    const DType want = m.dtype == PLASTIC_F64 ? DType::F64 : DType::F32;
    const std::vector<NamedTensor>& tensors = file.value().tensors;
    if (!tensors.empty() && tensors.front().dtype != want)
      return AppError{kInputError,
                      fmt::format("{}: these parameters are {} and this model is {} (model {}, "
                                  "not {}); use --dtype {} (or build the binary with it)",
                                  path.string(), dtype_name(tensors.front().dtype),
                                  dtype_name(want), hash->second, model_hash(m),
                                  tensors.front().dtype == DType::F64 ? "f64" : "f32")};
    return AppError{kInputError,
                    fmt::format("{}: these parameters belong to model {}, not {} (the model "
                                "file or its --set dims changed since training)",
                                path.string(), hash->second, model_hash(m))};
  }
  auto table = ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table) return AppError{3, "internal error (a bug): " + table.error().describe()};
  theta.assign(static_cast<size_t>(m.n_params), T(0));
  if (Status<TrainError> s = params_from_tensors<T>(table.value(), file.value(),
                                                    std::span<T>(theta), "", path.string());
      !s)
    return AppError{kInputError, s.describe()};
  return {};
}

template Status<AppError> load_parameters<float>(const plastic_model&, const std::string&,
                                                 std::vector<float>&);
template Status<AppError> load_parameters<double>(const plastic_model&, const std::string&,
                                                  std::vector<double>&);

} // namespace plastic::rt
