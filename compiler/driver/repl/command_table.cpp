// The REPL's command table and the meaning of a typed line (see command_table.h).
#include "compiler/driver/repl/command_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <new>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#include "compiler/driver/emit.h"
#include "compiler/driver/repl/actions.h"
#include "compiler/driver/repl/expression.h"
#include "compiler/driver/repl/source_edit.h"
#include "dsl/check.h"

namespace plastic::driver::repl {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0';
}

bool parse_count(const std::string& text, int64_t& out) {
  double v = 0;
  if (!parse_number(text, v) || v != static_cast<double>(static_cast<int64_t>(v))) return false;
  out = static_cast<int64_t>(v);
  return true;
}

int usage(const std::string& command, const std::string& why) {
  std::cerr << fmt::format("plastic: {}: {}\n", command, why);
  return kUsageError;
}

bool need_model(const ReplState& st) {
  if (st.session.has_model()) return true;
  std::cerr << "plastic: load a model first (load FILE)\n";
  return false;
}

int ok(bool success) {
  return success ? kOk : kInputError;
}

// The process's resident set (/proc/self/statm), for `info`.
double resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// What live allocations hold (every malloc arena and mmap'd block). Unlike
// the resident set it does not grow when another arena takes a thread, which
// a loaded machine makes happen at random.
double heap_in_use_mib() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / 1048576.0;
}

// ---- the commands ----------------------------------------------------------

int cmd_help(ReplState& st, const std::string& args);

int cmd_load(ReplState& st, const std::string& args) {
  if (args.empty()) return usage("load", "which file? (load FILE, or load RUN_DIR)");
  std::error_code ec;
  if (std::filesystem::is_directory(args, ec)) return ok(st.session.load_run(args));
  return ok(st.session.load(args));
}

int cmd_reload(ReplState& st, const std::string&) {
  return ok(st.session.reload());
}

int cmd_revert(ReplState& st, const std::string&) {
  return ok(st.session.revert());
}

int cmd_watch(ReplState& st, const std::string& args) {
  if (args == "off")
    st.watch = false;
  else if (args.empty() || args == "on")
    st.watch = true;
  else
    return usage("watch", "expected on or off");
  std::cout << fmt::format("watching {}: {}\n",
                           st.session.file().empty() ? "no file" : st.session.file(),
                           st.watch ? "on (reloads when saved)" : "off");
  return kOk;
}

int cmd_show(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  std::cout << st.session.source();
  if (!st.session.source().empty() && st.session.source().back() != '\n') std::cout << "\n";
  return kOk;
}

int cmd_info(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  const Session& s = st.session;
  const plastic_model& m = s.table();
  const dsl::CheckedModel& cm = *s.current().fns.model;
  std::string dims;
  for (const auto& d : cm.dims)
    dims += fmt::format("{}{}={}", dims.empty() ? "" : ", ", d.name, d.value);
  std::cout << fmt::format("model     {} ({}{})\n", m.name, s.file().empty() ? "<repl>" : s.file(),
                           s.edited() ? ", edited: `show` prints it" : "");
  std::cout << fmt::format("dims      {}\n", dims);
  std::cout << fmt::format("solver    {}\n", cm.solver.method);
  std::cout << fmt::format("kernels   {} x {} lanes, {} parameters, state {}\n", s.dtype(), m.lanes,
                           m.n_params, m.n_state);
  std::cout << fmt::format("data      {}\n", s.data_spec().empty() ? "none" : s.data_spec());
  const TrainSettings& t = s.settings;
  std::cout << fmt::format("training  batch {}, {} lr {}, clip {}, seed {}, {} epochs so far\n",
                           t.batch, t.optimizer, t.lr, t.clip, t.seed, s.epochs_done);
  std::cout << fmt::format(
      "cache     {} of {} specialisations; the last change took {:.3f} s "
      "({:.3f} s CPU, {})\n",
      s.cached(), Session::kCacheCapacity, s.last_change().wall, s.last_change().cpu,
      s.last_was_cache_hit() ? "a cache hit"
      : s.current().compiled.llvm_stats().cached == s.current().compiled.llvm_stats().kernels
          ? "kernels linked from the disk cache"
          : "compiled");
  const auto& llvm = s.current().compiled.llvm_stats();
  std::cout << fmt::format("compile   {:.0f} ms in all: loop IR {:.0f} ms, {}\n",
                           s.current().seconds * 1e3, s.current().compiled.assemble_ms(),
                           backend::describe(llvm));
  std::cout << fmt::format("memory    {:.1f} MiB resident, {:.1f} MiB in live allocations\n",
                           resident_mib(), heap_in_use_mib());
  return kOk;
}

