// Series prepared once, and forward passes kept for their VJP, for Python:
// plastic.PreparedBatch (embed::Batch: what a training loop over the same
// data reuses at every epoch — Model.prepare(x, t, static, y), indexing
// selects a minibatch sharing the prepared data) and plastic.Forward
// (embed::Forward: Model.forward(batch) returns the outputs, .vjp(y_bar)
// the parameter cotangent, without a second forward solve for the direct
// method). The GIL is released while the runtime works.
#include "python/src/py_model.h"

namespace plastic::python {

namespace {

std::vector<int64_t> positions(const PyBatch& b, const py::object& index) {
  const auto n = static_cast<py::ssize_t>(b.batch.size());
  std::vector<int64_t> out;
  if (py::isinstance<py::slice>(index)) {
    py::ssize_t start = 0, stop = 0, step = 0, length = 0;
    if (!index.cast<py::slice>().compute(n, &start, &stop, &step, &length))
      throw py::error_already_set();
    for (py::ssize_t i = 0; i < length; ++i)
      out.push_back(start + i * step);
    return out;
  }
  // A boolean mask selects where it is true, as in NumPy and torch (cast to
  // integers it would pick samples 0 and 1).
  if (const py::array any = py::array::ensure(index); any && any.dtype().kind() == 'b') {
    if (any.ndim() != 1 || any.shape(0) != n) {
      std::string shape;
      for (py::ssize_t d = 0; d < any.ndim(); ++d)
        shape += (d ? ", " : "") + std::to_string(any.shape(d));
      throw Error("a boolean mask over a PreparedBatch of " + std::to_string(n) +
                  " series has one entry per series; this one has shape [" + shape + "]");
    }
    const py::array_t<bool, py::array::c_style | py::array::forcecast> mask(any);
    for (py::ssize_t i = 0; i < n; ++i)
      if (mask.data()[i]) out.push_back(i);
    return out;
  }
  using Indices = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
  const Indices a = Indices::ensure(index);
  if (!a || a.ndim() > 1) throw Error("a PreparedBatch is indexed by a slice or integer indices");
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    const int64_t k = a.data()[i];
    out.push_back(k < 0 ? k + n : k); // negative indices count from the end, as in NumPy
  }
  return out;
}

std::shared_ptr<PyBatch> prepare(const std::shared_ptr<PyModel>& m, const py::object& x,
                                 const py::object& t, const py::object& statics,
                                 const py::object& y) {
  const std::vector<embed::Series> series = to_series(*m, x, t, statics, y);
  Result<embed::Batch, embed::Error> b = embed::Error{};
  {
    py::gil_scoped_release release;
    b = m->model->prepare(series, m->options());
  }
  if (!b) raise(b.error());
  return std::make_shared<PyBatch>(PyBatch{std::move(b.value()), m});
}

std::shared_ptr<PyForward> forward(const std::shared_ptr<PyModel>& m, const py::object& x) {
  m->ready();
  const PyBatch* b = as_batch(*m, x);
  if (!b) throw Error("Model.forward takes a PreparedBatch (Model.prepare)");
  Result<embed::Forward, embed::Error> f = embed::Error{};
  {
    py::gil_scoped_release release;
    f = m->model->forward(b->batch, m->options());
  }
  if (!f) raise(f.error());
  auto out = std::make_shared<PyForward>(PyForward{std::move(f.value()), m, {}, {}});
  out->outputs = to_array(out->forward.predictions(), m->table().n_outputs);
  for (const embed::Prediction& p : out->forward.predictions())
    out->rows.push_back(p.rows());
  return out;
}

py::array_t<double> forward_vjp(PyForward& f, const py::object& y_bar) {
  const std::vector<double> rows = rows_of(y_bar, f.rows, f.model->table().n_outputs);
  Result<std::vector<double>, embed::Error> g = embed::Error{};
  {
    py::gil_scoped_release release;
    g = f.forward.vjp(rows);
  }
  if (!g) raise(g.error());
  return owning_array(std::move(g.value()));
}

} // namespace

const PyBatch* as_batch(const PyModel& model, const py::object& x) {
  if (!py::isinstance<PyBatch>(x)) return nullptr;
  const PyBatch& b = x.cast<const PyBatch&>();
  if (b.model.get() != &model) throw Error("this PreparedBatch was prepared by another model");
  return &b;
}

void register_batches(py::module_& m, ModelClass& model) {
  py::class_<PyBatch, std::shared_ptr<PyBatch>>(
      m, "PreparedBatch",
      "Series prepared once for a model (Model.prepare); batch[indices] is a minibatch "
      "sharing the prepared data")
      .def("__len__", [](const PyBatch& b) { return b.batch.size(); })
      .def_property_readonly("labelled", [](const PyBatch& b) { return b.batch.labelled(); })
      .def_property_readonly(
          "current", [](const PyBatch& b) { return b.model->model->owns(b.batch); },
          "False once the model's load_parameters() changed how it prepares data")
      .def("__getitem__", [](const PyBatch& b, const py::object& index) {
        auto picked = b.batch.select(positions(b, index));
        if (!picked) raise(picked.error());
        return std::make_shared<PyBatch>(PyBatch{std::move(picked.value()), b.model});
      });
  py::class_<PyForward, std::shared_ptr<PyForward>>(
      m, "Forward", "A forward pass kept for the VJP of its outputs (Model.forward)")
      .def_readonly("outputs", &PyForward::outputs, "[batch, rows, n_outputs], as predict's")
      .def("vjp", &forward_vjp, py::arg("y_bar"),
           "n_params: sum of y_bar . d(outputs)/d(parameters), as Model.output_vjp");
  model.def("prepare", &prepare, py::arg("x"), py::arg("t") = py::none(),
            py::arg("static") = py::none(), py::arg("y") = py::none(),
            "the series prepared once (paths, schedules, targets) for predict, loss_and_grad, "
            "output_vjp and forward");
  model.def("forward", &forward, py::arg("batch"),
            "outputs of a PreparedBatch, keeping what their VJP needs (Forward.vjp)");
}

} // namespace plastic::python
