// Loading a model for a subcommand (see load_model.h).
#include "compiler/driver/load_model.h"

namespace plastic::driver {

std::optional<model::ModelFunctions>
load_model(const std::string& file, const CommonOptions& common, int& code,
           std::function<void(std::string_view, const ir::Function&)> after_pass) {
  model::BuildOptions options{common.overrides,   common.color,           std::move(after_pass),
                              common.error_limit, common.data_quantities, common.data_name};
  model::BuildStatus status = model::BuildStatus::Ok;
  auto fns = model::build_model_functions(file, options, status);
  code = status == model::BuildStatus::Ok           ? kOk
         : status == model::BuildStatus::UsageError ? kUsageError
                                                    : kInputError;
  return fns;
}

} // namespace plastic::driver
