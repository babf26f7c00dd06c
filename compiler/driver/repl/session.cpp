// The REPL's session state (see session.h).
#include "compiler/driver/repl/session.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "compiler/driver/memory_floor.h"
#include "compiler/driver/repl/source_edit.h"
#include "compiler/driver/run_compiled.h"
#include "compiler/loops/elem_type.h"
#include "dsl/ast_printer.h"
#include "dsl/frontend.h"
#include "dsl/parser.h"
#include "runtime/app/binding.h"
#include "runtime/app/parameters.h"
#include "runtime/init/init.h"

namespace plastic::driver::repl {

namespace {

// FNV-1a over the pieces that make a specialisation.
uint64_t fnv1a(std::string_view text, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The source as the parser reads it, printed back: edits that change only
// spacing or comments (or retype a statement as it was) key the same
// specialisation. Text that does not parse keys as itself.
std::string canonical_source(const std::string& text) {
  dsl::DiagnosticEngine diag;
  auto file = std::make_shared<dsl::SourceFile>("<key>", text);
  dsl::Module m = dsl::parse(file, diag, false);
  return diag.has_errors() ? text : dsl::print_module(m);
}

uint64_t specialisation_hash(const std::string& source, const std::map<std::string, double>& dims,
                             const std::string& dtype, int lanes) {
  std::string key = canonical_source(source);
  key += '\0';
  for (const auto& [name, value] : dims)
    key += fmt::format("{}={:.17g};", name, value);
  key += fmt::format("|dtype={}|lanes={}", dtype, lanes);
  return fnv1a(key);
}

int64_t mtime_of(const std::string& file) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(file, ec);
  if (ec) return 0;
  return static_cast<int64_t>(t.time_since_epoch().count());
}

std::string shape_of(const rt::ParamTensor& t) {
  return rt::shape_string(t.shape);
}

// The model file's initialisation, done in the model's element type (the
// initialisers refuse another) and widened to the session's doubles.
Status<rt::TrainError> initialise(const plastic_model& m, std::vector<double>& theta,
                                  uint64_t seed) {
  theta.assign(static_cast<size_t>(m.n_params), 0.0);
  if (m.dtype == PLASTIC_F64) {
    auto r = rt::initialise_parameters<double>(m, std::span<double>(theta), seed);
    return r ? Status<rt::TrainError>{} : Status<rt::TrainError>{r.error()};
  }
  std::vector<float> narrow(theta.size());
  auto r = rt::initialise_parameters<float>(m, std::span<float>(narrow), seed);
  if (!r) return r.error();
  std::copy(narrow.begin(), narrow.end(), theta.begin());
  return {};
}

} // namespace

Session::Session(CommonOptions common_options) : common(std::move(common_options)) {
  overrides_ = common.overrides;
}

std::string Session::source_name() const {
  return file_.empty() ? std::string("<repl>") : file_;
}

int64_t Session::disk_mtime() const {
  return file_.empty() ? 0 : mtime_of(file_);
}

std::shared_ptr<Specialisation> Session::build(const std::string& source,
                                               const std::map<std::string, double>& overrides,
                                               const std::string& dtype) {
  change_start_ = std::chrono::steady_clock::now();
  change_cpu_start_ = std::clock();
  const loops::ElemType type = loops::elem_type(dtype);
  // An opened run's lane count (it orders the sums), else this machine's.
  const int lanes = recorded_lanes_ > 0 && !std::getenv("PLASTIC_LANES")
                        ? recorded_lanes_
                        : tile_lanes(type, settings.batch);
  // The front end first (milliseconds): its errors end the change, and the
  // dims it resolves key the cache, so `d_head = 20` finds the model the
  // file compiled with d_head = 20 without an override.
  dsl::DiagnosticEngine diag;
  // Diagnostics name the file; once typed statements changed the text,
  // lines may differ from the file on disk, so the name says so.
  const std::string name = source == disk_source_ ? source_name() : source_name() + " (edited)";
  dsl::CheckResult checked =
      dsl::check_source(name, source, {overrides, data_quantities_for(source), data_spec_}, diag);
  diag.render(std::cerr, common.color);
  if (!checked.model) return nullptr;
  std::map<std::string, double> dims;
  for (const auto& d : checked.model->dims)
    dims[d.name] = d.value;
  const uint64_t hash =
      specialisation_hash(source, dims, fmt::format("{} O{}", dtype, settings.opt_level), lanes);
  for (auto it = cache_.begin(); it != cache_.end(); ++it)
    if ((*it)->hash == hash) {
      auto spec = *it;
      cache_.erase(it);
      cache_.push_front(spec);
      last_hit_ = true;
      return spec;
    }
  // A dim set far too large is refused here, as `plastic train` refuses it,
  // in milliseconds and with the dim that fits, not by bad_alloc.
  {
    dsl::DiagnosticEngine floor;
    const StepSetting setting{dtype, settings.batch, settings.threads, lanes, 1};
    if (!check_memory_floor(*checked.model, memory_setting(setting), common.memory_limit, floor,
                            source == disk_source_ && !file_.empty() ? file_ : name,
                            {overrides, data_quantities_for(source), data_spec_})) {
      floor.render(std::cerr, common.color);
      return nullptr;
    }
  }
  auto start = std::chrono::steady_clock::now();
  model::BuildOptions options{overrides, common.color, {}, 20, {}, {}};
  model::BuildStatus status = model::BuildStatus::Ok;
  auto fns = model::build_checked(std::move(checked), options, status);
  if (!fns) return nullptr;
  auto spec = std::make_shared<Specialisation>();
  spec->hash = hash;
  spec->source = source;
  spec->overrides = overrides;
  spec->dtype = dtype;
  for (const auto& [dim, value] : dims)
    spec->dims[dim] = value;
  try {
    backend::CompileOptions compile_options;
    compile_options.opt_level = settings.opt_level;
    spec->compiled = backend::compile_model(*fns, type, lanes, compile_options,
                                            backend::LoadOrder::PredictFirst);
  } catch (const abi::LayoutError& e) {
    std::cerr << fmt::format("plastic: {}: {}\n", name, e.what());
    return nullptr;
  }
  spec->fns = std::move(*fns);
  spec->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cache_.push_front(spec);
  // Dropping a specialisation frees its machine code (compiled_model.h), so
  // a bounded cache keeps a long session's memory flat.
  while (cache_.size() > kCacheCapacity)
    cache_.pop_back();
  last_hit_ = false;
  return spec;
}

const plastic_model* Session::trainable_table() {
  backend::CompiledModel& compiled = current_->compiled;
  if (!compiled.all_loaded()) {
    const auto start = std::chrono::steady_clock::now();
    try {
      compiled.wait_for_rest();
    } catch (const std::exception& e) {
      std::cerr << fmt::format("plastic: compiling the gradient kernels of {}: {}\n", table().name,
                               e.what());
      return nullptr;
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > 0.05)
      std::cout << fmt::format("gradient kernels ready (waited {:.2f} s)\n", waited);
  }
  return &table();
}

bool Session::adopt(std::shared_ptr<Specialisation> spec, bool carry) {
  const plastic_model& m = spec->compiled.table();
  auto table = rt::ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table) {
    std::cerr << fmt::format("plastic: internal error (a bug): {}\n", table.error().describe());
    return false;
  }
  std::vector<double> fresh;
  if (auto init = initialise(m, fresh, settings.seed); !init) {
    std::cerr << fmt::format("plastic: initialising {}: {}\n", m.name, init.describe());
    return false;
  }
  // Carry over every parameter that kept its name and shape, and its
  // optimiser moments with it.
  std::vector<std::string> reinitialised;
  std::optional<rt::OptimizerState<double>> moved;
  if (optimizer_ && carry) {
    moved = rt::OptimizerState<double>{optimizer_->kind, optimizer_->step, optimizer_->hyper, {}};
    for (const auto& [name, buffer] : optimizer_->buffers)
      moved->buffers.emplace_back(name, std::vector<double>(fresh.size(), 0.0));
  }
  const bool had_params = current_ != nullptr && carry;
  for (const rt::ParamTensor& t : table.value().tensors()) {
    const rt::ParamTensor* old = had_params ? params_.find(t.name) : nullptr;
    if (!old || old->shape != t.shape) {
      if (had_params) reinitialised.push_back(fmt::format("{} {}", t.name, shape_of(t)));
      continue;
    }
    auto copy = [&](const std::vector<double>& from, std::vector<double>& to) {
      std::copy_n(from.begin() + old->offset, t.size(), to.begin() + t.offset);
    };
    copy(theta_, fresh);
    if (moved)
      for (size_t b = 0; b < moved->buffers.size(); ++b)
        copy(optimizer_->buffers[b].second, moved->buffers[b].second);
  }
  current_ = std::move(spec);
  params_ = std::move(table).value();
  theta_ = std::move(fresh);
  optimizer_ = std::move(moved);
  // The whole change as the user waits for it: front end, IR, LLVM (or the
  // cache look-up) and the parameters carried over.
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - change_start_).count();
  last_change_ = {seconds, static_cast<double>(std::clock() - change_cpu_start_) / CLOCKS_PER_SEC};
  const backend::CompileStats& llvm = current_->compiled.llvm_stats();
  std::string how = last_hit_ ? fmt::format("from the cache in {:.1f} ms", seconds * 1e3)
                    : llvm.kernels > 0 && llvm.cached == llvm.kernels
                        ? fmt::format("linked from the kernel cache in {:.2f} s", seconds)
                        : fmt::format("compiled in {:.2f} s", seconds);
  if (!current_->compiled.all_loaded()) how += " (gradient kernels: compiling in the background)";
  std::cout << fmt::format("model {}: {} parameters, state {}, {} x {} lanes, {}\n", m.name,
                           m.n_params, m.n_state, dtype_, m.lanes, how);
  if (!reinitialised.empty()) {
    std::string list;
    for (const std::string& r : reinitialised)
      list += (list.empty() ? "" : ", ") + r;
    std::cout << fmt::format("re-initialised {} of {} parameters: {}\n", reinitialised.size(),
                             params_.tensors().size(), list);
  } else if (had_params) {
    std::cout << "all parameters carried over\n";
  }
  return true;
}

