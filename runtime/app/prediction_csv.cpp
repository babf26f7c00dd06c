// The predictions CSV (see prediction_csv.h).
#include "runtime/app/prediction_csv.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

/// A CSV field: quoted when it holds a separator, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// How the outputs are read, from the model's task and the data's classes.
struct Layout {
  enum Kind { Classes, Binary, Regression } kind = Regression;
  std::vector<std::string> classes; ///< names, index = output (Classes) or label (Binary)
};

Layout layout_of(const plastic_model& m, const Dataset& d) {
  Layout l;
  if (m.task == PLASTIC_TASK_CLASSIFICATION && m.n_outputs > 1) {
    l.kind = Layout::Classes;
    for (int64_t k = 0; k < m.n_outputs; ++k)
      l.classes.push_back(static_cast<size_t>(k) < d.classes.size()
                              ? d.classes[static_cast<size_t>(k)]
                              : std::to_string(k));
  } else if (m.task == PLASTIC_TASK_BINARY && m.n_outputs == 1) {
    l.kind = Layout::Binary;
    l.classes = {d.classes.size() == 2 ? d.classes[0] : "0",
                 d.classes.size() == 2 ? d.classes[1] : "1"};
  }
  return l;
}

std::string class_name(const Layout& l, int label) {
  if (label < 0 || static_cast<size_t>(label) >= l.classes.size()) return {};
  return l.classes[static_cast<size_t>(label)];
}

/// The true target values of row `row` of a sample with `rows` readouts
/// (empty when the data has none for it).
std::vector<double> row_target(const Dataset& d, const Sample& s, size_t row, size_t rows) {
  const size_t width = d.targets.size();
  if (width == 0) return {};
  if (d.target_kind == TargetKind::Regression && row + 1 == rows && s.target.size() == width)
    return s.target;
  if (d.target_kind == TargetKind::RegressionPerStep && rows == s.length() &&
      s.target.size() == rows * width)
    return {s.target.begin() + static_cast<std::ptrdiff_t>(row * width),
            s.target.begin() + static_cast<std::ptrdiff_t>((row + 1) * width)};
  return {};
}

} // namespace

void write_prediction_header(std::ostream& out, const plastic_model& m, const Dataset& d) {
  const Layout l = layout_of(m, d);
  out << "split,sample,index,time";
  if (l.kind == Layout::Classes) {
    out << ",label,predicted";
    for (const std::string& c : l.classes)
      out << "," << field("p_" + c);
  } else if (l.kind == Layout::Binary) {
    out << ",label,predicted," << field("p_" + l.classes[1]);
  } else {
    for (const std::string& t : d.targets)
      out << "," << field("target_" + t);
  }
  for (int64_t j = 0; j < m.n_outputs; ++j)
    out << ",y" << j;
  out << "\n";
}

template <class T>
void write_prediction_rows(std::ostream& out, const plastic_model& m, const Dataset& d,
                           const std::string& split, const Predictions<T>& p) {
  const Layout l = layout_of(m, d);
  for (size_t i = 0; i < p.samples.size(); ++i) {
    const Sample& s = d.samples[static_cast<size_t>(p.samples[i])];
    const size_t rows = p.first_row[i + 1] - p.first_row[i];
    for (size_t row = p.first_row[i]; row < p.first_row[i + 1]; ++row) {
      const std::span<const T> y = p.row(row);
      out << split << "," << field(s.id) << "," << p.samples[i] << ","
          << fmt::format("{}", p.times[row]);
      if (l.kind == Layout::Classes) {
        // Softmax, shifted by the largest output so no exp overflows.
        const double top = static_cast<double>(*std::max_element(y.begin(), y.end()));
        std::vector<double> prob(y.size());
        double sum = 0;
        for (size_t k = 0; k < y.size(); ++k)
          sum += prob[k] = std::exp(static_cast<double>(y[k]) - top);
        const auto best = std::max_element(y.begin(), y.end()) - y.begin();
        out << "," << field(class_name(l, s.label)) << ","
            << field(l.classes[static_cast<size_t>(best)]);
        for (double q : prob)
          out << "," << fmt::format("{}", q / sum);
      } else if (l.kind == Layout::Binary) {
        const double q = 1 / (1 + std::exp(-static_cast<double>(y[0])));
        out << "," << field(class_name(l, s.label)) << "," << field(l.classes[q > 0.5 ? 1 : 0])
            << "," << fmt::format("{}", q);
      } else if (!d.targets.empty()) {
        const std::vector<double> t = row_target(d, s, row - p.first_row[i], rows);
        for (size_t k = 0; k < d.targets.size(); ++k)
          out << "," << (t.empty() ? std::string() : fmt::format("{}", t[k]));
      }
      for (T v : y)
        out << "," << fmt::format("{}", v);
      out << "\n";
    }
  }
}

template void write_prediction_rows<float>(std::ostream&, const plastic_model&, const Dataset&,
                                           const std::string&, const Predictions<float>&);
template void write_prediction_rows<double>(std::ostream&, const plastic_model&, const Dataset&,
                                            const std::string&, const Predictions<double>&);

} // namespace plastic::rt
