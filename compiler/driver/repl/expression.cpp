// Expressions and trajectories through the interpreter (see expression.h).
#include "compiler/driver/repl/expression.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/error.h"
#include "compiler/ir/traversal.h"
#include "compiler/irgen/model_to_ir.h"
#include "dsl/frontend.h"
#include "runtime/io/plot_writer.h"
#include "runtime/solvers/tableau.h"

namespace plastic::driver::repl {

namespace {

using Tensor = interp::Tensor<double>;
constexpr const char* kExprName = "__repl";

/// Everything a model function's leaves can be read from, for one sample.
struct SampleContext {
  const Session& session;
  const rt::PreparedData& data;
  const rt::PreparedSample& sample;
  std::map<std::string, Tensor> states; ///< the current state values
  double t = 0;                         ///< the current time
};

// A parameter's current value, when `leaf` names one.
std::optional<Tensor> param_value(const ir::Node* leaf, const Session& session) {
  const rt::ParamTensor* p = session.params().find(leaf->name());
  if (!p) return std::nullopt;
  const auto& theta = session.theta();
  return Tensor(leaf->shape(), std::vector<double>(theta.begin() + p->offset,
                                                   theta.begin() + p->offset + p->size()));
}

// The value of one leaf of a model function (naming: irgen/model_to_ir.h).
// Throws ir::IRError naming the leaf when the REPL cannot provide it.
Tensor leaf_value(const ir::Node* leaf, const SampleContext& c) {
  const std::string& full = leaf->name();
  const size_t at = full.find('@');
  const std::string base = full.substr(0, at);
  const std::string when = at == std::string::npos ? "" : full.substr(at + 1);
  const double t = when == "T" ? c.sample.t_end : when == "t0" ? c.sample.t0 : c.t;
  const ir::Shape& shape = leaf->shape();
  if (base == "t") return Tensor::scalar(c.t);
  if (base == "T") return Tensor::scalar(c.sample.t_end);
  if (auto it = c.states.find(base); it != c.states.end()) return it->second;
  if (auto p = param_value(leaf, c.session)) return *p;
  for (const rt::SlotPlan& slot : c.data.inputs().slots) {
    const bool value = base == slot.name, derivative = base == "d" + slot.name;
    if (!value && !derivative) continue;
    Tensor out(shape);
    if (slot.feed == rt::SlotFeed::Static) {
      for (int64_t i = 0; i < slot.channels; ++i)
        out[static_cast<size_t>(i)] = c.sample.statics[static_cast<size_t>(slot.static_first + i)];
      return out;
    }
    if (slot.feed != rt::SlotFeed::DataPath || slot.derivative != derivative) continue;
    c.sample.paths[static_cast<size_t>(slot.source)].evaluate(
        t, derivative ? rt::Quantity::derivative : rt::Quantity::value, out.data.data());
    return out;
  }
  throw ir::IRError(fmt::format("the REPL's interpreter cannot provide the input '{}' (log-"
                                "signature inputs are read by the kernels only)",
                                full));
}

std::vector<Tensor> run(const ir::Function& f, const SampleContext& c) {
  std::vector<Tensor> inputs;
  inputs.reserve(f.inputs().size());
  for (const ir::Node* leaf : f.inputs())
    inputs.push_back(leaf_value(leaf, c));
  return interp::evaluate<double>(f, inputs);
}

/// The model's states of one sample from t0 to the end, read at each
/// observation (after its jumps), by the interpreter with the model's
/// solver tableau at a fixed step.
struct Trajectory {
  std::vector<double> times;
  std::vector<std::map<std::string, Tensor>> states;
};

Trajectory solve(SampleContext& c) {
  const model::ModelFunctions& fns = c.session.current().fns;
  const dsl::CheckedModel& m = *fns.model;
  const ir::Function* field = fns.find(model::FnKind::Field);
  const ir::Function* init = fns.find(model::FnKind::Init);
  const ir::Function* jump = fns.find(model::FnKind::Jump);
  const rt::ButcherTableau* tableau = rt::find_tableau(m.solver.method);
  if (!tableau) tableau = rt::find_tableau("rk4");
  const double span = c.sample.t_end - c.sample.t0;
  const double h = !m.solver.adaptive && m.solver.step > 0 ? m.solver.step : span / 100;
  c.t = c.sample.t0;
  auto z0 = run(*init, c);
  for (size_t k = 0; k < m.states.size(); ++k)
    c.states[m.states[k].name] = z0[k];
  Trajectory out;
  auto integrate_to = [&](double t_next) {
    const double gap = t_next - c.t;
    if (gap <= 0) return;
    const int n = std::max(1, static_cast<int>(std::ceil(gap / h - 1e-9)));
    const double dt = gap / n;
    const auto s = static_cast<size_t>(tableau->stages);
    for (int step = 0; step < n; ++step) {
      const double t0 = c.t;
      const auto z = c.states;
      std::vector<std::vector<Tensor>> k(s);
      for (size_t i = 0; i < s; ++i) {
        for (size_t q = 0; q < m.states.size(); ++q) {
          Tensor zi = z.at(m.states[q].name);
          for (size_t j = 0; j < i; ++j) {
            const double a = tableau->a[i * s + j];
            if (a == 0) continue;
            for (size_t e = 0; e < zi.data.size(); ++e)
              zi.data[e] += dt * a * k[j][q].data[e];
          }
          c.states[m.states[q].name] = std::move(zi);
        }
        c.t = t0 + tableau->c[i] * dt;
        k[i] = run(*field, c);
      }
      for (size_t q = 0; q < m.states.size(); ++q) {
        Tensor next = z.at(m.states[q].name);
        for (size_t i = 0; i < s; ++i)
          for (size_t e = 0; e < next.data.size(); ++e)
            next.data[e] += dt * tableau->b[i] * k[i][q].data[e];
        c.states[m.states[q].name] = std::move(next);
      }
      c.t = t0 + dt;
    }
    c.t = t_next;
  };
  for (const rt::SampleObservation& o : c.sample.observations) {
    integrate_to(o.t);
    if (jump && o.jump) {
      auto z = run(*jump, c);
      for (size_t q = 0; q < m.states.size(); ++q)
        c.states[m.states[q].name] = z[q];
    }
    out.times.push_back(o.t + c.sample.shift);
    out.states.push_back(c.states);
  }
  integrate_to(c.sample.t_end);
  return out;
}

// "[[0.12, -0.5], [1.0, 0.25]]" with at most a few entries per axis.
std::string compact(const Tensor& x) {
  if (x.shape.empty()) return fmt::format("{:.6g}", x.data.at(0));
  std::string out;
  std::function<void(size_t, size_t, size_t)> rec = [&](size_t axis, size_t offset, size_t stride) {
    const int64_t n = x.shape[axis];
    const size_t inner = stride / static_cast<size_t>(n);
    out += "[";
    for (int64_t i = 0; i < n; ++i) {
      if (n > 8 && i == 3) {
        out += "..., ";
        i = n - 3;
      }
      const size_t at = offset + static_cast<size_t>(i) * inner;
      if (axis + 1 == x.shape.size())
        out += fmt::format("{:.4g}", x.data[at]);
      else
        rec(axis + 1, at, inner);
      if (i + 1 < n) out += axis + 1 == x.shape.size() ? ", " : ",\n" + std::string(axis + 1, ' ');
    }
    out += "]";
  };
  rec(0, 0, x.data.size());
  return out;
}

std::string shape_text(const ir::Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += fmt::format("{}{}", i ? "," : "", s[i]);
  return out + "]";
}

const rt::PreparedData* sample_split(ReplState& st, int64_t sample) {
  rt::ModelData* md = st.session.data();
  if (!md) return nullptr;
  const rt::PreparedData* p = md->split(st.split).prepared;
  if (!p) {
    std::cerr << fmt::format("plastic: the {} split is empty (`set split` chooses another)\n",
                             st.split);
    return nullptr;
  }
  if (sample < 0 || static_cast<size_t>(sample) >= p->size()) {
    std::cerr << fmt::format("plastic: sample {}: the {} split has samples 0..{}\n", sample,
                             st.split, p->size() - 1);
    return nullptr;
  }
  return p;
}

int plot_trajectory(const Trajectory& tr, const dsl::CheckedModel& m, const std::string& png) {
  auto plot = rt::PlotWriter::open(png);
  if (!plot) {
    std::cerr << "plastic: " << plot.error().describe() << "\n";
    return kInputError;
  }
  rt::PlotWriter& w = plot.value();
  const std::filesystem::path data = w.beside(".dat");
  std::string rows;
  size_t columns = 0;
  for (size_t r = 0; r < tr.times.size(); ++r) {
    rows += fmt::format("{}", tr.times[r]);
    columns = 0;
    for (const auto& s : m.states)
      for (double v : tr.states[r].at(s.name).data)
        rows += fmt::format(" {}", v), ++columns;
    rows += '\n';
  }
  if (auto s = w.write(data, rows); !s) {
    std::cerr << "plastic: " << s.describe() << "\n";
    return kInputError;
  }
  const size_t shown = std::min<size_t>(columns, 16);
  std::string plots;
  for (size_t k = 0; k < shown; ++k)
    plots += fmt::format("{}{} using 1:{} with lines notitle", k ? ", " : "",
                         rt::gnuplot_quote(data.string()), k + 2);
  const std::string script =
      fmt::format("set terminal pngcairo size 960,540\nset output {}\nset xlabel 't'\n"
                  "set title 'states of {} ({} of {} components)' noenhanced\nplot {}\n",
                  rt::gnuplot_quote(w.png().string()), m.name, shown, columns, plots);
  if (auto done = w.render(script); !done) {
    std::cerr << "plastic: " << done.error().describe() << "\n";
    return kInputError;
  }
  std::cout << fmt::format("plotted {} state components to {}\n", shown, png);
  return kOk;
}

} // namespace

int evaluate_expression(ReplState& st, const std::string& expr) {
  Session& s = st.session;
  // The expression is checked as one more final output of the model, so it
  // sees every name and the front end's diagnostics point into it.
  const std::string prefix = s.source() +
                             (s.source().empty() || s.source().back() == '\n' ? "" : "\n") +
                             fmt::format("output {} = ", kExprName);
  const std::string text = prefix + expr + "\n";
  dsl::DiagnosticEngine diag;
  dsl::CheckResult checked = dsl::check_source("<expression>", text, {s.overrides(), {}, {}}, diag);
  if (!checked.model) {
    // Only the errors (the model's own warnings were shown when it loaded),
    // pointing into the expression as typed rather than into the model text.
    auto typed = std::make_shared<dsl::SourceFile>("<expression>", expr);
    for (dsl::Diagnostic d : diag.all()) {
      if (d.severity != dsl::Severity::Error) continue;
      if (d.span.valid() && d.span.begin >= prefix.size())
        d.span = {typed.get(), static_cast<uint32_t>(d.span.begin - prefix.size()),
                  static_cast<uint32_t>(std::min<size_t>(d.span.end - prefix.size(), expr.size()))};
      dsl::DiagnosticEngine::render_one(std::cerr, d, s.common.color);
    }
    const std::string head = expr.substr(0, expr.find(' '));
    std::vector<std::string> names;
    for (const Command& command : commands())
      names.emplace_back(command.name);
    if (std::string near = dsl::closest_name(head, names); !near.empty())
      std::cerr << fmt::format("plastic: did you mean the command '{}'? (`help` lists them)\n",
                               near);
    return kInputError;
  }
  ir::Context ctx;
  try {
    irgen::ModelIR lowered = irgen::model_to_ir(*checked.model, ctx);
    if (!lowered.final_outputs || !lowered.final_outputs->output(kExprName)) {
      std::cerr << "plastic: the expression cannot be read at the final time\n";
      return kInputError;
    }
    // Only the inputs the expression reaches: a parameter expression needs
    // no sample, and only one reading a state needs a solve.
    const ir::Function& outputs = *lowered.final_outputs;
    const std::vector<const ir::Node*> roots = {outputs.output(kExprName)};
    std::vector<const ir::Node*> leaves;
    for (const ir::Node* n : ir::topo_order(roots))
      if (std::find(outputs.inputs().begin(), outputs.inputs().end(), n) != outputs.inputs().end())
        leaves.push_back(n);
    bool reads_data = false, reads_state = false;
    for (const ir::Node* leaf : leaves) {
      reads_data |= s.params().find(leaf->name()) == nullptr;
      reads_state |= s.current().fns.model->find_state(leaf->name()) != nullptr;
    }
    std::optional<SampleContext> c;
    if (reads_data) {
      const rt::PreparedData* p = sample_split(st, st.sample);
      if (!p) return kInputError;
      c.emplace(SampleContext{s, *p, p->sample(static_cast<size_t>(st.sample)), {}, 0});
      c->t = c->sample.t_end;
      if (reads_state) (void)solve(*c);
    }
    std::unordered_map<const ir::Node*, Tensor> values;
    for (const ir::Node* leaf : leaves)
      values[leaf] = reads_data ? leaf_value(leaf, *c) : *param_value(leaf, s);
    const Tensor result = interp::evaluate_nodes<double>(roots, values).at(0);
    std::cout << shape_text(result.shape) << " " << expr;
    if (reads_data) std::cout << fmt::format(" (sample {} of the {} split)", st.sample, st.split);
    std::cout << "\n";
    std::cout << compact(result) << "\n";
  } catch (const ir::IRError& e) {
    std::cerr << fmt::format("plastic: {}\n", e.what());
    return kInputError;
  }
  return kOk;
}

int print_trajectory(ReplState& st, int64_t sample, const std::string& plot) {
  const rt::PreparedData* p = sample_split(st, sample);
  if (!p) return kInputError;
  const dsl::CheckedModel& m = *st.session.current().fns.model;
  SampleContext c{st.session, *p, p->sample(static_cast<size_t>(sample)), {}, 0};
  Trajectory tr;
  try {
    tr = solve(c);
  } catch (const ir::IRError& e) {
    std::cerr << fmt::format("plastic: {}\n", e.what());
    return kInputError;
  }
  std::cout << fmt::format("sample {} of the {} split ({}): {} observations, {} (interpreter)\n",
                           sample, st.split, p->id(static_cast<size_t>(sample)), tr.times.size(),
                           m.solver.method);
  const size_t rows = tr.times.size();
  for (size_t r = 0; r < rows; ++r) {
    if (rows > 12 && r == 5) {
      std::cout << fmt::format("  ... {} observations ...\n", rows - 10);
      r = rows - 5;
    }
    std::string line = fmt::format("  t {:<8.4g}", tr.times[r]);
    for (const auto& s : m.states)
      line += fmt::format(" {} {}", s.name, compact(tr.states[r].at(s.name)));
    std::cout << line << "\n";
  }
  if (!plot.empty()) return plot_trajectory(tr, m, plot);
  return kOk;
}

} // namespace plastic::driver::repl
