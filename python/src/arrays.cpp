// NumPy arrays <-> the embedding API's plain structs: a batch of series as
// [batch, time, channels] with NaN for missing values (and NaN times past
// the end of a shorter series), predictions as [batch, rows, outputs].
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "python/src/py_model.h"

namespace plastic::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

Array as_array(const py::object& o, const char* what, int min_rank, int max_rank) {
  Array a = Array::ensure(o);
  if (!a) throw Error(fmt::format("{} is not an array of numbers", what));
  if (a.ndim() < min_rank || a.ndim() > max_rank)
    throw Error(fmt::format("{} has {} dimensions; expected {}", what, a.ndim(),
                            min_rank == max_rank ? fmt::format("{}", min_rank)
                                                 : fmt::format("{} to {}", min_rank, max_rank)));
  return a;
}

} // namespace

std::vector<embed::Series> to_series(const PyModel& model, const py::object& x_obj,
                                     const py::object& t_obj, const py::object& s_obj,
                                     const py::object& y_obj) {
  (void)model;
  const Array x = as_array(x_obj, "x", 3, 3);
  const py::ssize_t B = x.shape(0), T = x.shape(1), C = x.shape(2);
  std::optional<Array> t;
  if (!t_obj.is_none()) {
    t = as_array(t_obj, "t", 1, 2);
    const bool ok = t->ndim() == 1 ? t->shape(0) == T : (t->shape(0) == B && t->shape(1) == T);
    if (!ok)
      throw Error(fmt::format("t must be [time] or [batch, time] = [{}] or [{}, {}]", T, B, T));
  }
  std::vector<embed::Series> out(static_cast<size_t>(B));
  const double* xd = x.data();
  for (py::ssize_t b = 0; b < B; ++b) {
    embed::Series& s = out[static_cast<size_t>(b)];
    s.id = std::to_string(b);
    s.times.reserve(static_cast<size_t>(T));
    s.values.reserve(static_cast<size_t>(T * C));
    for (py::ssize_t k = 0; k < T; ++k) {
      double time = static_cast<double>(k);
      if (t) time = t->ndim() == 1 ? t->data()[k] : t->data()[b * T + k];
      if (std::isnan(time)) continue; // past the end of a shorter series
      s.times.push_back(time);
      const double* row = xd + (b * T + k) * C;
      s.values.insert(s.values.end(), row, row + C);
    }
  }
  if (!s_obj.is_none()) {
    const Array st = as_array(s_obj, "static", 2, 2);
    if (st.shape(0) != B) throw Error("static must be [batch, features]");
    for (py::ssize_t b = 0; b < B; ++b)
      out[static_cast<size_t>(b)].statics.assign(st.data() + b * st.shape(1),
                                                 st.data() + (b + 1) * st.shape(1));
  }
  if (!y_obj.is_none()) {
    const Array y = as_array(y_obj, "y", 1, 3);
    if (y.shape(0) != B) throw Error(fmt::format("y has {} rows for a batch of {}", y.shape(0), B));
    const plastic_model& m = model.table();
    const bool classes = m.task == PLASTIC_TASK_CLASSIFICATION || m.task == PLASTIC_TASK_BINARY;
    if (classes && y.ndim() != 1) throw Error("y of a classifier is [batch] class indices");
    for (py::ssize_t b = 0; b < B; ++b) {
      embed::Series& s = out[static_cast<size_t>(b)];
      if (classes) {
        s.label = static_cast<int>(y.data()[b]);
        continue;
      }
      const py::ssize_t per = y.size() / B;
      const double* first = y.data() + b * per;
      if (y.ndim() == 3) {
        // [batch, time, targets]: only the rows the series keeps.
        const py::ssize_t g = y.shape(2);
        for (py::ssize_t k = 0; k < T; ++k) {
          const double time = t ? (t->ndim() == 1 ? t->data()[k] : t->data()[b * T + k]) : 0.0;
          if (std::isnan(time)) continue;
          s.target.insert(s.target.end(), first + k * g, first + (k + 1) * g);
        }
      } else {
        s.target.assign(first, first + per);
      }
    }
  }
  return out;
}

py::array_t<double> to_array(const std::vector<embed::Prediction>& predictions, int64_t width) {
  size_t rows = 0;
  for (const embed::Prediction& p : predictions)
    rows = std::max(rows, p.rows());
  const auto B = static_cast<py::ssize_t>(predictions.size());
  py::array_t<double> out({B, static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(width)});
  double* d = out.mutable_data();
  std::fill(d, d + out.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t b = 0; b < predictions.size(); ++b)
    std::copy(predictions[b].outputs.begin(), predictions[b].outputs.end(),
              d + b * rows * static_cast<size_t>(width));
  return out;
}

std::vector<size_t> row_counts(const PyModel& model, const std::vector<embed::Series>& series) {
  std::vector<size_t> out;
  out.reserve(series.size());
  for (const embed::Series& s : series)
    out.push_back(model.table().readout == PLASTIC_READOUT_FINAL ? 1 : s.times.size());
  return out;
}

std::vector<double> rows_of(const py::object& y_bar_in, const std::vector<size_t>& counts,
                            int64_t width) {
  const Array y_bar = as_array(y_bar_in, "the output cotangent", 3, 3);
  const size_t rows = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const auto w = static_cast<size_t>(width);
  if (static_cast<size_t>(y_bar.shape(0)) != counts.size() ||
      static_cast<size_t>(y_bar.shape(1)) != rows || static_cast<size_t>(y_bar.shape(2)) != w)
    throw Error(fmt::format("the output cotangent must be [{}, {}, {}], as predict's result",
                            counts.size(), rows, w));
  std::vector<double> out;
  for (size_t b = 0; b < counts.size(); ++b) {
    const double* first = y_bar.data() + b * rows * w;
    out.insert(out.end(), first, first + counts[b] * w);
  }
  return out;
}

py::array_t<double> owning_array(std::vector<double>&& values) {
  auto* held = new std::vector<double>(std::move(values));
  const py::capsule owner(held, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(static_cast<py::ssize_t>(held->size()), held->data(), owner);
}

} // namespace plastic::python
