// The expression parser: blocks, binary operators, calls, indexing.
#include "dsl/parser_impl.h"

namespace plastic::dsl::detail {

ExprPtr make_expr(ExprKind kind, Span span) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->span = span;
  return e;
}

namespace {
constexpr int kMaxNesting = 256;
constexpr int kMaxChain = 1000;

int precedence(TokenKind k) {
  switch (k) {
  case TokenKind::Plus:
  case TokenKind::Minus:
    return 1;
  case TokenKind::Star:
  case TokenKind::Slash:
    return 2;
  case TokenKind::At:
    return 3;
  default:
    return 0;
  }
}

// Only called for the tokens `precedence` gives a level.
BinaryOp binary_op(TokenKind k) {
  switch (k) {
  case TokenKind::Plus:
    return BinaryOp::Add;
  case TokenKind::Minus:
    return BinaryOp::Sub;
  case TokenKind::Star:
    return BinaryOp::Mul;
  case TokenKind::Slash:
    return BinaryOp::Div;
  default:
    return BinaryOp::MatMul;
  }
}

/// Bounds recursion depth so hostile input reports an error instead of
/// overflowing the stack.
struct NestingGuard {
  int& depth;
  NestingGuard(int& d) : depth(d) { ++depth; }
  ~NestingGuard() { --depth; }
};
} // namespace

// block := ('let' IDENT '=' expr NL)* expr
ExprPtr Parser::parse_block() {
  if (!at_keyword("let")) return parse_expr();
  auto block = make_expr(ExprKind::Block, peek().span);
  while (at_keyword("let")) {
    advance();
    Ident name = expect_ident("after 'let'");
    expect(TokenKind::Equal, "after the name bound by 'let'");
    block->lets.push_back(name);
    block->children.push_back(parse_expr());
    expect_end_of_line("after a 'let' binding");
    skip_newlines();
  }
  block->children.push_back(parse_expr());
  block->span = block->span.to(block->children.back()->span);
  return block;
}

// expr := binary expression ('+' '-' < '*' '/' < '@' < unary '-' < '^' < postfix)
ExprPtr Parser::parse_expr() {
  return parse_binary(1);
}

ExprPtr Parser::parse_binary(int min_precedence) {
  NestingGuard guard(nesting_);
  if (nesting_ > kMaxNesting) fail(peek().span, "expression nested too deeply");
  ExprPtr lhs = parse_unary();
  // Left-associative chains nest the tree without recursing here; bound them
  // too, so later tree walks cannot overflow the stack.
  for (int length = 0;; ++length) {
    int p = precedence(peek().kind);
    if (p == 0 || p < min_precedence) return lhs;
    if (length > kMaxChain)
      fail(peek().span, "expression too long", "split it into several `let` bindings");
    Token op = advance();
    ExprPtr rhs = parse_binary(p + 1);
    auto e = make_expr(ExprKind::Binary, lhs->span.to(rhs->span));
    e->binary_op = binary_op(op.kind);
    e->children.push_back(std::move(lhs));
    e->children.push_back(std::move(rhs));
    lhs = std::move(e);
  }
}

// unary := '-' unary | power
ExprPtr Parser::parse_unary() {
  if (at(TokenKind::Minus)) {
    NestingGuard guard(nesting_);
    if (nesting_ > kMaxNesting) fail(peek().span, "expression nested too deeply");
    Token minus = advance();
    ExprPtr operand = parse_unary();
    // Fold a negative literal so `-1` is a number (and prints back as one).
    if (operand->kind == ExprKind::Number && operand->span.begin == minus.span.end) {
      operand->number = -operand->number;
      operand->span = minus.span.to(operand->span);
      return operand;
    }
    auto e = make_expr(ExprKind::Unary, minus.span.to(operand->span));
    e->unary_op = UnaryOp::Neg;
    e->children.push_back(std::move(operand));
    return e;
  }
  return parse_power();
}

// power := postfix ['^' unary]      (right-associative)
ExprPtr Parser::parse_power() {
  ExprPtr base = parse_postfix();
  if (!at(TokenKind::Caret)) return base;
  NestingGuard guard(nesting_);
  if (nesting_ > kMaxNesting) fail(peek().span, "expression nested too deeply");
  advance();
  ExprPtr exponent = parse_unary();
  auto e = make_expr(ExprKind::Binary, base->span.to(exponent->span));
  e->binary_op = BinaryOp::Pow;
  e->children.push_back(std::move(base));
  e->children.push_back(std::move(exponent));
  return e;
}