int cmd_dtype(ReplState& st, const std::string& args) {
  if (args != "f32" && args != "f64") return usage("dtype", "expected f32 or f64");
  return ok(st.session.set_dtype(args));
}

int cmd_data(ReplState& st, const std::string& args) {
  auto w = words(args);
  if (w.empty()) {
    std::cout << fmt::format("data: {}\n",
                             st.session.data_spec().empty() ? "none" : st.session.data_spec());
    return kOk;
  }
  if (w.size() != 1 && !(w.size() == 3 && w[1] == "valid"))
    return usage("data", "expected SPEC [valid SPEC]");
  if (!st.session.set_data(w[0], w.size() == 3 ? w[2] : "")) return kInputError;
  if (!st.session.has_model()) return kOk;
  return ok(st.session.data() != nullptr);
}

// `set` options: name, what it holds, and how to apply it.
struct Setting {
  const char* name;
  const char* help;
};
const Setting kSettings[] = {
    {"batch", "samples per optimiser step (recompiles for another tile width when needed)"},
    {"lr", "learning rate"},
    {"optimizer", "adam, adamw or sgd"},
    {"weight_decay", "the optimiser's weight decay (default: its own)"},
    {"clip", "gradient clipping by global norm (0 = off)"},
    {"norm_penalty", "adds LAMBDA x the sum of the parameter tensors' norms to the loss (0 = off)"},
    {"seed", "initialisation, splits and shuffling"},
    {"threads", "worker threads (0 = every core)"},
    {"opt", "LLVM optimisation level 0-3 of later compiles (default 3; lower compiles faster)"},
    {"split", "the split predict, trajectory and expressions read"},
    {"sample", "the sample predict, trajectory and expressions read"},
};

int cmd_set(ReplState& st, const std::string& args) {
  TrainSettings& t = st.session.settings;
  auto w = words(args);
  if (w.empty()) {
    std::cout << fmt::format("batch {}  lr {}  optimizer {}  weight_decay {}  clip {}  "
                             "norm_penalty {}  seed {}  threads {}  split {}  sample {}\n",
                             t.batch, t.lr, t.optimizer,
                             t.weight_decay < 0 ? "default" : fmt::format("{}", t.weight_decay),
                             t.clip, t.norm_penalty, t.seed, t.threads, st.split, st.sample);
    return kOk;
  }
  if (w.size() != 2) return usage("set", "expected set OPTION VALUE (`help set` lists them)");
  const std::string& name = w[0];
  const std::string& value = w[1];
  double v = 0;
  int64_t n = 0;
  if (name == "optimizer") {
    if (value != "adam" && value != "adamw" && value != "sgd")
      return usage("set optimizer", "expected adam, adamw or sgd");
    t.optimizer = value;
  } else if (name == "split") {
    if (value != "train" && value != "validation" && value != "test")
      return usage("set split", "expected train, validation or test");
    st.split = value;
  } else if (name == "opt") {
    if (!parse_count(value, n) || n < 0 || n > 3) return usage("set opt", "expected 0, 1, 2 or 3");
    t.opt_level = static_cast<int>(n);
  } else if (name == "batch" || name == "seed" || name == "threads" || name == "sample") {
    if (!parse_count(value, n) || n < 0 || (name == "batch" && n == 0))
      return usage("set " + name, fmt::format("'{}' is not a count", value));
    if (name == "batch") t.batch = n;
    if (name == "seed") t.seed = static_cast<uint64_t>(n);
    if (name == "threads") t.threads = static_cast<int>(n);
    if (name == "sample") st.sample = n;
    if (name == "seed") (void)st.session.set_data(st.session.data_spec()); // splits follow the seed
  } else if (name == "lr" || name == "weight_decay" || name == "clip" || name == "norm_penalty") {
    if (!parse_number(value, v) || !std::isfinite(v) || v < 0)
      return usage("set " + name, fmt::format("'{}' is not a finite non-negative number", value));
    if (name == "lr") t.lr = v;
    if (name == "weight_decay") t.weight_decay = v;
    if (name == "clip") t.clip = v;
    if (name == "norm_penalty") t.norm_penalty = v;
  } else {
    return usage("set", fmt::format("no option '{}' (`help set` lists them)", name));
  }
  return kOk;
}

