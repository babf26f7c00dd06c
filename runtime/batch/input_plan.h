// Which data feeds which slot of the input sample u(t): the model table's
// input slots matched against a Dataset, checked once, before any path is
// built.
//
// The table describes u as a list of slots (abi.h `plastic_input_slot`);
// the Dataset holds time-series channels and static features. The mapping
// is fixed and simple: a PATH or LOGSIG slot reads ALL time-series channels
// of the data, in order; STATIC slots read the static features (one static
// input per distinct `source`, taken in source order as consecutive blocks).
// Several slots of one path input (x(t), dx(t), a log-signature driver) share
// the data path; a model reading two different path inputs is refused, since
// a Dataset holds a single series per sample.
//
// What each slot evaluates:
//  * PATH_VALUE / PATH_DERIV with channels == data channels: x(t) / x'(t) of
//    the data path interpolated with the slot's scheme (0 linear, 1 natural
//    cubic, 2 Hermite with backward differences).
//  * PATH_VALUE whose channels equal those of a LOGSIG_DRIVER slot of the
//    same source (and differ from the data channels): the path in
//    log-signature space whose derivative is the driver (logsig_path.h).
//  * LOGSIG_DRIVER: LogSig of the current window / its length (paper 002
//    Eqs. 9-10), words basis, no time channel added.
//  * STATIC: the sample's static features (NaN filled, see PrepareOptions).
// Errors name the model input and the numbers, e.g. "model input x is
// path[21] but the data has 20 channels".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/data/dataset.h"
#include "runtime/paths/interpolation.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

/// Where one slot's values come from.
enum class SlotFeed {
  DataPath,     ///< a CubicPath of the data (value or derivative)
  LogSigValue,  ///< LogSigPath::value: the path in log-signature space
  LogSigDriver, ///< LogSigPath::derivative: LogSig(window) / window length
  Static,       ///< static features
};

struct SlotPlan {
  std::string name; ///< the model input's DSL name (for messages)
  SlotFeed feed = SlotFeed::Static;
  bool derivative = false;  ///< DataPath only: x'(t) instead of x(t)
  int64_t offset = 0;       ///< first element of the slot in u (per sample)
  int64_t channels = 0;     ///< elements of the slot
  int source = -1;          ///< index into PreparedSample::paths (DataPath) or ::logsigs
  int64_t static_first = 0; ///< Static: first static feature read
};

/// One log-signature driver to build per sample.
struct LogSigBuild {
  int depth = 0;
  int step = 0;
  int64_t channels = 0; ///< β(d, depth)
  bool operator==(const LogSigBuild&) const = default;
};

/// Everything the model needs from the data, in build order.
struct InputPlan {
  std::vector<SlotPlan> slots;
  std::vector<Interpolation> paths; ///< distinct interpolation schemes to build per sample
  std::vector<LogSigBuild> logsigs; ///< distinct drivers to build per sample
  int64_t data_channels = 0;        ///< time-series channels read (0: the model reads no path)
  int64_t statics = 0;              ///< static features read
  /// The input kinks or jumps at every data time (a linear path, or the
  /// derivative of a Hermite path), so solver steps should land on them.
  bool kinks_at_data_times = false;
};

/// The slot scheme of a PATH slot (0 linear, 1 natural cubic, 2 Hermite).
Result<Interpolation, SolveFailure> slot_interpolation(const plastic_input_slot& slot);

/// Matches the table's input slots against the data; fails with a message
/// naming the model input when they do not fit.
Result<InputPlan, SolveFailure> plan_inputs(const plastic_model& model, const Dataset& data);

} // namespace plastic::rt
