// Random data shaped like a model's inputs (see synthetic_data.h).
#include "runtime/app/synthetic_data.h"

#include <string>

#include "runtime/app/model_data.h"
#include "runtime/support/rng.h"

namespace plastic::rt {

Dataset synthetic_dataset(const plastic_model& m, int64_t samples, int64_t length, uint64_t seed,
                          double dt) {
  Rng rng(seed);
  Dataset d;
  d.name = std::string("synthetic data for ") + (m.name ? m.name : "a model");
  int64_t channels = model_path_channels(m);
  for (int64_t c = 0; c < channels; ++c)
    d.channels.push_back({"x" + std::to_string(c)});
  int64_t statics = 0;
  for (int32_t i = 0; i < m.n_input_slots; ++i)
    if (m.input_slots[i].kind == PLASTIC_INPUT_STATIC) statics += m.input_slots[i].channels;
  for (int64_t s = 0; s < statics; ++s)
    d.statics.push_back({"s" + std::to_string(s)});
  const bool each = m.readout == PLASTIC_READOUT_EACH_OBSERVATION;
  switch (m.task) {
  case PLASTIC_TASK_CLASSIFICATION:
    d.target_kind = TargetKind::Class;
    for (int64_t k = 0; k < m.n_targets; ++k)
      d.classes.push_back("c" + std::to_string(k));
    break;
  case PLASTIC_TASK_BINARY:
    d.target_kind = TargetKind::Binary;
    d.classes = {"0", "1"};
    break;
  default:
    d.target_kind = each ? TargetKind::RegressionPerStep : TargetKind::Regression;
    for (int64_t k = 0; k < m.n_targets; ++k)
      d.targets.push_back("y" + std::to_string(k));
  }
  for (int64_t i = 0; i < samples; ++i) {
    Sample s;
    s.id = "s" + std::to_string(i);
    std::vector<double> x(static_cast<size_t>(channels), 0.0);
    for (int64_t t = 0; t < length; ++t) {
      s.times.push_back(static_cast<double>(t) * dt);
      for (double& v : x) {
        v += 0.3 * rng.normal();
        s.values.push_back(v);
      }
    }
    for (int64_t k = 0; k < statics; ++k)
      s.statics.push_back(rng.normal());
    if (d.target_kind == TargetKind::Class)
      s.label = static_cast<int>(rng() % static_cast<uint64_t>(m.n_targets));
    else if (d.target_kind == TargetKind::Binary)
      s.label = static_cast<int>(rng() % 2);
    else
      for (int64_t r = 0; r < (each ? length : 1) * m.n_targets; ++r)
        s.target.push_back(rng.normal());
    d.samples.push_back(std::move(s));
  }
  return d;
}

} // namespace plastic::rt
