// Learning-curve plots through gnuplot (behaviour in plot.h).
#include "runtime/io/plot.h"

#include <cmath>

#include <fmt/format.h>

#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace fs = std::filesystem;

namespace {

std::string value(double x) {
  return std::isfinite(x) ? fmt::format("{:.10g}", x) : "NaN";
}

bool any_finite(const std::vector<EpochRecord>& r, double EpochRecord::* field) {
  for (const EpochRecord& e : r)
    if (std::isfinite(e.*field)) return true;
  return false;
}

std::string script_text(const std::vector<EpochRecord>& r, const fs::path& png,
                        const fs::path& data_file, const PlotOptions& o) {
  const std::string metric = r.empty() ? "metric" : r.back().metric_name;
  std::string s =
      fmt::format("# Learning curve written by Plastic. Render again with: gnuplot {}\n"
                  "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{\n"
                  "  set terminal pngcairo size {},{} font 'sans,10'\n"
                  "}} else {{\n"
                  "  set terminal png size {},{}\n"
                  "}}\n"
                  "set output {}\n"
                  "set title {} noenhanced\n"
                  "set datafile missing 'NaN'\n"
                  "set xlabel 'epoch'\nset ylabel 'loss'\n"
                  "set grid\nset key below horizontal noenhanced\nset bmargin 5\n"
                  "set ytics nomirror\n",
                  gnuplot_quote(fs::path(png).replace_extension(".gp").string()), o.width, o.height,
                  o.width, o.height, gnuplot_quote(png.string()), gnuplot_quote(o.title));
  if (o.log_loss) s += "set logscale y\n";
  std::vector<std::string> curves;
  const std::string data = gnuplot_quote(data_file.string());
  if (any_finite(r, &EpochRecord::train_loss))
    curves.push_back(
        fmt::format("{} using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'train loss'", data));
  if (any_finite(r, &EpochRecord::valid_loss))
    curves.push_back(
        fmt::format("{} using 1:3 with linespoints pt 7 ps 0.5 lw 2 title 'valid loss'", data));
  if (any_finite(r, &EpochRecord::valid_metric)) {
    s += fmt::format("set y2label {} noenhanced\nset y2tics\n", gnuplot_quote("valid " + metric));
    curves.push_back(
        fmt::format("{} using 1:4 axes x1y2 with linespoints pt 7 ps 0.5 lw 2 dt 1 title {}", data,
                    gnuplot_quote("valid " + metric)));
  }
  // The best epoch: as given, else the highest metric, else the lowest valid loss.
  int64_t best = o.best_epoch;
  double best_v = NAN;
  for (const EpochRecord& e : o.best_epoch >= 0 ? std::vector<EpochRecord>{} : r) {
    const bool by_metric = any_finite(r, &EpochRecord::valid_metric);
    const double v = by_metric ? e.valid_metric : e.valid_loss;
    if (std::isfinite(v) && (best < 0 || (by_metric ? v > best_v : v < best_v))) {
      best = e.epoch;
      best_v = v;
    }
  }
  if (best >= 0)
    s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lc rgb 'gray40'\n"
                     "set label 'best' at {0}, graph 0.97 right offset -0.5,0 tc rgb 'gray40'\n",
                     best);
  if (curves.empty())
    curves.push_back(fmt::format("{} using 1:2 with points title 'no data'", data));
  s += "plot " + fmt::format("{}", fmt::join(curves, ", \\\n     ")) + "\n";
  return s;
}

} // namespace

Result<PlotFiles, TrainError> plot_learning_curve(const std::vector<EpochRecord>& records,
                                                  const fs::path& png, const PlotOptions& options) {
  Result<PlotWriter, TrainError> plot = PlotWriter::open(png);
  if (!plot) return plot.error();
  PlotWriter& w = plot.value();
  const fs::path data_file = w.beside(".dat");
  std::string data = "# epoch train_loss valid_loss valid_metric lr\n";
  for (const EpochRecord& r : records)
    data += fmt::format("{} {} {} {} {}\n", r.epoch, value(r.train_loss), value(r.valid_loss),
                        value(r.valid_metric), value(r.lr));
  if (Status<TrainError> s = w.write(data_file, data); !s) return s.error();
  return w.render(script_text(records, w.png(), data_file, options), options.gnuplot);
}

} // namespace plastic::rt
