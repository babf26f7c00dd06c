// Comma-separated lists of flags: items trimmed, empty items kept for the
// caller to refuse or skip.
#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

#include "runtime/support/comma_list.h"
#include "runtime/support/trim.h"

using plastic::rt::split_comma_list;
using List = std::vector<std::string_view>;

TEST_CASE("a comma list splits at commas and trims blanks", "[comma_list]") {
  CHECK(split_comma_list("a") == List{"a"});
  CHECK(split_comma_list("ln, Wb,\tWk ,Wv") == List{"ln", "Wb", "Wk", "Wv"});
  CHECK(split_comma_list("14:100,28:100") == List{"14:100", "28:100"});
  CHECK(split_comma_list(" a b ") == List{"a b"});    // inner blanks stay
  CHECK(split_comma_list("a,b\r") == List{"a", "b"}); // a CRLF script's last argument
}

TEST_CASE("a trimmed token is a view into its text", "[comma_list]") {
  // The data readers report a column from where a token sits in its line.
  const std::string_view line = "a,  ,b";
  const std::string_view blank = plastic::rt::trim_blanks(line.substr(2, 2));
  CHECK(blank.empty());
  CHECK(blank.data() == line.data() + 4);
  CHECK(plastic::rt::trim_blanks(line.substr(3)).data() == line.data() + 4); // " ,b"
}

TEST_CASE("a comma list keeps its empty items", "[comma_list]") {
  CHECK(split_comma_list("") == List{""});
  CHECK(split_comma_list("a,") == List{"a", ""});
  CHECK(split_comma_list(",a") == List{"", "a"});
  CHECK(split_comma_list("a, ,b") == List{"a", "", "b"});
  CHECK(split_comma_list(",") == List{"", ""});
}
