// Scheduling decisions of the function emitter (see schedule.h for the
// rules). Everything here is a pass over the live DAG in topological order
// or its reverse; nothing builds loop IR.
#include "compiler/loopgen/schedule.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/ir/einsum.h"
#include "compiler/ir/traversal.h"
#include "compiler/loopgen/contract_groups.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen {
namespace {

using ir::Op;
using ir::OpCategory;

constexpr int kUnset = -2;
/// Fused chains longer than this are cut by materialising. Deep enough that
/// real fields never hit it; shallow enough that the emitter's recursion and
/// one statement's expression tree stay small.
constexpr int kMaxFusedDepth = 48;

} // namespace

bool contract_sums(const ir::Node* n) {
  if (n->op() != Op::Contract) return false;
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  for (const auto& in : spec.inputs)
    for (int l : in)
      if (std::find(spec.output.begin(), spec.output.end(), l) == spec.output.end()) return true;
  return false;
}

namespace {

bool always_materialised(const ir::Node* n) {
  switch (ir::op_category(n->op())) {
  case OpCategory::Contract:
    // Without summed labels a contraction is a product of broadcasts
    // (outer products, scalings): elementwise, so it may fuse.
    return contract_sums(n);
  case OpCategory::Reduce:
  case OpCategory::Composite:
  case OpCategory::Pad:
  case OpCategory::Concat:
    return true;
  case OpCategory::Constant:
    return !n->is_splat();
  default:
    return false;
  }
}

/// How many times a consumer evaluates one element of its operand `k` per
/// element it produces is > 1 (so the operand had better be cheap).
bool rereads_operand(const ir::Node* c, size_t k) {
  const ir::Node* o = c->operand(k);
  switch (ir::op_category(c->op())) {
  case OpCategory::Broadcast:
    return c->numel() > o->numel();
  case OpCategory::Composite:
    return true;
  case OpCategory::Contract: {
    ir::EinsumSpec spec = ir::EinsumSpec::parse(c->attrs().str);
    std::vector<int64_t> size(static_cast<size_t>(spec.label_bound()), 1);
    for (size_t i = 0; i < spec.inputs.size(); ++i)
      for (size_t a = 0; a < spec.inputs[i].size(); ++a)
        size[static_cast<size_t>(spec.inputs[i][a])] = c->operand(i)->shape()[a];
    int64_t factor = 1;
    for (size_t l = 0; l < size.size(); ++l)
      if (std::find(spec.inputs[k].begin(), spec.inputs[k].end(), static_cast<int>(l)) ==
          spec.inputs[k].end())
        factor *= size[l];
    return factor > 1;
  }
  default:
    return false;
  }
}

// A single number, or a broadcast of one.
bool scalar_like(const ir::Node* n) {
  return n->numel() == 1 ||
         (ir::op_category(n->op()) == OpCategory::Broadcast && n->operand(0)->numel() == 1);
}

// Whether operand k of a product without sums is read element for element:
// a multiplication's operands always are, a contraction's when its labels
// are the output's (not a transpose).
bool read_in_place(const ir::Node* n, size_t k) {
  if (n->op() == ir::Op::Mul) return true;
  const ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  return spec.inputs[k] == spec.output;
}

} // namespace

std::optional<ScaledOperand> scaled_operand(const ir::Node* n) {
  const bool product = n->op() == ir::Op::Mul ||
                       (ir::op_category(n->op()) == OpCategory::Contract && !contract_sums(n));
  if (!product || n->num_operands() != 2) return std::nullopt;
  for (size_t k : {size_t{0}, size_t{1}}) {
    const ir::Node* scalar = n->operand(1 - k);
    if (scalar_like(scalar) && read_in_place(n, k)) return ScaledOperand{n->operand(k), scalar};
  }
  return std::nullopt;
}

Schedule::Schedule(const ir::Function& fn, const ScheduleInput& in) {
  decide(fn, in);
  plan(fn, in);
}

const NodeSchedule& Schedule::at(const ir::Node* n) const {
  auto it = info_.find(n);
  PLASTIC_CHECK(it != info_.end(), "kernel emitter: node %{} ({}) is not scheduled", n->id(),
                ir::op_name(n->op()));
  return it->second;
}

bool Schedule::addressable(const ir::Node* n) const {
  return n->is_leaf() || at(n).materialise;
}

std::optional<ScaledOperand> Schedule::summed_read(const ir::Node* o) const {
  if (addressable(o)) return std::nullopt;
  return scaled_operand(o);
}

