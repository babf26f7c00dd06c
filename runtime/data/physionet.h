// Reader for the PhysioNet / Computing in Cardiology Challenge 2019 sepsis
// data: a directory of pipe-separated `.psv` files, one ICU stay per file,
// one row per hour, 41 columns (34 vitals and labs, then Age, Gender, Unit1,
// Unit2, HospAdmTime, ICULOS, SepsisLabel), NaN where nothing was recorded.
//
// The choices follow Kidger et al.'s neural CDE preprocessing, which
// Irie et al. (paper 000, Sec. 4, Table 1) reuse — patrick-kidger/NeuralCDE,
// experiments/datasets/sepsis.py, `_process_data`:
//
// * channels: the 34 time-varying columns, in file order;
// * time: ICULOS, the hour of the ICU stay. Kidger et al. insert an all-NaN
//   row for every hour missing from ICULOS (from hour 1 on) so that
//   observation i is at hour i + 1; `fill_missing_hours` does that, otherwise
//   the times are the recorded ICULOS values;
// * static features: Age, Gender, Unit1, Unit2, HospAdmTime, from the stay's
//   last row read, with a missing Unit1, Unit2 or HospAdmTime replaced by 0
//   as Kidger et al. do (the Units are one-hot ICU types; HospAdmTime is
//   missing in one record of the full set). Dropped: ICULOS (it is the time)
//   and SepsisLabel (it is the target);
// * target: binary, "ever septic" = the maximum SepsisLabel over the rows
//   kept — over the whole stay unless `max_hours` truncates it (Kidger et al.
//   keep the first 72 hours and take the maximum over those);
// * "OI" setting (`observational_intensity`): Kidger et al.'s `intensity`
//   switch turns on both `time_intensity` — for each of the 34 channels the
//   cumulative count of its observations, as Count channels placed before the
//   measured ones (transforms.h) — and `static_intensity` — two Indicator
//   statics saying whether Unit1 and Unit2 were recorded. "no-OI" has
//   neither. The time channel itself is added by add_time_channel, which
//   both settings use (Kidger et al.: `append_times=True`).
//
// Files are read in name order (p100001.psv, ...). A stay whose file is
// malformed fails the whole read with file:line:col; the 9271-file set B
// part reads in about half a second.
#pragma once

#include <cstddef>
#include <filesystem>

#include "runtime/data/data_error.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// How to turn stays into samples (defaults: everything as recorded).
struct PhysioNetOptions {
  /// The "OI" setting: cumulative observation counts per channel and
  /// Unit1/Unit2-recorded flags (see file comment). false = "no-OI".
  bool observational_intensity = false;
  /// Keep only rows with ICULOS <= max_hours; 0 keeps the whole stay.
  int max_hours = 0;
  /// Insert all-NaN rows for hours absent from ICULOS (from hour 1).
  bool fill_missing_hours = false;
  /// Drop stays with fewer rows than this after truncation and filling
  /// (a stay with no rows is always dropped).
  std::size_t min_length = 1;

  /// Kidger et al.'s settings: first 72 hours, missing hours filled, stays
  /// of more than 2 rows; OI or no-OI.
  static PhysioNetOptions kidger2020(bool observational_intensity) {
    PhysioNetOptions o;
    o.observational_intensity = observational_intensity;
    o.max_hours = 72;
    o.fill_missing_hours = true;
    o.min_length = 3;
    return o;
  }
};

/// Reads every `*.psv` file of `directory` (not recursive).
Result<Dataset, DataError> read_physionet2019(const std::filesystem::path& directory,
                                              const PhysioNetOptions& options = {});

/// Parses one stay's text; `file_name` names it in errors and gives the
/// sample id (its stem). Returns a dataset of one sample, or of none when the
/// stay is dropped by `options`.
Result<Dataset, DataError> parse_physionet2019_stay(std::string_view text,
                                                    const std::string& file_name,
                                                    const PhysioNetOptions& options = {});

} // namespace plastic::rt
