// Builder of loop functions (loop_builder.h): id bookkeeping, eager type
// checks at the call site, scratch-arena layout.
#include "compiler/loops/loop_builder.h"

#include <algorithm>
#include <cmath>

#include "compiler/loops/error.h"
#include "compiler/loops/loop_verifier.h"

namespace plastic::loops {

namespace {
// Scratch buffers start on cache-line boundaries: aligned vector loads, no
// false sharing between neighbouring buffers' lines.
constexpr int64_t kScratchAlign = 64;
} // namespace

Builder::Builder(std::string name, ElemType type, int lanes) {
  fn_.name = std::move(name);
  fn_.type = type;
  fn_.lanes = lanes == 0 ? default_lanes(type) : lanes;
  PLASTIC_CHECK(fn_.lanes >= 1 && fn_.lanes <= 64, "function '{}': lanes {} not in 1..64", fn_.name,
                fn_.lanes);
}

// ---- parameters and locals ---------------------------------------------------

Buffer Builder::add_buffer(std::string name, Lanes lanes, int64_t size, BufferOptions opts,
                           bool param) {
  PLASTIC_CHECK(size > 0, "function '{}': buffer '{}' has size {}", fn_.name, name, size);
  BufferDecl d;
  d.name = std::move(name);
  d.lanes = lanes;
  d.size = size;
  d.readonly = opts.readonly;
  d.nullable = opts.nullable;
  d.noalias = !opts.may_alias;
  Buffer b{static_cast<uint32_t>(fn_.buffers.size())};
  if (param) {
    d.param = static_cast<uint32_t>(fn_.params.size());
    fn_.params.push_back({d.name, ParamKind::Buffer, b.id});
  } else {
    const int64_t bytes = size * (lanes == Lanes::Varying ? fn_.lanes : 1) * elem_size(fn_.type);
    d.scratch_offset = fn_.scratch_bytes;
    fn_.scratch_bytes += (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
  }
  fn_.buffers.push_back(std::move(d));
  return b;
}

Buffer Builder::varying_param(std::string name, int64_t size, BufferOptions opts) {
  return add_buffer(std::move(name), Lanes::Varying, size, opts, true);
}

Buffer Builder::uniform_param(std::string name, int64_t size, BufferOptions opts) {
  return add_buffer(std::move(name), Lanes::Uniform, size, opts, true);
}

Expr Builder::scalar_param(std::string name) {
  ExprNode n;
  n.kind = ExprKind::ScalarParam;
  n.ref = static_cast<uint32_t>(fn_.params.size());
  fn_.params.push_back({std::move(name), ParamKind::Scalar, kNone});
  return push(n);
}

void Builder::opaque_param(std::string name) {
  fn_.params.push_back({std::move(name), ParamKind::Opaque, kNone});
}

void Builder::scratch_param(std::string name) {
  PLASTIC_CHECK(fn_.scratch_param() == kNone, "function '{}': second scratch parameter '{}'",
                fn_.name, name);
  fn_.params.push_back({std::move(name), ParamKind::Scratch, kNone});
}

Buffer Builder::scratch_buffer(std::string name, Lanes lanes, int64_t size) {
  return add_buffer(std::move(name), lanes, size, {}, false);
}

Var Builder::var(std::string name, Lanes lanes) {
  fn_.vars.push_back({std::move(name), lanes});
  return Var{static_cast<uint32_t>(fn_.vars.size() - 1)};
}

// ---- expressions -------------------------------------------------------------

Expr Builder::push(ExprNode node) {
  PLASTIC_CHECK(!finished_, "function '{}': builder used after finish()", fn_.name);
  fn_.exprs.push_back(node);
  return Expr{static_cast<uint32_t>(fn_.exprs.size() - 1)};
}

const ExprNode& Builder::node(Expr e, std::string_view what) const {
  PLASTIC_CHECK(e.id < fn_.exprs.size(), "function '{}': invalid expression handle in {}", fn_.name,
                what);
  return fn_.exprs[e.id];
}

const ExprNode& Builder::value_node(Expr e, std::string_view what) const {
  const ExprNode& n = node(e, what);
  PLASTIC_CHECK(!n.is_mask, "function '{}': {} of a mask (masks only feed select)", fn_.name, what);
  return n;
}

const BufferDecl& Builder::buffer_decl(Buffer b, const char* what) const {
  PLASTIC_CHECK(b.id < fn_.buffers.size(), "function '{}': invalid buffer handle in {}", fn_.name,
                what);
  return fn_.buffers[b.id];
}

Lanes Builder::lanes_of(Expr e) const {
  return node(e, "lanes_of").lanes;
}

Expr Builder::constant(double value) {
  ExprNode n;
  n.kind = ExprKind::Const;
  n.value = value;
  return push(n);
}

uint32_t Builder::add_index(const Index& index, const char* what) {
  for (const auto& t : index.terms)
    PLASTIC_CHECK(std::find(open_loops_.begin(), open_loops_.end(), t.loop) != open_loops_.end(),
                  "function '{}': {} indexed by a loop variable that is not in scope", fn_.name,
                  what);
  fn_.indices.push_back(index);
  return static_cast<uint32_t>(fn_.indices.size() - 1);
}

Expr Builder::load(Buffer buf, const Index& index) {
  const BufferDecl& d = buffer_decl(buf, "load");
  ExprNode n;
  n.kind = ExprKind::Load;
  n.lanes = d.lanes;
  n.ref = buf.id;
  n.index = add_index(index, "load");
  return push(n);
}

Expr Builder::read(Var v) {
  PLASTIC_CHECK(v.id < fn_.vars.size(), "function '{}': invalid variable handle", fn_.name);
  ExprNode n;
  n.kind = ExprKind::VarRef;
  n.lanes = fn_.vars[v.id].lanes;
  n.ref = v.id;
  return push(n);
}

Expr Builder::unary(UnaryOp op, Expr a, double attr) {
  const ExprNode& x = value_node(a, op_name(op));
  PLASTIC_CHECK(!has_attribute(op) || std::isfinite(attr),
                "function '{}': {} with non-finite attribute {}", fn_.name, op_name(op), attr);
  ExprNode n;
  n.kind = ExprKind::Unary;
  n.op = static_cast<uint8_t>(op);
  n.lanes = x.lanes;
  n.args[0] = a.id;
  n.value = has_attribute(op) ? attr : 0.0;
  return push(n);
}

Expr Builder::binary(BinaryOp op, Expr a, Expr b) {
  const Lanes l = join(value_node(a, op_name(op)).lanes, value_node(b, op_name(op)).lanes);
  ExprNode n;
  n.kind = ExprKind::Binary;
  n.op = static_cast<uint8_t>(op);
  n.lanes = l;
  n.args[0] = a.id;
  n.args[1] = b.id;
  return push(n);
}

Expr Builder::compare(CompareOp op, Expr a, Expr b) {
  const Lanes l = join(value_node(a, op_name(op)).lanes, value_node(b, op_name(op)).lanes);
  ExprNode n;
  n.kind = ExprKind::Compare;
  n.op = static_cast<uint8_t>(op);
  n.lanes = l;
  n.is_mask = true;
  n.args[0] = a.id;
  n.args[1] = b.id;
  return push(n);
}

Expr Builder::fma(Expr a, Expr b, Expr c) {
  const Lanes l = join(join(value_node(a, "fma").lanes, value_node(b, "fma").lanes),
                       value_node(c, "fma").lanes);
  ExprNode n;
  n.kind = ExprKind::Fma;
  n.lanes = l;
  n.args[0] = a.id;
  n.args[1] = b.id;
  n.args[2] = c.id;
  return push(n);
}

Expr Builder::select(Expr mask, Expr a, Expr b) {
  const ExprNode& m = node(mask, "select");
  PLASTIC_CHECK(m.is_mask, "function '{}': select condition is not a comparison", fn_.name);
  const Lanes l = join(m.lanes, join(value_node(a, "select").lanes, value_node(b, "select").lanes));
  ExprNode n;
  n.kind = ExprKind::Select;
  n.lanes = l;
  n.args[0] = mask.id;
  n.args[1] = a.id;
  n.args[2] = b.id;
  return push(n);
}

// ---- statements --------------------------------------------------------------

std::vector<Stmt>& Builder::current() {
  PLASTIC_CHECK(!finished_, "function '{}': builder used after finish()", fn_.name);
  return open_.empty() ? fn_.body : open_.back()->body;
}

void Builder::assign(Var v, Expr value) {
  PLASTIC_CHECK(v.id < fn_.vars.size(), "function '{}': invalid variable handle", fn_.name);
  const ExprNode& n = value_node(value, "assignment");
  PLASTIC_CHECK(!(fn_.vars[v.id].lanes == Lanes::Uniform && n.lanes == Lanes::Varying),
                "function '{}': varying value assigned to uniform variable '{}'", fn_.name,
                fn_.vars[v.id].name);
  Stmt s;
  s.kind = StmtKind::Assign;
  s.target = v.id;
  s.value = value.id;
  current().push_back(std::move(s));
}

void Builder::add_store(Buffer buf, const Index& index, Expr value, StoreMode mode) {
  const BufferDecl& d = buffer_decl(buf, "store");
  const ExprNode& n = value_node(value, "store");
  PLASTIC_CHECK(!d.readonly, "function '{}': store to read-only buffer '{}'", fn_.name, d.name);
  if (mode == StoreMode::AddLaneSum) {
    PLASTIC_CHECK(d.lanes == Lanes::Uniform,
                  "function '{}': accumulate_lanes into varying buffer '{}'", fn_.name, d.name);
  } else {
    PLASTIC_CHECK(!(d.lanes == Lanes::Uniform && n.lanes == Lanes::Varying),
                  "function '{}': varying value stored into uniform buffer '{}' (a lane "
                  "sum needs accumulate_lanes)",
                  fn_.name, d.name);
  }
  Stmt s;
  s.kind = StmtKind::Store;
  s.mode = mode;
  s.target = buf.id;
  s.value = value.id;
  s.index = add_index(index, "store");
  current().push_back(std::move(s));
}

void Builder::store(Buffer buf, const Index& index, Expr value) {
  add_store(buf, index, value, StoreMode::Set);
}
void Builder::accumulate(Buffer buf, const Index& index, Expr value) {
  add_store(buf, index, value, StoreMode::Add);
}
void Builder::accumulate_lanes(Buffer buf, const Index& index, Expr value) {
  add_store(buf, index, value, StoreMode::AddLaneSum);
}

void Builder::prefetch(Buffer buf, const Index& index) {
  Stmt s;
  s.kind = StmtKind::Prefetch;
  s.target = buf.id;
  s.index = add_index(index, "prefetch");
  current().push_back(std::move(s));
}

void Builder::comment(std::string text, int source_line) {
  Stmt s;
  s.kind = StmtKind::Comment;
  s.text = std::move(text);
  s.source_line = source_line;
  current().push_back(std::move(s));
}

Index Builder::begin_loop(std::string name, int64_t begin, int64_t end) {
  PLASTIC_CHECK(end > begin, "function '{}': empty loop '{}' over [{}, {})", fn_.name, name, begin,
                end);
  const auto id = static_cast<uint32_t>(fn_.loops.size());
  fn_.loops.push_back({std::move(name), begin, end});
  Stmt s;
  s.kind = StmtKind::Loop;
  s.target = id;
  auto& list = current();
  list.push_back(std::move(s));
  // Safe to keep: the enclosing list grows only after this block is closed.
  open_.push_back(&list.back());
  open_loops_.push_back(id);
  return Index::loop(id);
}

void Builder::end_loop() {
  PLASTIC_CHECK(!open_.empty() && open_.back()->kind == StmtKind::Loop,
                "function '{}': end_loop without an open loop", fn_.name);
  open_.pop_back();
  open_loops_.pop_back();
}

void Builder::begin_if_present(Buffer buf) {
  const BufferDecl& d = buffer_decl(buf, "if_present");
  PLASTIC_CHECK(!d.is_scratch(), "function '{}': if_present on scratch buffer '{}'", fn_.name,
                d.name);
  Stmt s;
  s.kind = StmtKind::IfPresent;
  s.target = buf.id;
  auto& list = current();
  list.push_back(std::move(s));
  open_.push_back(&list.back());
}

void Builder::end_if_present() {
  PLASTIC_CHECK(!open_.empty() && open_.back()->kind == StmtKind::IfPresent,
                "function '{}': end_if_present without an open if_present", fn_.name);
  open_.pop_back();
}

Function Builder::finish() {
  PLASTIC_CHECK(!finished_, "function '{}': finish() called twice", fn_.name);
  PLASTIC_CHECK(open_.empty(), "function '{}': finish() with {} open block(s)", fn_.name,
                open_.size());
  finished_ = true;
  verify_or_throw(fn_);
  return std::move(fn_);
}

} // namespace plastic::loops
