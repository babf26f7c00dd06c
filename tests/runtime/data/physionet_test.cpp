// The PhysioNet 2019 reader on small stays written here: values, times,
// static features, the "ever septic" label, Kidger et al.'s options (72-hour
// cut, hour filling, minimum length, observational intensity) and malformed
// files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/data/physionet.h"
#include "tests/runtime/data/data_test_support.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* kHeader = "HR|O2Sat|Temp|SBP|MAP|DBP|Resp|EtCO2|BaseExcess|HCO3|FiO2|pH|PaCO2|SaO2|AST|"
                      "BUN|Alkalinephos|Calcium|"
                      "Chloride|Creatinine|Bilirubin_direct|Glucose|Lactate|Magnesium|Phosphate|"
                      "Potassium|Bilirubin_total|"
                      "TroponinI|Hct|Hgb|PTT|WBC|Fibrinogen|Platelets|Age|Gender|Unit1|Unit2|"
                      "HospAdmTime|ICULOS|SepsisLabel";

std::string cell(double x) {
  if (std::isnan(x)) return "NaN";
  std::string s = std::to_string(x);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

// One hourly row: HR and O2Sat given, the other 32 series NaN.
std::string row(double hr, double o2, double unit1, double unit2, double hosp, int hour,
                int sepsis) {
  std::string s = cell(hr) + "|" + cell(o2);
  for (int c = 2; c < 34; ++c)
    s += "|NaN";
  s += "|73|1|" + cell(unit1) + "|" + cell(unit2) + "|" + cell(hosp) + "|" + std::to_string(hour) +
       "|" + std::to_string(sepsis);
  return s + "\n";
}

// Stay A: hours 1, 2, 4; septic from hour 4; units and admission time unknown.
std::string stay_a() {
  return std::string(kHeader) + "\n" + row(80, 95, kNaN, kNaN, kNaN, 1, 0) +
         row(kNaN, 96, kNaN, kNaN, kNaN, 2, 0) + row(90, kNaN, kNaN, kNaN, kNaN, 4, 1);
}
// Stay B: hours 3, 4; never septic; MICU.
std::string stay_b() {
  return std::string(kHeader) + "\n" + row(70, kNaN, 1, 0, -5.5, 3, 0) +
         row(71, 99, 1, 0, -5.5, 4, 0);
}
// Stay C: a single hour.
std::string stay_c() {
  return std::string(kHeader) + "\n" + row(60, 90, 0, 1, -1, 1, 0);
}

struct Stays {
  test::TempDir dir;
  Stays() {
    dir.write("p000001.psv", stay_a());
    dir.write("p000002.psv", stay_b());
    dir.write("p000010.psv", stay_c());
    dir.write("README.txt", "not a stay");
  }
};

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

// Column `k` (0-based) of a sample's values.
std::vector<double> column(const Dataset& d, std::size_t s, std::size_t k) {
  std::vector<double> out;
  for (std::size_t i = 0; i < d.samples[s].length(); ++i)
    out.push_back(d.value(s, i, k));
  return out;
}

std::string error_of(const std::string& text) {
  auto r = parse_physionet2019_stay(text, "p.psv");
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

// 1-based column where cell k (0-based) of a '|'-separated line starts.
int cell_column(const std::string& line, int k) {
  std::size_t pos = 0;
  for (int i = 0; i < k; ++i)
    pos = line.find('|', pos) + 1;
  return static_cast<int>(pos) + 1;
}

} // namespace

TEST_CASE("PhysioNet: stays as recorded (default options)", "[data][physionet]") {
  Stays stays;
  auto r = read_physionet2019(stays.dir.path());
  REQUIRE(r.ok());
  const Dataset& d = *r;
  REQUIRE(!d.check());
  REQUIRE(d.size() == 3);
  CHECK(d.num_channels() == 34);
  CHECK(d.channels[0].name == "HR");
  CHECK(d.channels[33].name == "Platelets");
  CHECK(d.target_kind == TargetKind::Binary);
  CHECK(d.classes == std::vector<std::string>{"not septic", "septic"});
  REQUIRE(d.num_statics() == 5);
  CHECK(d.statics[0].name == "Age");
  CHECK(d.statics[4].name == "HospAdmTime");

  CHECK(d.samples[0].id == "p000001");
  CHECK(d.samples[0].times == std::vector<double>{1, 2, 4});
  CHECK(same(column(d, 0, 0), {80, kNaN, 90}));
  CHECK(same(column(d, 0, 1), {95, 96, kNaN}));
  CHECK(same(column(d, 0, 2), {kNaN, kNaN, kNaN}));
  CHECK(d.samples[0].label == 1);
  // Missing Unit1, Unit2 and HospAdmTime read as 0 (Kidger et al.).
  CHECK(d.samples[0].statics == std::vector<double>{73, 1, 0, 0, 0});

  CHECK(d.samples[1].times == std::vector<double>{3, 4});
  CHECK(d.samples[1].label == 0);
  CHECK(d.samples[1].statics == std::vector<double>{73, 1, 1, 0, -5.5});
  CHECK(d.samples[2].id == "p000010");
  CHECK(d.samples[2].times == std::vector<double>{1});
}

TEST_CASE("PhysioNet: missing hours filled with NaN rows from hour 1", "[data][physionet]") {
  Stays stays;
  PhysioNetOptions o;
  o.fill_missing_hours = true;
  auto r = read_physionet2019(stays.dir.path(), o);
  REQUIRE(r.ok());
  CHECK(r->samples[0].times == std::vector<double>{1, 2, 3, 4});
  CHECK(same(column(*r, 0, 0), {80, kNaN, kNaN, 90}));
  CHECK(r->samples[1].times == std::vector<double>{1, 2, 3, 4});
  CHECK(same(column(*r, 1, 0), {kNaN, kNaN, 70, 71}));
}

TEST_CASE("PhysioNet: max_hours cuts the stay and the label looks at kept hours only",
          "[data][physionet]") {
  Stays stays;
  PhysioNetOptions o;
  o.max_hours = 2;
  auto r = read_physionet2019(stays.dir.path(), o);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2); // stay B starts at hour 3: nothing left
  CHECK(r->samples[0].times == std::vector<double>{1, 2});
  CHECK(r->samples[0].label == 0); // septic only from hour 4
  CHECK(r->samples[1].id == "p000010");
}

