// The loop IR: the code generator's input, one level below the tensor IR.
//
// A loop function is a kernel over a TILE of L samples stored lane-interleaved
// (element i of sample l of a per-sample buffer at [i*L + l], L = `lanes`).
// Every value of the loop IR is either
//   * Varying — one number per sample of the tile, an L-wide SIMD vector in
//     the generated code (states, inputs, cotangents, per-sample scratch), or
//   * Uniform — one number shared by the tile, a scalar broadcast to L lanes
//     when it meets a varying value (parameters θ, t, h, constants).
// So each scalar operation of the math is ONE SIMD operation, whatever the
// tensor shapes; shapes are flattened into affine indices by the lowering.
//
// Structure (Halide-like, deliberately small):
//   function  = typed parameters (the C signature, in order) + a body
//   statement = for-loop over a static range | assignment to a local
//               variable | store (=, +=, or uniform += sum over lanes) into a
//               buffer at an affine index | if-present(nullable buffer) |
//               comment
//   expr      = constant | scalar parameter | load | variable read | unary,
//               binary, fma | compare (a mask) | select — pure trees; a node
//               used twice in ONE statement is computed once. Values flow
//               between statements only through variables and buffers.
// Element type (f32 or f64) is per function; every buffer and value has it.
//
// Functions are built with Builder (loop_builder.h), checked by verify()
// (loop_verifier.h), printed by print() (loop_printer.h), evaluated by the
// reference interpreter (loop_interpreter.h) and compiled by the LLVM backend
// (llvm/jit.h, llvm/aot.h). The data below is plain and public so passes can
// read it; build it through Builder, which keeps the ids consistent.
//
// Remainder tiles: kernels always process exactly L lanes. When the batch is
// not a multiple of L the caller pads the last tile (e.g. by repeating a
// sample) and ignores the padded lanes' outputs; a lane-sum store
// (uniform += sum over lanes) must then be given zero cotangents in the
// padded lanes so that they contribute nothing.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/loops/loop_ops.h"

namespace plastic::loops {

/// Element type of a function: every buffer element and every value.
enum class ElemType : uint8_t { F32, F64 };
/// "f32" / "f64".
std::string_view elem_type_name(ElemType t);
/// Bytes per element (4 or 8).
int elem_size(ElemType t);
/// Lanes of a 256-bit vector (8 for f32, 4 for f64): the AVX2 tile width of
/// DESIGN.md and the default tile of the runtime.
int default_lanes(ElemType t);

/// Whether a value or buffer differs between the samples of a tile.
enum class Lanes : uint8_t { Uniform, Varying };
/// "uniform" / "varying".
std::string_view lanes_name(Lanes l);
/// Varying if either is varying (the class of an op's result).
inline Lanes join(Lanes a, Lanes b) {
  return (a == Lanes::Varying || b == Lanes::Varying) ? Lanes::Varying : Lanes::Uniform;
}

// ---- operations (generated from loop_ops.h) ------------------------------

#define PLASTIC_LOOP_ENUM(name, spelling, attr) name,
enum class UnaryOp : uint8_t { PLASTIC_LOOP_UNARY_OPS(PLASTIC_LOOP_ENUM) };
enum class BinaryOp : uint8_t { PLASTIC_LOOP_BINARY_OPS(PLASTIC_LOOP_ENUM) };
enum class CompareOp : uint8_t { PLASTIC_LOOP_COMPARE_OPS(PLASTIC_LOOP_ENUM) };
#undef PLASTIC_LOOP_ENUM

std::string_view op_name(UnaryOp op);
std::string_view op_name(BinaryOp op);
std::string_view op_name(CompareOp op);
/// True for the unary ops that carry a constant attribute (elu, powc).
bool has_attribute(UnaryOp op);

/// Sentinel of every id field that refers to nothing.
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// ---- handles returned by the Builder --------------------------------------

/// A buffer: a pointer parameter or a region of the scratch arena.
struct Buffer {
  uint32_t id = kNone;
  bool valid() const { return id != kNone; }
};
/// A local variable (a register: SSA after mem2reg). Carries loop values.
struct Var {
  uint32_t id = kNone;
  bool valid() const { return id != kNone; }
};
/// An expression node of the function under construction.
struct Expr {
  uint32_t id = kNone;
  bool valid() const { return id != kNone; }
};

/// An affine index `offset + sum(stride_k * loop_k)` in elements of one
/// sample (varying buffers) or of the buffer (uniform buffers). Loop bodies
/// receive their induction variable as an Index; combine with + and *:
/// `W.at(h * d * d + i * d + j)` is written `h * (d * d) + i * d + j`.
struct Index {
  struct Term {
    uint32_t loop = kNone; ///< id of the loop (Function::loops)
    int64_t stride = 0;
    bool operator==(const Term&) const = default;
  };
  int64_t offset = 0;
  std::vector<Term> terms; ///< one term per loop, sorted by loop id, no zero strides

