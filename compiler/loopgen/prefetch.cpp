// The prefetch plan of a function (prefetch.h): which input, and how its
// lines are spread over the loop nests that run before its first read.
#include "compiler/loopgen/prefetch.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

namespace plastic::loopgen {
namespace {

// Whether computing `root` (its fused expression, down to stored nodes)
// reads `leaf`.
bool reads(const Schedule& sched, const ir::Node* root, const ir::Node* leaf) {
  std::unordered_set<const ir::Node*> seen;
  std::vector<const ir::Node*> todo(root->operands().begin(), root->operands().end());
  while (!todo.empty()) {
    const ir::Node* n = todo.back();
    todo.pop_back();
    if (n == leaf) return true;
    if (n->is_leaf() || n->is_constant() || !seen.insert(n).second || sched.at(n).materialise)
      continue;
    todo.insert(todo.end(), n->operands().begin(), n->operands().end());
  }
  return false;
}

} // namespace

std::optional<PrefetchPlan> plan_prefetch(const ir::Function& fn, const Schedule& sched,
                                          std::span<const InputBinding> inputs,
                                          const loops::Function& lf) {
  // The largest cold varying input bound to a buffer.
  const ir::Node* leaf = nullptr;
  const InputBinding* binding = nullptr;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Node* n = fn.inputs()[i];
    if (inputs[i].kind != InputBinding::Kind::Buffer || !inputs[i].cold || !sched.live(n) ||
        lf.buffer(inputs[i].buffer).lanes != loops::Lanes::Varying ||
        n->numel() < kPrefetchMinElements || (leaf && n->numel() <= leaf->numel()))
      continue;
    leaf = n;
    binding = &inputs[i];
  }
  if (!leaf) return std::nullopt;

  // Its first reader, and the loop nests before it.
  const std::vector<Step>& steps = sched.steps();
  size_t first = steps.size();
  std::vector<size_t> before;
  for (size_t s = 0; s < steps.size() && first == steps.size(); ++s) {
    const Step& st = steps[s];
    const ir::Node* root = st.kind == Step::Kind::Compute ? st.node
                           : st.kind == Step::Kind::Output
                               ? fn.outputs()[static_cast<size_t>(st.output)].node
                               : nullptr;
    if (!root) continue;
    if (root == leaf || reads(sched, root, leaf)) {
      first = s;
    } else if (st.kind == Step::Kind::Compute && st.region == kTopRegion) {
      before.push_back(s);
    }
  }
  if (before.empty()) return std::nullopt;

  PrefetchPlan plan;
  plan.buffer = binding->buffer;
  plan.offset = binding->offset;
  const int64_t element_bytes = int64_t{lf.lanes} * loops::elem_size(lf.type);
  plan.stride = std::max<int64_t>(1, 64 / element_bytes);
  plan.lines = (leaf->numel() + plan.stride - 1) / plan.stride;
  plan.burst.assign(steps.size(), {0, 0});
  const auto n = static_cast<int64_t>(before.size());
  for (int64_t k = 0; k < n; ++k) {
    const int64_t lo = plan.lines * k / n, hi = plan.lines * (k + 1) / n;
    plan.burst[before[static_cast<size_t>(k)]] = {lo, hi - lo};
  }
  return plan;
}

void emit_prefetch_burst(loops::Builder& b, const PrefetchPlan& plan, size_t s) {
  const auto [first, count] = plan.burst[s];
  if (count == 0) return;
  const int64_t base = plan.offset + first * plan.stride;
  if (count == 1) {
    b.prefetch(plan.buffer, loops::Index(base));
    return;
  }
  b.loop(fmt::format("p{}", s), 0, count,
         [&](const loops::Index& i) { b.prefetch(plan.buffer, i * plan.stride + base); });
}

} // namespace plastic::loopgen