TEST_CASE("PhysioNet: Kidger et al.'s OI setting", "[data][physionet]") {
  Stays stays;
  auto r = read_physionet2019(stays.dir.path(), PhysioNetOptions::kidger2020(true));
  REQUIRE(r.ok());
  const Dataset& d = *r;
  REQUIRE(!d.check());
  REQUIRE(d.size() == 2); // stay C has 1 row < 3
  REQUIRE(d.num_channels() == 68);
  CHECK(d.channels[0] == Channel{"HR_count", ChannelKind::Count});
  CHECK(d.channels[34] == Channel{"HR", ChannelKind::Measured});
  CHECK(column(d, 0, 0) == std::vector<double>{1, 1, 1, 2}); // HR seen at hours 1 and 4
  CHECK(column(d, 0, 1) == std::vector<double>{1, 2, 2, 2}); // O2Sat at hours 1 and 2
  CHECK(column(d, 0, 2) == std::vector<double>{0, 0, 0, 0}); // Temp never
  CHECK(same(column(d, 0, 34), {80, kNaN, kNaN, 90}));
  REQUIRE(d.num_statics() == 7);
  CHECK(d.statics[5] == Channel{"Unit1_observed", ChannelKind::Indicator});
  CHECK(d.samples[0].statics == std::vector<double>{73, 1, 0, 0, 0, 0, 0});
  CHECK(d.samples[1].statics == std::vector<double>{73, 1, 1, 0, -5.5, 1, 1});

  auto no_oi = read_physionet2019(stays.dir.path(), PhysioNetOptions::kidger2020(false));
  REQUIRE(no_oi.ok());
  CHECK(no_oi->num_channels() == 34);
  CHECK(no_oi->num_statics() == 5);
}

