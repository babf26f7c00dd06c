// The pass pipeline: a named list of Function → Function passes, run in
// order, with the verifier after each pass and an optional callback after
// each pass (print-after-all, as MLIR's --mlir-print-ir-after-all).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::passes {

/// One pass: a free function of a Function.
using PassFn = std::function<ir::Function(const ir::Function&)>;

struct PipelineOptions {
  /// Run the verifier after every pass (an InternalError names the pass).
  bool verify_each = true;
  /// Called after every pass with its name and result (print-after-all).
  std::function<void(std::string_view pass, const ir::Function& f)> after_pass;
};

class PassPipeline {
public:
  /// Appends a pass.
  PassPipeline& add(std::string name, PassFn pass);
  /// Runs all passes in order.
  ir::Function run(const ir::Function& f, const PipelineOptions& options = {}) const;
  /// Pass names, in order.
  std::vector<std::string> names() const;

  /// The default optimisation pipeline: simplify, reassociate-contractions,
  /// factor-shared-operands, constant-fold, simplify, dce.
  static PassPipeline standard();

private:
  std::vector<std::pair<std::string, PassFn>> passes_;
};

/// An after_pass callback that writes `// ----- IR after <pass> ----- //`
/// and the printed function to `os` (the banner is a comment the parser
/// skips, so the stream stays parseable).
std::function<void(std::string_view, const ir::Function&)> print_after_all(std::ostream& os);

} // namespace plastic::passes
