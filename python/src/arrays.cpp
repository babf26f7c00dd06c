// NumPy arrays <-> the embedding API's plain structs: a batch of series as
// [batch, time, channels] with NaN for missing values (and NaN times past
// the end of a shorter series), predictions as [batch, rows, outputs].
#include <algorithm>
#include <cmath>
#include <functional>
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

// Class labels: integers in [0, classes), each one checked (a fraction
// would be truncated to another class, a NaN to anything).
void add_labels(const plastic_model& m, const Array& y, std::vector<embed::Series>& out) {
  if (y.ndim() != 1) throw Error("y of a classifier is [batch] class indices");
  const int64_t classes = m.task == PLASTIC_TASK_BINARY ? 2 : m.n_targets;
  for (size_t b = 0; b < out.size(); ++b) {
    const double v = y.data()[b];
    if (!(v >= 0 && v < static_cast<double>(classes)) || v != std::floor(v))
      throw Error(
          fmt::format("y[{}] = {}: a class index is an integer in 0..{}", b, v, classes - 1));
    out[b].label = static_cast<int>(v);
  }
}

void add_targets(const PyModel& model, const py::object& y_obj, py::ssize_t T,
                 const std::function<double(py::ssize_t, py::ssize_t)>& time_of,
                 std::vector<embed::Series>& out) {
  const auto B = static_cast<py::ssize_t>(out.size());
  const Array y = as_array(y_obj, "y", 1, 3);
  if (y.shape(0) != B) throw Error(fmt::format("y has {} rows for a batch of {}", y.shape(0), B));
  const plastic_model& m = model.table();
  if (m.task == PLASTIC_TASK_CLASSIFICATION || m.task == PLASTIC_TASK_BINARY)
    return add_labels(m, y, out);
  // Regression: [batch, targets] (or [batch] for one) at the final time, or
  // [batch, time, targets] per observation (or [batch, time] for one target)
  // — every shape checked in full, so no row is read past its end.
  const py::ssize_t g = m.n_targets;
  const bool final_only = m.readout == PLASTIC_READOUT_FINAL;
  const bool per_step = y.ndim() == 3 || (y.ndim() == 2 && !final_only && g == 1);
  const std::string want = final_only
                               ? fmt::format("[{}, {}] (the final time's targets)", B, g)
                               : fmt::format("[{}, {}, {}] (targets per observation)", B, T, g);
  const bool fits = per_step ? y.shape(1) == T && (y.ndim() == 2 || y.shape(2) == g)
                             : (y.ndim() == 1 ? g == 1 : y.shape(1) == g);
  if (!fits || per_step == final_only) {
    std::string shape;
    for (py::ssize_t d = 0; d < y.ndim(); ++d)
      shape += fmt::format("{}{}", d ? ", " : "", y.shape(d));
    throw Error(fmt::format("y has shape [{}]; this model's targets are {}", shape, want));
  }
  const py::ssize_t per = y.size() / B;
  for (py::ssize_t b = 0; b < B; ++b) {
    embed::Series& s = out[static_cast<size_t>(b)];
    const double* first = y.data() + b * per;
    if (!per_step) {
      s.target.assign(first, first + per);
      continue;
    }
    for (py::ssize_t k = 0; k < T; ++k) // only the rows the series keeps
      if (!std::isnan(time_of(b, k)))
        s.target.insert(s.target.end(), first + k * g, first + (k + 1) * g);
  }
}

} // namespace

std::vector<embed::Series> to_series(const PyModel& model, const py::object& x_obj,
                                     const py::object& t_obj, const py::object& s_obj,
                                     const py::object& y_obj) {
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
  // Whether row k of series b is an observation time: a NaN time is past
  // the end of a shorter series; with the default t, so are the trailing
  // rows whose every channel is NaN (NaN padding), as `plastic predict`
  // reads such a series at its own length.
  auto observed = [&](py::ssize_t b, py::ssize_t k) {
    const double* row = xd + (b * T + k) * C;
    return std::any_of(row, row + C, [](double v) { return !std::isnan(v); });
  };
  std::vector<py::ssize_t> length(static_cast<size_t>(B), T);
  if (!t)
    for (py::ssize_t b = 0; b < B; ++b)
      while (length[b] > 0 && !observed(b, length[b] - 1))
        --length[b];
  auto time_of = [&](py::ssize_t b, py::ssize_t k) {
    if (!t) return k < length[b] ? static_cast<double>(k) : std::nan("");
    return t->ndim() == 1 ? t->data()[k] : t->data()[b * T + k];
  };
  for (py::ssize_t b = 0; b < B; ++b) {
    embed::Series& s = out[static_cast<size_t>(b)];
    s.id = std::to_string(b);
    s.times.reserve(static_cast<size_t>(T));
    s.values.reserve(static_cast<size_t>(T * C));
    bool any = false;
    for (py::ssize_t k = 0; k < T; ++k) {
      const double time = time_of(b, k);
      if (std::isnan(time)) continue; // past the end of a shorter series
      s.times.push_back(time);
      const double* row = xd + (b * T + k) * C;
      s.values.insert(s.values.end(), row, row + C);
      any = any || observed(b, k);
    }
    // A series of nothing would be predicted from the initial state alone.
    if (!any && C > 0)
      throw Error(fmt::format("x[{}] holds no observed value (every entry is NaN)", b));
  }
  if (!s_obj.is_none()) {
    const Array st = as_array(s_obj, "static", 2, 2);
    if (st.shape(0) != B) throw Error("static must be [batch, features]");
    for (py::ssize_t b = 0; b < B; ++b)
      out[static_cast<size_t>(b)].statics.assign(st.data() + b * st.shape(1),
                                                 st.data() + (b + 1) * st.shape(1));
  }
  if (!y_obj.is_none()) add_targets(model, y_obj, T, time_of, out);
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
