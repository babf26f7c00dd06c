// A parser's error quotes the bytes it choked on: a garbage data.json's 0xff
// or ESC reaches the terminal escaped, never raw.
#include <catch2/catch.hpp>

#include "runtime/support/printable.h"

using plastic::rt::escape_unprintable;

TEST_CASE("bytes outside printable ASCII are escaped", "[printable]") {
  CHECK(escape_unprintable("last read: 'x'") == "last read: 'x'");
  CHECK(escape_unprintable("last read: '\xff'") == "last read: '\\xff'");
  CHECK(escape_unprintable("\x1b[31mred") == "\\x1b[31mred");
  CHECK(escape_unprintable(std::string_view("a\0b", 3)) == "a\\x00b");
}
