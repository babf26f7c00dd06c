// Damaged input never crashes a reader: every prefix of a valid file (a
// file cut short at each byte) and seeded random byte edits either read as a
// consistent dataset or fail with a located error. Run under the sanitizers
// this also checks that no reader reads out of bounds.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>

#include "runtime/data/csv_reader.h"
#include "runtime/data/npy.h"
#include "runtime/data/physionet.h"
#include "runtime/data/ts_reader.h"

using namespace plastic::rt;

namespace {

// A read either succeeds with a consistent dataset or says where it failed.
template <class Result> void check_outcome(const Result& r, const std::string& input) {
  if (r.ok()) return;
  const DataError& e = r.error();
  INFO(input);
  CHECK(!e.message.empty());
  CHECK((e.line > 0 || e.byte_offset >= 0));
}

void check_dataset(const plastic::Result<Dataset, DataError>& r, const std::string& input) {
  check_outcome(r, input);
  if (r.ok()) {
    INFO(input);
    CHECK(!r->check());
  }
}

// Every prefix, then `edits` random single-byte replacements drawn from `alphabet`.
void damage(const std::string& valid, const std::string& alphabet, int edits,
            const std::function<void(const std::string&)>& read) {
  for (std::size_t n = 0; n <= valid.size(); ++n)
    read(valid.substr(0, n));
  std::mt19937_64 rng(20240611);
  for (int k = 0; k < edits; ++k) {
    std::string s = valid;
    const int changes = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < changes; ++c)
      s[rng() % s.size()] = alphabet[rng() % alphabet.size()];
    read(s);
  }
}

const std::string kTextAlphabet = "0123456789.,:;|-+eE?()@# \n\r\"aN";

} // namespace

TEST_CASE("robustness: damaged .ts files", "[data][robustness]") {
  const std::string valid = "# c\n@problemName P\n@timeStamps false\n@dimensions 2\n@equalLength "
                            "false\n@classLabel true a b\n@data\n1,2.5,?:3,4,5:a\n-1e3,NaN:7,8:b\n";
  damage(valid, kTextAlphabet, 3000,
         [](const std::string& s) { check_dataset(parse_ts(s, "d.ts"), s); });
  const std::string stamped =
      "@timeStamps true\n@dimensions 2\n@classLabel true a\n@data\n(0,1),(2,?):(1,3):a\n";
  damage(stamped, kTextAlphabet, 2000,
         [](const std::string& s) { check_dataset(parse_ts(s, "d.ts"), s); });
}

TEST_CASE("robustness: damaged CSV files", "[data][robustness]") {
  const std::string valid = "id,t,a,\"b\",l\ns,0,1.5,NA,x\ns,1,2,-200,x\nq,0.5,3,4,y\n";
  CsvOptions o;
  o.id_column = "id";
  o.time_column = "t";
  o.label_column = "l";
  o.missing_value = -200;
  damage(valid, kTextAlphabet, 3000,
         [&](const std::string& s) { check_dataset(parse_csv(s, "d.csv", o), s); });
  CsvOptions l;
  l.layout = CsvLayout::Long;
  l.time_column = "time";
  const std::string long_valid = "time,channel,value\n0,x,1\n1,y,2\n0,y,3\n";
  damage(long_valid, kTextAlphabet, 2000,
         [&](const std::string& s) { check_dataset(parse_csv(s, "d.csv", l), s); });
}

TEST_CASE("robustness: damaged PhysioNet stays", "[data][robustness]") {
  std::string valid =
      "HR|O2Sat|Temp|SBP|MAP|DBP|Resp|EtCO2|BaseExcess|HCO3|FiO2|pH|PaCO2|SaO2|AST|BUN|"
      "Alkalinephos|Calcium|Chloride|Creatinine|Bilirubin_direct|Glucose|Lactate|Magnesium|"
      "Phosphate|Potassium|Bilirubin_total|TroponinI|Hct|Hgb|PTT|WBC|Fibrinogen|Platelets|Age|"
      "Gender|Unit1|Unit2|HospAdmTime|ICULOS|SepsisLabel\n";
  for (int hour = 1; hour <= 3; ++hour) {
    valid += "80.5";
    for (int c = 1; c < 34; ++c)
      valid += "|NaN";
    valid += "|60|0|1|NaN|-3|" + std::to_string(hour * 2) + "|" + (hour == 3 ? "1" : "0") + "\n";
  }
  for (const auto& o : {PhysioNetOptions{}, PhysioNetOptions::kidger2020(true)})
    damage(valid, kTextAlphabet, 1500, [&](const std::string& s) {
      check_dataset(parse_physionet2019_stay(s, "p.psv", o), s);
    });
}

TEST_CASE("robustness: damaged .npy files", "[data][robustness]") {
  const std::size_t shape[] = {3, 2};
  auto bytes = encode_npy(std::vector<double>{1, 2, 3, 4, 5, 6}, shape, NpyDtype::F32);
  REQUIRE(bytes.ok());
  std::string alphabet;
  for (int c = 0; c < 256; ++c)
    alphabet += static_cast<char>(c);
  damage(*bytes, alphabet, 5000, [](const std::string& s) {
    const auto r = parse_npy(s, "d.npy");
    check_outcome(r, "(binary)");
    if (r.ok()) {
      std::size_t count = 1;
      for (std::size_t d : r->shape)
        count *= d;
      CHECK(count == r->size());
    }
  });
}
