// The checked model: what the front end hands to the compiler.
//
// Every name resolved, every dim evaluated, every parameter flattened to a
// qualified name, shape and initializer, every state with its flow. Each
// expression irgen turns into IR (initial values, flows, jumps, outputs, the
// loss) comes resolved (resolved.h): bound to these tables, calls inlined,
// constants folded, shapes known, so irgen repeats no name lookup and
// reports nothing. The AST stays (owned by `modules`) for its spans. What
// only the checker needs — scopes, layer instances, which declarations had
// errors — stays in the checker.
#pragma once

#include "dsl/ast.h"
#include "dsl/resolved.h"
#include "dsl/shape.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace plastic::dsl {

/// A dim's or const's range for `plastic tune` (`tune log(0.003, 0.3)`):
/// the two bounds (Log, Linear) or the choices, evaluated.
struct TuneRange {
  TuneScale scale = TuneScale::Linear;
  std::vector<double> values;
};

struct DimValue {
  std::string name;
  double value = 0;        ///< integer for dims
  bool is_const = false;   ///< a real const rather than an integer dim
  bool overridden = false; ///< set from the command line
  /// `dim d from data.channels`: "channels" or "classes"; empty otherwise.
  std::string from_data;
  Span span;
  std::optional<TuneRange> tune; ///< searched by `plastic tune`; unset = fixed
};

struct InputInfo {
  std::string name;
  InputKind kind = InputKind::Path;
  Interpolation interp = Interpolation::Cubic;
  Shape shape;         ///< [channels], [n], [] for labels, target shape
  int64_t classes = 0; ///< labels
  int64_t logsig_depth = 0, logsig_step = 0;
  int64_t drive_size = 0; ///< size of dx(t): channels, or logsig_dim(channels, depth)
  bool per_observation = false;
  bool with_time = false, unit_increments = false; ///< path options (ast.h InputDecl)
  Span span;
};

enum class InitKind {
  UniformFanIn,
  GlorotUniform,
  GlorotNormal,
  KaimingUniform,
  KaimingNormal,
  Zeros,
  Ones,
  Constant,
  Normal,
  Uniform,
  Orthogonal,
  Critical,
  StabilityInformed
};
std::string_view to_string(InitKind kind);

struct InitInfo {
  InitKind kind = InitKind::UniformFanIn;
  std::map<std::string, double> args; ///< fan_in, gain, std, lo, hi, value, depth, ...
  int64_t fan_in = 1, fan_out = 1;
  int group = -1; ///< the mlp a stability_informed / critical init belongs to
};

struct ParamInfo {
  std::string name; ///< qualified: "ff.up.weight"
  Shape shape;
  InitInfo init;
  int64_t offset = 0; ///< into the flat parameter vector
  Span span;
};

struct StateInfo {
  std::string name;
  Shape shape;
  int64_t offset = 0; ///< into the flat state vector
  Span span;
  const StateDecl* decl = nullptr;
  const FlowDecl* flow = nullptr;
  const JumpDecl* jump = nullptr; ///< null: the state does not jump
  ResolvedExpr init_value, flow_value;
  ResolvedExpr jump_value; ///< empty without a jump
};

struct OutputInfo {
  std::string name;
  Shape shape;
  bool per_observation = false;
  const OutputDecl* decl = nullptr;
  ResolvedExpr value;
};

struct SolverInfo {
  std::string method = "rk4";
  bool adaptive = false;
  double step = 0; ///< fixed step, or first trial step of adaptive methods (0 = automatic)
  double rtol = 1e-7, atol = 1e-9; ///< torchdiffeq's defaults, as paper 000 App. B uses
  int64_t max_steps = 100000;      ///< attempted steps per solve (runtime: kDefaultMaxSteps)
  double dt_min = 0, dt_max = 0;   ///< 0 = unbounded
  Span span;
};

/// Auto: the runtime picks one of the others from a memory budget (memory_plan.h).
enum class GradientMethod { Direct, Checkpoint, Adjoint, Auto };
std::string_view to_string(GradientMethod m);

struct GradientInfo {
  GradientMethod method = GradientMethod::Direct;
  int64_t checkpoint_every = 0;
  double rtol = 1e-7, atol = 1e-9; ///< adjoint solve tolerances
  double budget_bytes = 0;         ///< auto: `budget 512 MB`; 0 = half of the available memory
  Span span;
};

struct CheckedModel {
  std::string name;
  std::vector<std::unique_ptr<Module>>
      modules; ///< prelude, the model, generated layers (own the AST)
  std::vector<DimValue> dims;
  std::vector<InputInfo> inputs;
  std::vector<ParamInfo> params;
  std::vector<StateInfo> states;
  std::vector<OutputInfo> outputs;
  const LossDecl* loss = nullptr;
  ResolvedExpr loss_value;
  SolverInfo solver;
  GradientInfo gradient;

  int64_t param_count() const;
  int64_t state_size() const;
  const InputInfo* find_input(std::string_view name) const;
  const StateInfo* find_state(std::string_view name) const;
};

} // namespace plastic::dsl
