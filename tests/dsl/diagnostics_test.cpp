// Diagnostics stay readable on hostile input: at most the error limit (20
// by default) is shown, followed by how many more there were; non-printable
// bytes of the source are echoed as \xNN, never raw; a long line is echoed
// only around the caret, which still points at the right column.
#include "tests/dsl/test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace plastic;

namespace {
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}
} // namespace

TEST_CASE("random bytes give at most the error limit, then a count", "[diagnostics]") {
  std::mt19937 rng(19);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes)
    c = static_cast<char>(rng() % 256);
  std::string out = test::check_text(bytes);
  CHECK(count(out, ": error: ") == dsl::DiagnosticEngine::kDefaultErrorLimit);
  CHECK_THAT(out, Catch::Contains("more errors not shown"));
  CHECK(out.size() < 20'000);
  // No raw control byte reaches the terminal (newlines end lines).
  CHECK(std::none_of(out.begin(), out.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n' && c != '\t') || u == 0x7f;
  }));
}

TEST_CASE("a limit of 0 shows every error", "[diagnostics]") {
  dsl::DiagnosticEngine diag;
  diag.set_max_errors(0);
  for (int i = 0; i < 50; ++i)
    diag.error({}, "e");
  std::ostringstream os;
  diag.render(os);
  CHECK(count(os.str(), "error: e") == 50);
}

TEST_CASE("control bytes in an echoed line are escaped and the caret follows", "[diagnostics]") {
  std::string out = test::check_text("model m\n\x1b[31m @\n");
  INFO(out);
  CHECK_THAT(out, Catch::Contains("\\x1b[31m"));
  CHECK(out.find('\x1b') == std::string::npos);
}

TEST_CASE("bidirectional and invisible characters are echoed escaped", "[diagnostics]") {
  // "Trojan Source": U+202E (RIGHT-TO-LEFT OVERRIDE) reorders what a terminal
  // shows; U+200B (ZERO WIDTH SPACE) shows nothing. Echoed raw, the line in
  // the diagnostic would not be the line in the file.
  std::string out = test::check_text("model m\n\xe2\x80\xae @ \xe2\x80\x8b\n");
  INFO(out);
  CHECK_THAT(out, Catch::Contains("\\u{202e}") && Catch::Contains("\\u{200b}"));
  CHECK(out.find("\xe2\x80\xae") == std::string::npos);
  CHECK(out.find("\xe2\x80\x8b") == std::string::npos);
  // Other UTF-8 stays as it is.
  CHECK_THAT(test::check_text("model m\n\xc3\xa9 @\n"), Catch::Contains("\xc3\xa9"));
}

TEST_CASE("a control character is named in two hex digits as C writes it", "[diagnostics]") {
  // The message names the character as an escape a person can type back:
  // ESC is \x1b, not \x27 (its decimal value), DEL \x7f.
  std::string out = test::check_text("model m\n\x1b\n");
  INFO(out);
  CHECK_THAT(out, Catch::Contains("unexpected character '\\x1b'"));
  out = test::check_text("model m\n\x7f\n");
  CHECK_THAT(out, Catch::Contains("unexpected character '\\x7f'"));
}

TEST_CASE("a long line is cut around the caret", "[diagnostics]") {
  std::string line = "dim a = 1" + std::string(5000, ' ') + "$" + std::string(5000, ' ') + "\n";
  std::string out = test::check_text("model m\n" + line);
  INFO(out);
  // Every echoed line is short, and the caret sits under the '$'.
  std::istringstream in(out);
  std::string prev, cur;
  bool found = false;
  while (std::getline(in, cur)) {
    CHECK(cur.size() < 200);
    size_t caret = cur.find('^');
    if (caret != std::string::npos && prev.find('$') != std::string::npos) {
      CHECK(prev.find('$') == caret);
      found = true;
    }
    prev = cur;
  }
  CHECK(found);
}