int cmd_train(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  int64_t count = 1;
  bool steps = false;
  if (!w.empty() && !parse_count(w[0], count))
    return usage("train", "expected train [N] [epochs|steps]");
  if (w.size() > 1) {
    if (w[1] == "steps" || w[1] == "step")
      steps = true;
    else if (w[1] != "epochs" && w[1] != "epoch")
      return usage("train", "expected train [N] [epochs|steps]");
  }
  return ok(train(st.session, count, steps));
}

int cmd_eval(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  std::string split = "validation", label;
  if (!w.empty() && w[0] != "as") split = w[0];
  const size_t as = w.empty() || w[0] == "as" ? 0 : 1;
  if (w.size() == as + 2 && w[as] == "as")
    label = w[as + 1];
  else if (w.size() != as)
    return usage("eval", "expected eval [SPLIT] [as LABEL]");
  auto e = evaluate(st.session, split);
  if (!e) return kInputError;
  if (!label.empty())
    st.results.push_back({label, split, e->metric_name,
                          st.session.current().fns.model->solver.method, e->metric, e->loss,
                          st.session.epochs_done, st.session.table().n_params});
  return kOk;
}

int cmd_results(ReplState& st, const std::string&) {
  if (st.results.empty()) {
    std::cout << "no results yet: `eval SPLIT as LABEL` keeps one\n";
    return kOk;
  }
  std::cout << fmt::format("{:<14} {:<11} {:>10} {:>10} {:>7} {:>11}  {}\n", "label", "split",
                           st.results[0].metric_name, "loss", "epochs", "parameters", "solver");
  for (const ReplState::Result& r : st.results)
    std::cout << fmt::format("{:<14} {:<11} {:>10.4f} {:>10.4f} {:>7} {:>11}  {}\n", r.label,
                             r.split, r.metric, r.loss, r.epochs, r.parameters, r.solver);
  return kOk;
}

int cmd_predict(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  // predict SPLIT to FILE.csv [alone]: every sample, as `plastic predict`
  // writes them (alone: each in a tile of its own, as --series-alone).
  if ((w.size() == 3 || (w.size() == 4 && w[3] == "alone")) && w[1] == "to")
    return ok(predict_to_csv(st.session, w[0], w[2], w.size() == 4));
  int64_t sample = st.sample;
  if (!w.empty() && !parse_count(w[0], sample))
    return usage("predict",
                 "expected predict [SAMPLE] [SPLIT], or predict SPLIT to FILE.csv [alone]");
  return ok(predict_sample(st.session, w.size() > 1 ? w[1] : st.split, sample));
}

int cmd_params(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  print_parameters(st.session);
  return kOk;
}

int cmd_reset(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  st.session.reset_parameters();
  std::cout << fmt::format("parameters initialised again (seed {}); optimiser state cleared\n",
                           st.session.settings.seed);
  return kOk;
}

int cmd_emit(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  const Session& s = st.session;
  if (args == "ast") return emit_ast("model", s.source(), s.common, std::cout);
  if (args == "loops" || args == "llvm" || args == "llvm-opt")
    return emit_kernels(s.current().fns, args == "loops" ? "loops" : "llvm", args == "llvm-opt",
                        s.dtype(), std::cout);
  if (args == "cpp" || args == "cpp-header")
    return emit_kernels(s.current().fns, args, false, s.dtype(), std::cout,
                        s.file().empty() ? "model.ode" : s.file(), s.source());
  if (args == "ir" || args == "grad-ir" || args == "step-ir" || args == "stats")
    return emit_functions(s.current().fns, args, std::cout);
  std::string stages;
  for (const char* stage : kEmitStages)
    stages += fmt::format("{}{}", stages.empty() ? "" : ", ", stage);
  return usage("emit", fmt::format("which stage? {}", stages));
}

