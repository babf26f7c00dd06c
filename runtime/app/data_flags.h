// The command-line flags that say how to read a .csv file or a folder of
// .npy series — which columns are targets, the label, the time, channels,
// series ids, statics; windows and the sampling period; the separator,
// decimal comma and missing-value number — kept as typed so that `train`
// can record them in the run folder (data.json, preprocessing.h) and
// `eval`, `predict` and `train --resume` read the data the same way
// without the flags being repeated.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/app/app_error.h"
#include "runtime/data/open_data.h"

namespace plastic::rt {

/// Each flag's text as given; empty = not given.
struct DataFlags {
  std::string target;     ///< --target COLS | next
  std::string label;      ///< --label COL
  std::string time;       ///< --time COL | DATE_COL,CLOCK_COL
  std::string date_order; ///< --date-order dmy | mdy | ymd
  std::string channels;   ///< --channels COLS
  std::string id;         ///< --id COL
  std::string statics;    ///< --static COLS (value at each sample's first row)
  std::string window;     ///< --window N
  std::string period;     ///< --period X
  std::string sep;        ///< --sep C | tab
  std::string decimal;    ///< --decimal . | ,
  std::string missing;    ///< --missing X

  bool operator==(const DataFlags&) const = default;
};

/// The given flags as a JSON object {"target": "...", ...}.
nlohmann::json data_flags_json(const DataFlags& flags);
/// Back from data_flags_json (unknown keys are an error: a newer record).
Result<DataFlags, AppError> data_flags_from_json(const nlohmann::json& j);

/// Fills the CSV options and the series shaping of `options` from `flags`;
/// a malformed value is a usage error (exit 2) naming the flag.
Status<AppError> apply_data_flags(const DataFlags& flags, DataOptions& options);

/// How the flags of a run folder's record combine with those given now.
enum class RecordedFlags {
  Resume, ///< the record wins; a given flag that differs from it is refused
  Reuse,  ///< the record fills the flags not given (eval, predict)
};

/// Reads the data flags recorded in `run_dir`/data.json (if any) into
/// `flags` as `how` says.
Status<AppError> recall_data_flags(const std::filesystem::path& run_dir, RecordedFlags how,
                                   DataFlags& flags);

} // namespace plastic::rt
