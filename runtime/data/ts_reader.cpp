// The `.ts` reader (see ts_reader.h): header, then one sample per line.
#include "runtime/data/ts_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "runtime/data/datetime.h"
#include "runtime/data/text_scan.h"

namespace plastic::rt {
namespace {

using data_detail::column_of;
using data_detail::found_token;
using data_detail::iequals;
using data_detail::NumberStatus;
using data_detail::parse_number;
using data_detail::trim;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Header {
  std::string problem_name;
  bool timestamps = false;
  bool univariate = false;
  bool equal_length = false;
  bool class_label = false;
  bool target_label = false;
  std::optional<std::size_t> dimensions;
  std::optional<std::size_t> series_length;
  int64_t class_label_line = 0;
  int64_t target_label_line = 0;
  int64_t dimensions_line = 0;
  std::vector<std::string> classes;
};

// One (timestamp, value) observation of one dimension, with the column of
// its timestamp for duplicate-time errors.
struct Stamped {
  double t;
  double v;
  int64_t column;
};

class TsParser {
public:
  TsParser(std::string_view text, const std::string& file) : lines_(text), file_(file) {
    stem_ = std::filesystem::path(file).stem().string();
  }

  Result<Dataset, DataError> run() {
    if (auto e = parse_header()) return *e;
    if (auto e = check_header()) return *e;
    Dataset data;
    data.name = header_.problem_name.empty() ? stem_ : header_.problem_name;
    if (header_.class_label) {
      data.target_kind = TargetKind::Class;
      data.classes = header_.classes;
    } else if (header_.target_label) {
      data.target_kind = TargetKind::Regression;
      data.targets = {"target"};
    }
    std::string_view raw;
    while (lines_.next(raw)) {
      const std::string_view line = trim(raw);
      if (line.empty() || line.front() == '#') continue;
      Sample sample;
      if (auto e = parse_sample(raw, line, sample)) return *e;
      data.samples.push_back(std::move(sample));
    }
    if (data.samples.empty())
      return error(lines_.end_line(), 1, "expected a sample after @data, found end of file");
    data.channels.reserve(*dims_);
    for (std::size_t d = 0; d < *dims_; ++d)
      data.channels.push_back({fmt::format("dim_{}", d)});
    return data;
  }

private:
  DataError error(int64_t line, int64_t column, std::string message) const {
    return text_error(file_, line, column, std::move(message));
  }
  DataError error_at(std::string_view raw, std::string_view part, std::string message) const {
    return error(lines_.line_number(), column_of(raw, part), std::move(message));
  }

  // header := { comment | '@' identifier [value] } '@data'
  std::optional<DataError> parse_header() {
    std::string_view raw;
    while (lines_.next(raw)) {
      const std::string_view line = trim(raw);
      if (line.empty() || line.front() == '#') continue;
      if (line.front() != '@')
        return error_at(
            raw, line,
            fmt::format("expected a header line ('@...') or '@data' before the samples, found {}",
                        found_token(line.substr(0, line.find_first_of(" \t")))));
      const std::size_t space = line.find_first_of(" \t");
      const std::string_view key =
          line.substr(1, space == std::string_view::npos ? space : space - 1);
      const std::string_view value =
          space == std::string_view::npos ? line.substr(line.size()) : trim(line.substr(space));
      if (iequals(key, "data")) {
        if (!value.empty())
          return error_at(
              raw, value,
              fmt::format("expected nothing after @data, found {}", found_token(value)));
        return std::nullopt;
      }
      if (auto e = header_entry(raw, key, value)) return e;
    }
    return error(lines_.end_line(), 1, "expected '@data' before the end of the file");
  }

  std::optional<DataError> header_entry(std::string_view raw, std::string_view key,
                                        std::string_view value) {
    const std::string_view first = value.substr(0, value.find_first_of(" \t"));
    if (iequals(key, "problemName")) {
      header_.problem_name = std::string(value);
    } else if (iequals(key, "timeStamps")) {
      return boolean(raw, key, first, header_.timestamps);
    } else if (iequals(key, "missing")) {
      bool ignored = false;
      return boolean(raw, key, first, ignored);
    } else if (iequals(key, "univariate")) {
      return boolean(raw, key, first, header_.univariate);
    } else if (iequals(key, "equalLength")) {
      return boolean(raw, key, first, header_.equal_length);
    } else if (iequals(key, "targetLabel")) {
      header_.target_label_line = lines_.line_number();
      return boolean(raw, key, first, header_.target_label);
    } else if (iequals(key, "dimension") || iequals(key, "dimensions")) {
      header_.dimensions_line = lines_.line_number();
      return count(raw, key, value, header_.dimensions);
    } else if (iequals(key, "seriesLength")) {
      return count(raw, key, value, header_.series_length);
    } else if (iequals(key, "classLabel")) {
      header_.class_label_line = lines_.line_number();
      if (auto e = boolean(raw, key, first, header_.class_label)) return e;
      if (header_.class_label) return class_labels(raw, value.substr(first.size()));
    }
    return std::nullopt; // other identifiers describe the data and do not change how it reads
  }

