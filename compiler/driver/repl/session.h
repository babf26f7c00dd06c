// The state of one REPL session: the model (its source as edited so far,
// the --set overrides and the element type), the compiled specialisations
// used so far, the parameters and optimiser state that carry over from one
// specialisation to the next, the data, and the training options.
//
// Every change to the model (a file loaded, a dim set, a statement typed)
// builds a candidate: its source goes through the real front end and, when
// it checks, is compiled (or found in the cache, keyed by a hash of source,
// overrides, element type and tile width). Only a candidate that compiled
// replaces the current model, so an error leaves the previous working model
// loaded. Parameters whose name and shape survive a recompile keep their
// values (and their optimiser moments); the others are initialised as the
// model file says, and the session says which.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/backend/compiled_model.h"
#include "compiler/driver/commands.h"
#include "compiler/model/model_functions.h"
#include "runtime/app/model_data.h"
#include "runtime/io/param_table.h"
#include "runtime/train/optimizer.h"

namespace plastic::driver::repl {

/// One compiled specialisation of a model: its IR functions and JIT kernels.
struct Specialisation {
  uint64_t hash = 0;
  std::string source; ///< the model text it was built from
  std::map<std::string, double> overrides;
  std::string dtype; ///< "f32" | "f64"
  model::ModelFunctions fns;
  backend::CompiledModel compiled;
  nlohmann::json dims = nlohmann::json::object();
  double seconds = 0; ///< front end + IR + LLVM
};

/// Options of `train`, `eval`, `predict` that the user sets with `set`.
struct TrainSettings {
  int64_t batch = 32;
  double lr = 1e-3;
  std::string optimizer = "adam"; ///< adam | adamw | sgd
  double weight_decay = -1;       ///< < 0: the optimiser's default
  double clip = 0;                ///< gradient clipping by global norm; 0 = off
  double norm_penalty = 0;        ///< λ Σ ‖θ_g‖ over every tensor in the loss; 0 = off
  uint64_t seed = 0;
  int threads = 0;
  /// LLVM's optimisation level for new specialisations (0..3): lower
  /// compiles faster and runs slower (bench/repl_latency.sh measures both).
  int opt_level = 3;
};

class Session {
public:
  explicit Session(CommonOptions common);

  // ---- the model ----------------------------------------------------------

  /// Reads and compiles `file`; on success it becomes the session's model
  /// (its overrides are kept when the new model has those names).
  bool load(const std::string& file);
  /// Opens a run folder of `plastic train` (or of `save`) as the run made
  /// it: its model.ode with the run's --set values and element type, its
  /// trained parameters, its data, and the channels, classes and statistics
  /// it recorded (data.json) — the binding every door shares. Data given
  /// afterwards (`data SPEC`) are new series for the trained model: read
  /// whole and prepared with those statistics, never re-fitted.
  bool load_run(const std::string& dir);
  /// Reads the current file again (a change on disk).
  bool reload();
  /// Replaces (or adds) one statement of the source.
  bool edit_statement(const std::string& statement);
  /// Overrides a dim or const (`--set name=value`).
  bool set_override(const std::string& name, double value);
  /// Changes the element type of the kernels: "f32" | "f64".
  bool set_dtype(const std::string& dtype);
  /// Restores the source the file holds on disk, dropping typed statements.
  bool revert();

  bool has_model() const { return current_ != nullptr; }
  const Specialisation& current() const { return *current_; }
  const plastic_model& table() const { return current_->compiled.table(); }
  /// The table with its gradient kernels in: a new specialisation returns
  /// once the kernels that predict are loaded and compiles the gradient
  /// kernels in the background (the REPL is back at the prompt sooner);
  /// training waits here for them. Null, having said why, when their
  /// compilation failed.
  const plastic_model* trainable_table();
  const std::string& file() const { return file_; }
  const std::string& source() const { return source_; }
  bool edited() const { return source_ != disk_source_; }
  const std::map<std::string, double>& overrides() const { return overrides_; }
  /// The current model as a run records it (run_record.h): its file, its
  /// text as edited, the text printed back and the --set values.
  rt::ModelSource model_source() const;
  const std::string& dtype() const { return dtype_; }
  /// The file's modification time when it was read (0 if unknown).
  int64_t file_mtime() const { return file_mtime_; }
  /// Modification time of the file on disk now (0 if unreadable).
  int64_t disk_mtime() const;

