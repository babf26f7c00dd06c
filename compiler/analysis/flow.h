// The flow field of a model's autonomous field (inputs held at one value)
// in the plane of the two leading principal components of its
// trajectories, with the trajectories and the fixed points (fixed_points.h)
// projected on it: the picture of paper 003 Sec. 6.1 (Fig. 2), where the
// plane is spanned by the output channels; here by the PCs, so any model
// with a state of two or more dimensions has one.
//
// Trajectories: with data, the reference runs of the first samples with
// their own inputs (the pulses of the flip-flop move the state between the
// attractors); without data, the autonomous field followed by RK4 from
// random states z₀ ~ N(0, I). The arrows on a grid over the plane are the
// field at z = mean + a·v₁ + b·v₂, projected on (v₁, v₂): the flow within
// the plane, not the flow out of it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/analysis/fixed_points.h"
#include "compiler/model/model_functions.h"
#include "runtime/batch/prepared_data.h"

namespace plastic::analysis {

struct FlowOptions {
  const rt::PreparedData* data = nullptr; ///< trajectories of its samples; null: random starts
  int64_t samples = 4;                    ///< trajectories
  double input = 0;                       ///< the value every input is held at
  int64_t grid = 21;                      ///< arrows per side
  uint64_t seed = 0;
};

struct FlowArrow {
  double a = 0, b = 0;   ///< position in the plane
  double da = 0, db = 0; ///< the field projected on the plane
  double speed = 0;      ///< ‖f‖ there (the whole field, in and out of the plane)
};

struct FlowField {
  std::vector<double> mean;                ///< centre of the trajectories
  std::array<std::vector<double>, 2> axes; ///< v₁, v₂ (unit, orthogonal)
  std::array<double, 2> explained{};       ///< fraction of the variance along each
  std::vector<std::vector<std::array<double, 2>>> trajectories; ///< projected
  std::vector<FlowArrow> arrows;

  /// z projected on the plane.
  std::array<double, 2> project(const std::vector<double>& z) const;
};

/// The flow field; throws ir::IRError for a state of fewer than 2 dimensions.
FlowField flow_field(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                     const std::vector<double>& theta, const FlowOptions& options);

/// Draws the arrows, trajectories and points to `png` with gnuplot; the
/// error message when it cannot.
std::optional<std::string> plot_flow(const FlowField& flow, const FixedPointReport& points,
                                     const std::string& title, const std::string& png);

} // namespace plastic::analysis
