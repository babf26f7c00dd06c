// Tokens of the Plastic language.
#pragma once

#include "dsl/source.h"

#include <string_view>

namespace plastic::dsl {

#define PLASTIC_TOKEN_KINDS(X)                                                                     \
  X(End, "end of file")                                                                            \
  X(Newline, "end of line")                                                                        \
  X(Ident, "a name")                                                                               \
  X(Keyword, "a keyword")                                                                          \
  X(Number, "a number")                                                                            \
  X(String, "a string")                                                                            \
  X(LParen, "'('")                                                                                 \
  X(RParen, "')'")                                                                                 \
  X(LBracket, "'['")                                                                               \
  X(RBracket, "']'")                                                                               \
  X(Comma, "','")                                                                                  \
  X(Colon, "':'")                                                                                  \
  X(Dot, "'.'")                                                                                    \
  X(Equal, "'='")                                                                                  \
  X(Plus, "'+'")                                                                                   \
  X(Minus, "'-'")                                                                                  \
  X(Star, "'*'")                                                                                   \
  X(Slash, "'/'")                                                                                  \
  X(At, "'@'")                                                                                     \
  X(Caret, "'^'")                                                                                  \
  X(Prime, "'''")                                                                                  \
  X(Ellipsis, "'...'")                                                                             \
  X(Invalid, "an invalid character")

enum class TokenKind {
#define X(name, text) name,
  PLASTIC_TOKEN_KINDS(X)
#undef X
};

/// How a token kind is named in messages ("expected ')'").
std::string_view describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::End;
  Span span;
  double number = 0; ///< value of a Number
  std::string_view text() const { return span.text(); }
  bool is_keyword(std::string_view word) const {
    return kind == TokenKind::Keyword && text() == word;
  }
};

/// Words that begin declarations or blocks and so cannot name things.
bool is_keyword(std::string_view word);

} // namespace plastic::dsl
