// The lexer (see lexer.h for the newline rules).
#include "dsl/lexer.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace plastic::dsl {

std::string_view describe(TokenKind kind) {
  switch (kind) {
#define X(name, text)                                                                              \
  case TokenKind::name:                                                                            \
    return text;
    PLASTIC_TOKEN_KINDS(X)
#undef X
  }
  return "a token";
}

static constexpr std::array<std::string_view, 16> kDeclKeywords = {
    "model", "dim",   "const", "input", "param",  "state", "fn",    "layer",
    "end",   "apply", "flow",  "jump",  "output", "loss",  "solve", "gradient"};

static bool is_decl_keyword(std::string_view w) {
  for (auto k : kDeclKeywords)
    if (k == w) return true;
  return false;
}

std::vector<std::string_view> keywords() {
  std::vector<std::string_view> all(kDeclKeywords.begin(), kDeclKeywords.end());
  all.emplace_back("let");
  return all;
}

bool is_declaration_keyword(std::string_view word) {
  return is_decl_keyword(word);
}

bool is_keyword(std::string_view word) {
  return word == "let" || is_decl_keyword(word);
}

namespace {

class Lexer {
public:
  Lexer(const SourceFile& file, DiagnosticEngine& diag)
      : file_(file), src_(file.text()), diag_(diag) {}

  std::vector<Token> run() {
    while (pos_ < src_.size())
      step();
    emit_newline(static_cast<uint32_t>(src_.size()));
    tokens_.push_back({TokenKind::End, span(static_cast<uint32_t>(src_.size()), 0)});
    return std::move(tokens_);
  }

private:
  Span span(uint32_t begin, uint32_t length) const { return {&file_, begin, begin + length}; }

  bool continues_line(TokenKind k) const {
    switch (k) {
    case TokenKind::Equal:
    case TokenKind::Comma:
    case TokenKind::Plus:
    case TokenKind::Minus:
    case TokenKind::Star:
    case TokenKind::Slash:
    case TokenKind::At:
    case TokenKind::Caret:
    case TokenKind::Colon:
    case TokenKind::Newline:
      return true;
    default:
      return false;
    }
  }

  void emit_newline(uint32_t at) {
    if (tokens_.empty() || continues_line(tokens_.back().kind)) return;
    tokens_.push_back({TokenKind::Newline, span(at, 0)});
  }

  void push(TokenKind kind, uint32_t begin, uint32_t length, double number = 0) {
    Token t{kind, span(begin, length), number};
    tokens_.push_back(t);
  }

  // At the start of a line: does the next word begin a declaration? Then
  // unbalanced brackets are forgotten (error recovery; the parser reports
  // the missing closer).
  void at_line_start(uint32_t newline_pos) {
    uint32_t p = pos_;
    while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\r'))
      ++p;
    uint32_t w = p;
    while (p < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[p])) || src_[p] == '_'))
      ++p;
    std::string_view word = std::string_view(src_).substr(w, p - w);
    bool decl = is_decl_keyword(word);
    if (decl) {
      // A declaration keyword always starts a new declaration.
      depth_ = 0;
      if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline)
        tokens_.push_back({TokenKind::Newline, span(newline_pos, 0)});
      return;
    }
    if (depth_ > 0) return;
    // A line starting with a binary operator continues the expression above
    // ('-' excepted: a line may start with a negation).
    if (p == w && w < src_.size()) {
      char c = src_[w];
      if (c == '+' || c == '*' || c == '/' || c == '@' || c == '^') return;
    }
    emit_newline(newline_pos);
  }

  void step() {
    char c = src_[pos_];
    uint32_t start = pos_;
    if (c == '\n') {
      ++pos_;
      at_line_start(start);
      return;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
      return;
    }
    if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n')
        ++pos_;
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < src_.size() &&
             (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
        ++pos_;
      std::string_view word = std::string_view(src_).substr(start, pos_ - start);
      push(is_keyword(word) ? TokenKind::Keyword : TokenKind::Ident, start, pos_ - start);
      // `W'` — a prime directly after a name (flow W' = ...).
      if (pos_ < src_.size() && src_[pos_] == '\'') {
        push(TokenKind::Prime, pos_, 1);
        ++pos_;
      }
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < src_.size() &&
         std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      lex_number();
      return;
    }
    if (c == '"') {
      ++pos_;
      while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n')
        ++pos_;
      if (pos_ >= src_.size() || src_[pos_] != '"') {
        diag_.error(span(start, pos_ - start), "unterminated string",
                    "close it with '\"' on the same line");
        push(TokenKind::Invalid, start, pos_ - start);
        return;
      }
      ++pos_;
      push(TokenKind::String, start, pos_ - start);
      return;
    }
    if (c == '.' && src_.compare(pos_, 3, "...") == 0) {
      pos_ += 3;
      push(TokenKind::Ellipsis, start, 3);
      return;
    }
    TokenKind kind = TokenKind::Invalid;
    switch (c) {
    case '(':
      kind = TokenKind::LParen;
      ++depth_;
      break;
    case ')':
      kind = TokenKind::RParen;
      if (depth_ > 0) --depth_;
      break;
    case '[':
      kind = TokenKind::LBracket;
      ++depth_;
      break;
    case ']':
      kind = TokenKind::RBracket;
      if (depth_ > 0) --depth_;
      break;
    case ',':
      kind = TokenKind::Comma;
      break;
    case ':':
      kind = TokenKind::Colon;
      break;
    case '.':
      kind = TokenKind::Dot;
      break;
    case '=':
      kind = TokenKind::Equal;
      break;
    case '+':
      kind = TokenKind::Plus;
      break;
    case '-':
      kind = TokenKind::Minus;
      break;
    case '*':
      kind = TokenKind::Star;
      break;
    case '/':
      kind = TokenKind::Slash;
      break;
    case '@':
      kind = TokenKind::At;
      break;
    case '^':
      kind = TokenKind::Caret;
      break;
    case '\'':
      kind = TokenKind::Prime;
      break;
    default:
      break;
    }
    // Multi-byte UTF-8 characters are reported whole.
    uint32_t length = 1;
    if (kind == TokenKind::Invalid) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0xC0) length = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : 2;
      length = std::min<uint32_t>(length, static_cast<uint32_t>(src_.size()) - pos_);
      std::string shown(src_.substr(pos_, length));
      if (u < 0x20 || u == 0x7F) shown = fmt::format("\\x{:02x}", u); // as C writes it: ESC is \x1b
      diag_.error(span(start, length), "unexpected character '" + shown + "'",
                  c == '*' ? "" : "names are letters, digits and '_'; comments start with '#'");
    }
    pos_ += length;
    push(kind, start, length);
  }

  void lex_number() {
    uint32_t start = pos_;
    auto digits = [&] {
      while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_])))
        ++pos_;
    };
    digits();
    if (pos_ < src_.size() && src_[pos_] == '.' && src_.compare(pos_, 3, "...") != 0) {
      ++pos_;
      digits();
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      uint32_t save = pos_;
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      if (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_])))
        digits();
      else
        pos_ = save; // "2e" is the number 2 followed by the name e
    }
    std::string text(src_.substr(start, pos_ - start));
    double value = std::strtod(text.c_str(), nullptr);
    push(TokenKind::Number, start, pos_ - start, value);
  }

  const SourceFile& file_;
  const std::string& src_;
  DiagnosticEngine& diag_;
  std::vector<Token> tokens_;
  uint32_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diag) {
  return Lexer(file, diag).run();
}

} // namespace plastic::dsl