bool Session::load(const std::string& file) {
  if (file == file_ || !recorded_) return load_source(file);
  // Another model file leaves the opened run: its statistics are not this model's.
  auto recorded = std::move(recorded_);
  const int recorded_lanes = recorded_lanes_;
  recorded_.reset();
  recorded_lanes_ = 0;
  quantities_.reset();
  data_.reset();
  if (load_source(file)) return true;
  recorded_ = std::move(recorded);
  recorded_lanes_ = recorded_lanes;
  return false;
}

bool Session::load_source(const std::string& file) {
  std::string text;
  if (std::string why; !dsl::read_file(file, text, &why)) {
    std::cerr << fmt::format("plastic: cannot read '{}': {}\n", file, why);
    return false;
  }
  const std::string old_file = file_, old_disk = disk_source_;
  // Another model starts without the previous one's overrides: their names
  // may mean nothing in it (the command line's --set apply to the first).
  auto overrides = file == file_ || file_.empty() ? overrides_ : std::map<std::string, double>{};
  file_ = file;
  disk_source_ = text;
  // Another file is another model: a parameter that happens to share a
  // name and shape with the previous model's is not carried into it.
  auto spec = build(text, overrides, dtype_);
  if (!spec || !adopt(spec, file == old_file)) {
    file_ = old_file;
    disk_source_ = old_disk;
    return false;
  }
  overrides_ = overrides;
  source_ = text;
  file_mtime_ = mtime_of(file);
  return true;
}

