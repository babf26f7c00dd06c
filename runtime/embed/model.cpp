// The embedding API (see plastic.h) over the runtime's own pieces: the
// model table checks of model binaries, rt::load_parameters (eval_app's
// loader), the run folder's data record (app/preprocessing.h), prepare(),
// predict(), evaluate(), loss_and_gradient() and the optimisers. This file
// only converts between the API's plain structs and the runtime's types.
#include "runtime/embed/plastic.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "runtime/app/model_data.h"
#include "runtime/app/model_hash.h"
#include "runtime/app/parameters.h"
#include "runtime/app/preprocessing.h"
#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/output_vjp.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/batch/recorded_forward.h"
#include "runtime/data/transforms.h"
#include "runtime/init/init.h"
#include "runtime/io/param_table.h"
#include "runtime/io/safetensors.h"
#include "runtime/solvers/model_view.h"
#include "runtime/train/optimizer.h"
#include "runtime/train/state_tensors.h"

namespace plastic::embed {

namespace fs = std::filesystem;

struct Model::Impl {
  const plastic_model* table = nullptr;
  std::shared_ptr<void> library; // the dlopen handle, closed with the last Model using it
  std::string name;
  bool has_parameters = false;
  std::vector<float> theta_f;
  std::vector<double> theta_d;
  std::optional<rt::Preprocessing> preprocessing;
  std::vector<std::string> classes;
  std::unique_ptr<rt::Optimizer<float>> optimizer_f;
  std::unique_ptr<rt::Optimizer<double>> optimizer_d;
  std::string optimizer_kind;
  /// Which data preparation a Batch was made under: fresh for every Model and
  /// at every load_parameters() (which may bring a run folder's data record).
  uint64_t generation = 0;