int cmd_gradcheck(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  return gradcheck_model(st.session.current().fns, 1e-6, 1, std::cout) ? kOk : kInputError;
}

int cmd_time(ReplState& st, const std::string&) {
  if (!need_model(st)) return kInputError;
  return ok(time_step(st.session));
}

int cmd_stability(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  if (!(w.empty() || (w.size() == 2 && w[0] == "plot")))
    return usage("stability", "stability [plot FILE.png]");
  return ok(stability(st.session, w.empty() ? std::string() : w[1]));
}

int cmd_trajectory(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  int64_t sample = st.sample;
  size_t at = 0;
  if (!w.empty() && parse_count(w[0], sample)) at = 1;
  std::string plot;
  if (w.size() == at + 2 && w[at] == "plot")
    plot = w[at + 1];
  else if (w.size() != at)
    return usage("trajectory", "expected trajectory [SAMPLE] [plot FILE.png]");
  return print_trajectory(st, sample, plot);
}

int cmd_print(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  if (args.empty()) return usage("print", "which expression?");
  return evaluate_expression(st, args);
}

int cmd_save(ReplState& st, const std::string& args) {
  if (!need_model(st)) return kInputError;
  auto w = words(args);
  const bool force = std::erase(w, std::string("--force")) > 0;
  if (w.size() != 1) return usage("save", "expected save DIR [--force]");
  return ok(save_run(st.session, w[0], force));
}

int cmd_quit(ReplState& st, const std::string&) {
  st.quit = true;
  return kOk;
}

const std::vector<Command> kCommands = {
    {"help", "[COMMAND]", "this list, or one command's help", ArgKind::Command, cmd_help},
    {"load", "FILE|RUN_DIR",
     "load (and compile) a model file, or a trained run folder with its parameters and data",
     ArgKind::File, cmd_load},
    {"reload", "", "read the model file again", ArgKind::None, cmd_reload},
    {"watch", "[on|off]", "reload the model file whenever it is saved", ArgKind::OnOff, cmd_watch},
    {"revert", "", "drop typed statements: back to the file's text", ArgKind::None, cmd_revert},
    {"show", "", "print the model's source as edited so far", ArgKind::None, cmd_show},
    {"info", "", "model, dims, solver, dtype, data, training options", ArgKind::None, cmd_info},
    {"dtype", "f32|f64", "element type of the kernels (recompiles)", ArgKind::None, cmd_dtype},
    {"data", "SPEC [valid SPEC]", "choose the data: any --data spec (synthetic:flipflop, a folder)",
     ArgKind::File, cmd_data},
    {"set", "[OPTION VALUE]",
     "training options: batch, lr, optimizer, weight_decay, clip, norm_penalty, seed, "
     "threads, split, sample",
     ArgKind::Setting, cmd_set},
    {"train", "[N] [epochs|steps]", "train N epochs (or steps); Ctrl-C stops and keeps the state",
     ArgKind::None, cmd_train},
    {"eval", "[SPLIT] [as LABEL]",
     "loss and metric on a split (default validation); `as LABEL` keeps it for `results`",
     ArgKind::Split, cmd_eval},
    {"results", "", "the table of evaluations kept with `eval ... as LABEL`", ArgKind::None,
     cmd_results},
    {"predict", "[SAMPLE] [SPLIT] | SPLIT to FILE.csv [alone]",
     "the outputs of one sample beside its targets; or every sample of a split (all: every "
     "one) written as `plastic predict` writes them (alone: as with --series-alone)",
     ArgKind::None, cmd_predict},
    {"trajectory", "[SAMPLE] [plot FILE.png]",
     "the states of one sample at its observations (interpreter), optionally plotted",
     ArgKind::None, cmd_trajectory},
    {"print", "EXPR", "evaluate an expression on the current sample (also: type it bare)",
     ArgKind::Name, cmd_print},
    {"params", "", "the parameter table with norms", ArgKind::None, cmd_params},
    {"reset", "", "initialise the parameters again, forget the optimiser", ArgKind::None,
     cmd_reset},
    {"emit", "STAGE", "a stage: ast, ir, grad-ir, step-ir, stats, loops, llvm, llvm-opt",
     ArgKind::Stage, cmd_emit},
    {"gradcheck", "", "every symbolic VJP against finite differences", ArgKind::None,
     cmd_gradcheck},
    {"time", "", "one training step timed (as bench-train)", ArgKind::None, cmd_time},
    {"stability", "[plot FILE.png]", "Jacobian eigenvalues against the solver's stability region",
     ArgKind::None, cmd_stability},
    {"save", "DIR [--force]",
     "write a run folder `plastic eval` reads (--force replaces a run already there)",
     ArgKind::File, cmd_save},
    {"quit", "", "leave (Ctrl-D too)", ArgKind::None, cmd_quit},
};

