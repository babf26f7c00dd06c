// make_train_hooks(): shuffling, batching and validation for train_loop.h.
#include "runtime/batch/train_hooks.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "runtime/batch/replica_check.h"

namespace plastic::rt {

TrainError to_train_error(const Status<SolveFailure>& status) {
  TrainError e;
  e.kind = TrainErrorKind::InvalidArgument;
  if (!status.ok()) {
    const SolveFailure& f = status.error();
    e.message = status.describe();
    if (f.kind == FailureKind::InvalidModel) e.kind = TrainErrorKind::Mismatch;
  }
  return e;
}

namespace {
bool numerical(FailureKind k) {
  return k == FailureKind::NonFiniteState || k == FailureKind::StepSizeUnderflow ||
         k == FailureKind::MaxStepsExceeded;
}
template <class T> bool all_finite(std::span<const T> values) {
  return std::all_of(values.begin(), values.end(), [](T v) { return std::isfinite(v); });
}

// The explainer's diagnostic for a batch, or "" (none installed, nothing
// found, or the run's budget of explanations spent).
template <class T>
std::string explain(const HookOptions& opt, int& explained, NonFinitePass pass, int64_t epoch,
                    int64_t batch, std::span<const int64_t> ids, const PreparedData& data,
                    std::span<const T> params, const SolveFailure* failure) {
  if (!opt.explain || explained >= opt.explain_limit) return {};
  ++explained;
  NonFiniteEvent e;
  e.pass = pass;
  e.epoch = epoch;
  e.batch = batch;
  e.samples.assign(ids.begin(), ids.end());
  e.data = &data;
  e.params = widen<T>(params);
  if (failure) e.failure = *failure;
  return opt.explain(e);
}

} // namespace

template <class T>
TrainHooks<T> make_train_hooks(const plastic_model& model, const PreparedData& train,
                               const PreparedData* valid, const HookOptions& options) {
  TrainHooks<T> hooks;
  const int64_t batch = std::max<int64_t>(1, options.batch_size);
  const int64_t n = static_cast<int64_t>(train.size());
  hooks.batches_per_epoch = (n + batch - 1) / batch;
  auto order = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(n));
  std::iota(order->begin(), order->end(), int64_t{0});
  const HookOptions* opt = &options;
  hooks.begin_epoch = [order, opt](int64_t, Rng& rng) {
    std::iota(order->begin(), order->end(), int64_t{0});
    if (!opt->shuffle) return;
    for (size_t i = order->size(); i > 1; --i) // Fisher-Yates with the epoch's generator
      std::swap((*order)[i - 1], (*order)[rng.below(i)]);
  };
  const plastic_model* m = &model;
  const PreparedData* data = &train;
  auto explained = std::make_shared<int>(0);
  hooks.train_batch = [order, opt, m, data, batch, n,
                       explained](int64_t epoch, int64_t b, std::span<const T> params,
                                  std::span<T> grads, Rng&) -> Result<BatchResult, TrainError> {
    const int64_t first = b * batch;
    const int64_t size = std::min(batch, n - first);
    std::span<const int64_t> ids(order->data() + first, static_cast<size_t>(size));
    BatchLoss r = loss_and_gradient<T>(*m, *data, ids, params, grads, opt->batch);
    BatchResult out;
    out.samples = size;
    if (opt->sample_ids)
      for (int64_t id : ids)
        out.sample_ids.push_back(data->id(static_cast<size_t>(id)));
    if (r.ok()) {
      out.loss = r.loss;
      const bool finite_loss = std::isfinite(r.loss);
      if (!finite_loss || !all_finite<T>(grads)) {
        const NonFinitePass pass = finite_loss ? NonFinitePass::Backward : NonFinitePass::Forward;
        std::string where =
            explain<T>(*opt, *explained, pass, epoch, b, ids, *data, params, nullptr);
        if (!where.empty() && opt->on_failure)
          opt->on_failure(
              fmt::format("non-finite {}\n{}", finite_loss ? "gradient" : "loss", where));
      }
    } else if (numerical(r.status.error().kind)) {
      std::string where = explain<T>(*opt, *explained, NonFinitePass::Forward, epoch, b, ids, *data,
                                     params, &r.status.error());
      out.failure = r.status.describe();
      if (opt->on_failure)
        opt->on_failure(where.empty() ? out.failure : out.failure + "\n" + where);
    } else {
      return to_train_error(r.status);
    }
    return out;
  };
  if (options.batch.comm && options.batch.comm->size() > 1) {
    Communicator* comm = options.batch.comm;
    hooks.check_params = [comm](int64_t epoch, std::span<const T> params) {
      return check_replicas<T>(*comm, epoch, params);
    };
  }
  if (valid) {
    auto ids = std::make_shared<std::vector<int64_t>>(all_samples(*valid));
    hooks.validate = [ids, opt, m,
                      valid](std::span<const T> params) -> Result<ValidationResult, TrainError> {
      Result<Evaluation, SolveFailure> ev = evaluate<T>(*m, *valid, *ids, params, opt->batch);
      if (!ev) {
        if (!numerical(ev.error().kind)) return to_train_error(ev.status());
        if (opt->on_failure) opt->on_failure(ev.error().describe());
        return ValidationResult{};
      }
      const Evaluation& e = ev.value();
      return ValidationResult{e.loss, opt->validate_by_accuracy ? e.accuracy : e.metric};
    };
  }
  return hooks;
}

template TrainHooks<float> make_train_hooks<float>(const plastic_model&, const PreparedData&,
                                                   const PreparedData*, const HookOptions&);
template TrainHooks<double> make_train_hooks<double>(const plastic_model&, const PreparedData&,
                                                     const PreparedData*, const HookOptions&);

} // namespace plastic::rt
