// The Model object of the Python module: compiled from a .ode file or its
// text with the compiler's own front end and JIT (the diagnostics of
// `plastic check`, captured into plastic.Error), or loaded from a shared
// object of `plastic build --emit-obj`; its parameters as NumPy arrays that
// share the model's parameter buffer; init, load and save.
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "compiler/abi/layout.h"
#include "compiler/backend/llvm/options.h"
#include "compiler/loops/elem_type.h"
#include "compiler/loops/error.h"
#include "compiler/model/model_functions.h"
#include "dsl/ast_printer.h"
#include "dsl/diagnostics.h"
#include "dsl/frontend.h"
#include "python/src/py_model.h"
#include "runtime/app/binding.h"
#include "runtime/gradients/memory_estimate.h"

namespace plastic::python {

namespace {

// Every compilation started here and not yet destroyed, for the exit hook.
std::mutex live_mutex;
std::vector<std::weak_ptr<backend::BackgroundModel>> live_compilations;

void remember_compilation(const std::shared_ptr<backend::BackgroundModel>& compiling) {
  const std::lock_guard<std::mutex> lock(live_mutex);
  std::erase_if(live_compilations, [](const auto& w) { return w.expired(); });
  live_compilations.push_back(compiling);
}

// Python's atexit hook: runs before the interpreter tears down, so a model
// it never destroys still finishes compiling before the process's static
// destructors (the JIT's among them) run.
void finish_compiling() {
  std::vector<std::shared_ptr<backend::BackgroundModel>> live;
  {
    const std::lock_guard<std::mutex> lock(live_mutex);
    for (const auto& w : live_compilations)
      if (auto c = w.lock()) live.push_back(std::move(c));
  }
  py::gil_scoped_release release; // compiling needs no Python
  for (const auto& c : live)
    c->finish();
}

// The model's text when it has a line break or names no file (a path to a
// missing .ode file is an error, not a one-line model).
bool is_source_text(const std::string& s) {
  std::error_code ec;
  if (s.find('\n') != std::string::npos) return true;
  if (std::filesystem::is_regular_file(s, ec)) return false;
  // A path to something else (a device, a folder, a FIFO) is a path, not a
  // one-line model: the reader refuses it with its reason.
  if (std::filesystem::exists(s, ec)) return false;
  if (s.ends_with(".ode")) throw Error(fmt::format("{}: no such model file", s));
  return true;
}

// The parameters, their gradient and an optimiser's two moments must fit
// the machine before anything is allocated: a dim set far too large is
// refused with its sizes (as the command line refuses it), not MemoryError.
void check_parameter_memory(const dsl::CheckedModel& m, loops::ElemType type) {
  const double bytes = 4.0 * static_cast<double>(m.param_count()) * loops::elem_size(type);
  const std::optional<double> available = rt::available_memory_bytes();
  if (!available || bytes <= *available) return;
  const dsl::ParamInfo* largest = nullptr;
  for (const dsl::ParamInfo& p : m.params)
    if (!largest || dsl::element_count_real(p.shape) > dsl::element_count_real(largest->shape))
      largest = &p;
  throw Error(fmt::format(
      "{}: its {} parameters need {} with their gradient and optimiser moments, more than the {} "
      "this machine has available; the largest is {} {}: lower the dims that size it (set={{...}})",
      m.name, m.param_count(), rt::format_bytes(bytes), rt::format_bytes(*available),
      largest ? largest->name : "?", largest ? dsl::format_shape(largest->shape) : ""));
}

// Checked and lowered with the command line's checker; diagnostics in the Error.
model::ModelFunctions build_functions(const std::string& path_or_source,
                                      const std::map<std::string, double>& sets,
                                      const dsl::CheckOptions& bound, loops::ElemType type,
                                      rt::ModelSource& source) {
  dsl::DiagnosticEngine diag;
  const dsl::CheckOptions options{sets, bound.data_quantities, bound.data_name};
  const bool text = is_source_text(path_or_source);
  source.file = text ? "<source>" : path_or_source;
  source.sets = sets;
  dsl::CheckResult checked = text ? dsl::check_source(source.file, path_or_source, options, diag)
                                  : dsl::check_file(path_or_source, options, diag);
  std::ostringstream rendered;
  diag.render(rendered, false);
  if (!checked.model) throw Error(rendered.str());
  check_parameter_memory(*checked.model, type);
  model::BuildStatus status = model::BuildStatus::Ok;
  model::BuildOptions build_options;
  build_options.overrides = sets;
  auto fns = model::build_checked(std::move(checked), build_options, status);
  if (!fns) throw Error(rendered.str().empty() ? "the model does not build" : rendered.str());
  if (fns->model->modules.size() > 1) {
    const dsl::Module& module = *fns->model->modules[1];
    source.text = module.source ? module.source->text() : std::string();
    source.canonical = dsl::print_module(module);
  }
  return std::move(*fns);
}

// A trained run's binding (binding.h): its --set values, each one given now
// replacing the run's, the dims it took from its data, its element type
// when `dtype` is empty and its lane count when `lanes` is 0.
dsl::CheckOptions run_binding(const std::string& run, std::map<std::string, double>& sets,
                              std::string& dtype, int& lanes) {
  dsl::CheckOptions bound;
  if (run.empty()) return bound;
  auto binding = rt::read_binding(run);
  if (!binding) throw Error(binding.error().message);
  if (!binding.value()) throw Error(fmt::format("{}: no run.json (the record of a run)", run));
  sets = binding.value()->sets_with(sets);
  if (dtype.empty()) dtype = binding.value()->record.dtype;
  if (lanes == 0) lanes = binding.value()->record.lanes;
  bound.data_quantities = binding.value()->data_quantities();
  if (!bound.data_quantities.empty()) bound.data_name = binding.value()->name();
  return bound;
}

std::shared_ptr<PyModel> compile(const std::string& path_or_source,
                                 const std::map<std::string, double>& set, const std::string& dtype,
                                 int lanes, const std::string& run) {
  std::map<std::string, double> sets = set;
  std::string element = dtype; // empty: the run's (else float64)
  const dsl::CheckOptions bound = run_binding(run, sets, element, lanes);
  const std::optional<loops::ElemType> type =
      loops::parse_elem_type(element.empty() ? "float64" : element);
  if (!type) throw Error(fmt::format("dtype '{}': float64 or float32", element));
  auto out = std::make_shared<PyModel>();
  model::ModelFunctions fns = build_functions(path_or_source, sets, bound, *type, out->source);
  for (const auto& d : fns.model->dims)
    out->dims[d.name] = static_cast<double>(d.value);
  // The kernels compile on other threads while Python goes on (reading its
  // data, as the command line does); the first kernel call waits for what
  // a training step calls, the rest (LoadOrder::FirstStepFirst) goes on
  // compiling behind it, as on the command line. The interpreter may exit
  // without destroying this model while that still runs: the exit hook
  // (finish_compiling) waits for it first.
  const int width = lanes < 0 ? backend::target_lanes(*type) : lanes;
  try {
    auto functions = std::make_shared<model::ModelFunctions>(std::move(fns));
    out->compiling = std::make_shared<backend::BackgroundModel>(
        *functions, *type, width, abi::GradientUse::All, [functions, t = *type, width] {
          return backend::compile_model(*functions, t, width, {},
                                        backend::LoadOrder::FirstStepFirst);
        });
    remember_compilation(out->compiling);
  } catch (const abi::LayoutError& e) {
    throw Error(fmt::format("{}: {}", out->source.file, e.what()));
  }
  auto opened = embed::Model::open(&out->compiling->table());
  if (!opened) raise(opened.error());
  out->model.emplace(std::move(opened.value()));
  return out;
}

std::shared_ptr<PyModel> load(const std::string& shared_object) {
  auto opened = embed::Model::load_shared(shared_object);
  if (!opened) raise(opened.error());
  auto out = std::make_shared<PyModel>();
  out->model.emplace(std::move(opened.value()));
  return out;
}

void initialise(PyModel& m, uint64_t seed) {
  if (auto r = m.model->initialise(seed); !r) raise(r.error());
}

py::list parameter_table(const PyModel& m) {
  py::list out;
  const plastic_model& t = m.table();
  for (int32_t i = 0; i < t.n_param_entries; ++i) {
    const plastic_param& p = t.params[i];
    py::tuple shape(p.rank);
    for (int32_t r = 0; r < p.rank; ++r)
      shape[static_cast<size_t>(r)] = p.shape[r];
    out.append(py::make_tuple(p.name, shape, p.offset));
  }
  return out;
}

} // namespace

void PyModel::ready() {
  if (!compiling) return;
  py::gil_scoped_release release; // the compilation needs no Python
  try {
    compiling->wait();
  } catch (const loops::CodegenError& e) {
    throw Error(fmt::format("{}: {}", source.file, e.what()));
  }
}

py::dict parameter_views(PyModel& model, const py::object& owner) {
  py::dict out;
  const plastic_model& t = model.table();
  void* data = model.model->parameter_data();
  const size_t item = model.f64() ? sizeof(double) : sizeof(float);
  for (int32_t i = 0; i < t.n_param_entries; ++i) {
    const plastic_param& p = t.params[i];
    std::vector<py::ssize_t> shape(p.shape, p.shape + p.rank);
    std::vector<py::ssize_t> strides(shape.size());
    py::ssize_t stride = static_cast<py::ssize_t>(item);
    for (size_t r = shape.size(); r-- > 0;) {
      strides[r] = stride;
      stride *= shape[r];
    }
    char* first = static_cast<char*>(data) + static_cast<size_t>(p.offset) * item;
    if (model.f64())
      out[p.name] = py::array_t<double>(shape, strides, reinterpret_cast<double*>(first), owner);
    else
      out[p.name] = py::array_t<float>(shape, strides, reinterpret_cast<float*>(first), owner);
  }
  return out;
}

py::dict split_parameters(const PyModel& model, const std::vector<double>& flat) {
  py::dict out;
  const plastic_model& t = model.table();
  for (int32_t i = 0; i < t.n_param_entries; ++i) {
    const plastic_param& p = t.params[i];
    std::vector<py::ssize_t> shape(p.shape, p.shape + p.rank);
    const double* first = flat.data() + p.offset;
    if (model.f64()) {
      py::array_t<double> a(shape);
      std::copy(first, first + p.size, a.mutable_data());
      out[p.name] = a;
    } else {
      py::array_t<float> a(shape);
      std::transform(first, first + p.size, a.mutable_data(),
                     [](double v) { return static_cast<float>(v); });
      out[p.name] = a;
    }
  }
  return out;
}

ModelClass register_model(py::module_& m) {
  py::module_::import("atexit").attr("register")(py::cpp_function(&finish_compiling));
  ModelClass model(m, "Model");
  model.def_property_readonly("name", [](const PyModel& s) { return s.model->name(); })
      .def_property_readonly("hash", [](const PyModel& s) { return s.model->hash(); })
      .def_property_readonly("dtype",
                             [](const PyModel& s) { return s.f64() ? "float64" : "float32"; })
      .def_property_readonly("lanes", [](const PyModel& s) { return s.table().lanes; })
      .def_property_readonly("n_params", [](const PyModel& s) { return s.table().n_params; })
      .def_property_readonly("n_outputs", [](const PyModel& s) { return s.table().n_outputs; })
      .def_property_readonly("n_input", [](const PyModel& s) { return s.table().n_input; })
      .def_property_readonly("dims", [](const PyModel& s) { return s.dims; })
      .def_property_readonly("source_file", [](const PyModel& s) { return s.source.file; })
      .def_property_readonly("parameter_table", &parameter_table,
                             "(name, shape, offset) of every parameter, in buffer order")
      .def_readwrite("threads", &PyModel::threads)
      .def_readwrite("gradient", &PyModel::gradient)
      .def(
          "parameters",
          [](const py::object& self) { return parameter_views(self.cast<PyModel&>(), self); },
          "name -> array sharing the model's parameter buffer (writes change the model)")
      .def("init", &initialise, py::arg("seed") = 0,
           "draws every parameter from its init (the model's seed 0 default)")
      // The embedding API's name, which its messages use ("call
      // load_parameters() or initialise() first").
      .def("initialise", &initialise, py::arg("seed") = 0, "the same as init()")
      .def("load_parameters",
           [](PyModel& s, const std::string& where) {
             if (auto r = s.model->load_parameters(where); !r) raise(r.error());
           })
      .def("save_parameters", [](const PyModel& s, const std::string& path) {
        if (auto r = s.model->save_parameters(path); !r) raise(r.error());
      });
  m.def("compile", &compile, py::arg("path_or_source"),
        py::arg("set") = std::map<std::string, double>{}, py::arg("dtype") = "",
        py::arg("lanes") = 0, py::arg("run") = "");
  m.def("load_shared", &load, py::arg("shared_object"));
  return model;
}

} // namespace plastic::python
