// The parser's internal state, shared by the declaration parser
// (parser.cpp) and the expression parser (parser_expr.cpp).
//
// Internal header of dsl/: nothing outside that folder includes it.
#pragma once

#include "dsl/ast.h"
#include "dsl/diagnostics.h"
#include "dsl/token.h"

#include <vector>

namespace plastic::dsl::detail {

/// Thrown to unwind to the enclosing declaration after an error is reported.
struct SyntaxError {};

class Parser {
public:
  Parser(const SourceFile& file, std::vector<Token> tokens, DiagnosticEngine& diag)
      : file_(file), tokens_(std::move(tokens)), diag_(diag) {}

  Module parse_module(SourceFilePtr source, bool library);

  // ---- expressions (parser_expr.cpp) ----
  ExprPtr parse_block();
  ExprPtr parse_expr();
  std::vector<Arg> parse_args(TokenKind close);

private:
  // token access
  const Token& peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  bool at(TokenKind k) const { return peek().kind == k; }
  bool at_keyword(std::string_view w) const { return peek().is_keyword(w); }
  bool at_word(std::string_view w) const {
    return (peek().kind == TokenKind::Ident || peek().kind == TokenKind::Keyword) &&
           peek().text() == w;
  }
  Token advance() {
    Token t = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  Token expect(TokenKind k, std::string_view context);
  Ident expect_ident(std::string_view context);
  void expect_keyword(std::string_view w);
  void expect_word(std::string_view w, std::string_view context);
  void expect_end_of_line(std::string_view context);
  [[noreturn]] void fail(Span span, std::string message, std::string hint = {});
  void skip_newlines() {
    while (at(TokenKind::Newline))
      advance();
  }
  void synchronize();

  // declarations (parser.cpp)
  void parse_decl(Module& m, bool library);
  [[noreturn]] void fail_not_a_declaration(const Token& t);
  Decl parse_model_decl(const Token& t);
  FlowDecl parse_flow();
  JumpDecl parse_jump();
  OutputDecl parse_output();
  LossDecl parse_loss();
  SolveDecl parse_solve();
  GradientDecl parse_gradient();
  void parse_dims(Module& m, bool is_const);
  TuneDecl parse_tune();
  InputDecl parse_input();
  ParamDecl parse_param();
  StateDecl parse_state();
  FnDecl parse_fn(bool is_apply);
  LayerDecl parse_layer();
  std::vector<ExprPtr> parse_shape(Span& span);
  Invocation parse_invocation(TokenKind open, TokenKind close);
  std::vector<Option> parse_options();

  // expressions (parser_expr.cpp)
  ExprPtr parse_binary(int min_precedence);
  ExprPtr parse_unary();
  ExprPtr parse_power();
  ExprPtr parse_postfix();
  ExprPtr parse_primary();
  ExprPtr parse_index_item();

  const SourceFile& file_;
  std::vector<Token> tokens_;
  DiagnosticEngine& diag_;
  size_t pos_ = 0;
  int nesting_ = 0; ///< expression depth, bounded so hostile input cannot overflow the stack
};

ExprPtr make_expr(ExprKind kind, Span span);

} // namespace plastic::dsl::detail