  /// Compiled specialisations kept (most recently used first) and how many are allowed.
  size_t cached() const { return cache_.size(); }
  static constexpr size_t kCacheCapacity = 8;
  /// Whether the last successful model change was found in the cache.
  bool last_was_cache_hit() const { return last_hit_; }
  /// How long the last successful model change took: wall-clock and the
  /// process's CPU time (they differ on a machine busy with other work).
  struct ChangeTime {
    double wall = 0, cpu = 0; ///< seconds
  };
  ChangeTime last_change() const { return last_change_; }

  // ---- parameters and optimiser state -------------------------------------

  const rt::ParamTable& params() const { return params_; }
  std::vector<double>& theta() { return theta_; }
  const std::vector<double>& theta() const { return theta_; }
  /// The optimiser's state after the last training (absent before any).
  std::optional<rt::OptimizerState<double>>& optimizer_state() { return optimizer_; }
  /// Initialises every parameter again (seed from the settings) and forgets the optimiser.
  void reset_parameters();
  /// Epochs trained in this session (they seed each train call's shuffling).
  int64_t epochs_done = 0;

  // ---- data ---------------------------------------------------------------

  /// Sets the data spec (any `--data`); opened lazily for the current model.
  /// A model whose dims come from the data (`dim d from data.channels`) is
  /// compiled again for the new data's; false when that fails.
  bool set_data(const std::string& spec, const std::string& valid = "");
  const std::string& data_spec() const { return data_spec_; }
  /// The data prepared for the current model; prints why not and returns
  /// null when there is none or it cannot be opened.
  rt::ModelData* data();

  TrainSettings settings;
  CommonOptions common;
  /// The run options of the settings, the data and the current model.
  rt::RunOptions run_options() const;

private:
  std::shared_ptr<Specialisation> build(const std::string& source,
                                        const std::map<std::string, double>& overrides,
                                        const std::string& dtype);
  /// Makes `spec` current; with `carry`, parameters that kept their name
  /// and shape (and their optimiser moments) carry over, else all start
  /// from the initialisation (another model file).
  bool adopt(std::shared_ptr<Specialisation> spec, bool carry = true);
  /// load() without leaving an opened run (load_run uses it).
  bool load_source(const std::string& file);
  std::string source_name() const;
  /// What `dim d from data.X` takes in `source` from the session's data, as
  /// `plastic train` resolves it (empty without data, or when the model
  /// takes no dim from them; the `else` values then apply).
  std::map<std::string, int64_t> data_quantities_for(const std::string& source);

  std::string file_, source_, disk_source_;
  int64_t file_mtime_ = 0;
  std::map<std::string, double> overrides_;
  std::string dtype_ = "f32";
  std::shared_ptr<Specialisation> current_;
  std::list<std::shared_ptr<Specialisation>> cache_; ///< most recently used first
  bool last_hit_ = false;
  std::chrono::steady_clock::time_point change_start_; ///< when the last model change began
  std::clock_t change_cpu_start_ = 0;
  ChangeTime last_change_;

  rt::ParamTable params_;
  std::vector<double> theta_;
  std::optional<rt::OptimizerState<double>> optimizer_;

  std::string data_spec_, valid_spec_;
  std::optional<rt::ModelData> data_;
  std::shared_ptr<Specialisation> data_for_; ///< the specialisation data_ was prepared for
  /// The preparation of the run opened with load_run and the data it was
  /// trained on (absent for a model loaded from its file).
  std::optional<rt::Preprocessing> recorded_;
  std::string recorded_data_;
  int recorded_lanes_ = 0; ///< the opened run's samples per tile (0: none or unrecorded)
  /// data_quantities_for's last answer and the data spec it is for.
  std::optional<std::pair<std::string, std::map<std::string, int64_t>>> quantities_;
};

} // namespace plastic::driver::repl