bool Session::load_run(const std::string& dir) {
  auto binding = rt::read_binding(dir);
  if (!binding) {
    std::cerr << fmt::format("plastic: {}\n", binding.error().message);
    return false;
  }
  const std::filesystem::path source = std::filesystem::path(dir) / "model.ode";
  if (!binding.value() || !std::filesystem::is_regular_file(source)) {
    std::cerr << fmt::format("plastic: {} is not a run folder of `plastic train` (it needs "
                             "run.json and model.ode)\n",
                             dir);
    return false;
  }
  const rt::RunRecord& run = binding.value()->record;
  // The run's binding first: its --set values, element type, recorded dims
  // and data, so that the model compiles as the run compiled it.
  const auto saved =
      std::tuple{overrides_, dtype_, recorded_, recorded_data_, data_spec_, recorded_lanes_};
  overrides_ = run.sets;
  dtype_ = run.dtype;
  recorded_ = binding.value()->preparation;
  recorded_data_ = run.data;
  recorded_lanes_ = run.lanes;
  data_spec_ = run.data;
  data_.reset();
  quantities_.reset();
  file_.clear(); // another model: nothing carries over
  auto restore = [&] {
    std::tie(overrides_, dtype_, recorded_, recorded_data_, data_spec_, recorded_lanes_) = saved;
    return false;
  };
  if (!load_source(source.string())) return restore();
  std::vector<double> theta;
  Status<rt::AppError> loaded = {};
  if (table().dtype == PLASTIC_F64) {
    loaded = rt::load_parameters<double>(table(), dir, theta);
  } else {
    std::vector<float> narrow;
    loaded = rt::load_parameters<float>(table(), dir, narrow);
    theta.assign(narrow.begin(), narrow.end());
  }
  if (!loaded) {
    std::cerr << fmt::format("plastic: {}\n", loaded.error().message);
    return restore();
  }
  theta_ = std::move(theta);
  optimizer_.reset();
  settings.batch = run.train.run.batch;
  settings.seed = run.train.run.seed;
  std::cout << fmt::format("run {}: {}{} {}, trained parameters, data {}\n", dir, source.string(),
                           run.sets.empty() ? "" : " " + rt::describe_sets(run.sets), dtype_,
                           run.data);
  return true;
}

