// What `dim d from data.X` takes (see data_dims.h).
#include "compiler/driver/data_dims.h"

#include "runtime/app/data_flags.h"
#include "runtime/app/model_data.h"

namespace plastic::driver {

std::optional<std::pair<std::map<std::string, int64_t>, std::string>>
data_quantities_for(const std::optional<rt::RunBinding>& binding, const std::string& recorded_run,
                    const rt::RunOptions& run) {
  if (binding && binding->preparation)
    return std::pair{binding->data_quantities(), binding->name()};
  rt::RunOptions as_recorded = run;
  if (!recorded_run.empty())
    (void)rt::recall_data_flags(recorded_run, rt::RecordedFlags::Reuse, as_recorded.data_flags);
  auto q = rt::data_quantities(as_recorded);
  if (!q) return std::nullopt;
  return std::pair{std::move(q.value()), run.data};
}

} // namespace plastic::driver