// postfix := primary ( '(' args ')' | '[' index (',' index)* ']' )*
ExprPtr Parser::parse_postfix() {
  ExprPtr e = parse_primary();
  for (int length = 0;; ++length) {
    if (length > kMaxChain) fail(peek().span, "too many calls or indices in a row");
    if (at(TokenKind::LParen)) {
      advance();
      auto call = make_expr(ExprKind::Call, e->span);
      call->children.push_back(std::move(e));
      call->args = parse_args(TokenKind::RParen);
      call->span = call->span.to(peek().span);
      expect(TokenKind::RParen, "to close the argument list");
      e = std::move(call);
    } else if (at(TokenKind::LBracket)) {
      advance();
      auto index = make_expr(ExprKind::Index, e->span);
      index->children.push_back(std::move(e));
      do
        index->children.push_back(parse_index_item());
      while (accept(TokenKind::Comma));
      index->span = index->span.to(peek().span);
      expect(TokenKind::RBracket, "to close the index");
      e = std::move(index);
    } else {
      return e;
    }
  }
}

// index := '...' | [expr] ':' [expr] | expr
ExprPtr Parser::parse_index_item() {
  if (at(TokenKind::Ellipsis)) return make_expr(ExprKind::Ellipsis, advance().span);
  ExprPtr lo;
  if (!at(TokenKind::Colon)) {
    lo = parse_expr();
    if (!at(TokenKind::Colon)) return lo;
  }
  Token colon = advance();
  auto slice = make_expr(ExprKind::Slice, lo ? lo->span.to(colon.span) : colon.span);
  ExprPtr hi;
  if (!at(TokenKind::Comma) && !at(TokenKind::RBracket)) hi = parse_expr();
  if (hi) slice->span = slice->span.to(hi->span);
  slice->children.push_back(std::move(lo));
  slice->children.push_back(std::move(hi));
  return slice;
}

// primary := NUMBER | STRING | IDENT | '(' expr ')' | '[' [expr (',' expr)*] ']'
ExprPtr Parser::parse_primary() {
  const Token& tok = peek();
  switch (tok.kind) {
  case TokenKind::Number: {
    auto e = make_expr(ExprKind::Number, tok.span);
    e->number = tok.number;
    advance();
    return e;
  }
  case TokenKind::String: {
    auto e = make_expr(ExprKind::String, tok.span);
    std::string_view t = tok.text();
    e->text = std::string(t.substr(1, t.size() - 2));
    advance();
    return e;
  }
  case TokenKind::Ident: {
    auto e = make_expr(ExprKind::Name, tok.span);
    e->text = std::string(tok.text());
    advance();
    return e;
  }
  case TokenKind::LParen: {
    advance();
    ExprPtr inner = parse_expr();
    expect(TokenKind::RParen, "to close '('");
    return inner;
  }
  case TokenKind::LBracket: {
    auto list = make_expr(ExprKind::List, tok.span);
    advance();
    if (!at(TokenKind::RBracket)) {
      do
        list->children.push_back(parse_expr());
      while (accept(TokenKind::Comma));
    }
    list->span = list->span.to(peek().span);
    expect(TokenKind::RBracket, "to close the list");
    return list;
  }
  case TokenKind::Keyword:
    if (tok.text() == "let")
      fail(tok.span, "expected an expression, found 'let'",
           "'let' bindings come first, each on its own line, before the block's value");
    fail(tok.span, "expected an expression, found the keyword '" + std::string(tok.text()) + "'",
         "keywords cannot be used as names");
  case TokenKind::Invalid:
    throw SyntaxError{}; // already reported by the lexer
  default:
    fail(tok.span, "expected an expression, found " + std::string(describe(tok.kind)));
  }
}

// args := [arg (',' arg)*]      arg := [IDENT '='] expr
std::vector<Arg> Parser::parse_args(TokenKind close) {
  std::vector<Arg> args;
  if (at(close)) return args;
  do {
    Arg arg;
    if ((at(TokenKind::Ident) || at(TokenKind::Keyword)) && peek(1).kind == TokenKind::Equal) {
      Token name = advance();
      arg.name = {std::string(name.text()), name.span};
      advance();
    }
    arg.value = parse_expr();
    args.push_back(std::move(arg));
  } while (accept(TokenKind::Comma));
  return args;
}

} // namespace plastic::dsl::detail