  bool f64() const { return table->dtype == PLASTIC_F64; }
  template <class T> std::vector<T>& theta() {
    if constexpr (std::is_same_v<T, double>)
      return theta_d;
    else
      return theta_f;
  }
  template <class T> std::unique_ptr<rt::Optimizer<T>>& optimizer() {
    if constexpr (std::is_same_v<T, double>)
      return optimizer_d;
    else
      return optimizer_f;
  }
};

struct Batch::Data {
  rt::PreparedData prepared;
  const plastic_model* table = nullptr;
  uint64_t generation = 0;
};

struct Forward::State {
  std::shared_ptr<const Batch::Data> data; // keeps the prepared series alive
  std::vector<int64_t> samples;
  std::vector<Prediction> predictions;
  std::optional<rt::RecordedForward<float>> f32;
  std::optional<rt::RecordedForward<double>> f64;
};

namespace {

uint64_t next_generation() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

Error from(const rt::AppError& e) {
  return Error{e.exit_code, e.message};
}

// The API's series as a Dataset of the model's task, prepared as training
// prepared its data (recorded in the run folder), or, with no record, as
// open_data would (the time channel when the model wants one more channel).
Result<rt::Dataset, Error> to_dataset(const plastic_model& m,
                                      const std::optional<rt::Preprocessing>& prep,
                                      std::span<const Series> series) {
  rt::Dataset d;
  d.name = "series";
  if (series.empty()) return Error{rt::kInputError, "no series given"};
  const Series& first = series.front();
  const size_t channels = first.times.empty() ? 0 : first.values.size() / first.times.size();
  bool labelled = false;
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string which = fmt::format("series '{}' (index {})", s.id, i);
    if (s.times.empty()) return Error{rt::kInputError, which + ": no observations"};
    if (s.values.size() != s.times.size() * channels)
      return Error{rt::kInputError,
                   fmt::format("{}: {} values for {} times; expected {} channels per time as "
                               "the first series has",
                               which, s.values.size(), s.times.size(), channels)};
    if (s.statics.size() != first.statics.size())
      return Error{rt::kInputError, fmt::format("{}: {} static features, the first series has {}",
                                                which, s.statics.size(), first.statics.size())};
    labelled = labelled || s.label >= 0 || !s.target.empty();
  }
  for (size_t c = 0; c < channels; ++c)
    d.channels.push_back({fmt::format("x{}", c), rt::ChannelKind::Measured});
  for (size_t c = 0; c < first.statics.size(); ++c)
    d.statics.push_back({fmt::format("s{}", c), rt::ChannelKind::Measured});
  if (labelled) {
    if (m.task == PLASTIC_TASK_CLASSIFICATION || m.task == PLASTIC_TASK_BINARY) {
      d.target_kind =
          m.task == PLASTIC_TASK_BINARY ? rt::TargetKind::Binary : rt::TargetKind::Class;
      const int64_t classes = m.task == PLASTIC_TASK_BINARY ? 2 : m.n_targets;
      for (int64_t k = 0; k < classes; ++k)
        d.classes.push_back(fmt::format("{}", k));
    } else {
      const bool final_only = first.target.size() == static_cast<size_t>(m.n_targets);
      d.target_kind = final_only ? rt::TargetKind::Regression : rt::TargetKind::RegressionPerStep;
      for (int64_t k = 0; k < m.n_targets; ++k)
        d.targets.push_back(fmt::format("y{}", k));
    }
  }
  for (const Series& s : series) {
    rt::Sample out;
    out.id = s.id;
    out.times = s.times;
    out.values = s.values;
    out.statics = s.statics;
    out.label = s.label;
    out.target = s.target;
    d.samples.push_back(std::move(out));
  }
  if (prep) {
    if (Status<rt::AppError> st = rt::apply_preprocessing(*prep, d); !st) return from(st.error());
  } else if (rt::model_path_channels(m) == static_cast<int64_t>(channels) + 1) {
    rt::add_time_channel(d);
  }
  return d;
}

Result<rt::PreparedData, Error> prepared(const plastic_model& m,
                                         const std::optional<rt::Preprocessing>& prep,
                                         std::span<const Series> series, bool targets,
                                         int threads) {
  auto d = to_dataset(m, prep, series);
  if (!d) return d.error();
  rt::PrepareOptions po;
  po.require_targets = targets;
  po.threads = threads;
  auto p = rt::prepare(m, d.value(), po);
  if (!p) return Error{rt::kInputError, fmt::format("{}: {}", m.name, p.status().describe())};
  return std::move(p.value());
}

// The runtime's predictions as the API's, named by the data set's ids.
template <class T>
std::vector<Prediction> to_predictions(const rt::PreparedData& data, const rt::Predictions<T>& p) {
  std::vector<Prediction> out(p.samples.size());
  for (size_t i = 0; i < p.samples.size(); ++i) {
    Prediction& r = out[i];
    r.id = data.id(static_cast<size_t>(p.samples[i]));
    r.width = p.width;
    r.times.reserve(p.first_row[i + 1] - p.first_row[i]);
    r.outputs.reserve(r.times.capacity() * static_cast<size_t>(p.width));
    for (size_t row = p.first_row[i]; row < p.first_row[i + 1]; ++row) {
      r.times.push_back(p.times[row]);
      for (T v : p.row(row))
        r.outputs.push_back(static_cast<double>(v));
    }
  }
  return out;
}

template <class T>
Result<std::vector<Prediction>, Error>
predict_typed(const Model::Impl& impl, const std::vector<T>& theta, const rt::PreparedData& data,
              std::span<const int64_t> samples, const Options& o) {
  rt::BatchOptions bo;
  bo.threads = o.threads;
  bo.series_alone = o.series_alone;
  auto pred = rt::predict<T>(*impl.table, data, samples, std::span<const T>(theta), bo);
  if (!pred) return Error{rt::kInputError, pred.status().describe()};
  return to_predictions(data, pred.value());
}

template <class T>
Result<Metrics, Error> evaluate_typed(const Model::Impl& impl, const std::vector<T>& theta,
                                      std::span<const Series> series, const Options& o) {
  const plastic_model& m = *impl.table;
  auto data = prepared(m, impl.preprocessing, series, true, o.threads);
  if (!data) return data.error();
  rt::BatchOptions bo;
  bo.threads = o.threads;
  bo.series_alone = o.series_alone;
  auto ev = rt::evaluate<T>(m, data.value(), rt::all_samples(data.value()),
                            std::span<const T>(theta), bo);
  if (!ev) return Error{rt::kInputError, ev.status().describe()};
  const rt::Evaluation& e = ev.value();
  return Metrics{e.loss, e.metric, e.metric_name, e.note, e.samples};
}

// The batch options of `o`: threads, and the gradient method when one is named.
Result<rt::BatchOptions, Error> batch_options(const plastic_model& m, const Options& o) {
  rt::BatchOptions bo;
  bo.threads = o.threads;
  if (o.gradient.empty()) return bo;
  auto g = rt::GradientOptions::from_desc(m.gradient);
  if (!g) return Error{rt::kInputError, g.status().describe()};
  if (o.gradient == "direct")
    g.value().method = rt::GradientMethod::Direct;
  else if (o.gradient == "checkpoint")
    g.value().method = rt::GradientMethod::Checkpoint;
  else if (o.gradient == "adjoint")
    g.value().method = rt::GradientMethod::Adjoint;
  else
    return Error{
        2, fmt::format("unknown gradient method '{}': direct, checkpoint or adjoint", o.gradient)};
  bo.gradient = g.value();
  return bo;
}

template <class T>
Result<double, Error> step_typed(Model::Impl& impl, std::span<const Series> batch,
                                 const StepOptions& step, const Options& o) {
  const plastic_model& m = *impl.table;
  auto data = prepared(m, impl.preprocessing, batch, true, o.threads);
  if (!data) return data.error();
  std::vector<T>& theta = impl.theta<T>();
  std::unique_ptr<rt::Optimizer<T>>& opt = impl.optimizer<T>();
  if (!opt || impl.optimizer_kind != step.optimizer) {
    rt::OptimizerConfig cfg;
    cfg.kind = step.optimizer;
    cfg.lr = step.lr;
    auto made = rt::make_optimizer<T>(cfg, m.n_params);
    if (!made) return Error{rt::kUsageError, made.error().describe()};
    opt = std::move(made.value());
    impl.optimizer_kind = step.optimizer;
  }
  opt->set_lr(step.lr);
  std::vector<T> grads(theta.size(), T(0));
  auto bo = batch_options(m, o);
  if (!bo) return bo.error();
  rt::BatchLoss loss =
      rt::loss_and_gradient<T>(m, data.value(), rt::all_samples(data.value()),
                               std::span<const T>(theta), std::span<T>(grads), bo.value());
  if (!loss.ok()) return Error{rt::kInputError, loss.status.describe()};
  // As the training loop: a non-finite loss or gradient skips the step.
  if (!std::isfinite(loss.loss) ||
      !std::all_of(grads.begin(), grads.end(), [](T g) { return std::isfinite(g); }))
    return Error{rt::kInputError,
                 fmt::format("the loss or its gradient is not finite (loss {}); the step was "
                             "skipped: lower the learning rate",
                             loss.loss)};
  if (Status<rt::TrainError> s = opt->step(std::span<T>(theta), std::span<const T>(grads)); !s)
    return Error{rt::kInputError, s.error().describe()};
  return loss.loss;
}

template <class T>
Result<Gradient, Error> gradient_typed(const Model::Impl& impl, const std::vector<T>& theta,
                                       const rt::PreparedData& data,
                                       std::span<const int64_t> samples, const Options& o) {
  const plastic_model& m = *impl.table;
  auto bo = batch_options(m, o);
  if (!bo) return bo.error();
  std::vector<T> grads(theta.size(), T(0));
  rt::BatchLoss loss = rt::loss_and_gradient<T>(m, data, samples, std::span<const T>(theta),
                                                std::span<T>(grads), bo.value());
  if (!loss.ok()) return Error{rt::kInputError, loss.status.describe()};
  return Gradient{loss.loss, std::vector<double>(grads.begin(), grads.end())};
}

template <class T>
Result<std::vector<double>, Error>
vjp_typed(const Model::Impl& impl, const std::vector<T>& theta, const rt::PreparedData& data,
          std::span<const int64_t> samples, std::span<const double> y_bar, const Options& o) {
  const plastic_model& m = *impl.table;
  auto bo = batch_options(m, o);
  if (!bo) return bo.error();
  const std::vector<T> ybar(y_bar.begin(), y_bar.end());
  std::vector<T> grads(theta.size(), T(0));
  rt::BatchLoss r = rt::output_vjp<T>(m, data, samples, std::span<const T>(theta),
                                      std::span<const T>(ybar), std::span<T>(grads), bo.value());
  if (!r.ok()) return Error{rt::kInputError, r.status.describe()};
  return std::vector<double>(grads.begin(), grads.end());
}

// forward(): the recorded pass of the model's dtype in `state`.
template <class T>
Status<Error> forward_typed(const Model::Impl& impl, const std::vector<T>& theta,
                            std::optional<rt::RecordedForward<T>>& record, Forward::State& state,
                            const Options& o) {
  const plastic_model& m = *impl.table;
  auto bo = batch_options(m, o);
  if (!bo) return bo.error();
  rt::RecordedForward<T>& rec = record.emplace();
  if (Status<rt::SolveFailure> s =
          rec.run(m, state.data->prepared, state.samples, std::span<const T>(theta), bo.value());
      !s)
    return Error{rt::kInputError, s.describe()};
  state.predictions = to_predictions(state.data->prepared, rec.predictions());
  return {};
}

template <class T>
Result<std::vector<double>, Error> forward_vjp(rt::RecordedForward<T>& rec,
                                               std::span<const double> y_bar, size_t n_params) {
  const std::vector<T> ybar(y_bar.begin(), y_bar.end());
  std::vector<T> grads(n_params, T(0));
  rt::BatchLoss r = rec.vjp(std::span<const T>(ybar), std::span<T>(grads));
  if (!r.ok()) return Error{rt::kInputError, r.status.describe()};
  return std::vector<double>(grads.begin(), grads.end());
}

// A Batch may only be used by the model that prepared it, under the same data record.
Status<Error> check_owner(const Model::Impl& impl, const Batch::Data& data) {
  if (data.table != impl.table)
    return Error{rt::kUsageError,
                 fmt::format("this batch was prepared for another model than {}", impl.name)};
  if (data.generation != impl.generation)
    return Error{rt::kUsageError,
                 "this batch was prepared before load_parameters() changed how the model "
                 "prepares data: prepare it again"};
  return {};
}

Error no_parameters(const Model::Impl& impl) {
  return Error{rt::kUsageError,
               fmt::format("the model {} has no parameters yet: call load_parameters() or "
                           "initialise() first",
                           impl.name)};
}

// The first parameter holding NaN or inf, by name. Loading refuses such
// values; a program (or Python, through a NumPy view of the buffer) can
// still write them, and the kernels would then compute finite-looking
// outputs from them. One pass over the parameters: nothing beside a solve.
template <class T>
std::optional<std::string> nonfinite_parameter(const plastic_model& m,
                                               const std::vector<T>& theta) {
  for (int32_t i = 0; i < m.n_param_entries; ++i) {
    const plastic_param& p = m.params[i];
    for (int64_t k = 0; k < p.size; ++k)
      if (!std::isfinite(theta[static_cast<size_t>(p.offset + k)])) return std::string(p.name);
  }
  return std::nullopt;
}

// The parameters are set and finite (see above).
Status<Error> usable_parameters(const Model::Impl& impl) {
  if (!impl.has_parameters) return no_parameters(impl);
  const std::optional<std::string> bad = impl.f64()
                                             ? nonfinite_parameter(*impl.table, impl.theta_d)
                                             : nonfinite_parameter(*impl.table, impl.theta_f);
  if (bad)
    return Error{rt::kInputError,
                 fmt::format("parameter {} of {} holds NaN or inf (written after loading?); "
                             "the model refuses to run on it",
                             *bad, impl.name)};
  return {};
}

} // namespace