int cmd_help(ReplState&, const std::string& args) {
  for (const Command& c : kCommands)
    if (args == c.name) {
      std::cout << fmt::format("{} {}\n  {}\n", c.name, c.args, c.help);
      if (args == "set")
        for (const Setting& s : kSettings)
          std::cout << fmt::format("  {:<13} {}\n", s.name, s.help);
      return kOk;
    }
  if (!args.empty()) return usage("help", fmt::format("no command '{}'", args));
  for (const Command& c : kCommands)
    std::cout << fmt::format("  {:<34} {}\n", fmt::format("{} {}", c.name, c.args), c.help);
  std::cout << "Model changes (each recompiles only what changed; parameters keep their values "
               "where name and shape stay):\n"
               "  NAME = VALUE                       a dim or const, as --set\n"
               "  rk4 step 0.5, dopri5 rtol 1e-6     the solver (a `solve` statement)\n"
               "  flow W' = ..., gradient adjoint    any statement: replaces the one of that "
               "name\n"
               "Anything else is an expression in the model's language, evaluated on the\n"
               "current parameters and sample: softmax(Wk @ dx(0)), W(T), h0(x(t0)).\n";
  return kOk;
}

// ---- what a typed line means -----------------------------------------------

const Command* find_command(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  if (name == "exit") return find_command("quit");
  if (name == "?") return find_command("help");
  return nullptr;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// `N = 32` or `dim N = 32`: a dim override. Returns false when `entry` is not one.
bool as_override(const std::string& entry, std::string& name, double& value) {
  std::string text = entry;
  for (const char* keyword : {"dim ", "const "})
    if (text.rfind(keyword, 0) == 0) text = trim(text.substr(std::string(keyword).size()));
  size_t eq = text.find('=');
  if (eq == std::string::npos) return false;
  name = trim(text.substr(0, eq));
  return is_identifier(name) && parse_number(trim(text.substr(eq + 1)), value);
}

} // namespace

const std::vector<Command>& commands() {
  return kCommands;
}

namespace {

int execute_entry(ReplState& st, const std::string& typed) {
  const std::string entry = trim(typed);
  if (entry.empty() || entry[0] == '#') return kOk;
  const std::string head = words(entry)[0];
  if (const Command* c = find_command(head)) return c->run(st, trim(entry.substr(head.size())));
  std::string name;
  double value = 0;
  if (as_override(entry, name, value)) {
    if (!need_model(st)) return kInputError;
    return ok(st.session.set_override(name, value));
  }
  auto solvers = dsl::solver_names();
  if (std::find(solvers.begin(), solvers.end(), head) != solvers.end()) {
    if (!need_model(st)) return kInputError;
    return ok(st.session.edit_statement("solve " + entry));
  }
  if (statement_key(entry)) {
    if (!need_model(st)) return kInputError;
    return ok(st.session.edit_statement(entry));
  }
  if (!st.session.has_model()) {
    std::cerr << fmt::format("plastic: unknown command '{}' (`help` lists them)\n", head);
    return kUsageError;
  }
  return evaluate_expression(st, entry);
}

} // namespace

int execute(ReplState& st, const std::string& typed) {
  // The memory floor refuses the sizes it can foresee; anything else that
  // runs out of memory ends this entry, never the session and its state.
  try {
    return execute_entry(st, typed);
  } catch (const std::bad_alloc&) {
    std::cerr << fmt::format("plastic: out of memory running `{}`; the session continues as it "
                             "was (lower the dims or the batch)\n",
                             trim(typed));
    return kInputError;
  }
}

