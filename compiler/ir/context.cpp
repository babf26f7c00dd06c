// Arena and hash-consing table of IR nodes (see context.h).
#include "compiler/ir/context.h"

#include <bit>
#include <cstring>

#include "compiler/ir/error.h"

namespace plastic::ir {
namespace {

// splitmix64 finaliser: a cheap, well-mixed combine for structural hashes.
uint64_t mix(uint64_t h, uint64_t v) {
  uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t structural_hash(Op op, DType dtype, const Shape& shape,
                         const std::vector<const Node*>& operands, const Attrs& attrs) {
  uint64_t h = mix(static_cast<uint64_t>(op), static_cast<uint64_t>(dtype));
  h = mix(h, shape.size());
  for (int64_t d : shape)
    h = mix(h, static_cast<uint64_t>(d));
  h = mix(h, operands.size());
  for (const Node* o : operands)
    h = mix(h, o->hash());
  for (char c : attrs.str)
    h = mix(h, static_cast<unsigned char>(c));
  h = mix(h, attrs.ints.size());
  for (int64_t v : attrs.ints)
    h = mix(h, static_cast<uint64_t>(v));
  h = mix(h, attrs.reals.size());
  for (double v : attrs.reals)
    h = mix(h, std::bit_cast<uint64_t>(v));
  return h;
}

} // namespace

bool Attrs::operator==(const Attrs& o) const {
  if (str != o.str || ints != o.ints || reals.size() != o.reals.size()) return false;
  return reals.empty() ||
         std::memcmp(reals.data(), o.reals.data(), reals.size() * sizeof(double)) == 0;
}

bool Context::KeyEq::operator()(const Node* a, const Node* b) const {
  return a->op() == b->op() && a->dtype() == b->dtype() && a->shape() == b->shape() &&
         std::equal(a->operands().begin(), a->operands().end(), b->operands().begin(),
                    b->operands().end()) &&
         a->attrs() == b->attrs();
}

Context::Context(DType default_dtype) : default_dtype_(default_dtype) {}
Context::~Context() = default;

const Node* Context::make(Op op, DType dtype, Shape shape, std::vector<const Node*> operands,
                          Attrs attrs) {
  for (const Node* o : operands)
    PLASTIC_CHECK(o != nullptr && o->ctx_ == this, "operand of {} is null or from another Context",
                  op_name(op));
  int arity = op_arity(op);
  PLASTIC_CHECK(arity < 0 ? !operands.empty() : operands.size() == static_cast<size_t>(arity),
                "{} made with {} operands", op_name(op), operands.size());
  for (int64_t d : shape)
    PLASTIC_CHECK(d >= 0, "negative dimension in {}", shape_str(shape));

  Node probe;
  probe.op_ = op;
  probe.dtype_ = dtype;
  probe.shape_ = std::move(shape);
  probe.operands_ = std::move(operands);
  probe.attrs_ = std::move(attrs);
  probe.hash_ = structural_hash(op, dtype, probe.shape_, probe.operands_, probe.attrs_);
  if (auto it = table_.find(&probe); it != table_.end()) return *it;

  probe.numel_ = ir::numel(probe.shape_);
  probe.loc_ = loc_;
  probe.id_ = static_cast<uint32_t>(nodes_.size());
  probe.ctx_ = this;
  nodes_.push_back(std::move(probe));
  const Node* n = &nodes_.back();
  table_.insert(n);
  return n;
}

const Node* Context::leaf(Op kind, std::string name, Shape shape, int64_t slot, DType dtype) {
  if (!op_is_leaf(kind)) throw IRError(fmt::format("{} is not a leaf kind", op_name(kind)), loc_);
  if (name.empty()) throw IRError(fmt::format("{} leaf needs a name", op_name(kind)), loc_);
  for (int64_t d : shape)
    if (d <= 0)
      throw IRError(fmt::format("{} '{}' has non-positive dimension in {}", op_name(kind), name,
                                shape_str(shape)),
                    loc_);
  return make(kind, dtype, std::move(shape), {}, Attrs{std::move(name), {slot}, {}});
}

const Node* Context::time(std::string name, Shape shape) {
  return leaf(Op::Time, std::move(name), std::move(shape), 0, default_dtype_);
}
const Node* Context::state(std::string name, Shape shape, int64_t slot) {
  return leaf(Op::State, std::move(name), std::move(shape), slot, default_dtype_);
}
const Node* Context::param(std::string name, Shape shape, int64_t slot) {
  return leaf(Op::Param, std::move(name), std::move(shape), slot, default_dtype_);
}
const Node* Context::input(std::string name, Shape shape, int64_t slot) {
  return leaf(Op::Input, std::move(name), std::move(shape), slot, default_dtype_);
}
const Node* Context::arg(std::string name, Shape shape, int64_t slot) {
  return leaf(Op::Arg, std::move(name), std::move(shape), slot, default_dtype_);
}

const Node* Context::constant(double value, Shape shape, std::optional<DType> dtype) {
  DType t = dtype.value_or(default_dtype_);
  // Masks are stored as 0/1; f32 constants hold exactly the f32 value so the
  // interpreter, the folder and the backends agree bit for bit.
  if (t == DType::I1) value = value != 0 ? 1.0 : 0.0;
  if (t == DType::F32) value = static_cast<double>(static_cast<float>(value));
  return make(Op::Constant, t, std::move(shape), {}, Attrs{{}, {}, {value}});
}

const Node* Context::constant(std::vector<double> values, Shape shape, std::optional<DType> dtype) {
  DType t = dtype.value_or(default_dtype_);
  if (static_cast<int64_t>(values.size()) != ir::numel(shape))
    throw IRError(fmt::format("constant of shape {} needs {} values, got {}", shape_str(shape),
                              ir::numel(shape), values.size()),
                  loc_);
  if (values.empty()) return make(Op::Constant, t, std::move(shape), {}, Attrs{{}, {}, {0.0}});
  for (double& v : values) {
    if (t == DType::I1) v = v != 0 ? 1.0 : 0.0;
    if (t == DType::F32) v = static_cast<double>(static_cast<float>(v));
  }
  // A dense constant whose values are all equal is stored as a splat, so the
  // two spellings of the same tensor are one node.
  bool all_equal = true;
  for (double v : values)
    if (std::bit_cast<uint64_t>(v) != std::bit_cast<uint64_t>(values[0])) all_equal = false;
  if (all_equal) values.resize(1);
  return make(Op::Constant, t, std::move(shape), {}, Attrs{{}, {}, std::move(values)});
}

SourceLoc Context::location(std::string_view file, int line, int col) {
  for (const std::string& f : files_)
    if (f == file) return SourceLoc{f, line, col};
  files_.emplace_back(file);
  return SourceLoc{files_.back(), line, col};
}

void Context::set_location(SourceLoc loc) {
  loc_ = loc.valid() || !loc.file.empty() ? location(loc.file, loc.line, loc.col) : SourceLoc{};
}

} // namespace plastic::ir