int Prediction::predicted_class() const {
  if (width <= 0 || outputs.size() < static_cast<size_t>(width)) return -1;
  const auto last = outputs.end() - width;
  if (width == 1) return *last > 0 ? 1 : 0; // a binary model's one score (a logit)
  return static_cast<int>(std::max_element(last, outputs.end()) - last);
}

Batch::Batch(std::shared_ptr<const Data> data, std::vector<int64_t> samples)
    : data_(std::move(data)), samples_(std::move(samples)) {}

bool Batch::labelled() const {
  return data_->prepared.targets().has_targets;
}

std::vector<size_t> Batch::row_counts() const {
  std::vector<size_t> out;
  out.reserve(samples_.size());
  for (int64_t s : samples_)
    out.push_back(static_cast<size_t>(data_->prepared.sample(static_cast<size_t>(s)).readouts));
  return out;
}

Result<Batch, Error> Batch::select(std::span<const int64_t> indices) const {
  std::vector<int64_t> picked;
  picked.reserve(indices.size());
  for (int64_t i : indices) {
    if (i < 0 || static_cast<size_t>(i) >= samples_.size())
      return Error{rt::kInputError,
                   fmt::format("index {} is outside the batch of {} series", i, size())};
    picked.push_back(samples_[static_cast<size_t>(i)]);
  }
  return Batch(data_, std::move(picked));
}

