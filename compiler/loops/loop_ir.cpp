// Names, tables and the affine-index algebra of the loop IR (loop_ir.h).
#include "compiler/loops/loop_ir.h"

#include <algorithm>

#include "compiler/loops/error.h"

namespace plastic::loops {

std::string_view elem_type_name(ElemType t) {
  return t == ElemType::F32 ? "f32" : "f64";
}
int elem_size(ElemType t) {
  return t == ElemType::F32 ? 4 : 8;
}
int default_lanes(ElemType t) {
  return 32 / elem_size(t);
}
std::string_view lanes_name(Lanes l) {
  return l == Lanes::Varying ? "varying" : "uniform";
}

#define PLASTIC_LOOP_NAME(name, spelling, attr) spelling,
#define PLASTIC_LOOP_ATTR(name, spelling, attr) attr,
namespace {
constexpr std::string_view kUnaryNames[] = {PLASTIC_LOOP_UNARY_OPS(PLASTIC_LOOP_NAME)};
constexpr bool kUnaryAttr[] = {PLASTIC_LOOP_UNARY_OPS(PLASTIC_LOOP_ATTR)};
constexpr std::string_view kBinaryNames[] = {PLASTIC_LOOP_BINARY_OPS(PLASTIC_LOOP_NAME)};
constexpr std::string_view kCompareNames[] = {PLASTIC_LOOP_COMPARE_OPS(PLASTIC_LOOP_NAME)};
} // namespace
#undef PLASTIC_LOOP_NAME
#undef PLASTIC_LOOP_ATTR

std::string_view op_name(UnaryOp op) {
  return kUnaryNames[static_cast<int>(op)];
}
std::string_view op_name(BinaryOp op) {
  return kBinaryNames[static_cast<int>(op)];
}
std::string_view op_name(CompareOp op) {
  return kCompareNames[static_cast<int>(op)];
}
bool has_attribute(UnaryOp op) {
  return kUnaryAttr[static_cast<int>(op)];
}

Index Index::loop(uint32_t loop_id) {
  Index i;
  i.terms.push_back({loop_id, 1});
  return i;
}

Index operator+(const Index& a, const Index& b) {
  // Merge two sorted term lists, adding strides of the same loop and dropping
  // zeros, so equal affine functions compare equal.
  Index r(a.offset + b.offset);
  size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    Index::Term t;
    if (j == b.terms.size() || (i < a.terms.size() && a.terms[i].loop < b.terms[j].loop)) {
      t = a.terms[i++];
    } else if (i == a.terms.size() || b.terms[j].loop < a.terms[i].loop) {
      t = b.terms[j++];
    } else {
      t = {a.terms[i].loop, a.terms[i].stride + b.terms[j].stride};
      ++i, ++j;
    }
    if (t.stride != 0) r.terms.push_back(t);
  }
  return r;
}

Index operator*(const Index& a, int64_t k) {
  if (k == 0) return Index(0);
  Index r(a.offset * k);
  for (const auto& t : a.terms)
    r.terms.push_back({t.loop, t.stride * k});
  return r;
}

int ExprNode::arity() const {
  switch (kind) {
  case ExprKind::Const:
  case ExprKind::ScalarParam:
  case ExprKind::Load:
  case ExprKind::VarRef:
    return 0;
  case ExprKind::Unary:
    return 1;
  case ExprKind::Binary:
  case ExprKind::Compare:
    return 2;
  case ExprKind::Fma:
  case ExprKind::Select:
    return 3;
  }
  return 0;
}

uint32_t Function::scratch_param() const {
  for (uint32_t i = 0; i < params.size(); ++i)
    if (params[i].kind == ParamKind::Scratch) return i;
  return kNone;
}

const Function* Module::find(std::string_view fn_name) const {
  auto it = std::find_if(functions.begin(), functions.end(),
                         [&](const Function& f) { return f.name == fn_name; });
  return it == functions.end() ? nullptr : &*it;
}

bool expr_reads(const Function& fn, uint32_t expr, uint32_t buffer) {
  const ExprNode& n = fn.exprs[expr];
  if (n.kind == ExprKind::Load && n.ref == buffer) return true;
  for (int k = 0; k < n.arity(); ++k)
    if (expr_reads(fn, n.args[static_cast<size_t>(k)], buffer)) return true;
  return false;
}

} // namespace plastic::loops
