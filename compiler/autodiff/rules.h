// The derivative rule table: one rule per op, for both modes.
//
// A rule gives, for one node, the cotangents of its operands from its own
// cotangent (reverse mode, VJP) and its tangent from its operands' tangents
// (forward mode, JVP). Rules build IR with the checked factories, so their
// results fold and simplify like any other IR. `nullptr` stands for a
// structurally zero (co)tangent throughout, so zero terms are never built.
//
// The rules live in one file per family (rules_elementwise.cpp,
// rules_structural.cpp, rules_contract.cpp, rules_composite.cpp);
// rule_table.cpp assembles them and refuses to start if a non-leaf op has
// no rule: a missing rule is a loud internal error, never a silent zero.
// Ops whose derivative is zero almost everywhere (step, sign, comparisons)
// have an explicit zero rule.
//
// Internal header of compiler/autodiff/: nothing outside that folder includes it.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::ad {

using ir::Node;

/// Cotangents of n's operands given n's cotangent `ct` (same type as n).
/// Entries with needed[i] == false may be left null; null means zero.
using VjpRule = std::vector<const Node*> (*)(const Node* n, const Node* ct,
                                             std::span<const bool> needed);
/// Tangent of n given its operands' tangents (null = zero; at least one is
/// non-null). Returns null for a zero tangent.
using JvpRule = const Node* (*)(const Node* n, std::span<const Node* const> tangents);

struct DiffRule {
  VjpRule vjp = nullptr;
  JvpRule jvp = nullptr;
};

using RuleTable = std::array<DiffRule, ir::kNumOps>;

/// The rule of `op`; throws plastic::InternalError if it has none.
const DiffRule& diff_rule(ir::Op op);

// Registration hooks, one per rule file.
void register_elementwise_rules(RuleTable& table);
void register_structural_rules(RuleTable& table);
void register_contract_rules(RuleTable& table);
void register_composite_rules(RuleTable& table);

} // namespace plastic::ad
