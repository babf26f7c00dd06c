// .npy reading (versions 1.0, 2.0, 3.0; f4, f8, i4, i8) on bytes built
// here, the writer (round trips, numpy's header layout), directories of
// per-series arrays, and refused or malformed files with byte offsets.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "runtime/data/npy.h"
#include "runtime/data/open_data.h"
#include "tests/runtime/data/data_test_support.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Little-endian bytes of a value (the tests run on x86 and ARM, both little-endian).
template <class T> std::string bytes_of(std::vector<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A .npy file with the given version, header dict and raw data, padded as numpy pads.
std::string npy_file(int major, std::string dict, const std::string& data) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0)
    dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const auto n = static_cast<uint32_t>(dict.size());
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major > 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + dict + data;
}

std::string error_of(const std::string& bytes) {
  auto r = parse_npy(bytes, "x.npy");
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

} // namespace

TEST_CASE("npy: write then read, f64 and f32", "[data][npy]") {
  test::TempDir dir;
  const std::vector<double> x{1.5, -2, kNaN, 1e-300, 3, 4};
  const std::size_t shape[] = {2, 3};
  REQUIRE(write_npy(dir.path() / "a.npy", x, shape).ok());
  auto a = read_npy(dir.path() / "a.npy");
  REQUIRE(a.ok());
  CHECK(a->dtype == NpyDtype::F64);
  CHECK(a->shape == std::vector<std::size_t>{2, 3});
  REQUIRE(a->size() == 6);
  CHECK(a->data[0] == 1.5);
  CHECK(std::isnan(a->data[2]));
  CHECK(a->data[3] == 1e-300);

  const std::vector<float> f{0.1f, -7.25f};
  const std::size_t fshape[] = {2};
  REQUIRE(write_npy(dir.path() / "f.npy", f, fshape).ok());
  auto b = read_npy(dir.path() / "f.npy");
  REQUIRE(b.ok());
  CHECK(b->dtype == NpyDtype::F32);
  CHECK(b->data == std::vector<double>{static_cast<double>(0.1f), -7.25});
}

TEST_CASE("npy: the writer lays the header out as numpy does", "[data][npy]") {
  const std::size_t shape[] = {2};
  auto bytes = encode_npy(std::vector<double>{1, 2}, shape);
  REQUIRE(bytes.ok());
  const std::string& s = *bytes;
  CHECK(s.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len =
      static_cast<unsigned char>(s[8]) | (static_cast<unsigned char>(s[9]) << 8);
  CHECK((10 + header_len) % 64 == 0);
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  CHECK(s.substr(10, dict.size()) == dict);
  CHECK(s[10 + header_len - 1] == '\n');
  CHECK(s.size() == 10 + header_len + 16);
  auto zero_d = encode_npy(std::vector<double>{5}, std::span<const std::size_t>());
  REQUIRE(zero_d.ok());
  CHECK(zero_d->find("'shape': ()") != std::string::npos);
  auto mismatch = encode_npy(std::vector<double>{1, 2, 3}, shape);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().message == "shape (2,) holds 2 elements, the data has 3");
  auto ints = encode_npy(std::vector<double>{1, 2}, shape, NpyDtype::I32);
  REQUIRE_FALSE(ints.ok());
  CHECK(ints.error().message == "writing dtype '<i4' is not supported (only '<f4' and '<f8')");
}

TEST_CASE("npy: versions 2.0 and 3.0, integer dtypes, 0-d arrays", "[data][npy]") {
  auto v2 = parse_npy(npy_file(2, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                               bytes_of<int32_t>({-1, 0, 2147483647})),
                      "v2.npy");
  REQUIRE(v2.ok());
  CHECK(v2->dtype == NpyDtype::I32);
  CHECK(v2->data == std::vector<double>{-1, 0, 2147483647});
  auto v3 =
      parse_npy(npy_file(3, "{\"descr\": \"<i8\", \"shape\": (1, 2), \"fortran_order\": False}",
                         bytes_of<int64_t>({-5, int64_t{1} << 40})),
                "v3.npy");
  REQUIRE(v3.ok());
  CHECK(v3->shape == std::vector<std::size_t>{1, 2});
  CHECK(v3->data == std::vector<double>{-5, 1099511627776.0});
  auto scalar = parse_npy(npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                                   bytes_of<float>({2.5f})),
                          "s.npy");
  REQUIRE(scalar.ok());
  CHECK(scalar->shape.empty());
  CHECK(scalar->data == std::vector<double>{2.5});
  auto empty = parse_npy(
      npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""), "e.npy");
  REQUIRE(empty.ok());
  CHECK(empty->size() == 0);
}

