// The explainer and its rendering (see nonfinite_locator.h).
#include "compiler/analysis/nonfinite_locator.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "compiler/abi/layout.h"
#include "compiler/analysis/reference_run.h"
#include "dsl/diagnostics.h"

namespace plastic::analysis {

namespace {

// "model.ode:14:9: error: ...", the source line and a caret.
std::string render(const Finding& f, const rt::NonFiniteEvent& e, bool color) {
  std::string where =
      e.batch >= 0 ? fmt::format("data sample {}, batch {} of epoch {}", f.sample, e.batch, e.epoch)
                   : fmt::format("data sample {}", f.sample);
  std::string message =
      fmt::format("{} at t = {:.6g} in the {} pass ({})", f.site.what, f.t,
                  f.pass == rt::NonFinitePass::Forward ? "forward" : "backward", where);
  const ir::SourceLoc& loc = f.site.node->loc();
  std::ifstream file{std::string(loc.file)};
  if (!loc.valid() || !file) return "error: " + message + " (no source location)";
  std::stringstream text;
  text << file.rdbuf();
  auto source = std::make_shared<dsl::SourceFile>(std::string(loc.file), text.str());
  if (static_cast<uint32_t>(loc.line) > source->line_count())
    return "error: " + message + " (no source location)";
  std::string_view line = source->line_text(static_cast<uint32_t>(loc.line));
  const auto begin = static_cast<uint32_t>(line.data() - source->text().data() + loc.col - 1);
  dsl::Diagnostic d;
  d.span = dsl::Span{source.get(), begin, begin + 1};
  d.message = message;
  std::ostringstream os;
  dsl::DiagnosticEngine::render_one(os, d, color);
  std::string out = os.str();
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

// Why the re-run found nothing, so a trace never goes silent: the re-run
// is exact f64 arithmetic on the reference's step grid, so a value that
// only the compiled run meets comes from what differs between the two.
std::string not_found(const std::vector<int64_t>& samples, const rt::NonFiniteEvent& e) {
  const std::string which =
      samples.size() == 1
          ? fmt::format("data sample {}", samples[0])
          : fmt::format("data sample {} and {} more of its batch", samples[0], samples.size() - 1);
  const std::string when =
      e.failure.kind == rt::FailureKind::NonFiniteState && std::isfinite(e.failure.t)
          ? fmt::format(" (the compiled solve met it at t = {:.6g})", e.failure.t)
          : std::string();
  return fmt::format(
      "note: the reference interpreter re-ran {} in f64 on the model's own step "
      "grid and met no non-finite value{}, so it is not traced to a model line. What differs "
      "between the two runs: the element type (an f32 overflow that f64 does not meet: "
      "--dtype f64 checks it), the steps (an adaptive step, or a step shortened to the data's "
      "spacing, that the reference does not take), and the loss on the targets",
      which, when);
}

} // namespace

rt::NonFiniteExplainer make_nonfinite_explainer(const model::ModelFunctions& fns, bool color) {
  auto layout = std::make_shared<abi::ModelLayout>(abi::compute_layout(fns));
  return [&fns, layout, color](const rt::NonFiniteEvent& e) -> std::string {
    if (!e.data) return {};
    std::vector<int64_t> candidates;
    if (e.failure.sample >= 0) candidates.push_back(e.failure.sample);
    for (int64_t s : e.samples)
      if (candidates.size() < 16 && s != e.failure.sample) candidates.push_back(s);
    if (candidates.empty()) return {}; // no sample named: nothing to re-run
    try {
      for (int64_t s : candidates) {
        ReferenceRun run(fns, *layout, e, s);
        if (std::optional<Finding> f = run.run()) return render(*f, e, color);
      }
    } catch (const std::exception& ex) {
      return fmt::format("note: the reference interpreter cannot re-run this model ({}), so the "
                         "value is not traced to a model line",
                         ex.what());
    }
    return not_found(candidates, e);
  };
}

} // namespace plastic::analysis
