// The IR parser (see parser.h).
//
//   function := 'func' '@' (name | string) '{' instr* return '}'
//   instr    := '%'N '=' op [string] ['[' ints ']'] ['(' reals ')']
//               [operand (',' operand)*] ':' type [loc]
//   return   := 'return' string '=' '%'N (',' string '=' '%'N)*
//   type     := dtype '[' ints ']'
//   loc      := 'loc' '(' string ':' int ':' int ')'
// Which attribute parts an op has is fixed by its layout (op_list.h).
#include "compiler/ir/parser.h"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "compiler/ir/error.h"
#include "compiler/ir/type_infer.h"

namespace plastic::ir {
namespace {

class Parser {
public:
  Parser(Context& ctx, std::string_view text, std::string_view file)
      : ctx_(ctx), text_(text), file_(file) {}

  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  // function := 'func' '@' name '{' instr* return '}'
  Function function() {
    expect_word("func");
    expect('@');
    std::string name = peek() == '"' ? string_lit() : word();
    expect('{');
    values_.clear();
    std::vector<const Node*> inputs;
    while (peek() == '%') {
      const Node* n = instruction();
      if (n->is_leaf()) inputs.push_back(n);
    }
    expect_word("return");
    std::vector<Output> outputs;
    do {
      std::string out_name = string_lit();
      expect('=');
      outputs.push_back({std::move(out_name), value()});
    } while (accept(','));
    expect('}');
    try {
      return Function(std::move(name), std::move(inputs), std::move(outputs));
    } catch (const IRError& e) {
      throw error(e.what());
    }
  }

private:
  // instr := '%'N '=' op attrs operands ':' type [loc]
  const Node* instruction() {
    SourceLoc at = here();
    size_t id = value_number();
    if (id != values_.size())
      throw error(fmt::format("expected %{} (values are numbered in order)", values_.size()), at);
    expect('=');
    std::string name = word();
    std::optional<Op> op = op_from_name(name);
    if (!op) throw error(fmt::format("unknown op '{}'", name), at);
    Attrs attrs;
    uint8_t layout = op_attr_layout(*op);
    if (layout & kAttrStr) attrs.str = string_lit();
    if (layout & kAttrInts) attrs.ints = int_list('[', ']');
    if (layout & kAttrReals) attrs.reals = real_list();
    std::vector<const Node*> operands;
    if (peek() == '%') {
      do
        operands.push_back(value());
      while (accept(','));
    }
    expect(':');
    DType dtype;
    std::string tname = word();
    if (!parse_dtype(tname, dtype)) throw error(fmt::format("unknown type '{}'", tname));
    SourceLoc shape_at = here();
    Shape shape = int_list('[', ']');
    check_shape(shape, shape_at);
    SourceLoc loc;
    if (peek_word("loc")) {
      expect_word("loc");
      expect('(');
      std::string file = string_lit();
      expect(':');
      int line = static_cast<int>(integer());
      expect(':');
      int col = static_cast<int>(integer());
      expect(')');
      loc = ctx_.location(file, line, col);
    }
    TypeResult t = infer_type(*op, operands, attrs, shape, dtype);
    if (!t.ok()) throw error(fmt::format("{}: {}", name, t.error), at);
    if (t.dtype != dtype || t.shape != shape)
      throw error(fmt::format("{} gives {}, not the declared {}", name, type_str(t.dtype, t.shape),
                              type_str(dtype, shape)),
                  at);
    SourceLoc saved = ctx_.current_location();
    ctx_.set_location(loc);
    const Node* n = ctx_.make(*op, dtype, shape, std::move(operands), std::move(attrs));
    ctx_.set_location(saved);
    values_.push_back(n);
    return n;
  }

  // A declared shape is data, not a promise: negative sizes and element
  // counts past int64 are errors in the text, before any node is made.
  void check_shape(const Shape& shape, SourceLoc at) {
    int64_t elements = 1;
    for (int64_t d : shape) {
      if (d < 0)
        throw error(fmt::format("dimension {} of {} is negative", d, shape_str(shape)), at);
      if (d > 0 && elements > std::numeric_limits<int64_t>::max() / d)
        throw error(
            fmt::format("shape {} has more elements than an int64 counts", shape_str(shape)), at);
      elements *= d;
    }
  }

  const Node* value() {
    SourceLoc at = here();
    size_t id = value_number();
    if (id >= values_.size()) throw error(fmt::format("%{} is used before it is defined", id), at);
    return values_[id];
  }

  size_t value_number() {
    expect('%');
    return static_cast<size_t>(integer());
  }

  std::vector<int64_t> int_list(char open, char close) {
    expect(open);
    std::vector<int64_t> v;
    if (!accept(close)) {
      do
        v.push_back(integer());
      while (accept(','));
      expect(close);
    }
    return v;
  }

  std::vector<double> real_list() {
    expect('(');
    std::vector<double> v;
    if (!accept(')')) {
      do
        v.push_back(real());
      while (accept(','));
      expect(')');
    }
    return v;
  }

  int64_t integer() {
    skip_space();
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    if (start == pos_ || (pos_ == start + 1 && text_[start] == '-'))
      throw error("expected an integer");
    return std::strtoll(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr, 10);
  }

  double real() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '.'))
      ++pos_;
    std::string s(text_.substr(start, pos_ - start));
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) throw error(fmt::format("bad number '{}'", s));
    return v;
  }

  std::string word() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '.'))
      ++pos_;
    if (start == pos_) throw error("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string string_lit() {
    expect('"');
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        s += e == 'n' ? '\n' : e;
      } else {
        s += c;
      }
    }
    if (pos_ >= text_.size()) throw error("unterminated string");
    ++pos_;
    return s;
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//") { // comments, e.g. print-after-all banners
        while (pos_ < text_.size() && text_[pos_] != '\n')
          ++pos_;
      } else {
        break;
      }
    }
  }

  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool peek_word(std::string_view w) {
    skip_space();
    return text_.substr(pos_, w.size()) == w;
  }

  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c) {
    if (!accept(c)) throw error(fmt::format("expected '{}'", c));
  }

  void expect_word(std::string_view w) {
    SourceLoc at = here();
    std::string got = word();
    if (got != w) throw error(fmt::format("expected '{}', found '{}'", w, got), at);
  }

  SourceLoc here() {
    skip_space();
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return ctx_.location(file_, line, col);
  }

  IRError error(const std::string& msg) { return IRError(msg, here()); }
  IRError error(const std::string& msg, SourceLoc at) { return IRError(msg, at); }

  Context& ctx_;
  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
  std::vector<const Node*> values_;
};

} // namespace

Function parse_function(Context& ctx, std::string_view text, std::string_view file) {
  Parser p(ctx, text, file);
  Function f = p.function();
  if (!p.at_end()) throw IRError("text after the end of the function", ctx.location(file, 0, 0));
  return f;
}

std::vector<Function> parse_functions(Context& ctx, std::string_view text, std::string_view file) {
  Parser p(ctx, text, file);
  std::vector<Function> fs;
  while (!p.at_end())
    fs.push_back(p.function());
  return fs;
}

} // namespace plastic::ir