Forward::Forward(std::unique_ptr<State> state) : state_(std::move(state)) {}
Forward::Forward(Forward&&) noexcept = default;
Forward& Forward::operator=(Forward&&) noexcept = default;
Forward::~Forward() = default;

const std::vector<Prediction>& Forward::predictions() const {
  return state_->predictions;
}

Result<std::vector<double>, Error> Forward::vjp(std::span<const double> y_bar) {
  const size_t n = static_cast<size_t>(state_->data->table->n_params);
  return state_->f64 ? forward_vjp(*state_->f64, y_bar, n) : forward_vjp(*state_->f32, y_bar, n);
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Result<Model, Error> Model::open(const plastic_model* table) {
  if (!table) return Error{rt::kInputError, "no model table (the entry point returned null)"};
  if (table->abi_version != PLASTIC_ABI_VERSION || table->struct_size != sizeof(plastic_model))
    return Error{rt::kInputError,
                 fmt::format("the model table has ABI version {} and this runtime reads {}: "
                             "compile the model again with this Plastic",
                             table->abi_version, PLASTIC_ABI_VERSION)};
  if (Status<rt::SolveFailure> s = rt::validate_model(*table, table->dtype); !s)
    return Error{rt::kInputError, "the model table is invalid: " + s.describe()};
  auto impl = std::make_unique<Impl>();
  impl->table = table;
  impl->name = table->name ? table->name : "";
  impl->generation = next_generation();
  // The buffer is made once, so parameter_data() stays valid (see plastic.h).
  if (impl->f64())
    impl->theta_d.assign(static_cast<size_t>(table->n_params), 0.0);
  else
    impl->theta_f.assign(static_cast<size_t>(table->n_params), 0.0F);
  return Model(std::move(impl));
}

Result<Model, Error> Model::load_shared(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return Error{rt::kInputError,
                 fmt::format("cannot load {}: {}", path, why ? why : "dlopen failed")};
  }
  std::shared_ptr<void> library(handle, [](void* h) { ::dlclose(h); });
  using Entry = const plastic_model* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, PLASTIC_MODEL_ENTRY_SYMBOL));
  if (!entry)
    return Error{rt::kInputError,
                 fmt::format("{} holds no model: it exports no {} (make it from the object of "
                             "`plastic build --emit-obj`)",
                             path, PLASTIC_MODEL_ENTRY_SYMBOL)};
  auto model = open(entry());
  if (!model) return Error{rt::kInputError, path + ": " + model.error().message};
  model.value().impl_->library = std::move(library);
  return model;
}