bool Schedule::cheap(const ir::Node* n) const {
  if (addressable(n) || n->is_splat()) return true;
  if (auto s = scaled_operand(n)) return cheap(s->tensor) && cheap(s->scalar);
  switch (ir::op_category(n->op())) {
  case OpCategory::Contract: // a transpose is a view
    return n->num_operands() == 1 && !contract_sums(n) && cheap(n->operand(0));
  case OpCategory::Broadcast:
  case OpCategory::Reshape:
  case OpCategory::Slice:
    return cheap(n->operand(0));
  default:
    return false;
  }
}

// cheap() as it will be once the operands' own consumer rules have run: a
// broadcast that expands forces its operand to be cheap.
bool Schedule::cheap_after(const ir::Node* n) const {
  if (addressable(n) || n->is_constant() || always_materialised(n)) return true;
  if (auto s = scaled_operand(n)) return cheap_after(s->tensor) && cheap_after(s->scalar);
  switch (ir::op_category(n->op())) {
  case OpCategory::Contract:
    return n->num_operands() == 1 && cheap_after(n->operand(0));
  case OpCategory::Broadcast:
    return n->numel() > n->operand(0)->numel() || cheap_after(n->operand(0));
  case OpCategory::Reshape:
  case OpCategory::Slice:
    return cheap_after(n->operand(0));
  default:
    return false;
  }
}

bool Schedule::needs_axes(const ir::Node* n) const {
  if (addressable(n) || n->is_splat()) return false;
  return op_needs_axes(n);
}

bool Schedule::op_needs_axes(const ir::Node* n) const {
  if (n->is_leaf() || n->is_constant()) return false;
  switch (ir::op_category(n->op())) {
  case OpCategory::Broadcast:
    return n->rank() > 1 && n->operand(0)->rank() > 0;
  case OpCategory::Slice: {
    // Slicing only the first axis is a constant shift of the flat offset.
    const ir::Shape& in = n->operand(0)->shape();
    for (int a = 1; a < n->rank(); ++a)
      if (n->shape()[static_cast<size_t>(a)] != in[static_cast<size_t>(a)]) return true;
    return needs_axes(n->operand(0));
  }
  case OpCategory::Reshape:
    return false;
  case OpCategory::Contract:
    // Operands are addressed per label.
    if (n->rank() > 1) return true;
    [[fallthrough]];
  default:
    for (const ir::Node* o : n->operands())
      if (needs_axes(o)) return true;
    return false;
  }
}

void Schedule::decide(const ir::Function& fn, const ScheduleInput& in) {
  std::vector<const ir::Node*> roots;
  for (size_t j = 0; j < fn.outputs().size(); ++j)
    if (in.output_live[j]) roots.push_back(fn.outputs()[j].node);
  order_ = ir::topo_order(roots);
  for (const ir::Node* n : order_)
    info_[n].region = kUnset;
  const auto operand_uses = count_uses(fn, in);
  const auto out_regions = assign_regions(fn, in);
  decide_base(in, operand_uses, out_regions);
  apply_consumer_rules();
  cut_deep_chains();
  if (in.outputs_may_alias) demote_unsafe_direct(fn, in);
  group_contracts(fn, in);
}

// Uses (as operands and as outputs, below) and lane classes; returns the
// uses as an operand alone.
std::unordered_map<const ir::Node*, int> Schedule::count_uses(const ir::Function& fn,
                                                              const ScheduleInput& in) {
  std::unordered_map<const ir::Node*, int> operand_uses;
  for (const ir::Node* n : order_) {
    NodeSchedule& s = info_[n];
    if (n->is_leaf()) {
      s.uniform = in.input_uniform[fn.input_index(n->name())];
    } else if (n->is_constant()) {
      s.uniform = true;
    } else {
      s.uniform = true;
      for (const ir::Node* o : n->operands())
        s.uniform = s.uniform && info_[o].uniform;
    }
    for (const ir::Node* o : n->operands()) {
      ++info_[o].uses;
      ++operand_uses[o];
    }
  }
  return operand_uses;
}

// Each node's region: the one region of the outputs it feeds, else the top
// region; returns the regions of each node stored as an output.
std::unordered_map<const ir::Node*, std::vector<int>>
Schedule::assign_regions(const ir::Function& fn, const ScheduleInput& in) {
  auto merge = [](int& region, int r) {
    if (region == kUnset)
      region = r;
    else if (region != r)
      region = kTopRegion;
  };
  std::unordered_map<const ir::Node*, std::vector<int>> out_regions;
  for (size_t j = 0; j < fn.outputs().size(); ++j) {
    if (!in.output_live[j]) continue;
    const ir::Node* n = fn.outputs()[j].node;
    ++info_[n].uses;
    merge(info_[n].region, in.output_region[j]);
    out_regions[n].push_back(in.output_region[j]);
  }
  for (auto it = order_.rbegin(); it != order_.rend(); ++it)
    for (const ir::Node* o : (*it)->operands())
      merge(info_[o].region, info_[*it].region);
  return out_regions;
}

