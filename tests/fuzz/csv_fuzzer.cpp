// libFuzzer target: any bytes as a CSV data file, read under one of several
// option sets (chosen by the first byte) and then reshaped as the command
// line can ask (windows, next-step targets, first-row statics). Readers and
// shaping must give a consistent dataset or a located DataError — never
// crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "runtime/data/csv_reader.h"
#include "runtime/data/series_shaping.h"

using namespace plastic::rt;

namespace {

CsvOptions options_for(uint8_t choice) {
  CsvOptions o;
  switch (choice % 6) {
  case 0:
    break; // every column a channel
  case 1:  // the seed corpus' synthetic files: id, time, label
    o.id_column = "id";
    o.time_column = "time";
    o.label_column = "label";
    break;
  case 2: // the air-quality layout
    o.date_column = "Date";
    o.time_column = "Time";
    o.missing_value = -200;
    o.targets = {"CO_GT"};
    break;
  case 3: // European: ';' and decimal comma
    o.separator = ';';
    o.decimal_point = ',';
    o.time_column = "time";
    break;
  case 4: // long layout
    o.layout = CsvLayout::Long;
    o.id_column = "id";
    o.time_column = "time";
    break;
  default: // the cascaded tanks: channels and targets named
    o.channels = {"uEst"};
    o.targets = {"yEst"};
    break;
  }
  return o;
}

SeriesShaping shaping_for(uint8_t choice) {
  SeriesShaping s;
  if (choice & 1) s.window = 2 + (choice >> 4);
  if (choice & 2) s.statics = {"yEst"};
  if (choice & 4) s.period = 4;
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const CsvOptions options = options_for(data[0]);
  std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
  auto result = parse_csv(std::move(text), "fuzz.csv", options);
  if (!result) {
    (void)result.error().describe();
    return 0;
  }
  if (result.value().check()) std::abort();
  if (auto s = shape_series(result.value(), shaping_for(data[1]), "fuzz.csv"); s)
    if (result.value().check()) std::abort();
  return 0;
}