  Index() = default;
  /// A constant index.
  Index(int64_t constant) : offset(constant) {} // NOLINT: implicit on purpose
  /// The induction variable of loop `loop_id`.
  static Index loop(uint32_t loop_id);
  bool is_constant() const { return terms.empty(); }
  bool operator==(const Index&) const = default;
};
Index operator+(const Index& a, const Index& b);
Index operator*(const Index& a, int64_t k);
inline Index operator*(int64_t k, const Index& a) {
  return a * k;
}
inline Index operator+(const Index& a, int64_t k) {
  return a + Index(k);
}
inline Index operator-(const Index& a, int64_t k) {
  return a + Index(-k);
}

// ---- declarations ---------------------------------------------------------

/// How a parameter is passed. Pointers are `void*`/`const void*` in the C
/// signature (as in runtime/abi.h); scalars are `double`.
enum class ParamKind : uint8_t {
  Buffer,  ///< a pointer to a buffer (see BufferDecl)
  Scalar,  ///< a double by value (t, h), converted to the element type on use
  Scratch, ///< the scratch arena: 64-byte aligned, at least scratch_bytes
  Opaque,  ///< a pointer passed through and never accessed (the ABI's ctx)
};

struct Param {
  std::string name;
  ParamKind kind = ParamKind::Buffer;
  uint32_t buffer = kNone; ///< the buffer, for ParamKind::Buffer
};

/// A buffer. Varying buffers hold `size` elements per sample (size*L in
/// memory, lane-interleaved); uniform buffers hold `size` elements.
struct BufferDecl {
  std::string name;
  Lanes lanes = Lanes::Varying;
  int64_t size = 0;
  uint32_t param = kNone;      ///< parameter index, or kNone for a scratch buffer
  int64_t scratch_offset = -1; ///< byte offset in the arena (scratch buffers)
  bool readonly = false;       ///< never stored to (`const void*` in the header)
  bool nullable = false;       ///< may be NULL: accessed only inside if_present
  bool noalias = true;         ///< overlaps no other pointer parameter
  bool is_scratch() const { return param == kNone; }
};

struct VarDecl {
  std::string name;
  Lanes lanes = Lanes::Varying;
};

struct LoopDecl {
  std::string name;
  int64_t begin = 0, end = 0; ///< iterates begin, begin+1, ..., end-1 (end > begin)
};

// ---- expressions ----------------------------------------------------------

enum class ExprKind : uint8_t {
  Const,       ///< `value`
  ScalarParam, ///< parameter `ref` (ParamKind::Scalar)
  Load,        ///< buffer `ref` at Function::indices[`index`]
  VarRef,      ///< current value of variable `ref`
  Unary,       ///< op(args[0]; value = attribute)
  Binary,      ///< op(args[0], args[1])
  Fma,         ///< args[0] * args[1] + args[2] (one rounding where the target fuses)
  Compare,     ///< op(args[0], args[1]) -> mask
  Select,      ///< args[0] (mask) ? args[1] : args[2], per lane
};

struct ExprNode {
  ExprKind kind = ExprKind::Const;
  uint8_t op = 0; ///< UnaryOp / BinaryOp / CompareOp, per kind
  Lanes lanes = Lanes::Uniform;
  bool is_mask = false; ///< a comparison result; only a Select condition
  uint32_t args[3] = {kNone, kNone, kNone};
  uint32_t ref = kNone;   ///< param / buffer / variable, per kind
  uint32_t index = kNone; ///< Function::indices entry (Load)
  double value = 0;       ///< constant value or unary attribute

  UnaryOp unary_op() const { return static_cast<UnaryOp>(op); }
  BinaryOp binary_op() const { return static_cast<BinaryOp>(op); }
  CompareOp compare_op() const { return static_cast<CompareOp>(op); }
  int arity() const;
};

// ---- statements -----------------------------------------------------------

/// How a store combines with memory.
enum class StoreMode : uint8_t {
  Set,        ///< buf[i] = v
  Add,        ///< buf[i] += v (same lane class; varying stays per lane)
  AddLaneSum, ///< uniform buf[i] += sum over the L lanes of varying v (θ gradients)
};

/// Prefetch: a hint that buffer `target` at `index` (every lane) is read
/// soon; it changes no value.
enum class StmtKind : uint8_t { Loop, Assign, Store, IfPresent, Comment, Prefetch };

struct Stmt {
  StmtKind kind = StmtKind::Comment;
  StoreMode mode = StoreMode::Set;
  uint32_t target = kNone; ///< loop (Loop), variable (Assign), buffer (Store, IfPresent, Prefetch)
  uint32_t value = kNone;  ///< expression (Assign, Store)
  uint32_t index = kNone;  ///< Function::indices entry (Store, Prefetch)
  std::string text;        ///< Comment
  int source_line = 0;     ///< Comment: the model file's line it describes (0 = none)
  std::vector<Stmt> body;  ///< Loop, IfPresent
};

// ---- the function ---------------------------------------------------------

/// One kernel. Plain data; make it with Builder. The C signature is
/// `void name(params...)` with buffers and opaque/scratch pointers as
/// `void*` (`const void*` when read-only) and scalars as `double`.
struct Function {
  std::string name; ///< the C symbol
  ElemType type = ElemType::F64;
  int lanes = 4; ///< L: samples per tile, 1..64

  std::vector<Param> params; ///< in signature order
  std::vector<BufferDecl> buffers;
  std::vector<VarDecl> vars;
  std::vector<LoopDecl> loops;
  std::vector<ExprNode> exprs;
  std::vector<Index> indices;
  std::vector<Stmt> body;
  int64_t scratch_bytes = 0; ///< arena size the scratch buffers need (64-byte multiples)

  const ExprNode& expr(Expr e) const { return exprs.at(e.id); }
  const BufferDecl& buffer(Buffer b) const { return buffers.at(b.id); }
  /// Index of the scratch parameter, or kNone.
  uint32_t scratch_param() const;
  /// Memory footprint of a buffer in elements (size, times L when varying).
  int64_t elements(const BufferDecl& b) const {
    return b.lanes == Lanes::Varying ? b.size * lanes : b.size;
  }
};

/// Whether expression `expr` of `fn` loads from buffer `buffer`.
bool expr_reads(const Function& fn, uint32_t expr, uint32_t buffer);

/// A set of kernels compiled together (one JIT module or one object file),
/// typically all kernels of one model and element type.
struct Module {
  std::string name;
  std::vector<Function> functions;
  const Function* find(std::string_view fn_name) const;
};

} // namespace plastic::loops