const std::string& Model::name() const {
  return impl_->name;
}
std::string Model::hash() const {
  return rt::model_hash(*impl_->table);
}
const plastic_model& Model::table() const {
  return *impl_->table;
}
int64_t Model::parameter_count() const {
  return impl_->table->n_params;
}
const std::vector<std::string>& Model::classes() const {
  return impl_->classes;
}

Status<Error> Model::initialise(uint64_t seed) {
  const plastic_model& m = *impl_->table;
  auto init = [&](auto& theta) -> Status<Error> {
    theta.assign(static_cast<size_t>(m.n_params), 0);
    auto r = rt::initialise_parameters(m, std::span(theta), seed);
    if (!r)
      return Error{rt::kInputError,
                   fmt::format("initialising {}: {}", m.name, r.error().describe())};
    return {};
  };
  Status<Error> s = impl_->f64() ? init(impl_->theta_d) : init(impl_->theta_f);
  impl_->has_parameters = s.ok();
  impl_->optimizer_f.reset();
  impl_->optimizer_d.reset();
  return s;
}

Status<Error> Model::load_parameters(const std::string& where) {
  const plastic_model& m = *impl_->table;
  // Loaded aside, then copied into the buffer, whose address callers may hold.
  auto load = [&](auto& theta) -> Status<rt::AppError> {
    std::remove_reference_t<decltype(theta)> loaded;
    Status<rt::AppError> s = rt::load_parameters(m, where, loaded);
    if (s) std::copy(loaded.begin(), loaded.end(), theta.begin());
    return s;
  };
  Status<rt::AppError> s = impl_->f64() ? load(impl_->theta_d) : load(impl_->theta_f);
  if (!s) return from(s.error());
  // The data record sits next to the parameters in a run folder.
  std::error_code ec;
  const fs::path dir =
      fs::is_directory(where, ec) ? fs::path(where) : fs::path(where).parent_path();
  auto prep = rt::read_preprocessing(dir.empty() ? fs::path(".") : dir);
  if (!prep) return from(prep.error());
  impl_->preprocessing = std::move(prep.value());
  impl_->classes =
      impl_->preprocessing ? impl_->preprocessing->classes : std::vector<std::string>{};
  impl_->has_parameters = true;
  impl_->generation = next_generation();
  impl_->optimizer_f.reset();
  impl_->optimizer_d.reset();
  return {};
}

