// Plastic's C++ embedding API: a compiled model inside your own program.
// Installed as <plastic/plastic.h>; link Plastic::runtime (the CMake package
// of `cmake --install`) and a model library made by `plastic_add_model` or
// `plastic build --emit-lib`.
//
//   #include <plastic/plastic.h>
//
//   auto model = plastic::embed::Model::linked();          // the linked-in table
//   if (!model) { std::cerr << model.error().message; return model.error().exit_code; }
//   if (auto s = model->load_parameters("runs/toy"); !s) ...  // a `plastic train` run folder
//   auto series = plastic::embed::read_series("new.ts");   // or fill Series yourself
//   auto out = model->predict(series.value());             // one Prediction per series
//   out.value()[0].predicted_class();
//
// Everything here is the runtime the `plastic` command and model binaries
// run — the same parameter loader (which refuses another model's run folder
// naming both hashes), the data preparation recorded by `train` in the run
// folder (time channel, normalisation with the training statistics), the
// same batched predict and evaluate, the same gradients and optimisers — so
// a prediction here equals `plastic predict`'s for the same series and
// parameters. Failures are values, plastic::Result<T, Error>, carrying the
// command line's message and exit code; nothing here throws for bad input
// (a bug in Plastic is a plastic::InternalError).
//
// A Model is not safe to use from two threads at once; predict and
// train_step use threads of their own (Options::threads).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/support/result.h"

/// The entry point of the model linked into this program (exported by the
/// object or library of `plastic build --emit-obj|--emit-lib`). Referenced
/// only when Model::linked() is called, so a program that loads models
/// with dlopen links without one.
extern "C" const plastic_model*
plastic_embed_linked_entry(void) __asm__(PLASTIC_MODEL_ENTRY_SYMBOL);

namespace plastic::embed {

/// A failure: a message a user can act on (the command line's own) and
/// the exit code the command line would end with (1 bad input, 2 usage).
struct Error {
  int exit_code = 1;
  std::string message;
  /// The message (what Result::describe() prints).
  const std::string& describe() const { return message; }
};

/// One irregularly sampled multivariate time series, as the data readers
/// produce them: observation times, and the values observed then.
struct Series {
  std::string id;              ///< a name, reported back in the Prediction
  std::vector<double> times;   ///< [n], finite and strictly increasing
  std::vector<double> values;  ///< [n][channels] row-major; NaN = not observed
  std::vector<double> statics; ///< per-series features, if the model reads some; NaN = missing
  int label = -1;              ///< class index (classification, binary); -1 = unlabelled
  std::vector<double> target;  ///< regression targets: [targets] at the end or [n][targets]
};

/// The model's outputs for one series: one row per readout (the final time,
/// or every observation for a model that reads out along the series).
struct Prediction {
  std::string id;
  std::vector<double> times;   ///< per row: the series' time of the readout
  std::vector<double> outputs; ///< rows x width, in the model's dtype converted to double
  int64_t width = 0;           ///< outputs per row (the model's n_outputs)

  size_t rows() const { return times.size(); }
  /// Argmax of the last row: the class a classification model predicts.
  int predicted_class() const;
};

/// The task's metric and loss on labelled series (as `plastic eval`).
struct Metrics {
  double loss = 0;
  double metric = 0;
  std::string metric_name; ///< accuracy | auroc | mse
  std::string note;        ///< why the metric is NaN, when it is
  int64_t samples = 0;
};

/// Threads and batch of predict, evaluate and train_step.
struct Options {
  int threads = 0; ///< 0 = every core
  /// The gradient method of loss_and_gradient, output_vjp and train_step:
  /// "" = the model's `gradient` line; direct | checkpoint | adjoint.
  std::string gradient;
  /// predict and evaluate: each series solved in a tile of its own, so an
  /// adaptive solver's steps depend on that series alone (`--series-alone`).
  bool series_alone = false;
};

/// The mean loss of a batch and its gradient (as `plastic train`'s step takes it).
struct Gradient {
  double loss = 0;
  std::vector<double> grad; ///< n_params, in the parameter table's order
};

/// One optimiser step's settings (the optimiser is made on the first step
/// and keeps its state, e.g. Adam's moments, across steps).
struct StepOptions {
  std::string optimizer = "adam"; ///< adam | adamw | sgd
  double lr = 1e-3;
};

class Model;

/// Series prepared for one model once: their control paths (spline
/// coefficients, log-signatures), observation schedules and encoded
/// targets, as `plastic train` prepares its data once for every epoch. A
/// training loop that passes a Batch (or a select() of one) to predict,
/// loss_and_gradient, output_vjp or forward skips that work at every step.
/// Copies share the prepared data. A Batch belongs to the Model that made
/// it, and only until that model's load_parameters() (which may change how
/// data is prepared): using it afterwards is an error, not a stale result.
class Batch {
public:
  /// Number of series (the selected ones, for a select()).
  size_t size() const { return samples_.size(); }
  /// Whether the series carry labels or targets (loss_and_gradient needs them).
  bool labelled() const;
  /// Output rows predict() returns for each series, in order.
  std::vector<size_t> row_counts() const;
  /// The series at `indices` (positions in this batch, repeats allowed),
  /// sharing the prepared data: a minibatch of a prepared data set.
  Result<Batch, Error> select(std::span<const int64_t> indices) const;