rt::ModelSource Session::model_source() const {
  rt::ModelSource out;
  out.file = source_name();
  out.text = source_;
  out.sets = overrides_;
  // The checker's modules are the prelude, then the model (run_compiled.cpp).
  if (current_ && current_->fns.model && current_->fns.model->modules.size() > 1)
    out.canonical = dsl::print_module(*current_->fns.model->modules[1]);
  return out;
}

bool Session::reload() {
  if (file_.empty()) {
    std::cerr << "plastic: no model file loaded\n";
    return false;
  }
  return load(file_);
}

bool Session::revert() {
  if (!has_model()) {
    std::cerr << "plastic: no model loaded\n";
    return false;
  }
  auto spec = build(disk_source_, overrides_, dtype_);
  if (!spec || !adopt(spec)) return false;
  source_ = disk_source_;
  return true;
}

bool Session::edit_statement(const std::string& statement) {
  if (!has_model()) {
    std::cerr << "plastic: load a model first (load FILE)\n";
    return false;
  }
  bool replaced = false;
  std::string edited = replace_statement(source_, statement, replaced);
  auto spec = build(edited, overrides_, dtype_);
  if (!spec || !adopt(spec)) return false;
  source_ = edited;
  return true;
}

bool Session::set_override(const std::string& name, double value) {
  if (!has_model()) {
    std::cerr << "plastic: load a model first (load FILE)\n";
    return false;
  }
  auto overrides = overrides_;
  overrides[name] = value;
  auto spec = build(source_, overrides, dtype_);
  if (!spec || !adopt(spec)) return false;
  overrides_ = overrides;
  return true;
}