  std::optional<DataError> boolean(std::string_view raw, std::string_view key,
                                   std::string_view word, bool& out) {
    if (iequals(word, "true") || iequals(word, "false")) {
      out = iequals(word, "true");
      return std::nullopt;
    }
    return error(
        lines_.line_number(),
        word.empty() ? static_cast<int64_t>(raw.size()) + 1 : column_of(raw, word),
        fmt::format("expected 'true' or 'false' after @{}, found {}", key, found_token(word)));
  }

  std::optional<DataError> count(std::string_view raw, std::string_view key, std::string_view value,
                                 std::optional<std::size_t>& out) {
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n == 0)
      return error(
          lines_.line_number(),
          value.empty() ? static_cast<int64_t>(raw.size()) + 1 : column_of(raw, value),
          fmt::format("expected a positive integer after @{}, found {}", key, found_token(value)));
    out = n;
    return std::nullopt;
  }

  std::optional<DataError> class_labels(std::string_view raw, std::string_view rest) {
    std::size_t pos = 0;
    while (pos < rest.size()) {
      pos = rest.find_first_not_of(" \t", pos);
      if (pos == std::string_view::npos) break;
      const std::size_t end = std::min(rest.find_first_of(" \t", pos), rest.size());
      const std::string_view label = rest.substr(pos, end - pos);
      if (std::find(header_.classes.begin(), header_.classes.end(), label) != header_.classes.end())
        return error_at(raw, label, fmt::format("class label '{}' is declared twice", label));
      header_.classes.emplace_back(label);
      pos = end;
    }
    if (header_.classes.empty())
      return error(lines_.line_number(), static_cast<int64_t>(raw.size()) + 1,
                   "expected the class labels after '@classLabel true', found end of line");
    return std::nullopt;
  }

  std::optional<DataError> check_header() {
    if (header_.class_label && header_.target_label)
      return error(
          std::max(header_.class_label_line, header_.target_label_line), 1,
          "@classLabel true and @targetLabel true cannot both hold: a sample has one target");
    if (header_.univariate) {
      if (header_.dimensions && *header_.dimensions != 1)
        return error(header_.dimensions_line, 1,
                     fmt::format("@univariate true but @dimensions {}", *header_.dimensions));
      dims_ = 1;
    } else {
      dims_ = header_.dimensions; // otherwise taken from the first sample
    }
    if (header_.equal_length) reference_length_ = header_.series_length;
    return std::nullopt;
  }

  bool has_target() const { return header_.class_label || header_.target_label; }

