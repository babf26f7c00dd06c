// Target encoding and observation schedules (see targets.h).
#include "runtime/batch/targets.h"

#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

Result<TargetPlan, SolveFailure> plan_targets(const plastic_model& m, const Dataset& data) {
  TargetPlan plan;
  plan.task = m.task;
  plan.readout = m.readout;
  plan.width = m.n_targets;
  plan.jumps = m.kernels.jump != nullptr;
  if (m.readout != PLASTIC_READOUT_FINAL && m.readout != PLASTIC_READOUT_EACH_OBSERVATION)
    return invalid_model(fmt::format("the model has unknown readout {}", m.readout));
  const TargetKind kind = data.target_kind;
  plan.has_targets = kind != TargetKind::None;
  const bool each = m.readout == PLASTIC_READOUT_EACH_OBSERVATION;
  switch (m.task) {
  case PLASTIC_TASK_CLASSIFICATION:
  case PLASTIC_TASK_BINARY: {
    const bool binary = m.task == PLASTIC_TASK_BINARY;
    const char* what = binary ? "binary classification" : "classification";
    if (!plan.has_targets) break;
    if (kind != TargetKind::Class && kind != TargetKind::Binary)
      return invalid_argument(fmt::format("the model's task is {} but the data's targets are {}",
                                          what, target_kind_name(kind)),
                              "load the data with class labels, or change the model's loss");
    if (each)
      return invalid_argument(
          fmt::format("{} targets at every observation are not supported yet (the data has one "
                      "label per sample)",
                      what),
          "read the output at the final time only");
    const int64_t classes = static_cast<int64_t>(data.classes.size());
    if (binary && (m.n_targets != 1 || classes != 2))
      return invalid_argument(fmt::format("binary classification needs 1 target and 2 classes; "
                                          "the model has {} targets, the data {} classes",
                                          m.n_targets, classes));
    if (!binary && m.n_targets != classes)
      return invalid_argument(
          fmt::format("the model predicts {} classes but the data has {}", m.n_targets, classes),
          fmt::format("set the model's class count to {}", classes));
    break;
  }
  case PLASTIC_TASK_REGRESSION: {
    if (!plan.has_targets) break;
    if (kind != TargetKind::Regression && kind != TargetKind::RegressionPerStep)
      return invalid_argument(fmt::format("the model's task is regression but the data's targets "
                                          "are {}",
                                          target_kind_name(kind)));
    if (kind == TargetKind::RegressionPerStep && !each)
      return invalid_argument("the data has a target at every observation but the model reads "
                              "its output at the final time only",
                              "declare the output per observation, or load final-time targets");
    const int64_t width = static_cast<int64_t>(data.targets.size());
    if (m.n_targets != width)
      return invalid_argument(fmt::format("the model has {} regression targets but the data has {}",
                                          m.n_targets, width));
    break;
  }
  default:
    return invalid_model(fmt::format("the model has unknown task {}", m.task));
  }
  return plan;
}

void schedule_sample(const TargetPlan& plan, const Dataset& data, const Sample& s, double shift,
                     std::vector<SampleObservation>& obs, std::vector<double>& targets,
                     int64_t& partly_missing) {
  obs.clear();
  targets.clear();
  const size_t n = s.length();
  const size_t g = static_cast<size_t>(plan.width);
  const bool each = plan.readout == PLASTIC_READOUT_EACH_OBSERVATION;
  const bool per_step = plan.has_targets && data.target_kind == TargetKind::RegressionPerStep;

  // Appends the target row for observation i (i = n-1 for a final target); -1 if none.
  auto row_for = [&](size_t i) -> int32_t {
    if (!plan.has_targets) return -1;
    const size_t row = targets.size() / std::max<size_t>(g, 1);
    switch (plan.task) {
    case PLASTIC_TASK_CLASSIFICATION:
      for (size_t c = 0; c < g; ++c)
        targets.push_back(static_cast<int>(c) == s.label ? 1.0 : 0.0);
      break;
    case PLASTIC_TASK_BINARY:
      targets.push_back(s.label == 1 ? 1.0 : 0.0);
      break;
    default: {
      const double* v = per_step ? s.target.data() + i * g : s.target.data();
      size_t missing = 0;
      for (size_t c = 0; c < g; ++c)
        missing += std::isnan(v[c]) ? 1 : 0;
      if (missing > 0) {
        if (missing < g) ++partly_missing;
        return -1;
      }
      targets.insert(targets.end(), v, v + g);
    }
    }
    return static_cast<int32_t>(row);
  };

  if (!each && !plan.jumps) {
    obs.push_back({s.times[n - 1] - shift, row_for(n - 1), 0, false});
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    SampleObservation o;
    o.t = s.times[i] - shift;
    o.jump = plan.jumps;
    const bool last = i + 1 == n;
    if (each) {
      o.readout = static_cast<int32_t>(i);
      if (per_step || last) o.target = row_for(i);
    } else if (last) {
      o.readout = 0;
      o.target = row_for(i);
    }
    obs.push_back(o);
  }
}

} // namespace plastic::rt
