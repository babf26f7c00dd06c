// The pass pipeline (see pipeline.h).
#include "compiler/passes/pipeline.h"

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/constant_fold.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/factor.h"
#include "compiler/passes/reassociate.h"
#include "compiler/passes/simplify.h"

namespace plastic::passes {

PassPipeline& PassPipeline::add(std::string name, PassFn pass) {
  passes_.emplace_back(std::move(name), std::move(pass));
  return *this;
}

ir::Function PassPipeline::run(const ir::Function& f, const PipelineOptions& options) const {
  ir::Function cur = f;
  if (options.verify_each) ir::verify(cur);
  for (const auto& [name, pass] : passes_) {
    cur = pass(cur);
    if (options.verify_each) ir::verify(cur, name);
    if (options.after_pass) options.after_pass(name, cur);
  }
  return cur;
}

std::vector<std::string> PassPipeline::names() const {
  std::vector<std::string> v;
  v.reserve(passes_.size());
  for (const auto& p : passes_)
    v.push_back(p.first);
  return v;
}

PassPipeline PassPipeline::standard() {
  PassPipeline p;
  p.add("simplify", simplify)
      .add("reassociate-contractions", reassociate_contractions)
      .add("factor-shared-operands", factor_shared_operands)
      .add("constant-fold", [](const ir::Function& f) { return constant_fold(f); })
      .add("simplify", simplify)
      .add("dce", [](const ir::Function& f) { return eliminate_dead_code(f); });
  return p;
}

std::function<void(std::string_view, const ir::Function&)> print_after_all(std::ostream& os) {
  return [&os](std::string_view pass, const ir::Function& f) {
    os << "// ----- IR after " << pass << " ----- //\n" << ir::print(f);
  };
}

} // namespace plastic::passes