TEST_CASE("npy errors: refused dtypes and orders name what they found", "[data][npy][errors]") {
  const std::string big = "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }";
  CHECK(error_of(npy_file(1, big, "abcd")) ==
        "x.npy: byte " + std::to_string(10 + big.find("'>f4'")) +
            ": unsupported dtype '>f4', big-endian (supported: '<f4', '<f8', '<i4', '<i8')");
  const std::string half = "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }";
  CHECK(error_of(npy_file(1, half, "ab")) ==
        "x.npy: byte " + std::to_string(10 + half.find("'<f2'")) +
            ": unsupported dtype '<f2' (supported: '<f4', '<f8', '<i4', '<i8')");
  const std::string rec = "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }";
  CHECK(error_of(npy_file(1, rec, "abcd")) == "x.npy: byte " + std::to_string(10 + rec.find('[')) +
                                                  ": unsupported dtype: a structured (record) "
                                                  "dtype; supported: '<f4', '<f8', '<i4', '<i8'");
  const std::string fortran = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }";
  CHECK(error_of(npy_file(1, fortran, std::string(32, '\0'))) ==
        "x.npy: byte " + std::to_string(10 + fortran.find("True")) +
            ": unsupported Fortran-order (column-major) array; save it C-ordered "
            "(numpy.ascontiguousarray)");
}

TEST_CASE("npy errors: malformed and truncated files", "[data][npy][errors]") {
  CHECK(error_of("hello") ==
        "x.npy: byte 0: expected the .npy magic string \\x93NUMPY (not a NumPy .npy file)");
  CHECK(error_of(std::string("\x93NUMPY\x04\x00\x10\x00", 10)) ==
        "x.npy: byte 6: unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)");
  CHECK(error_of(std::string("\x93NUMPY\x01", 7)) ==
        "x.npy: byte 7: expected the format version and header length, found end of file");
  const std::string ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string file = npy_file(1, ok, std::string(48, '\0'));
  CHECK(error_of(file.substr(0, file.size() - 8)) ==
        "x.npy: byte " + std::to_string(file.size() - 8) +
            ": expected 48 bytes of <f8 data for shape (2, 3), found 40 (truncated file)");
  CHECK(error_of(file + "xy") ==
        "x.npy: byte " + std::to_string(file.size()) +
            ": expected the file to end after 48 bytes of data, found 2 more");
  CHECK(error_of(file.substr(0, 40)) ==
        "x.npy: byte 40: expected a header of 118 bytes, found end of file");
  const std::string no_shape = "{'descr': '<f8', 'fortran_order': False}";
  CHECK(
      error_of(npy_file(1, no_shape, "")) ==
      "x.npy: byte 10: expected the keys 'descr', 'fortran_order' and 'shape'; 'shape' is missing");
  const std::string bad_shape = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, x), }";
  CHECK(error_of(npy_file(1, bad_shape, "")) ==
        "x.npy: byte " + std::to_string(10 + bad_shape.find('x')) +
            ": expected a non-negative integer dimension in the header, found 'x'");
  const std::string extra = "{'descr': '<f8', 'order': 'C'}";
  CHECK(error_of(npy_file(1, extra, "")) ==
        "x.npy: byte " + std::to_string(10 + extra.find("'order'")) +
            ": unexpected key 'order' in the header (expected 'descr', 'fortran_order', 'shape')");
  auto missing = read_npy("/nonexistent/x.npy");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().describe() ==
        "/nonexistent/x.npy: cannot open the file for reading: No such file or directory");
  const std::size_t shape[] = {1};
  const auto status = write_npy("/nonexistent/dir/y.npy", std::vector<double>{1}, shape);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().describe() == "/nonexistent/dir/y.npy: cannot open the file for writing");
}

TEST_CASE("npy series: one sample per file, natural order", "[data][npy]") {
  test::TempDir dir;
  const std::size_t s3[] = {3, 2}, s2[] = {2, 2}, s1[] = {1, 2};
  REQUIRE(write_npy(dir.path() / "rollout_10.npy", std::vector<double>{1, 2, 3, 4, 5, 6}, s3).ok());
  REQUIRE(write_npy(dir.path() / "rollout_2.npy", std::vector<double>{7, 8, 9, 10}, s2).ok());
  REQUIRE(write_npy(dir.path() / "rollout_1.npy", std::vector<float>{11, 12}, s1).ok());
  dir.write("notes.txt", "ignored");
  auto r = read_npy_series(dir.path());
  REQUIRE(r.ok());
  REQUIRE(!r->check());
  REQUIRE(r->size() == 3);
  CHECK(r->samples[0].id == "rollout_1");
  CHECK(r->samples[1].id == "rollout_2");
  CHECK(r->samples[2].id == "rollout_10");
  CHECK(r->num_channels() == 2);
  CHECK(r->samples[2].times == std::vector<double>{0, 1, 2});
  CHECK(r->samples[2].values == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(r->samples[0].values == std::vector<double>{11, 12});

  const std::size_t s_bad[] = {2, 3};
  const auto bad = dir.path() / "rollout_3.npy";
  REQUIRE(write_npy(bad, std::vector<double>(6, 0.0), s_bad).ok());
  auto e = read_npy_series(dir.path());
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().describe() ==
        bad.string() + ": expected 2 channels as in rollout_1.npy, found shape (2, 3)");
}