bool Session::set_dtype(const std::string& dtype) {
  if (dtype != "f32" && dtype != "f64") {
    std::cerr << fmt::format("plastic: dtype '{}': expected f32 or f64\n", dtype);
    return false;
  }
  if (!has_model()) {
    dtype_ = dtype;
    return true;
  }
  auto spec = build(source_, overrides_, dtype);
  if (!spec) return false;
  const std::string old = dtype_;
  dtype_ = dtype;
  if (!adopt(spec)) {
    dtype_ = old;
    return false;
  }
  return true;
}

void Session::reset_parameters() {
  if (!has_model()) return;
  const plastic_model& m = table();
  if (auto init = initialise(m, theta_, settings.seed); !init)
    std::cerr << fmt::format("plastic: initialising {}: {}\n", m.name, init.describe());
  optimizer_.reset();
  epochs_done = 0;
}

bool Session::set_data(const std::string& spec, const std::string& valid) {
  const std::string old_spec = data_spec_, old_valid = valid_spec_;
  data_spec_ = spec;
  valid_spec_ = valid;
  data_.reset();
  data_for_.reset();
  quantities_.reset();
  if (!has_model() || !dsl::source_declares_data_dims(source_name(), source_)) return true;
  // The dims follow the data: compile for the new data's channels and classes.
  auto rebuilt = build(source_, overrides_, dtype_);
  if (rebuilt && adopt(rebuilt)) return true;
  data_spec_ = old_spec;
  valid_spec_ = old_valid;
  quantities_.reset();
  std::cerr << fmt::format("plastic: the data stay {}\n", old_spec.empty() ? "none" : old_spec);
  return false;
}

std::map<std::string, int64_t> Session::data_quantities_for(const std::string& source) {
  if (!dsl::source_declares_data_dims(source_name(), source)) return {};
  if (recorded_) return rt::recorded_data_quantities(*recorded_); // the run's, whatever the data
  if (data_spec_.empty()) return {};
  if (quantities_ && quantities_->first == data_spec_) return quantities_->second;
  auto q = rt::data_quantities(run_options());
  if (!q) {
    // Said once here; the check then asks for the dims the data could not give.
    std::cerr << fmt::format("plastic: {}\n", q.error().message);
    return {};
  }
  quantities_.emplace(data_spec_, q.value());
  return q.value();
}

rt::RunOptions Session::run_options() const {
  rt::RunOptions run;
  run.data = data_spec_;
  run.valid = valid_spec_;
  run.seed = settings.seed;
  run.threads = settings.threads;
  run.batch = settings.batch;
  run.dtype = dtype_;
  if (current_) run.dims = current_->dims;
  if (recorded_) {
    run.data_flags = recorded_->data_flags; // read as the run read its data
    run.oi = recorded_->intensity;
  }
  return run;
}

rt::ModelData* Session::data() {
  if (!has_model()) {
    std::cerr << "plastic: load a model first (load FILE)\n";
    return nullptr;
  }
  if (data_spec_.empty()) {
    std::cerr << "plastic: no data: choose some with `data SPEC` (any --data, e.g. "
                 "synthetic:flipflop)\n";
    return nullptr;
  }
  if (data_ && data_for_ == current_) return &*data_;
  // Data prepared for an earlier specialisation serves this one when the
  // model reads its inputs the same way (a solver or a dim of the field).
  if (data_ && data_->train && data_->train->check_model(table())) {
    data_for_ = current_;
    return &*data_;
  }
  // Data of an opened run: its own are split as it split them; any other
  // are new series, prepared with the statistics it recorded.
  auto opened = recorded_ && data_spec_ != recorded_data_
                    ? rt::open_new_data(table(), run_options(), *recorded_)
                    : rt::open_model_data(table(), run_options());
  if (!opened) {
    std::cerr << fmt::format("plastic: {}\n", opened.error().message);
    data_.reset();
    return nullptr;
  }
  data_.emplace(std::move(opened).value());
  data_for_ = current_;
  std::cout << fmt::format("data {}: {} training, {} validation, {} test samples\n",
                           data_->splits.description, data_->splits.train.size(),
                           data_->splits.validation.size(), data_->splits.test.size());
  return &*data_;
}

} // namespace plastic::driver::repl
