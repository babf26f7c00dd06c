// Static op properties generated from the X-macro list (see op_list.h).
#include "compiler/ir/op.h"

#include <array>

namespace plastic::ir {
namespace {

struct OpInfo {
  std::string_view name;
  int arity;
  OpCategory category;
  uint8_t attrs;
};

constexpr uint8_t S = kAttrStr, I = kAttrInts, R = kAttrReals;

constexpr std::array<OpInfo, kNumOps> kInfo = {{
#define PLASTIC_X(name, spelling, arity, category, attrs)                                          \
  {spelling, arity, OpCategory::category, static_cast<uint8_t>(attrs)},
    PLASTIC_IR_OPS(PLASTIC_X)
#undef PLASTIC_X
}};

const OpInfo& info(Op op) {
  return kInfo[static_cast<size_t>(op)];
}

} // namespace

std::string_view op_name(Op op) {
  return info(op).name;
}

std::optional<Op> op_from_name(std::string_view name) {
  for (size_t i = 0; i < kInfo.size(); ++i)
    if (kInfo[i].name == name) return static_cast<Op>(i);
  return std::nullopt;
}

int op_arity(Op op) {
  return info(op).arity;
}
OpCategory op_category(Op op) {
  return info(op).category;
}
uint8_t op_attr_layout(Op op) {
  return info(op).attrs;
}

bool op_is_commutative(Op op) {
  switch (op) {
  case Op::Add:
  case Op::Mul:
  case Op::Max:
  case Op::Min:
  case Op::Eq:
  case Op::Ne:
    return true;
  default:
    return false;
  }
}

} // namespace plastic::ir
