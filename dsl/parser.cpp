// The declaration parser and error recovery (expressions: parser_expr.cpp).
#include "dsl/parser.h"

#include "dsl/lexer.h"
#include "dsl/parser_impl.h"

#include <fmt/format.h>

namespace plastic::dsl {

std::string_view to_string(InputKind kind) {
  switch (kind) {
  case InputKind::Path:
    return "path";
  case InputKind::Static:
    return "static";
  case InputKind::Label:
    return "label";
  case InputKind::Target:
    return "target";
  }
  return "?";
}

std::string_view to_string(Interpolation interp) {
  switch (interp) {
  case Interpolation::Cubic:
    return "cubic";
  case Interpolation::Hermite:
    return "hermite";
  case Interpolation::Linear:
    return "linear";
  case Interpolation::Rectilinear:
    return "rectilinear";
  case Interpolation::LogSig:
    return "logsig";
  }
  return "?";
}

std::string_view to_string(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  }
  return "?";
}

std::string_view to_string(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Pow:
    return "^";
  case BinaryOp::MatMul:
    return "@";
  }
  return "?";
}

namespace detail {

void Parser::fail(Span span, std::string message, std::string hint) {
  // An invalid token was already reported by the lexer; one error is enough.
  if (peek().kind != TokenKind::Invalid) diag_.error(span, std::move(message), std::move(hint));
  throw SyntaxError{};
}

static std::string found(const Token& t) {
  switch (t.kind) {
  case TokenKind::Ident:
  case TokenKind::Keyword:
  case TokenKind::Number:
    return fmt::format("'{}'", t.text());
  default:
    return std::string(describe(t.kind));
  }
}

Token Parser::expect(TokenKind k, std::string_view context) {
  if (!at(k)) {
    std::string hint;
    if (k == TokenKind::RParen || k == TokenKind::RBracket)
      hint = "brackets must be closed on the same declaration";
    fail(peek().span, fmt::format("expected {} {}, found {}", describe(k), context, found(peek())),
         hint);
  }
  return advance();
}

Ident Parser::expect_ident(std::string_view context) {
  if (at(TokenKind::Keyword))
    fail(peek().span,
         fmt::format("expected a name {}, found the keyword '{}'", context, peek().text()),
         "keywords cannot be used as names");
  Token t = expect(TokenKind::Ident, context);
  return {std::string(t.text()), t.span};
}

void Parser::expect_keyword(std::string_view w) {
  if (!at_keyword(w)) fail(peek().span, fmt::format("expected '{}', found {}", w, found(peek())));
  advance();
}

void Parser::expect_word(std::string_view w, std::string_view context) {
  if (!at_word(w))
    fail(peek().span, fmt::format("expected '{}' {}, found {}", w, context, found(peek())));
  advance();
}

void Parser::expect_end_of_line(std::string_view context) {
  if (at(TokenKind::Newline) || at(TokenKind::End)) return;
  fail(peek().span,
       fmt::format("expected the end of the line {}, found {}", context, found(peek())));
}

// Panic mode: skip to the next significant newline (a declaration boundary).
void Parser::synchronize() {
  while (!at(TokenKind::End) && !at(TokenKind::Newline))
    advance();
  skip_newlines();
}

// file := NL* 'model' IDENT NL decl* EOF
Module Parser::parse_module(SourceFilePtr source, bool library) {
  Module m;
  m.source = std::move(source);
  skip_newlines();
  if (!library) {
    try {
      if (!at_keyword("model"))
        fail(peek().span,
             fmt::format("expected 'model NAME' at the start of the file, found {}", found(peek())),
             "every model file starts with a line such as `model delta_cde`");
      advance();
      m.model = expect_ident("after 'model'");
      expect_end_of_line("after the model's name");
    } catch (SyntaxError&) {
      synchronize();
    }
    skip_newlines();
  }
  while (!at(TokenKind::End) && !diag_.too_many()) {
    size_t before = pos_;
    try {
      parse_decl(m, library);
    } catch (SyntaxError&) {
      synchronize();
    }
    skip_newlines();
    if (pos_ == before) advance(); // never loop without progress
  }
  return m;
}

// Reports a line that does not start with a declaration's keyword.
void Parser::fail_not_a_declaration(const Token& t) {
  std::string hint = "a declaration starts with dim, const, input, param, state, fn, layer, flow, "
                     "jump, output, loss, solve or gradient";
  if (t.kind == TokenKind::Ident && peek(1).kind == TokenKind::Prime)
    hint = fmt::format("did you mean `flow {}' = ...`?", t.text());
  fail(t.span, fmt::format("expected a declaration, found {}", found(t)), hint);
}

// flow_decl := 'flow' IDENT "'" '=' block NL
FlowDecl Parser::parse_flow() {
  advance();
  FlowDecl f;
  f.state = expect_ident("after 'flow'");
  expect(TokenKind::Prime, fmt::format("after '{}' (a flow is written `flow {}' = ...`)",
                                       f.state.name, f.state.name));
  expect(TokenKind::Equal, "after the state's derivative");
  f.body = parse_block();
  expect_end_of_line("after the flow");
  return f;
}

// jump_decl := 'jump' IDENT '=' block NL
JumpDecl Parser::parse_jump() {
  advance();
  JumpDecl j;
  j.state = expect_ident("after 'jump'");
  expect(TokenKind::Equal, "after the jumping state");
  j.body = parse_block();
  expect_end_of_line("after the jump");
  return j;
}

// output_decl := 'output' IDENT '=' block ['per' 'observation'] NL
OutputDecl Parser::parse_output() {
  advance();
  OutputDecl o;
  o.name = expect_ident("after 'output'");
  expect(TokenKind::Equal, "after the output's name");
  o.body = parse_block();
  if (at_word("per")) {
    advance();
    expect_word("observation", "after 'per'");
    o.per_observation = true;
  }
  expect_end_of_line("after the output");
  return o;
}

// loss_decl := 'loss' block NL
LossDecl Parser::parse_loss() {
  LossDecl l;
  l.keyword = advance().span;
  l.body = parse_block();
  expect_end_of_line("after the loss");
  return l;
}

// solve_decl := 'solve' IDENT option* NL
SolveDecl Parser::parse_solve() {
  advance();
  SolveDecl s;
  s.method = expect_ident("naming the solver (e.g. rk4, dopri5)");
  s.options = parse_options();
  return s;
}

// gradient_decl := 'gradient' IDENT [NUMBER] option* NL   (option: IDENT expr [IDENT unit])
GradientDecl Parser::parse_gradient() {
  advance();
  GradientDecl g;
  g.method = expect_ident("naming the gradient method (direct, checkpoint N, adjoint or auto)");
  if (at(TokenKind::Number)) g.count = parse_primary();
  g.options = parse_options();
  return g;
}

// A declaration only a model holds (a library of layers has none), started
// by the keyword `t`; any other keyword is reported as out of place.
Decl Parser::parse_model_decl(const Token& t) {
  std::string_view w = t.text();
  if (w == "input") return parse_input();
  if (w == "state") return parse_state();
  if (w == "flow") return parse_flow();
  if (w == "jump") return parse_jump();
  if (w == "output") return parse_output();
  if (w == "loss") return parse_loss();
  if (w == "solve") return parse_solve();
  if (w == "gradient") return parse_gradient();
  if (w == "model")
    fail(t.span, "a file holds one model", "split the second model into its own file");
  fail(t.span, fmt::format("'{}' cannot start a declaration here", w),
       w == "end"     ? "'end' closes a layer"
       : w == "apply" ? "'apply' belongs inside a layer"
                      : "");
}

// decl := dim_decl | const_decl | input_decl | param_decl | state_decl | fn_decl
//       | layer_decl | flow_decl | jump_decl | output_decl | loss_decl | solve_decl
//       | gradient_decl
void Parser::parse_decl(Module& m, bool library) {
  const Token& t = peek();
  if (t.kind != TokenKind::Keyword) fail_not_a_declaration(t);
  std::string_view w = t.text();
  if (w == "dim" || w == "const") return parse_dims(m, w == "const");
  // What layers are built from is allowed in a library of layers too.
  if (w == "fn")
    m.decls.emplace_back(parse_fn(false));
  else if (w == "layer")
    m.decls.emplace_back(parse_layer());
  else if (w == "param")
    m.decls.emplace_back(parse_param());
  else if (library)
    fail(t.span, fmt::format("'{}' is not allowed in a library of layers", w));
  else
    m.decls.emplace_back(parse_model_decl(t));
}

// option := IDENT expr
std::vector<Option> Parser::parse_options() {
  std::vector<Option> options;
  while (!at(TokenKind::Newline) && !at(TokenKind::End)) {
    Option o;
    o.name = expect_ident("naming an option (e.g. step, rtol, atol, max_steps)");
    o.value = parse_expr();
    // `gradient auto budget 512 MB`: a size's unit follows its value.
    if (o.name.name == "budget" && at(TokenKind::Ident))
      o.unit = expect_ident("naming the unit (KB, MB, GB or TB)");
    options.push_back(std::move(o));
  }
  return options;
}

// dim_decl := 'dim' dim_item (',' dim_item)* NL                  (and 'const')
// dim_item := IDENT '=' expr [tune]
//           | IDENT 'from' 'data' '.' ('channels' | 'classes') ['else' expr]
void Parser::parse_dims(Module& m, bool is_const) {
  advance();
  do {
    DimDecl d;
    d.is_const = is_const;
    d.name = expect_ident(is_const ? "after 'const'" : "after 'dim'");
    if (!is_const && at_word("from")) {
      advance();
      Ident data = expect_ident("after 'from' (written `dim d from data.channels`)");
      if (data.name != "data")
        fail(data.span, fmt::format("a dim comes from 'data', not '{}'", data.name),
             "written `dim d_data from data.channels` or `dim classes from data.classes`");
      expect(TokenKind::Dot, "after 'data' (written `data.channels` or `data.classes`)");
      Ident what = expect_ident("after 'data.' (channels or classes)");
      if (what.name != "channels" && what.name != "classes") {
        std::string near = closest_name(what.name, {"channels", "classes"});
        fail(what.span, fmt::format("the data have no quantity '{}'", what.name),
             near.empty() ? "a dim can come from data.channels or data.classes"
                          : fmt::format("did you mean 'data.{}'?", near));
      }
      what.span = data.span.to(what.span);
      d.from_data = what;
      if (at_word("else")) {
        advance();
        d.value = parse_expr();
      }
      m.decls.emplace_back(std::move(d));
      continue;
    }
    expect(TokenKind::Equal, fmt::format("after '{}'", d.name.name));
    d.value = parse_expr();
    if (at_word("tune")) d.tune = parse_tune();
    m.decls.emplace_back(std::move(d));
  } while (accept(TokenKind::Comma));
  expect_end_of_line(is_const ? "after the consts" : "after the dims");
}

// tune := 'tune' ( 'log' '(' expr ',' expr ')'      log-uniform between the bounds
//                | '(' expr ',' expr ')'            uniform between the bounds
//                | '[' expr (',' expr)* ']' )       one of the values
TuneDecl Parser::parse_tune() {
  TuneDecl t;
  t.span = advance().span;
  const char* forms = "a range is written `tune log(0.003, 0.3)`, `tune (0, 1)` or `tune [16, 32]`";
  TokenKind close = TokenKind::RParen;
  if (at_word("log")) {
    advance();
    t.scale = TuneScale::Log;
    expect(TokenKind::LParen, "after 'tune log' (written `tune log(0.003, 0.3)`)");
  } else if (accept(TokenKind::LParen)) {
    t.scale = TuneScale::Linear;
  } else if (accept(TokenKind::LBracket)) {
    t.scale = TuneScale::Choice;
    close = TokenKind::RBracket;
  } else {
    fail(peek().span, "expected the range to tune over after 'tune'", forms);
  }
  do
    t.values.push_back(parse_expr());
  while (accept(TokenKind::Comma));
  t.span = t.span.to(expect(close, "closing the range after 'tune'").span);
  return t;
}

// input_decl := 'input' IDENT ':' input_type NL
// input_type := 'path' '[' expr ']' interp | 'static' '[' expr ']' | 'label' '[' expr ']'
//             | 'target' '[' expr (',' expr)* ']' ['per' 'observation']
// interp := 'cubic' | 'hermite' | 'linear' | 'rectilinear'
//         | 'logsig' '(' 'depth' expr ',' 'step' expr ')'
InputDecl Parser::parse_input() {
  advance();
  InputDecl in;
  in.name = expect_ident("after 'input'");
  expect(TokenKind::Colon,
         fmt::format("after '{}' (an input is written `input x : path[3] cubic`)", in.name.name));
  Ident kind = expect_ident("naming the kind of input (path, static, label or target)");
  in.kind_span = kind.span;
  if (kind.name == "path")
    in.kind = InputKind::Path;
  else if (kind.name == "static")
    in.kind = InputKind::Static;
  else if (kind.name == "label")
    in.kind = InputKind::Label;
  else if (kind.name == "target")
    in.kind = InputKind::Target;
  else
    fail(kind.span, fmt::format("unknown input kind '{}'", kind.name),
         "inputs are path[channels], static[n], label[classes] or target[shape]");
  Span shape_span;
  in.sizes = parse_shape(shape_span);
  if (in.kind != InputKind::Target && in.sizes.size() != 1)
    fail(shape_span, fmt::format("a {} input has exactly one size", kind.name));
  if (in.kind == InputKind::Path) {
    Ident interp =
        expect_ident("naming the interpolation (cubic, hermite, linear, rectilinear, logsig)");
    in.interp_span = interp.span;
    if (interp.name == "cubic")
      in.interp = Interpolation::Cubic;
    else if (interp.name == "hermite")
      in.interp = Interpolation::Hermite;
    else if (interp.name == "linear")
      in.interp = Interpolation::Linear;
    else if (interp.name == "rectilinear")
      in.interp = Interpolation::Rectilinear;
    else if (interp.name == "logsig") {
      in.interp = Interpolation::LogSig;
      expect(TokenKind::LParen, "after 'logsig' (written `logsig(depth 2, step 4)`)");
      expect_word("depth", "in logsig(depth N, step S)");
      in.logsig_depth = parse_expr();
      expect(TokenKind::Comma, "between depth and step");
      expect_word("step", "in logsig(depth N, step S)");
      in.logsig_step = parse_expr();
      in.interp_span = interp.span.to(peek().span);
      expect(TokenKind::RParen, "to close logsig(...)");
    } else {
      std::string near =
          closest_name(interp.name, {"cubic", "hermite", "linear", "rectilinear", "logsig"});
      fail(interp.span, fmt::format("unknown interpolation '{}'", interp.name),
           near.empty() ? "use cubic, hermite, linear, rectilinear or logsig(depth N, step S)"
                        : fmt::format("did you mean '{}'?", near));
    }
  }
  if (in.kind == InputKind::Path && at_word("with")) {
    // path_opts := 'with' ('time' | 'unit_increments') (',' ...)*
    advance();
    do {
      Ident opt = expect_ident("after 'with' (time or unit_increments)");
      if (opt.name == "time")
        in.with_time = true;
      else if (opt.name == "unit_increments")
        in.unit_increments = true;
      else {
        std::string near = closest_name(opt.name, {"time", "unit_increments"});
        fail(opt.span, fmt::format("unknown path option '{}'", opt.name),
             near.empty() ? "a path can be `with time`, `with unit_increments` or both"
                          : fmt::format("did you mean '{}'?", near));
      }
    } while (accept(TokenKind::Comma));
  }
  if (in.kind == InputKind::Target && at_word("per")) {
    advance();
    expect_word("observation", "after 'per'");
    in.per_observation = true;
  }
  expect_end_of_line("after the input");
  return in;
}

// shape := '[' [expr (',' expr)*] ']'
std::vector<ExprPtr> Parser::parse_shape(Span& span) {
  std::vector<ExprPtr> dims;
  Token open = expect(TokenKind::LBracket, "opening a shape such as [4, 20]");
  if (!at(TokenKind::RBracket)) {
    do
      dims.push_back(parse_expr());
    while (accept(TokenKind::Comma));
  }
  span = open.span.to(peek().span);
  expect(TokenKind::RBracket, "to close the shape");
  return dims;
}

// init := IDENT ['(' args ')']        layer type := IDENT '[' args ']'
Invocation Parser::parse_invocation(TokenKind open, TokenKind close) {
  Invocation inv;
  inv.name = expect_ident("naming an initializer or a layer type");
  inv.span = inv.name.span;
  if (accept(open)) {
    inv.args = parse_args(close);
    inv.span = inv.span.to(peek().span);
    expect(close, "to close the arguments");
  }
  return inv;
}

// param_decl := 'param' IDENT ':' ( shape ['init' init] | IDENT '[' args ']' ) NL
ParamDecl Parser::parse_param() {
  advance();
  ParamDecl p;
  p.name = expect_ident("after 'param'");
  expect(TokenKind::Colon,
         fmt::format("after '{}' (a parameter is written `param W : [4, 8] init glorot_uniform`)",
                     p.name.name));
  if (at(TokenKind::LBracket)) {
    p.shape = parse_shape(p.shape_span);
    if (at_word("init")) {
      advance();
      p.init = parse_invocation(TokenKind::LParen, TokenKind::RParen);
    }
  } else if (at(TokenKind::Ident)) {
    p.layer = parse_invocation(TokenKind::LBracket, TokenKind::RBracket);
  } else {
    fail(peek().span,
         fmt::format("expected a shape such as [4, 8] or a layer such as linear[8, 2], found {}",
                     found(peek())));
  }
  expect_end_of_line("after the parameter");
  return p;
}

// state_decl := 'state' IDENT ':' shape '=' block NL
StateDecl Parser::parse_state() {
  advance();
  StateDecl s;
  s.name = expect_ident("after 'state'");
  expect(TokenKind::Colon,
         fmt::format("after '{}' (a state is written `state W : [4, 4] = 0`)", s.name.name));
  s.shape = parse_shape(s.shape_span);
  expect(TokenKind::Equal, "before the state's initial value");
  s.init = parse_block();
  expect_end_of_line("after the state");
  return s;
}

// fn_decl := 'fn' IDENT '(' [IDENT (',' IDENT)*] ')' '=' block NL
// apply_decl := 'apply' '(' [IDENT (',' IDENT)*] ')' '=' block NL
FnDecl Parser::parse_fn(bool is_apply) {
  FnDecl f;
  f.is_apply = is_apply;
  Token kw = advance();
  if (is_apply)
    f.name = {"apply", kw.span};
  else
    f.name = expect_ident("after 'fn'");
  expect(TokenKind::LParen, "before the parameter list");
  if (!at(TokenKind::RParen)) {
    do
      f.params.push_back(expect_ident("in the parameter list"));
    while (accept(TokenKind::Comma));
  }
  expect(TokenKind::RParen, "to close the parameter list");
  expect(TokenKind::Equal, "before the function's body");
  f.body = parse_block();
  expect_end_of_line("after the function");
  return f;
}

// layer_decl := 'layer' IDENT '[' [IDENT (',' IDENT)*] ']' NL
//               (param_decl | fn_decl | apply_decl)* 'end' NL
LayerDecl Parser::parse_layer() {
  Token kw = advance();
  LayerDecl l;
  l.name = expect_ident("after 'layer'");
  expect(TokenKind::LBracket, "before the layer's arguments (written `layer linear[n_in, n_out]`)");
  if (!at(TokenKind::RBracket)) {
    do
      l.args.push_back(expect_ident("in the layer's arguments"));
    while (accept(TokenKind::Comma));
  }
  expect(TokenKind::RBracket, "to close the layer's arguments");
  expect_end_of_line("after the layer's header");
  skip_newlines();
  while (!at_keyword("end")) {
    if (at(TokenKind::End))
      fail(kw.span, fmt::format("layer '{}' is not closed", l.name.name),
           "add a line `end` after its last declaration");
    try {
      if (at_keyword("param"))
        l.params.push_back(parse_param());
      else if (at_keyword("fn"))
        l.fns.push_back(parse_fn(false));
      else if (at_keyword("apply"))
        l.fns.push_back(parse_fn(true));
      else if (peek().kind == TokenKind::Keyword && peek().text() != "let") {
        // A model-level declaration: the layer's `end` is missing.
        diag_.error(
            kw.span, fmt::format("layer '{}' is not closed", l.name.name),
            fmt::format("add a line `end` before line {}", file_.line_col(peek().span.begin).line));
        return l;
      } else
        fail(peek().span,
             fmt::format("expected param, fn, apply or end inside layer '{}', found {}",
                         l.name.name, found(peek())));
    } catch (SyntaxError&) {
      synchronize();
    }
    skip_newlines();
  }
  advance();
  expect_end_of_line("after 'end'");
  return l;
}

} // namespace detail

Module parse(SourceFilePtr source, DiagnosticEngine& diag, bool library) {
  diag.keep(source);
  std::vector<Token> tokens = lex(*source, diag);
  detail::Parser parser(*source, std::move(tokens), diag);
  return parser.parse_module(std::move(source), library);
}

} // namespace plastic::dsl
