// One binding of a model to its data: what a trained run is, read and
// written the same way by every door — `train`, `eval`, `predict`, `plastic
// build --run`, the REPL (`load RUN_DIR`, `save`), model binaries, the
// Python module and each MPI rank.
//
// A run folder records the binding in two files, written and read together
// here: run.json (run_record.h: the model's identity, its --set values and
// element type, the data spec and fingerprint, the split, every training
// option, the rank count) and data.json (preprocessing.h: the channels the
// model read, the class names, the time scale and normalisation fitted on
// the training split, the column flags). From them follow the dims the
// model took from its data (`dim d from data.channels`), which stay the
// run's whatever data come next, and how new series are prepared
// (model_data.h, open_new_data): with the run's statistics, never re-fitted.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"
#include "runtime/app/preprocessing.h"
#include "runtime/app/requests.h"
#include "runtime/app/run_record.h"
#include "runtime/data/open_data.h"

namespace plastic::rt {

struct RunBinding {
  std::filesystem::path dir; ///< the run folder it was read from (empty before writing)
  RunRecord record;          ///< run.json
  /// data.json; absent for a folder written before it existed, or for a
  /// REPL session saved before any data was chosen.
  std::optional<Preprocessing> preparation;

  /// What `dim d from data.X` took in the run ("channels", "classes"):
  /// empty without a preparation record.
  std::map<std::string, int64_t> data_quantities() const;
  /// The run's --set values, each one in `given` replacing the run's.
  std::map<std::string, double> sets_with(const std::map<std::string, double>& given) const;
  /// "the run in DIR", for messages about its dims.
  std::string name() const;
};

/// The binding of a run about to be written: `model` compiled from
/// `request.run.model`, trained (or saved) with `request`, on `splits` as
/// open_data read them (their channels and fitted statistics). Computes the
/// data's fingerprint (reads the data files once).
Result<RunBinding, AppError> bind_run(const plastic_model& model, const TrainRequest& request,
                                      const DataSplits& splits, int ranks = 1);

/// Writes run.json, model.ode (when the source is known) and data.json into
/// `dir`, each atomically.
Status<AppError> write_binding(const std::filesystem::path& dir, const RunBinding& binding,
                               const ModelSource& source);

/// A run folder's binding; nullopt when it holds no run.json (parameters
/// copied alone, a run made before the record existed).
Result<std::optional<RunBinding>, AppError> read_binding(const std::filesystem::path& dir);

} // namespace plastic::rt