// Base decisions, operands first so that cheap_after sees them.
void Schedule::decide_base(
    const ScheduleInput& in, const std::unordered_map<const ir::Node*, int>& operand_uses,
    const std::unordered_map<const ir::Node*, std::vector<int>>& out_regions) {
  for (const ir::Node* n : order_) {
    NodeSchedule& s = info_[n];
    auto outs = out_regions.find(n);
    auto uses = operand_uses.find(n);
    bool output_only =
        (uses == operand_uses.end() || uses->second == 0) && outs != out_regions.end();
    if (output_only &&
        std::all_of(outs->second.begin(), outs->second.end(),
                    [&](int r) { return r == outs->second.front(); }) &&
        !n->is_leaf() && !n->is_splat()) {
      s.direct = true; // under aliasing, only if stores_safely agrees (below)
      continue;
    }
    if (outs != out_regions.end() && in.outputs_may_alias) {
      // Computed into scratch before any output store; splats read nothing.
      s.materialise = !n->is_splat() && n->dtype() != ir::DType::I1;
      continue;
    }
    if (ir::op_category(n->op()) == OpCategory::Compare || n->is_leaf() || n->is_splat()) continue;
    s.materialise = always_materialised(n) || (s.uses > 1 && !cheap_after(n));
  }
}

// Consumer rules, consumers first.
void Schedule::apply_consumer_rules() {
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const ir::Node* c = *it;
    for (size_t k = 0; k < c->num_operands(); ++k) {
      const ir::Node* o = c->operand(k);
      NodeSchedule& so = info_[o];
      if (so.materialise || o->is_leaf() || o->is_constant()) continue;
      bool is_compare = ir::op_category(o->op()) == OpCategory::Compare;
      if ((ir::op_category(c->op()) == OpCategory::Reshape && needs_axes(o)) ||
          ((rereads_operand(c, k) ||
            (ir::op_category(c->op()) == OpCategory::Compare && info_[c].uses > 1)) &&
           !cheap_after(o) && !is_compare))
        so.materialise = true;
    }
  }
}

// Cut fused chains deeper than kMaxFusedDepth.
void Schedule::cut_deep_chains() {
  std::unordered_map<const ir::Node*, int> depth;
  for (const ir::Node* n : order_) {
    if (addressable(n) || n->is_constant()) {
      depth[n] = 0;
      continue;
    }
    int d = 0;
    for (const ir::Node* o : n->operands())
      d = std::max(d, depth[o]);
    if (d + 1 > kMaxFusedDepth) {
      if (ir::op_category(n->op()) == OpCategory::Compare || info_[n].direct) {
        for (const ir::Node* o : n->operands())
          if (!o->is_leaf() && !o->is_constant() && ir::op_category(o->op()) != OpCategory::Compare)
            info_[o].materialise = true;
        d = 1;
      } else {
        info_[n].materialise = true;
        d = 0;
      }
    } else {
      d += 1;
    }
    depth[n] = d;
  }
}

// Under aliasing a direct output's loop runs after every other node; it
// may still not read an aliased input anywhere but at the element it
// stores, else it goes through scratch like the other outputs.
void Schedule::demote_unsafe_direct(const ir::Function& fn, const ScheduleInput& in) {
  for (const ir::Node* n : order_) {
    NodeSchedule& s = info_[n];
    if (s.direct && !stores_safely(fn, in, n)) {
      s.direct = false;
      s.materialise = true;
    }
  }
}

bool Schedule::stores_safely(const ir::Function& fn, const ScheduleInput& in,
                             const ir::Node* n) const {
  // Where n is stored, and whether all of it goes to buffers that may alias.
  std::vector<int64_t> offsets;
  bool into_aliased = true;
  for (size_t j = 0; j < fn.outputs().size(); ++j)
    if (in.output_live[j] && fn.outputs()[j].node == n) {
      offsets.push_back(in.output_offset[j]);
      into_aliased = into_aliased && in.output_may_alias[j];
    }
  // Walks n's fused loop body; `same_element` while every node on the way
  // reads its operand at the element it computes (elementwise, same shape).
  auto safe = [&](auto&& self, const ir::Node* m, bool same_element) -> bool {
    if (m->is_leaf()) {
      int64_t off = in.input_alias_offset[fn.input_index(m->name())];
      return off < 0 ||
             (same_element && into_aliased &&
              std::all_of(offsets.begin(), offsets.end(), [&](int64_t o) { return o == off; }));
    }
    if (m->is_constant() || (m != n && at(m).materialise)) return true;
    const OpCategory cat = ir::op_category(m->op());
    const bool elementwise = cat == OpCategory::Unary || cat == OpCategory::Binary ||
                             cat == OpCategory::Compare || cat == OpCategory::Select;
    for (const ir::Node* o : m->operands())
      if (!self(self, o, same_element && elementwise && o->shape() == m->shape())) return false;
    return true;
  };
  return safe(safe, n, true);
}