TEST_CASE("PhysioNet errors: malformed stays", "[data][physionet][errors]") {
  const std::string h = std::string(kHeader) + "\n";
  std::string short_row = row(1, 2, 0, 1, 0, 1, 0);
  short_row.erase(short_row.rfind('|')); // 40 cells
  CHECK(error_of(h + short_row + "\n") == "p.psv:2:" + std::to_string(short_row.size() + 1) +
                                              ": expected 41 '|'-separated columns, found 40");
  CHECK(error_of(h + "abc" + row(1, 2, 0, 1, 0, 1, 0).substr(1)) ==
        "p.psv:2:1: expected a number or NaN, found 'abc'");
  std::string bad_header = h;
  bad_header.replace(bad_header.find("Temp"), 4, "Tmp");
  CHECK(error_of(bad_header + row(1, 2, 0, 1, 0, 1, 0)) ==
        "p.psv:1:10: expected column 3 of the header to be 'Temp', found 'Tmp'");
  // An invisible byte is shown as C writes it: "expected 'HR', found 'HR'"
  // (with a raw \x03 between the quotes) said nothing.
  CHECK(error_of("\x03" + h + row(1, 2, 0, 1, 0, 1, 0)) ==
        "p.psv:1:1: expected column 1 of the header to be 'HR', found '\\x03HR'");
  const std::string late = row(1, 2, 0, 1, 0, 2, 0);
  const std::string early = row(1, 2, 0, 1, 0, 1, 0);
  CHECK(error_of(h + late + early) == "p.psv:3:" + std::to_string(cell_column(early, 39)) +
                                          ": expected ICULOS to increase, found 1 after 2");
  const std::string two = row(1, 2, 0, 1, 0, 1, 2);
  CHECK(error_of(h + two) == "p.psv:2:" + std::to_string(cell_column(two, 40)) +
                                 ": expected SepsisLabel 0 or 1, found '2'");
  const std::string far = row(1, 2, 0, 1, 0, 200000, 0);
  PhysioNetOptions fill;
  fill.fill_missing_hours = true;
  auto r = parse_physionet2019_stay(h + far, "p.psv", fill);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().describe() == "p.psv:2:" + std::to_string(cell_column(far, 39)) +
                                    ": expected ICULOS to be a whole number of hours in [1, "
                                    "100000], found '200000'");
  CHECK(parse_physionet2019_stay(h + far, "p.psv").ok()); // nothing to fill: any number will do
  CHECK(error_of(h) == "p.psv:2:1: expected rows after the header, found end of file");
  CHECK(error_of("") == "p.psv:1:1: expected the header line, found end of file");
  CHECK(error_of("HR|O2Sat\n") ==
        "p.psv:1:9: expected a header of 41 '|'-separated columns, found 2");
  // Truncated in the middle of a row.
  const std::string cut = early.substr(0, 20);
  const auto cells = std::count(cut.begin(), cut.end(), '|') + 1;
  CHECK(error_of(h + early + cut) == "p.psv:3:" + std::to_string(cut.size() + 1) +
                                         ": expected 41 '|'-separated columns, found " +
                                         std::to_string(cells));
}

TEST_CASE("PhysioNet errors: one bad file fails the directory / empty directories",
          "[data][physionet][errors]") {
  Stays stays;
  const auto bad =
      stays.dir.write("p000005.psv", std::string(kHeader) + "\n" + "x" + row(1, 2, 0, 1, 0, 1, 0));
  auto r = read_physionet2019(stays.dir.path());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().describe() == bad.string() + ":2:1: expected a number or NaN, found 'x1'");

  test::TempDir empty;
  auto e = read_physionet2019(empty.path());
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().describe() == empty.path().string() + ": no .psv files in the directory");
  auto missing = read_physionet2019(empty.path() / "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "not a directory (expected one .psv file per stay)");
}
