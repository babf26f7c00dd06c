// The lexer's newline rules and literals.
#include "dsl/lexer.h"

#include <catch2/catch.hpp>

using namespace plastic::dsl;

namespace {
std::vector<TokenKind> kinds(const std::string& text, DiagnosticEngine* out = nullptr) {
  DiagnosticEngine diag;
  SourceFile file("t.ode", text);
  std::vector<TokenKind> k;
  for (const Token& t : lex(file, out ? *out : diag))
    k.push_back(t.kind);
  return k;
}
using K = TokenKind;
} // namespace

TEST_CASE("newlines end declarations except inside brackets and after operators", "[dsl][lexer]") {
  CHECK(kinds("a\nb") == std::vector<K>{K::Ident, K::Newline, K::Ident, K::Newline, K::End});
  CHECK(kinds("f(a,\n b)") == std::vector<K>{K::Ident, K::LParen, K::Ident, K::Comma, K::Ident,
                                             K::RParen, K::Newline, K::End});
  CHECK(kinds("a +\n b") == std::vector<K>{K::Ident, K::Plus, K::Ident, K::Newline, K::End});
  CHECK(kinds("a\n + b") == std::vector<K>{K::Ident, K::Plus, K::Ident, K::Newline, K::End});
  // A leading minus starts a new line (a block's value may be a negation).
  CHECK(kinds("a\n-b") ==
        std::vector<K>{K::Ident, K::Newline, K::Minus, K::Ident, K::Newline, K::End});
  // A declaration keyword closes unbalanced brackets.
  CHECK(kinds("f(a\nflow") ==
        std::vector<K>{K::Ident, K::LParen, K::Ident, K::Newline, K::Keyword, K::Newline, K::End});
}

TEST_CASE("numbers, primes, strings and comments", "[dsl][lexer]") {
  DiagnosticEngine diag;
  SourceFile file("t.ode", "W' = 1.5e-3 * .5 # comment\n\"ij->i\" ...");
  auto toks = lex(file, diag);
  REQUIRE(toks.size() >= 9);
  CHECK(toks[0].kind == K::Ident);
  CHECK(toks[1].kind == K::Prime);
  CHECK(toks[3].number == Approx(1.5e-3));
  CHECK(toks[5].number == Approx(0.5));
  CHECK(toks[7].kind == K::String);
  CHECK(toks[8].kind == K::Ellipsis);
  CHECK_FALSE(diag.has_errors());
}

TEST_CASE("lexical errors are reported, not thrown", "[dsl][lexer]") {
  DiagnosticEngine diag;
  kinds("a $ b \"open\n\xC3\xA9", &diag);
  REQUIRE(diag.error_count() == 3);
  CHECK(diag.all()[0].message == "unexpected character '$'");
  CHECK(diag.all()[1].message == "unterminated string");
  CHECK(diag.all()[2].message == "unexpected character '\xC3\xA9'");
}