  struct Data; ///< the prepared series (runtime types; opaque to programs)

private:
  friend class Model;
  Batch(std::shared_ptr<const Data> data, std::vector<int64_t> samples);
  std::shared_ptr<const Data> data_;
  std::vector<int64_t> samples_; ///< indices into data_
};

/// A forward pass that keeps what the VJP of its outputs needs (made by
/// Model::forward): the outputs now, vjp() once their cotangent is known,
/// as an autograd framework runs a layer. With the direct gradient method
/// the solver's tape is kept in between, so forward + vjp solve forward
/// once; memory: the whole batch's tapes at once, up to half the memory
/// available (tiles past that are solved again by vjp(), with the same
/// result; runtime/batch/recorded_forward.h). Checkpoint and adjoint keep
/// nothing and vjp() solves again. The Model must outlive it and its
/// parameters must not change before vjp().
class Forward {
public:
  Forward(Forward&&) noexcept;
  Forward& operator=(Forward&&) noexcept;
  ~Forward();
  /// The outputs, as predict() gives them for the batch.
  const std::vector<Prediction>& predictions() const;
  /// Model::output_vjp() of the batch for `y_bar` (bitwise the same); the
  /// first call uses the kept tape, a later one solves again.
  Result<std::vector<double>, Error> vjp(std::span<const double> y_bar);

  struct State; ///< runtime types; opaque to programs

private:
  friend class Model;
  explicit Forward(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// A compiled model with its parameters.
class Model {
public:
  /// A model table: the linked-in entry's, or one from a shared object.
  /// Refuses a table of another ABI version or one that is malformed.
  static Result<Model, Error> open(const plastic_model* table);
  /// The model linked into this program (see plastic_embed_linked_entry).
  static Result<Model, Error> linked() { return open(plastic_embed_linked_entry()); }
  /// Loads a shared object holding a model (e.g. `c++ -shared model.o` of
  /// `plastic build --emit-obj`) with dlopen; it stays loaded while the
  /// Model (or a move of it) lives.
  static Result<Model, Error> load_shared(const std::string& path);

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  /// The model's name, its hash (what run folders record) and its table.
  const std::string& name() const;
  std::string hash() const;
  const plastic_model& table() const;
  /// Number of scalar parameters.
  int64_t parameter_count() const;
  /// Class names recorded by the run folder (empty when none were loaded).
  const std::vector<std::string>& classes() const;

  /// Initialises the parameters as `plastic train --seed` does.
  Status<Error> initialise(uint64_t seed = 0);
  /// Loads trained parameters: a `plastic train` run folder (its
  /// model.safetensors, and data.json: how training prepared its data, which
  /// predict then repeats) or a .safetensors file. Refuses parameters of
  /// another model, --set or dtype, naming both hashes.
  Status<Error> load_parameters(const std::string& run_dir_or_file);
  /// Writes the parameters as a .safetensors file that load_parameters(),
  /// `plastic eval --parameters` and model binaries read (tensors named as
  /// the parameter table, the model's hash in the metadata); atomically.
  Status<Error> save_parameters(const std::string& path) const;
  /// The parameters, converted to double.
  std::vector<double> parameters() const;
  /// The parameter buffer itself: n_params values of the table's dtype
  /// (float or double), zeros until initialise() or load_parameters() fills
  /// it. Its address is fixed for the Model's life (both write into it), so a
  /// caller may keep views of it (the Python module's zero-copy arrays);
  /// writes through it change the parameters predict and train_step use.
  void* parameter_data();

  /// The outputs for every series, in order. Values are prepared as in
  /// training (time channel, normalisation from the run folder).
  Result<std::vector<Prediction>, Error> predict(std::span<const Series> series,
                                                 const Options& options = {}) const;
  /// Loss and metric on labelled series.
  Result<Metrics, Error> evaluate(std::span<const Series> series,
                                  const Options& options = {}) const;
  /// The batch's mean loss and its gradient (labelled series), with the
  /// model's gradient method or options.gradient; the parameters are unchanged.
  Result<Gradient, Error> loss_and_gradient(std::span<const Series> batch,
                                            const Options& options = {}) const;
  /// The vector-Jacobian product of the outputs: `y_bar` holds a cotangent
  /// for every output of every row predict() returns for `series` (rows of
  /// all series in order, n_outputs each); returns sum over rows of
  /// y_bar . d(outputs)/d(parameters), n_params values. What an autograd
  /// framework's backward needs (runtime/batch/output_vjp.h).
  Result<std::vector<double>, Error> output_vjp(std::span<const Series> series,
                                                std::span<const double> y_bar,
                                                const Options& options = {}) const;
  /// The series prepared once for the calls below (see Batch).
  Result<Batch, Error> prepare(std::span<const Series> series, const Options& options = {}) const;
  /// Whether `batch` was prepared by this model under its current data
  /// record (the calls below refuse it otherwise).
  bool owns(const Batch& batch) const;
  /// predict, loss_and_gradient and output_vjp on prepared series: the same
  /// numbers as on the series themselves.
  Result<std::vector<Prediction>, Error> predict(const Batch& batch,
                                                 const Options& options = {}) const;
  Result<Gradient, Error> loss_and_gradient(const Batch& batch, const Options& options = {}) const;
  Result<std::vector<double>, Error> output_vjp(const Batch& batch, std::span<const double> y_bar,
                                                const Options& options = {}) const;
  /// The outputs of `batch` with what their VJP needs kept (see Forward).
  Result<Forward, Error> forward(const Batch& batch, const Options& options = {}) const;

  /// One optimiser step on `batch` (labelled series); returns the batch's
  /// mean loss before the step.
  Result<double, Error> train_step(std::span<const Series> batch, const StepOptions& step = {},
                                   const Options& options = {});

  /// The state behind a Model (runtime types; opaque to programs).
  struct Impl;

private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads every series of a data file the command line reads (a .ts, a .csv,
/// a folder of .npy series, a UEA folder: training then test file), raw —
/// neither split nor normalised — with their labels when the file has them.
Result<std::vector<Series>, Error> read_series(const std::string& path);

} // namespace plastic::embed
