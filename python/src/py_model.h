// The Python module `plastic._plastic` (pybind11): what its C++ files share.
//
// One file per job: errors.cpp (plastic.Error), model.cpp (the Model object:
// compile, load, parameters as arrays, init, load/save), arrays.cpp (NumPy
// arrays <-> the embedding API's Series and Predictions), batch.cpp
// (PreparedBatch and Forward: series prepared once, a forward pass kept for
// its VJP), training.cpp (loss_and_grad, output_vjp, predict, train). Everything numerical is the
// embedding API (runtime/embed/plastic.h) and the compiler's own entry
// points; this layer only converts.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "compiler/backend/background_model.h"
#include "runtime/app/requests.h"
#include "runtime/embed/plastic.h"

namespace plastic::python {

namespace py = pybind11;

/// Raised as plastic.Error: a user's mistake with the message the command
/// line would print (a model error with its file:line:col and caret).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws Error with the embedding API's message.
[[noreturn]] void raise(const embed::Error& e);

/// A compiled model with its parameters, as Python sees it.
struct PyModel {
  /// The JIT's compilation, running on other threads from the moment
  /// compile() returns (null for a model loaded from a shared object); the
  /// table `model` drives is its table, so it lives as long.
  std::shared_ptr<backend::BackgroundModel> compiling;
  std::optional<embed::Model> model;
  rt::ModelSource source; ///< the model as written (empty when loaded)
  std::map<std::string, double> dims;
  int threads = 0;      ///< 0 = every core
  std::string gradient; ///< "" = the model's; direct | checkpoint | adjoint

  const plastic_model& table() const { return model->table(); }
  /// Waits for the compilation; its failure (the model or the target) is an
  /// Error. Every method that calls a kernel calls this first.
  void ready();
  bool f64() const { return table().dtype == PLASTIC_F64; }
  embed::Options options() const { return {threads, gradient, false}; }
};

using ModelClass = py::class_<PyModel, std::shared_ptr<PyModel>>;

/// plastic.PreparedBatch: series prepared once for a model (embed::Batch),
/// holding the model so that the batch cannot outlive it.
struct PyBatch {
  embed::Batch batch;
  std::shared_ptr<PyModel> model;
};

/// plastic.Forward: a forward pass whose VJP comes later (embed::Forward).
struct PyForward {
  embed::Forward forward;
  std::shared_ptr<PyModel> model;
  std::vector<size_t> rows; ///< output rows of each series
  py::array_t<double> outputs;
};

void register_errors(py::module_& m);
/// The Model class with its parameters, and compile / load_shared.
ModelClass register_model(py::module_& m);
/// predict, loss_and_grad, output_vjp and train on `model`.
void register_training(ModelClass& model);
/// PreparedBatch and Forward, and Model.prepare / Model.forward.
void register_batches(py::module_& m, ModelClass& model);

/// `x` is a PreparedBatch of `model` (else null); a batch of another model is an Error.
const PyBatch* as_batch(const PyModel& model, const py::object& x);

/// Series from arrays: x [batch, time, channels] (NaN = missing), t None,
/// [time] or [batch, time] (NaN past a series' end), statics [batch, n] or
/// None, y None, class labels [batch] or targets [batch, targets] /
/// [batch, time, targets] (NaN = none).
std::vector<embed::Series> to_series(const PyModel& model, const py::object& x, const py::object& t,
                                     const py::object& statics, const py::object& y);

/// Predictions as one array [batch, rows, n_outputs] (rows: 1 for a final
/// readout, the series' times for a per-observation one; NaN-padded when
/// series have unequal rows).
py::array_t<double> to_array(const std::vector<embed::Prediction>& predictions, int64_t width);

/// Output rows predict() gives each series: 1 for a final readout, one per
/// observation time otherwise.
std::vector<size_t> row_counts(const PyModel& model, const std::vector<embed::Series>& series);

/// Rows of an array shaped as to_array's result, flattened in predict()'s row
/// order (the padding rows left out).
std::vector<double> rows_of(const py::object& y_bar, const std::vector<size_t>& rows,
                            int64_t width);

/// A view of n_params values of the model's buffer split per parameter:
/// name -> array sharing the buffer, kept alive through `owner`.
py::dict parameter_views(PyModel& model, const py::object& owner);

/// A flat n_params vector split per parameter into new arrays of the model's dtype.
py::dict split_parameters(const PyModel& model, const std::vector<double>& flat);

/// A vector as a 1-D array that owns it (no copy of the values).
py::array_t<double> owning_array(std::vector<double>&& values);

} // namespace plastic::python
