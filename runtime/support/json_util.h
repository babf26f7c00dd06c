// JSON helpers shared by the training utilities (runtime/io, runtime/train).
//
// JSON has no inf or NaN, yet a best-so-far loss starts at +inf and a
// missing validation metric is NaN; nlohmann::json would write both as null
// and lose which one it was. These helpers write non-finite doubles as the
// strings "inf", "-inf" and "nan" and read them back exactly.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace plastic::rt {

/// A double as JSON: a number when finite, else "inf", "-inf" or "nan".
nlohmann::json json_double(double x);

/// Reads what json_double wrote (also plain integers, and null as NaN).
/// nullopt for anything else.
std::optional<double> read_json_double(const nlohmann::json& j);

/// read_json_double of j[key]; nullopt when the key is missing or malformed.
std::optional<double> read_json_double(const nlohmann::json& j, std::string_view key);

} // namespace plastic::rt