namespace {

// A [rows, 3] series: channels a, time, b with time = `times`.
void write_timed(const std::filesystem::path& file, const std::vector<double>& times) {
  std::vector<double> v;
  for (std::size_t i = 0; i < times.size(); ++i) {
    v.push_back(static_cast<double>(i));
    v.push_back(times[i]);
    v.push_back(10.0 + static_cast<double>(i));
  }
  const std::size_t shape[] = {times.size(), 3};
  REQUIRE(write_npy(file, v, shape).ok());
}

} // namespace

TEST_CASE("npy series: --time makes a channel the observation times", "[data][npy][time]") {
  test::TempDir dir;
  write_timed(dir.path() / "s0.npy", {1, 3, 4});
  DataOptions o;
  o.normalise = false;
  o.whole = true;
  o.csv.time_column = "dim_1";
  auto r = open_data(dir.path().string(), o);
  REQUIRE(r.ok());
  const Dataset& d = r->train;
  REQUIRE(d.num_channels() == 2);
  CHECK(d.channels[0].name == "dim_0");
  CHECK(d.channels[1].name == "dim_2");
  CHECK(d.samples[0].times == std::vector<double>{1, 3, 4});
  CHECK(d.samples[0].values == std::vector<double>{0, 10, 1, 11, 2, 12});

  write_timed(dir.path() / "s1.npy", {1, 3, 3});
  auto bad = open_data(dir.path().string(), o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().describe() == (dir.path() / "s1.npy").string() +
                                      ": row 2: time 3 (channel dim_1) is not after the row "
                                      "before's 3");
  o.csv.time_column = "dim_7";
  auto missing = open_data(dir.path().string(), o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().describe().find("--time dim_7: no channel of that name") !=
        std::string::npos);
}

TEST_CASE("npy folders with train, validation and test parts are split as given",
          "[data][npy][parts]") {
  test::TempDir dir;
  const std::vector<std::pair<std::string, int>> parts = {
      {"train", 6}, {"validation", 2}, {"test", 3}};
  for (const auto& [part, n] : parts) {
    std::filesystem::create_directories(dir.path() / part);
    for (int i = 0; i < n; ++i)
      write_timed(dir.path() / part / ("w" + std::to_string(i) + ".npy"), {0, 1, 2});
  }
  DataOptions o;
  o.normalise = false;
  auto r = open_data(dir.path().string(), o);
  REQUIRE(r.ok());
  CHECK(r->train.size() == 6);
  CHECK(r->validation.size() == 2);
  CHECK(r->test.size() == 3);
  CHECK(r->description.find("the given train/, validation/ and test/ parts") != std::string::npos);

  // K folds pool train/ and validation/; test/ stays the test part.
  o.folds = 4;
  o.fold = 1;
  auto folds = open_data(dir.path().string(), o);
  REQUIRE(folds.ok());
  CHECK(folds->train.size() + folds->validation.size() == 8);
  CHECK(folds->validation.size() == 2);
  CHECK(folds->test.size() == 3);

  // Without validation/, validation is held out of train/.
  std::filesystem::remove_all(dir.path() / "validation");
  o.folds = 0;
  o.validation_fraction = 0.5;
  auto held = open_data(dir.path().string(), o);
  REQUIRE(held.ok());
  CHECK(held->train.size() == 3);
  CHECK(held->validation.size() == 3);
  CHECK(held->test.size() == 3);
  CHECK(held->description.find("the given test/ part") != std::string::npos);
}

TEST_CASE("prefixes cut every series and its per-step targets, not shorter ones",
          "[data][prefixes]") {
  Dataset d;
  d.channels = {{"a"}};
  d.targets = {"y"};
  d.target_kind = TargetKind::RegressionPerStep;
  d.samples.resize(2);
  d.samples[0].times = {0, 1, 2, 3};
  d.samples[0].values = {1, 2, 3, 4};
  d.samples[0].target = {5, 6, 7, 8};
  d.samples[1].times = {0, 1};
  d.samples[1].values = {9, 10};
  d.samples[1].target = {11, 12};
  const Dataset p = prefixes(d, 3);
  CHECK(p.samples[0].times == std::vector<double>{0, 1, 2});
  CHECK(p.samples[0].values == std::vector<double>{1, 2, 3});
  CHECK(p.samples[0].target == std::vector<double>{5, 6, 7});
  CHECK(p.samples[1].values == std::vector<double>{9, 10});
  CHECK(!p.check());
}