  // Splits at ':' outside parentheses: date-times inside "(...)" have colons.
  static std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '(') ++depth;
      if (line[i] == ')' && depth > 0) --depth;
      if (line[i] == ':' && depth == 0) {
        fields.push_back(line.substr(start, i - start));
        start = i + 1;
      }
    }
    fields.push_back(line.substr(start));
    return fields;
  }

  std::string layout() const {
    const std::size_t d = *dims_;
    const char* target = header_.class_label    ? " and a class label"
                         : header_.target_label ? " and a target value"
                                                : "";
    return fmt::format("{} dimension{}{}", d, d == 1 ? "" : "s", target);
  }

  // sample := dimension { ':' dimension } [ ':' target ]
  std::optional<DataError> parse_sample(std::string_view raw, std::string_view line, Sample& out) {
    const std::vector<std::string_view> fields = split_fields(line);
    const std::size_t extra = has_target() ? 1 : 0;
    if (!dims_) {
      if (fields.size() <= extra)
        return error(
            lines_.line_number(), static_cast<int64_t>(raw.size()) + 1,
            "expected at least one dimension and a target separated by ':', found end of line");
      dims_ = fields.size() - extra;
    }
    const std::size_t want = *dims_ + extra;
    if (fields.size() < want)
      return error(lines_.line_number(), column_of(raw, line) + static_cast<int64_t>(line.size()),
                   fmt::format("expected {} separated by ':', found end of line after {} field{}",
                               layout(), fields.size(), fields.size() == 1 ? "" : "s"));
    if (fields.size() > want)
      return error_at(
          raw, fields[want],
          fmt::format("expected {} separated by ':', found {} fields", layout(), fields.size()));
    out.id = fmt::format("{}:{}", stem_, lines_.line_number());
    if (auto e = header_.timestamps ? stamped_dimensions(raw, fields, out)
                                    : plain_dimensions(raw, fields, out))
      return e;
    if (has_target()) return target(raw, trim(fields.back()), out);
    return std::nullopt;
  }

  std::optional<DataError> value(std::string_view raw, std::string_view token, double& out) const {
    token = trim(token);
    if (token == "?") {
      out = kNaN;
      return std::nullopt;
    }
    const NumberStatus status = parse_number(token, out);
    if (status == NumberStatus::Ok) return std::nullopt;
    if (token.empty()) {
      const std::size_t pos = static_cast<std::size_t>(token.data() - raw.data());
      return error(lines_.line_number(), static_cast<int64_t>(pos) + 1,
                   fmt::format("expected a number or '?', found {}", found_token(token, raw, pos)));
    }
    return error_at(raw, token, data_detail::number_message("a number or '?'", status, token));
  }

  // Checks a dimension's length against @seriesLength, or against the first
  // sample when @equalLength true comes without a length.
  std::optional<DataError> check_length(std::string_view raw, std::string_view field,
                                        std::size_t n) {
    if (!header_.equal_length) return std::nullopt;
    if (!reference_length_) reference_length_ = n;
    if (n == *reference_length_) return std::nullopt;
    const std::string why = header_.series_length
                                ? fmt::format("@seriesLength {}", *header_.series_length)
                                : std::string("@equalLength true and the first sample");
    return error(lines_.line_number(), column_of(raw, field) + static_cast<int64_t>(field.size()),
                 fmt::format("expected {} values ({}), found {}", *reference_length_, why, n));
  }

  std::optional<DataError>
  plain_dimensions(std::string_view raw, const std::vector<std::string_view>& fields, Sample& out) {
    std::vector<std::vector<double>> dims(*dims_);
    std::size_t n = 0;
    for (std::size_t d = 0; d < *dims_; ++d) {
      std::string_view field = fields[d];
      std::size_t start = 0;
      for (;;) {
        const std::size_t comma = field.find(',', start);
        const std::size_t end = comma == std::string_view::npos ? field.size() : comma;
        double v = 0;
        if (auto e = value(raw, field.substr(start, end - start), v)) return e;
        dims[d].push_back(v);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      if (auto e = check_length(raw, field, dims[d].size())) return e;
      n = std::max(n, dims[d].size());
    }
    out.times.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      out.times[i] = static_cast<double>(i);
    out.values.assign(n * *dims_, kNaN);
    for (std::size_t d = 0; d < *dims_; ++d)
      for (std::size_t i = 0; i < dims[d].size(); ++i)
        out.values[i * *dims_ + d] = dims[d][i];
    return std::nullopt;
  }

  // dimension := pair { ',' pair } ; pair := '(' timestamp ',' value ')'
  std::optional<DataError> stamped_dimension(std::string_view raw, std::string_view field,
                                             std::vector<Stamped>& out) {
    std::size_t pos = 0;
    const auto skip_blanks = [&] {
      while (pos < field.size() && (field[pos] == ' ' || field[pos] == '\t'))
        ++pos;
    };
    const auto here = [&] { return column_of(raw, field) + static_cast<int64_t>(pos); };
    for (;;) {
      skip_blanks();
      if (pos >= field.size() || field[pos] != '(')
        return error(lines_.line_number(), here(),
                     fmt::format("expected '(' to open a (timestamp,value) pair, found {}",
                                 found_token({}, raw, static_cast<std::size_t>(here() - 1))));
      const std::size_t comma = field.find(',', pos);
      const std::size_t close = field.find(')', pos);
      if (comma == std::string_view::npos || close == std::string_view::npos || close < comma)
        return error(lines_.line_number(), here(),
                     "expected a pair '(timestamp,value)' closed by ')'");
      const std::string_view stamp = trim(field.substr(pos + 1, comma - pos - 1));
      Stamped s{0, 0, column_of(raw, stamp)};
      if (parse_number(stamp, s.t) != NumberStatus::Ok || std::isnan(s.t)) {
        const auto hours = data_detail::parse_iso_datetime_hours(stamp);
        if (!hours)
          return error_at(
              raw, stamp,
              fmt::format("expected a timestamp (a number or YYYY-MM-DD HH:MM:SS), found {}",
                          found_token(stamp, raw, static_cast<std::size_t>(s.column - 1))));
        s.t = *hours;
      }
      if (auto e = value(raw, field.substr(comma + 1, close - comma - 1), s.v)) return e;
      out.push_back(s);
      pos = close + 1;
      skip_blanks();
      if (pos >= field.size()) return std::nullopt;
      if (field[pos] != ',')
        return error(lines_.line_number(), here(),
                     fmt::format("expected ',' or ':' after a pair, found {}",
                                 found_token({}, raw, static_cast<std::size_t>(here() - 1))));
      ++pos;
    }
  }

  std::optional<DataError> stamped_dimensions(std::string_view raw,
                                              const std::vector<std::string_view>& fields,
                                              Sample& out) {
    std::vector<std::vector<Stamped>> dims(*dims_);
    std::vector<double> times;
    for (std::size_t d = 0; d < *dims_; ++d) {
      if (auto e = stamped_dimension(raw, fields[d], dims[d])) return e;
      if (auto e = check_length(raw, fields[d], dims[d].size())) return e;
      std::stable_sort(dims[d].begin(), dims[d].end(),
                       [](const Stamped& a, const Stamped& b) { return a.t < b.t; });
      for (std::size_t i = 1; i < dims[d].size(); ++i)
        if (dims[d][i].t == dims[d][i - 1].t)
          return error(lines_.line_number(), std::max(dims[d][i].column, dims[d][i - 1].column),
                       fmt::format("timestamp {} appears twice in dimension {}", dims[d][i].t, d));
      for (const Stamped& s : dims[d])
        times.push_back(s.t);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    out.values.assign(times.size() * *dims_, kNaN);
    for (std::size_t d = 0; d < *dims_; ++d)
      for (const Stamped& s : dims[d]) {
        const auto i = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), s.t) -
                                                times.begin());
        out.values[i * *dims_ + d] = s.v;
      }
    out.times = std::move(times);
    return std::nullopt;
  }

  std::optional<DataError> target(std::string_view raw, std::string_view token, Sample& out) const {
    if (header_.class_label) {
      const auto it = std::find(header_.classes.begin(), header_.classes.end(), token);
      if (it != header_.classes.end()) {
        out.label = static_cast<int>(it - header_.classes.begin());
        return std::nullopt;
      }
      if (token.empty())
        return error(lines_.line_number(), column_of(raw, token),
                     "expected a class label, found end of line");
      std::string known;
      for (std::size_t i = 0; i < header_.classes.size() && i < 12; ++i)
        known += " " + header_.classes[i];
      if (header_.classes.size() > 12) known += " ...";
      return error_at(raw, token,
                      fmt::format("unknown class label {}; @classLabel declares:{}",
                                  found_token(token), known));
    }
    double v = 0;
    const NumberStatus status = parse_number(token, v);
    if (status != NumberStatus::Ok || std::isnan(v))
      return error(lines_.line_number(), column_of(raw, token),
                   data_detail::number_message("a number as the regression target", status, token));
    out.target = {v};
    return std::nullopt;
  }

  data_detail::LineReader lines_;
  const std::string& file_;
  std::string stem_;
  Header header_;
  std::optional<std::size_t> dims_;
  std::optional<std::size_t> reference_length_;
};

} // namespace

Result<Dataset, DataError> parse_ts(std::string_view text, const std::string& file_name) {
  try {
    return TsParser(text, file_name).run();
  } catch (const std::exception& e) { // only allocation failure can get here
    return file_error(file_name, fmt::format("internal error while reading: {}", e.what()));
  }
}

Result<Dataset, DataError> read_ts(const std::filesystem::path& file) {
  const std::string shown = file.string();
  std::string text;
  try {
    if (auto e = data_detail::read_file(file, shown, text)) return *e;
  } catch (const std::exception& e) {
    return file_error(shown, fmt::format("internal error while reading: {}", e.what()));
  }
  return parse_ts(text, shown);
}

} // namespace plastic::rt