std::span<const ir::Node* const> Schedule::group(const ir::Node* n) const {
  auto it = group_of_.find(n);
  if (it == group_of_.end()) return {};
  return groups_[it->second];
}

// Groups the contractions that can share a pass (contract_groups.h) and
// re-sorts the order so each group's members are consecutive. A group
// whose merge would close a cycle through other groups is dropped, the
// last found first.
void Schedule::group_contracts(const ir::Function& fn, const ScheduleInput& in) {
  std::unordered_set<const ir::Node*> outputs;
  for (size_t j = 0; j < fn.outputs().size(); ++j)
    if (in.output_live[j]) outputs.insert(fn.outputs()[j].node);
  auto candidate = [&](const ir::Node* n) {
    GroupCandidate c;
    const NodeSchedule& s = info_.at(n);
    if (!s.materialise || s.direct || outputs.count(n) || !contract_sums(n)) return c;
    // The largest operand is the one streamed, as emit_contract reads it.
    size_t k = 0;
    for (size_t i = 1; i < n->num_operands(); ++i)
      if (n->operand(i)->numel() > n->operand(k)->numel()) k = i;
    const std::optional<ScaledOperand> scaled = summed_read(n->operand(k));
    c = {true, scaled ? scaled->tensor : n->operand(k), k, s.uniform, s.region};
    return c;
  };
  std::vector<std::vector<const ir::Node*>> groups =
      find_contract_groups(order_, candidate, max_contract_group(in.vector_bits));
  while (!groups.empty()) {
    if (auto reordered = order_with_groups(order_, groups)) {
      order_ = std::move(*reordered);
      break;
    }
    groups.pop_back();
  }
  groups_ = std::move(groups);
  for (size_t g = 0; g < groups_.size(); ++g)
    for (const ir::Node* n : groups_[g])
      group_of_[n] = g;
}

void Schedule::mark_reads(const ir::Node* root, bool include_root, int64_t step) {
  if (include_root && info_[root].materialise) {
    info_[root].last_use = std::max(info_[root].last_use, step);
    return;
  }
  for (const ir::Node* o : root->operands())
    mark_reads(o, true, step);
}

void Schedule::plan(const ir::Function& fn, const ScheduleInput& in) {
  // Compute steps for the region's nodes that `wanted` picks, in order.
  auto computes_if = [&](int region, auto&& wanted) {
    for (const ir::Node* n : order_) {
      const NodeSchedule& s = info_[n];
      if (s.region == region && wanted(s)) steps_.push_back({Step::Kind::Compute, n, -1, region});
    }
  };
  // Under aliasing, direct outputs are computed with the stores, after every
  // materialised node.
  auto computes = [&](int region) {
    computes_if(region, [&](const NodeSchedule& s) {
      return s.materialise || (s.direct && !in.outputs_may_alias);
    });
  };
  auto direct_outputs = [&](int region) {
    computes_if(region, [](const NodeSchedule& s) { return s.direct; });
  };
  auto outputs = [&](int region) {
    for (size_t j = 0; j < fn.outputs().size(); ++j)
      if (in.output_live[j] && in.output_region[j] == region && !info_[fn.outputs()[j].node].direct)
        steps_.push_back({Step::Kind::Output, nullptr, static_cast<int>(j), region});
  };
  auto used = [&](int region) {
    for (size_t j = 0; j < fn.outputs().size(); ++j)
      if (in.output_live[j] && in.output_region[j] == region) return true;
    return false;
  };
  auto in_region = [&](int region, auto&& body) {
    if (!used(region)) return;
    steps_.push_back({Step::Kind::Open, nullptr, -1, region});
    body(region);
    steps_.push_back({Step::Kind::Close, nullptr, -1, region});
  };
  computes(kTopRegion);
  if (in.outputs_may_alias) {
    for (int r = 0; r < in.num_regions; ++r)
      in_region(r, computes);
    direct_outputs(kTopRegion);
    outputs(kTopRegion);
    for (int r = 0; r < in.num_regions; ++r)
      in_region(r, [&](int region) {
        direct_outputs(region);
        outputs(region);
      });
  } else {
    outputs(kTopRegion);
    for (int r = 0; r < in.num_regions; ++r)
      in_region(r, [&](int region) {
        computes(region);
        outputs(region);
      });
  }

  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step& st = steps_[s];
    if (st.kind == Step::Kind::Compute)
      mark_reads(st.node, false, static_cast<int64_t>(s));
    else if (st.kind == Step::Kind::Output)
      mark_reads(fn.outputs()[static_cast<size_t>(st.output)].node, true, static_cast<int64_t>(s));
  }
}

} // namespace plastic::loopgen
