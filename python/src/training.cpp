// What a Model computes, for Python: predict, the model's loss and its
// gradient, the VJP of the outputs, on arrays or on a PreparedBatch
// (batch.cpp), and train — `plastic train`'s whole run
// (runtime/app/train_app.h) writing a run folder whose parameters the model
// then holds. The GIL is released while the runtime works on its own threads.
#include <algorithm>
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "python/src/py_model.h"
#include "runtime/app/train_app.h"

namespace plastic::python {

namespace {

py::array_t<double> predict(PyModel& m, const py::object& x, const py::object& t,
                            const py::object& statics, bool series_alone) {
  m.ready();
  Result<std::vector<embed::Prediction>, embed::Error> out = embed::Error{};
  embed::Options options = m.options();
  options.series_alone = series_alone;
  if (const PyBatch* b = as_batch(m, x)) {
    py::gil_scoped_release release;
    out = m.model->predict(b->batch, options);
  } else {
    const std::vector<embed::Series> series = to_series(m, x, t, statics, py::none());
    py::gil_scoped_release release;
    out = m.model->predict(series, options);
  }
  if (!out) raise(out.error());
  return to_array(out.value(), m.table().n_outputs);
}

py::tuple loss_and_grad(PyModel& m, const py::object& given) {
  m.ready();
  Result<embed::Gradient, embed::Error> g = embed::Error{};
  if (const PyBatch* b = as_batch(m, given)) {
    py::gil_scoped_release release;
    g = m.model->loss_and_gradient(b->batch, m.options());
  } else {
    const py::dict batch = py::isinstance<py::dict>(given) ? given.cast<py::dict>() : py::dict();
    auto get = [&](const char* key) {
      return batch.contains(key) ? py::object(batch[key]) : py::object(py::none());
    };
    if (get("x").is_none() || get("y").is_none())
      throw Error("the batch is a PreparedBatch or a dict with 'x' [batch, time, channels], 'y' "
                  "(labels or targets), and optionally 't' and 'static'");
    const std::vector<embed::Series> series =
        to_series(m, get("x"), get("t"), get("static"), get("y"));
    py::gil_scoped_release release;
    g = m.model->loss_and_gradient(series, m.options());
  }
  if (!g) raise(g.error());
  return py::make_tuple(g.value().loss, split_parameters(m, g.value().grad));
}

py::array_t<double> output_vjp(PyModel& m, const py::object& x, const py::object& t,
                               const py::object& statics, const py::object& y_bar) {
  m.ready();
  Result<std::vector<double>, embed::Error> g = embed::Error{};
  if (const PyBatch* b = as_batch(m, x)) {
    const std::vector<double> rows = rows_of(y_bar, b->batch.row_counts(), m.table().n_outputs);
    py::gil_scoped_release release;
    g = m.model->output_vjp(b->batch, rows, m.options());
  } else {
    const std::vector<embed::Series> series = to_series(m, x, t, statics, py::none());
    const std::vector<double> rows = rows_of(y_bar, row_counts(m, series), m.table().n_outputs);
    py::gil_scoped_release release;
    g = m.model->output_vjp(series, rows, m.options());
  }
  if (!g) raise(g.error());
  return owning_array(std::move(g.value()));
}

// `plastic train FILE --data SPEC ...` on this model; options by their long names.
std::string train(PyModel& m, const std::string& data, const py::kwargs& options) {
  m.ready();
  rt::TrainRequest r;
  r.run.data = data;
  r.run.dtype = m.f64() ? "f64" : "f32";
  r.run.model = m.source;
  r.run.threads = m.threads;
  for (const auto& [name, value] : m.dims)
    r.run.dims[name] = value;
  r.progress = false;
  r.memory.gradient = m.gradient;
  for (const auto& [key, value] : options) {
    const std::string k = py::str(key);
    if (k == "epochs")
      r.epochs = value.cast<int64_t>();
    else if (k == "batch")
      r.run.batch = value.cast<int64_t>();
    else if (k == "lr")
      r.lr = value.cast<double>();
    else if (k == "optimizer")
      r.optimizer = value.cast<std::string>();
    else if (k == "schedule")
      r.schedule = value.cast<std::string>();
    else if (k == "clip")
      r.clip_norm = value.cast<double>();
    else if (k == "input_noise")
      r.input_noise = value.cast<double>();
    else if (k == "norm_penalty")
      r.norm_penalty = value.cast<double>();
    else if (k == "norm_penalty_on")
      r.norm_penalty_on = value.cast<std::string>();
    else if (k == "patience")
      r.patience = value.cast<int>();
    else if (k == "seed")
      r.run.seed = value.cast<uint64_t>();
    else if (k == "valid_fraction")
      r.run.valid_fraction = value.cast<double>();
    else if (k == "train_fraction")
      r.run.train_fraction = value.cast<double>();
    else if (k == "select")
      r.select = value.cast<std::string>();
    else if (k == "out")
      r.out = value.cast<std::string>();
    else if (k == "force")
      r.force = value.cast<bool>();
    else if (k == "resume")
      r.resume = value.cast<bool>();
    else if (k == "progress")
      r.progress = value.cast<bool>();
    else if (k == "gradient")
      r.memory.gradient = value.cast<std::string>();
    else
      throw Error(fmt::format("train: unknown option '{}' (epochs, batch, lr, optimizer, schedule, "
                              "clip, input_noise, norm_penalty, norm_penalty_on, patience, seed, "
                              "valid_fraction, train_fraction, select, out, "
                              "force, resume, "
                              "progress, gradient)",
                              k));
    // As the command line spells it (valid_fraction is --valid-fraction):
    // a resumed run tells the options given from those it recorded by it.
    std::string flag = "--" + k;
    std::replace(flag.begin(), flag.end(), '_', '-');
    r.run.given.insert(flag);
  }
  int code = 0;
  {
    py::gil_scoped_release release;
    code = rt::run_train(m.table(), r);
  }
  if (code != 0)
    throw Error(fmt::format("training failed (exit code {}): see the messages above", code));
  if (auto s = m.model->load_parameters(r.out); !s) raise(s.error());
  return r.out;
}

} // namespace

void register_training(ModelClass& model) {
  model.def("predict", &predict, py::arg("x"), py::arg("t") = py::none(),
            py::arg("static") = py::none(), py::arg("series_alone") = false,
            "outputs [batch, rows, n_outputs] for x [batch, time, channels] (NaN = missing) or a "
            "PreparedBatch; series_alone=True solves each series in a tile of its own, so an "
            "adaptive solver gives it the same outputs in any batch (`plastic predict "
            "--series-alone`)");
  model.def("loss_and_grad", &loss_and_grad, py::arg("batch"),
            "(mean loss, name -> gradient) of the model's own loss on a labelled batch: a dict "
            "{'x', 'y', 't', 'static'} or a PreparedBatch");
  model.def("output_vjp", &output_vjp, py::arg("x"), py::arg("t"), py::arg("static"),
            py::arg("y_bar"),
            "n_params: sum of y_bar . d(outputs)/d(parameters); x may be a PreparedBatch (t and "
            "static are then None)");
  model.def("train", &train, py::arg("data"),
            "`plastic train` on this model: returns the run folder, whose parameters it loads");
}

} // namespace plastic::python
