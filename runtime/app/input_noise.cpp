// Noise on the input path (see input_noise.h).
#include "runtime/app/input_noise.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "runtime/support/rng.h"

namespace plastic::rt {

namespace {

/// Epoch `epoch`'s noise stream of `seed`: apart from the main stream, the
/// thread streams (small ids) and the epochs' shuffling streams (top bit),
/// so drawing noise changes neither the batches nor their order.
Rng noise_stream(uint64_t seed, int64_t epoch) {
  return Rng(seed, (uint64_t{1} << 62) | static_cast<uint64_t>(epoch));
}

} // namespace

Dataset with_input_noise(const Dataset& data, double sigma, uint64_t seed, int64_t epoch) {
  Dataset noisy = data;
  Rng rng = noise_stream(seed, epoch);
  const size_t channels = data.num_channels();
  for (Sample& s : noisy.samples)
    for (size_t i = 0; i < s.length(); ++i)
      for (size_t c = 0; c < channels; ++c) {
        double& v = s.values[i * channels + c];
        if (data.channels[c].kind == ChannelKind::Measured && std::isfinite(v))
          v += sigma * rng.normal();
      }
  return noisy;
}

template <class T>
Result<TrainHooks<T>, TrainError>
input_noise_hooks(const plastic_model& model, const Dataset& train,
                  const PrepareOptions& prepare_options, const PreparedData* valid,
                  const HookOptions& options, double sigma, uint64_t seed) {
  struct Shared {
    const plastic_model& model;
    const Dataset& train;
    PrepareOptions prepare;
    const PreparedData* valid;
    const HookOptions& options;
    double sigma;
    uint64_t seed;
    std::unique_ptr<PreparedData> data; ///< this epoch's noisy training series
    int64_t data_epoch = 0;             ///< the epoch `data` was drawn for
    TrainHooks<T> hooks;                ///< over `data`
    std::optional<TrainError> failed;   ///< preparing this epoch's series failed
  };
  auto shared = std::make_shared<Shared>(
      Shared{model, train, prepare_options, valid, options, sigma, seed, nullptr, 1, {}, {}});
  // Epoch 1's series, prepared now: a failure is said before training.
  auto first = prepare(model, with_input_noise(train, sigma, seed, 1), prepare_options);
  if (!first) return to_train_error(first.status());
  shared->data = std::make_unique<PreparedData>(std::move(first).value());
  shared->hooks = make_train_hooks<T>(model, *shared->data, valid, options);
  TrainHooks<T> h;
  h.batches_per_epoch = shared->hooks.batches_per_epoch; // the noise keeps every sample
  // Each call goes to this epoch's hooks: none outlives the data it was made over.
  if (shared->hooks.validate)
    h.validate = [shared](std::span<const T> params) { return shared->hooks.validate(params); };
  if (shared->hooks.check_params)
    h.check_params = [shared](int64_t epoch, std::span<const T> params) {
      return shared->hooks.check_params(epoch, params);
    };
  h.begin_epoch = [shared](int64_t epoch, Rng& rng) {
    Shared& s = *shared;
    if (epoch == s.data_epoch) { // epoch 1's series were prepared with the hooks
      if (s.hooks.begin_epoch) s.hooks.begin_epoch(epoch, rng);
      return;
    }
    auto noisy = prepare(s.model, with_input_noise(s.train, s.sigma, s.seed, epoch), s.prepare);
    if (!noisy) {
      s.failed = to_train_error(noisy.status());
      s.failed->message = fmt::format("epoch {}'s noisy training series (--input-noise {}): {}",
                                      epoch, s.sigma, s.failed->message);
      return;
    }
    auto data = std::make_unique<PreparedData>(std::move(noisy).value());
    s.hooks = make_train_hooks<T>(s.model, *data, s.valid, s.options); // before the old data goes
    s.data = std::move(data);
    s.data_epoch = epoch;
    s.failed.reset();
    if (s.hooks.begin_epoch) s.hooks.begin_epoch(epoch, rng);
  };
  h.train_batch = [shared](int64_t epoch, int64_t batch, std::span<const T> params,
                           std::span<T> grads, Rng& rng) -> Result<BatchResult, TrainError> {
    if (shared->failed) return *shared->failed;
    return shared->hooks.train_batch(epoch, batch, params, grads, rng);
  };
  return h;
}

template Result<TrainHooks<float>, TrainError>
input_noise_hooks<float>(const plastic_model&, const Dataset&, const PrepareOptions&,
                         const PreparedData*, const HookOptions&, double, uint64_t);
template Result<TrainHooks<double>, TrainError>
input_noise_hooks<double>(const plastic_model&, const Dataset&, const PrepareOptions&,
                          const PreparedData*, const HookOptions&, double, uint64_t);

} // namespace plastic::rt