std::vector<double> Model::parameters() const {
  if (impl_->f64()) return impl_->theta_d;
  return std::vector<double>(impl_->theta_f.begin(), impl_->theta_f.end());
}

Status<Error> Model::save_parameters(const std::string& path) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  const plastic_model& m = *impl_->table;
  auto table = rt::ParamTable::from_abi(m.params, m.n_param_entries, m.n_params);
  if (!table)
    return Error{rt::kInternalError, "internal error (a bug): " + table.error().describe()};
  auto tensors = impl_->f64() ? rt::params_to_tensors<double>(table.value(), impl_->theta_d)
                              : rt::params_to_tensors<float>(table.value(), impl_->theta_f);
  if (!tensors)
    return Error{rt::kInternalError, "internal error (a bug): " + tensors.error().describe()};
  rt::SafetensorsFile file;
  file.tensors = std::move(tensors.value());
  file.metadata = {{"model_hash", rt::model_hash(m)},
                   {"parameters", "saved from the embedding API"}};
  if (Status<rt::TrainError> s = rt::write_safetensors(path, file); !s)
    return Error{rt::kInputError, s.error().describe()};
  return {};
}

void* Model::parameter_data() {
  return impl_->f64() ? static_cast<void*>(impl_->theta_d.data())
                      : static_cast<void*>(impl_->theta_f.data());
}

Result<Batch, Error> Model::prepare(std::span<const Series> series, const Options& options) const {
  auto data = prepared(*impl_->table, impl_->preprocessing, series, false, options.threads);
  if (!data) return data.error();
  auto shared = std::make_shared<Batch::Data>(
      Batch::Data{std::move(data.value()), impl_->table, impl_->generation});
  std::vector<int64_t> all = rt::all_samples(shared->prepared);
  return Batch(std::move(shared), std::move(all));
}

