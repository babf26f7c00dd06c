// A Dataset made ready for one model: every sample's control paths,
// log-signature drivers, static features, observation schedule and encoded
// targets, computed ONCE per dataset (paths are data, not parameters), so a
// training step only evaluates them.
//
// Time. Each sample is solved from its own first observation: with
// `align_start` (the default) its times are shifted so that it starts at
// t = 0 (the shift is kept, and predictions report the data's own times).
// Samples of one tile must share t0, and this makes samples that start at
// different times tileable. The model then sees time since the series'
// first observation: exact for CDEs and autonomous fields; a field with an
// explicit dependence on absolute time should set align_start = false, and
// then the samples of a tile must start at the same time (checked when the
// tile is built).
//
// Knots (where u may kink and solver steps should land): the data times
// when the input has kinks there (a linear path; the derivative of a Hermite
// path), and the log-signature window boundaries. Natural cubic splines are
// C2 and add none, as in torchcde (`jump_t` only for linear paths), unless
// `knots_at_data_times` asks for them.
//
// Static features: NaN (missing) becomes `static_fill` (0), since kernels
// must be fed finite numbers; append "was recorded" indicators in the data
// if missingness matters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/batch/input_plan.h"
#include "runtime/batch/targets.h"
#include "runtime/data/dataset.h"
#include "runtime/logsig/logsig_path.h"
#include "runtime/paths/cubic_path.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

struct PrepareOptions {
  bool align_start = true;          ///< shift every sample to start at t = 0 (see file comment)
  bool require_targets = false;     ///< fail on unlabelled data (training, evaluation)
  bool knots_at_data_times = false; ///< force steps onto every data time
  double static_fill = 0.0;         ///< replaces NaN static features
  int threads = 1;                  ///< threads building paths (0 = all hardware threads)
};

/// One sample, ready to be evaluated.
struct PreparedSample {
  double shift = 0;                            ///< subtracted from the data's times
  double t0 = 0;                               ///< first (shifted) time
  double t_end = 0;                            ///< last (shifted) time
  std::vector<CubicPath> paths;                ///< one per InputPlan::paths
  std::vector<LogSigPath> logsigs;             ///< one per InputPlan::logsigs
  std::vector<double> statics;                 ///< InputPlan::statics values, finite
  std::vector<double> knots;                   ///< sorted times in (t0, t_end) where u may kink
  std::vector<SampleObservation> observations; ///< strictly increasing times
  std::vector<double> targets;                 ///< rows of n_targets values
  int64_t target_terms = 0;                    ///< observations with a target
  int64_t readouts = 0;                        ///< observations whose output is reported
};

class PreparedData {
public:
  const InputPlan& inputs() const { return inputs_; }
  const TargetPlan& targets() const { return targets_; }
  size_t size() const { return samples_.size(); }
  const PreparedSample& sample(size_t i) const { return samples_[i]; }
  /// The data set's sample id ("file:line", series id), for messages.
  const std::string& id(size_t i) const { return ids_[i]; }
  /// Class label (-1 unless the data has classes).
  int label(size_t i) const { return labels_[i]; }
  /// Per-step regression rows dropped because they held a NaN in some but not all entries.
  int64_t partly_missing_rows() const { return partly_missing_; }
  /// Fails unless `model` reads its inputs and targets exactly as the table
  /// this was prepared for (the same table, or a recompiled one with the same inputs).
  Status<SolveFailure> check_model(const plastic_model& model) const;

private:
  friend Result<PreparedData, SolveFailure> prepare(const plastic_model&, const Dataset&,
                                                    const PrepareOptions&);
  InputPlan inputs_;
  int64_t n_input_ = 0;
  TargetPlan targets_;
  std::vector<plastic_input_slot> slots_; // copy of the table's slots, for check_model
  std::vector<PreparedSample> samples_;
  std::vector<std::string> ids_;
  std::vector<int> labels_;
  int64_t partly_missing_ = 0;
};

/// Checks the data against the model and builds every sample's inputs.
/// Errors name the model input or the sample ("sample 'a01' (index 3): ...").
Result<PreparedData, SolveFailure> prepare(const plastic_model& model, const Dataset& data,
                                           const PrepareOptions& options = {});

} // namespace plastic::rt
