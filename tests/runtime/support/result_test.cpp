// Result<T, E> and Status<E>: the runtime's value-or-error type.
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/support/internal_error.h"
#include "runtime/support/result.h"

namespace {

struct Oops {
  std::string message;
  std::string describe() const { return "oops: " + message; }
};

plastic::Result<std::vector<int>, Oops> numbers(bool good) {
  if (!good) return Oops{"no numbers"};
  return std::vector<int>{1, 2, 3};
}

plastic::Status<Oops> check(int x) {
  if (x < 0) return Oops{"negative"};
  return {};
}

} // namespace

TEST_CASE("a Result holds a value or an error", "[support][result]") {
  auto good = numbers(true);
  REQUIRE(good.ok());
  CHECK(static_cast<bool>(good));
  CHECK(good.value().size() == 3);
  CHECK(good->size() == 3);
  CHECK((*good)[1] == 2);
  CHECK(good.describe() == "ok");
  CHECK(good.status().ok());

  auto bad = numbers(false);
  REQUIRE(!bad.ok());
  CHECK(!bad);
  CHECK(bad.error().message == "no numbers");
  CHECK(bad.describe() == "oops: no numbers");
  CHECK(bad.status().error().message == "no numbers");
}

TEST_CASE("value() of a temporary is returned by value", "[support][result]") {
  int sum = 0;
  for (int x : numbers(true).value())
    sum += x; // would dangle with a T&&
  CHECK(sum == 6);
  static_assert(std::is_same_v<decltype(numbers(true).value()), std::vector<int>>);
  plastic::Result<std::unique_ptr<int>, Oops> owned(std::make_unique<int>(7));
  std::unique_ptr<int> p = std::move(owned).value();
  CHECK(*p == 7);
}

TEST_CASE("asking for the side a Result does not hold is a bug", "[support][result]") {
  auto bad = numbers(false);
  CHECK_THROWS_AS(bad.value(), plastic::InternalError);
  auto good = numbers(true);
  CHECK_THROWS_AS(good.error(), plastic::InternalError);
  CHECK_THROWS_AS(check(1).error(), plastic::InternalError);
}

TEST_CASE("a Status is ok or an error", "[support][result]") {
  CHECK(check(1).ok());
  CHECK(check(1).describe() == "ok");
  const plastic::Status<Oops> s = check(-1);
  REQUIRE(!s);
  CHECK(s.error().message == "negative");
  CHECK(s.describe() == "oops: negative");
}