bool Model::owns(const Batch& batch) const {
  return check_owner(*impl_, *batch.data_).ok();
}

Result<Gradient, Error> Model::loss_and_gradient(std::span<const Series> batch,
                                                 const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  auto data = prepared(*impl_->table, impl_->preprocessing, batch, true, options.threads);
  if (!data) return data.error();
  const std::vector<int64_t> all = rt::all_samples(data.value());
  return impl_->f64() ? gradient_typed<double>(*impl_, impl_->theta_d, data.value(), all, options)
                      : gradient_typed<float>(*impl_, impl_->theta_f, data.value(), all, options);
}

Result<Gradient, Error> Model::loss_and_gradient(const Batch& batch, const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  if (Status<Error> s = check_owner(*impl_, *batch.data_); !s) return s.error();
  if (!batch.labelled())
    return Error{rt::kInputError,
                 fmt::format("{}: the batch has no labels or targets (prepare labelled series)",
                             impl_->name)};
  const rt::PreparedData& data = batch.data_->prepared;
  return impl_->f64()
             ? gradient_typed<double>(*impl_, impl_->theta_d, data, batch.samples_, options)
             : gradient_typed<float>(*impl_, impl_->theta_f, data, batch.samples_, options);
}

Result<std::vector<double>, Error> Model::output_vjp(std::span<const Series> series,
                                                     std::span<const double> y_bar,
                                                     const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  auto batch = prepare(series, options);
  if (!batch) return batch.error();
  return output_vjp(batch.value(), y_bar, options);
}

Result<std::vector<double>, Error>
Model::output_vjp(const Batch& batch, std::span<const double> y_bar, const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  if (Status<Error> s = check_owner(*impl_, *batch.data_); !s) return s.error();
  const rt::PreparedData& data = batch.data_->prepared;
  return impl_->f64()
             ? vjp_typed<double>(*impl_, impl_->theta_d, data, batch.samples_, y_bar, options)
             : vjp_typed<float>(*impl_, impl_->theta_f, data, batch.samples_, y_bar, options);
}

Result<std::vector<Prediction>, Error> Model::predict(std::span<const Series> series,
                                                      const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  auto batch = prepare(series, options);
  if (!batch) return batch.error();
  return predict(batch.value(), options);
}

Result<std::vector<Prediction>, Error> Model::predict(const Batch& batch,
                                                      const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  if (Status<Error> s = check_owner(*impl_, *batch.data_); !s) return s.error();
  const rt::PreparedData& data = batch.data_->prepared;
  return impl_->f64() ? predict_typed<double>(*impl_, impl_->theta_d, data, batch.samples_, options)
                      : predict_typed<float>(*impl_, impl_->theta_f, data, batch.samples_, options);
}

Result<Forward, Error> Model::forward(const Batch& batch, const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  if (Status<Error> s = check_owner(*impl_, *batch.data_); !s) return s.error();
  auto state = std::make_unique<Forward::State>();
  state->data = batch.data_;
  state->samples = batch.samples_;
  Status<Error> s = impl_->f64()
                        ? forward_typed<double>(*impl_, impl_->theta_d, state->f64, *state, options)
                        : forward_typed<float>(*impl_, impl_->theta_f, state->f32, *state, options);
  if (!s) return s.error();
  return Forward(std::move(state));
}

Result<Metrics, Error> Model::evaluate(std::span<const Series> series,
                                       const Options& options) const {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  return impl_->f64() ? evaluate_typed<double>(*impl_, impl_->theta_d, series, options)
                      : evaluate_typed<float>(*impl_, impl_->theta_f, series, options);
}

Result<double, Error> Model::train_step(std::span<const Series> batch, const StepOptions& step,
                                        const Options& options) {
  if (Status<Error> s = usable_parameters(*impl_); !s) return s.error();
  return impl_->f64() ? step_typed<double>(*impl_, batch, step, options)
                      : step_typed<float>(*impl_, batch, step, options);
}

} // namespace plastic::embed