namespace {

// Adds the names an expression can use: the model's dims, parameters, states
// and inputs (none before a model is loaded).
void add_model_names(const ReplState& st, std::vector<std::string>& out) {
  if (!st.session.has_model()) return;
  const dsl::CheckedModel& m = *st.session.current().fns.model;
  for (const auto& d : m.dims)
    out.push_back(d.name);
  for (const auto& p : st.session.params().tensors())
    out.push_back(p.name);
  for (const auto& s : m.states)
    out.push_back(s.name);
  for (const auto& i : m.inputs)
    out.push_back(i.name);
}

// Adds the files and folders that the path being typed, `prefix`, can go on
// to, shown as the user wrote the folder (no `./` unless typed).
void add_files(const std::string& prefix, std::vector<std::string>& out) {
  namespace fs = std::filesystem;
  fs::path dir = prefix.find('/') == std::string::npos
                     ? fs::path(".")
                     : fs::path(prefix.substr(0, prefix.rfind('/') + 1));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string shown = (dir == "." && prefix.rfind("./", 0) != 0)
                            ? e.path().filename().string()
                            : (dir / e.path().filename()).string();
    if (e.is_directory(ec)) shown += "/";
    out.push_back(shown);
  }
}

// What a line's first word can be: a command, a statement's keyword, a
// solver (`rk4 step 0.5`) or a name starting an expression.
std::vector<std::string> first_words(const ReplState& st) {
  std::vector<std::string> out;
  out.reserve(kCommands.size());
  for (const Command& c : kCommands)
    out.emplace_back(c.name);
  for (const std::string& k : statement_keywords())
    out.push_back(k);
  for (const std::string& s : dsl::solver_names())
    out.push_back(s);
  add_model_names(st, out);
  return out;
}

// What follows a first word that is no command: a solver after `solve`, a
// gradient method after `gradient`, else a name of the model.
std::vector<std::string> statement_words(const ReplState& st,
                                         const std::vector<std::string>& before) {
  if (before[0] == "solve" && before.size() == 1) return dsl::solver_names();
  if (before[0] == "gradient" && before.size() == 1) return dsl::gradient_methods();
  std::vector<std::string> out;
  add_model_names(st, out);
  return out;
}

// A command's later arguments (past the first, when that is no name or
// file): only `set optimizer` and `set split` have a known set of values.
std::vector<std::string> later_arguments(const std::vector<std::string>& before) {
  if (before[0] == "set" && before[1] == "optimizer") return {"adam", "adamw", "sgd"};
  if (before[0] == "set" && before[1] == "split") return {"train", "validation", "test"};
  return {};
}

// What a command's argument of kind `kind` can be; the word being typed
// starts at `word_start` in `line`.
std::vector<std::string> command_arguments(const ReplState& st, ArgKind kind,
                                           const std::string& line, size_t word_start) {
  std::vector<std::string> out;
  switch (kind) {
  case ArgKind::File:
    add_files(line.substr(word_start), out);
    break;
  case ArgKind::Command:
    for (const Command& k : kCommands)
      out.emplace_back(k.name);
    break;
  case ArgKind::Stage:
    for (const char* s : kEmitStages)
      out.emplace_back(s);
    break;
  case ArgKind::Split:
    out = {"train", "validation", "test"};
    break;
  case ArgKind::Setting:
    for (const Setting& s : kSettings)
      out.emplace_back(s.name);
    break;
  case ArgKind::Name:
    add_model_names(st, out);
    break;
  case ArgKind::Solver:
    out = dsl::solver_names();
    break;
  case ArgKind::OnOff:
    out = {"on", "off"};
    break;
  case ArgKind::None:
    break;
  }
  return out;
}

} // namespace

std::vector<std::string> complete(const ReplState& st, const std::string& line, size_t word_start) {
  const auto before = words(line.substr(0, word_start));
  if (before.empty()) return first_words(st);
  const Command* c = find_command(before[0]);
  if (!c) return statement_words(st, before);
  if (before.size() > 1 && c->complete != ArgKind::Name && c->complete != ArgKind::File)
    return later_arguments(before);
  return command_arguments(st, c->complete, line, word_start);
}

} // namespace plastic::driver::repl
