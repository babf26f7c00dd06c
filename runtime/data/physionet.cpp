// The PhysioNet 2019 `.psv` reader (see physionet.h).
#include "runtime/data/physionet.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "runtime/data/text_scan.h"
#include "runtime/data/transforms.h"

namespace plastic::rt {
namespace {

using data_detail::found_token;
using data_detail::NumberStatus;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kColumns = 41;
constexpr std::size_t kSeries = 34; // time-varying columns come first
constexpr double kMaxFilledHour = 1e5;

// The column order of every file of the challenge data (checked on the header).
constexpr std::array<std::string_view, kColumns> kHeader = {
    "HR",        "O2Sat",        "Temp",
    "SBP",       "MAP",          "DBP",
    "Resp",      "EtCO2",        "BaseExcess",
    "HCO3",      "FiO2",         "pH",
    "PaCO2",     "SaO2",         "AST",
    "BUN",       "Alkalinephos", "Calcium",
    "Chloride",  "Creatinine",   "Bilirubin_direct",
    "Glucose",   "Lactate",      "Magnesium",
    "Phosphate", "Potassium",    "Bilirubin_total",
    "TroponinI", "Hct",          "Hgb",
    "PTT",       "WBC",          "Fibrinogen",
    "Platelets", "Age",          "Gender",
    "Unit1",     "Unit2",        "HospAdmTime",
    "ICULOS",    "SepsisLabel"};
enum Col : std::size_t { kAge = 34, kGender, kUnit1, kUnit2, kHospAdmTime, kIculos, kSepsisLabel };

Dataset empty_dataset(const PhysioNetOptions& options) {
  Dataset data;
  data.name = "PhysioNet2019";
  for (std::size_t c = 0; c < kSeries; ++c)
    data.channels.push_back({std::string(kHeader[c])});
  for (std::size_t c = kAge; c <= kHospAdmTime; ++c)
    data.statics.push_back({std::string(kHeader[c])});
  if (options.observational_intensity) {
    data.statics.push_back({"Unit1_observed", ChannelKind::Indicator});
    data.statics.push_back({"Unit2_observed", ChannelKind::Indicator});
  }
  data.target_kind = TargetKind::Binary;
  data.classes = {"not septic", "septic"};
  return data;
}

// Splits one row at '|' into exactly kColumns cells; false if the count differs.
bool split_row(std::string_view line, std::array<std::string_view, kColumns>& cells,
               std::size_t& found) {
  std::size_t start = 0;
  found = 0;
  for (;;) {
    const std::size_t bar = line.find('|', start);
    const std::size_t end = bar == std::string_view::npos ? line.size() : bar;
    if (found < kColumns) cells[found] = line.substr(start, end - start);
    ++found;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return found == kColumns;
}

class StayParser {
public:
  StayParser(std::string_view text, const std::string& file, const PhysioNetOptions& options)
      : text_(text), lines_(text), file_(file), options_(options) {}

  // Appends the stay to `data` unless options drop it.
  std::optional<DataError> run(Dataset& data) {
    std::string_view line;
    if (!lines_.next(line))
      return text_error(file_, 1, 1, "expected the header line, found end of file");
    if (auto e = check_header(line)) return e;
    Sample s;
    s.id = std::filesystem::path(file_).stem().string();
    const auto rows_estimate =
        static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n'));
    s.times.reserve(rows_estimate);
    s.values.reserve(rows_estimate * kSeries);
    std::array<std::string_view, kColumns> cells;
    std::array<double, kColumns> row{};
    double label = 0;
    double last_hour = 0;
    std::size_t rows = 0;
    while (lines_.next(line)) {
      if (data_detail::trim(line).empty()) continue;
      std::size_t found = 0;
      if (!split_row(line, cells, found)) {
        const int64_t col = found < kColumns ? static_cast<int64_t>(line.size()) + 1
                                             : data_detail::column_of(line, cells[kColumns - 1]) +
                                                   static_cast<int64_t>(cells[kColumns - 1].size());
        return here(col,
                    fmt::format("expected {} '|'-separated columns, found {}", kColumns, found));
      }
      for (std::size_t c = 0; c < kColumns; ++c)
        if (auto e = number(line, cells[c], row[c])) return e;
      ++rows;
      const double hour = row[kIculos];
      // Filling inserts a row per missing hour: a corrupt ICULOS of 1e9 must
      // not turn into a billion rows, hence the bound (over 11 years).
      const bool kept = options_.max_hours <= 0 || hour <= options_.max_hours;
      if (std::isnan(hour) ||
          (options_.fill_missing_hours &&
           (hour < 1 || hour != std::floor(hour) || (kept && hour > kMaxFilledHour))))
        return here(data_detail::column_of(line, cells[kIculos]),
                    fmt::format("expected ICULOS to be {}, found {}",
                                options_.fill_missing_hours
                                    ? "a whole number of hours in [1, 100000]"
                                    : "a number",
                                found_token(cells[kIculos])));
      if (rows > 1 && !(hour > last_hour))
        return here(data_detail::column_of(line, cells[kIculos]),
                    fmt::format("expected ICULOS to increase, found {} after {}", hour, last_hour));
      if (row[kSepsisLabel] != 0 && row[kSepsisLabel] != 1)
        return here(
            data_detail::column_of(line, cells[kSepsisLabel]),
            fmt::format("expected SepsisLabel 0 or 1, found {}", found_token(cells[kSepsisLabel])));
      last_hour = hour;
      set_statics(s, row); // the last row read wins, as in Kidger et al.
      if (options_.max_hours > 0 && hour > options_.max_hours) break;
      if (options_.fill_missing_hours) {
        const double first_missing = s.times.empty() ? 1.0 : s.times.back() + 1;
        for (double h = first_missing; h < hour; h += 1)
          append(s, h, nullptr);
      }
      append(s, hour, row.data());
      label = std::max(label, row[kSepsisLabel]);
    }
    if (rows == 0)
      return text_error(file_, lines_.end_line(), 1,
                        "expected rows after the header, found end of file");
    if (s.times.empty() || s.times.size() < options_.min_length) return std::nullopt;
    s.label = static_cast<int>(label);
    data.samples.push_back(std::move(s));
    return std::nullopt;
  }

private:
  DataError here(int64_t column, std::string message) const {
    return text_error(file_, lines_.line_number(), column, std::move(message));
  }

  std::optional<DataError> check_header(std::string_view line) const {
    std::array<std::string_view, kColumns> cells;
    std::size_t found = 0;
    const bool counted = split_row(line, cells, found);
    for (std::size_t c = 0; c < std::min(found, kColumns); ++c)
      if (data_detail::trim(cells[c]) != kHeader[c])
        return here(
            data_detail::column_of(line, cells[c]),
            fmt::format("expected column {} of the header to be '{}', found {}", c + 1, kHeader[c],
                        found_token(cells[c], line,
                                    static_cast<std::size_t>(cells[c].data() - line.data()))));
    if (!counted)
      return here(
          static_cast<int64_t>(line.size()) + 1,
          fmt::format("expected a header of {} '|'-separated columns, found {}", kColumns, found));
    return std::nullopt;
  }

  std::optional<DataError> number(std::string_view line, std::string_view cell, double& out) const {
    // Most cells are "NaN": skip from_chars for them.
    if (cell.size() == 3 && cell[0] == 'N' && cell[1] == 'a' && cell[2] == 'N') {
      out = kNaN;
      return std::nullopt;
    }
    const std::string_view token = data_detail::trim(cell);
    const NumberStatus status = data_detail::parse_number(token, out);
    if (status == NumberStatus::Ok) return std::nullopt;
    const auto pos = static_cast<std::size_t>(token.data() - line.data());
    if (token.empty())
      return here(static_cast<int64_t>(pos) + 1,
                  fmt::format("expected a number or NaN, found {}", found_token(token, line, pos)));
    return here(static_cast<int64_t>(pos) + 1,
                data_detail::number_message("a number or NaN", status, token));
  }

  void set_statics(Sample& s, const std::array<double, kColumns>& row) const {
    const auto or_zero = [](double x) { return std::isnan(x) ? 0.0 : x; };
    s.statics = {row[kAge], row[kGender], or_zero(row[kUnit1]), or_zero(row[kUnit2]),
                 or_zero(row[kHospAdmTime])};
    if (options_.observational_intensity) {
      s.statics.push_back(std::isnan(row[kUnit1]) ? 0.0 : 1.0);
      s.statics.push_back(std::isnan(row[kUnit2]) ? 0.0 : 1.0);
    }
  }

  // Appends one hour; row == nullptr appends an all-NaN row.
  static void append(Sample& s, double hour, const double* row) {
    s.times.push_back(hour);
    for (std::size_t c = 0; c < kSeries; ++c)
      s.values.push_back(row ? row[c] : kNaN);
  }

  std::string_view text_;
  data_detail::LineReader lines_;
  const std::string& file_;
  const PhysioNetOptions& options_;
};

void finish(Dataset& data, const PhysioNetOptions& options) {
  if (options.observational_intensity) add_observation_intensity(data);
}

} // namespace

Result<Dataset, DataError> parse_physionet2019_stay(std::string_view text,
                                                    const std::string& file_name,
                                                    const PhysioNetOptions& options) {
  try {
    Dataset data = empty_dataset(options);
    if (auto e = StayParser(text, file_name, options).run(data)) return *e;
    finish(data, options);
    return data;
  } catch (const std::exception& e) { // only allocation failure can get here
    return file_error(file_name, fmt::format("internal error while reading: {}", e.what()));
  }
}

Result<Dataset, DataError> read_physionet2019(const std::filesystem::path& directory,
                                              const PhysioNetOptions& options) {
  namespace fs = std::filesystem;
  const std::string shown = directory.string();
  try {
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
      return file_error(shown, "not a directory (expected one .psv file per stay)");
    std::vector<fs::path> files;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".psv") files.push_back(it->path());
    if (ec) return file_error(shown, fmt::format("cannot list the directory: {}", ec.message()));
    if (files.empty()) return file_error(shown, "no .psv files in the directory");
    std::sort(files.begin(), files.end());
    Dataset data = empty_dataset(options);
    data.samples.reserve(files.size());
    std::string text; // reused: one allocation for all files
    for (const fs::path& file : files) {
      const std::string name = file.string();
      if (auto e = data_detail::read_file(file, name, text)) return *e;
      if (auto e = StayParser(text, name, options).run(data)) return *e;
    }
    finish(data, options);
    return data;
  } catch (const std::exception& e) {
    return file_error(shown, fmt::format("internal error while reading: {}", e.what()));
  }
}

} // namespace plastic::rt
